/**
 * `svc sso show tenant|channel [NAME]`: the single sign-on settings of the tenant or a channel,
 * with what they mean for signing in to the dashboard.
 */
import type { SsoSettings } from '../../api/types';
import { forTerminal, safeJson } from '../untrusted-text';
import { choice, parseArguments, positionals } from './arguments';
import { SvcCommandError, type SvcCommand, type SvcContext } from './command';
import { withClient } from './service-settings';

const USAGE = `Usage: svc sso show tenant|channel [NAME] [--format text|json]

The SSO settings (enabled, required, SAML metadata URL) of a tenant (default: SVC_TENANT) or of
a channel (default: every channel), and what they mean for signing in to the dashboard.

Options:
  --format FORMAT  text (default) or json

Configuration: SVC_BASE_URL, SVC_TENANT, SVC_API_KEY (svc --help).
Exit status: 0 done; 1 an error (or no tenant or channel of that name).`;

/** What the settings mean for a person signing in, in one line. */
export function ssoConsequence(sso: SsoSettings | null): string {
  if (sso === null || !sso.enabled) return 'SSO off: users sign in with their password';
  if (sso.required) return 'SSO required: password sign-in to the dashboard is refused; everyone signs in through the identity provider';
  return 'SSO on, not required: users may sign in through the identity provider or with their password';
}

function describe(kind: string, name: string, sso: SsoSettings | null): string[] {
  return [
    `${kind} ${forTerminal(name, 100)}:`,
    `  enabled            ${sso?.enabled ?? false}`,
    `  required           ${sso?.required ?? false}`,
    `  saml_metadata_url  ${sso === null ? '(none)' : forTerminal(sso.saml_metadata_url, 300)}`,
    `  ${ssoConsequence(sso)}`,
  ];
}

async function run(argv: readonly string[], context: SvcContext): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'show') throw new SvcCommandError(verb === undefined ? 'say what to do: svc sso show tenant|channel [NAME]' : `unknown verb ${JSON.stringify(verb)}; the one verb is show`);
  const parsed = parseArguments(rest, { '--format': { takesValue: true, example: 'json' } }, 'sso show');
  const [kind, name] = positionals(parsed, ['tenant|channel'], 'sso show', ['NAME']);
  if (kind !== 'tenant' && kind !== 'channel') throw new SvcCommandError(`${JSON.stringify(kind)}: say tenant or channel`);
  const format = choice(parsed, '--format', ['text', 'json'] as const, 'text');
  return withClient(context, async (client, settings) => {
    const found: Array<{ kind: string; name: string; sso: SsoSettings | null }> = [];
    if (kind === 'tenant') {
      const wanted = name ?? settings.tenant;
      const tenant = (await client.listCustomers()).find((customer) => customer.name === wanted);
      if (tenant === undefined) throw new SvcCommandError(`no tenant named ${JSON.stringify(wanted)} is visible to this key`);
      found.push({ kind: 'tenant', name: tenant.name, sso: tenant.sso });
    } else {
      const channels = (await client.listChannels()).filter((channel) => name === undefined || channel.name === name);
      if (channels.length === 0) throw new SvcCommandError(name === undefined ? 'the service lists no channels' : `no channel named ${JSON.stringify(name)}`);
      found.push(...channels.map((channel) => ({ kind: 'channel', name: channel.name, sso: channel.sso })));
    }
    if (format === 'json') context.stdout(`${safeJson(found.map((item) => ({ ...item, consequence: ssoConsequence(item.sso) })))}\n`);
    else for (const item of found) for (const line of describe(item.kind, item.name, item.sso)) context.stdout(`${line}\n`);
    return 0;
  });
}

export const SSO_COMMAND: SvcCommand = {
  name: 'sso',
  summary: 'show the single sign-on settings of the tenant or a channel',
  usage: USAGE,
  run,
};
