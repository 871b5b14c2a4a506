/** `svc audit [--limit N]`: the tenant's newest audit events, newest first. */
import { forTerminal, safeJson } from '../untrusted-text';
import { choice, parseArguments, positionals, wholeNumber } from './arguments';
import type { SvcCommand, SvcContext } from './command';
import { withClient } from './service-settings';
import { isoTime, textTable } from './text-table';

/** The most one call asks for; the service answers at most `limit` events and offers no paging. */
export const MAX_AUDIT_LIMIT = 10_000;

const USAGE = `Usage: svc audit [--limit N] [--format text|json]

The tenant's newest audit events, newest first: time (UTC), user, category/action and the
description (who added or removed which address on which list, SSO changes, risk-based blocks).

Options:
  --limit N        how many events, 1 to ${MAX_AUDIT_LIMIT} (default 50)
  --format FORMAT  text (default) or json (the events as the service returned them)

Configuration: SVC_BASE_URL, SVC_TENANT, SVC_API_KEY (svc --help).
Exit status: 0 done; 1 an error.`;

async function run(argv: readonly string[], context: SvcContext): Promise<number> {
  const parsed = parseArguments(argv, { '--limit': { takesValue: true, example: '200' }, '--format': { takesValue: true, example: 'json' } }, 'audit');
  positionals(parsed, [], 'audit');
  const limit = wholeNumber(parsed, '--limit', 1, MAX_AUDIT_LIMIT, 50);
  const format = choice(parsed, '--format', ['text', 'json'] as const, 'text');
  return withClient(context, async (client) => {
    const events = await client.auditEvents(limit);
    if (format === 'json') {
      context.stdout(`${safeJson(events)}\n`);
      return 0;
    }
    const rows = events.map((event) => [isoTime(event.timestamp), forTerminal(String(event.user), 60), forTerminal(`${event.category}/${event.action}`, 60), forTerminal(String(event.description), 300)]);
    for (const line of textTable(['TIME', 'USER', 'EVENT', 'DESCRIPTION'], rows)) context.stdout(`${line}\n`);
    if (events.length === limit) context.stderr(`(${limit} events shown; older ones exist or may exist: --limit up to ${MAX_AUDIT_LIMIT})\n`);
    return 0;
  });
}

export const AUDIT_COMMAND: SvcCommand = {
  name: 'audit',
  summary: "the tenant's newest audit events (who changed what, when)",
  usage: USAGE,
  run,
};
