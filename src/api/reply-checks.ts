/**
 * What the service returns, checked as strictly as what a user configures, before any of it
 * reaches a caller (and through the provider: state, a plan, a log or a report). The one place
 * for it, at the client's boundary:
 *
 * - an entry's `ip` is an address or CIDR of the contract, and is handed on in its canonical
 *   spelling (`10.0.0.1/32` -> `10.0.0.1`, `2001:DB8::1` -> `2001:db8::1`);
 * - entries that are one address once canonical are merged: the first listed is kept, and a
 *   warning names the others, so nothing downstream silently keeps whichever came last;
 * - text (descriptions, audit users, actions) holds no character that could rewrite a terminal or
 *   reorder what a reviewer reads: such characters are escaped to visible `\uXXXX` (display-text.ts),
 *   with a warning;
 * - a description longer than MAX_DESCRIPTION_LENGTH, or an audit text longer than
 *   MAX_AUDIT_TEXT_LENGTH, is cut, with a warning naming the field and the length;
 * - numbers (`created`, `expires`, `timestamp`) are whole, non-negative epoch seconds no larger
 *   than Number.MAX_SAFE_INTEGER; `null`, `1e308` or `1.5` is refused with an error naming the field.
 *
 * Refusals throw ReplyValueError, which the client turns into an UnexpectedReplyError carrying
 * the HTTP status and X-Request-ID; warnings are returned for the client to report.
 */
import { checkAddress } from '../address';
import { MAX_DESCRIPTION_LENGTH } from '../description';
import { describeValueForMessage, escapeForDisplay, needsEscaping, quoteForMessage } from '../display-text';
import type { AuditEvent, ListEntry } from './types';

/** Audit texts (user, category, action, description) are cut at this many characters. */
export const MAX_AUDIT_TEXT_LENGTH = 4096;

/** A value the service returned that cannot be used, with the field it came in. */
export class ReplyValueError extends Error {
  constructor(
    /** e.g. `Ok[3].created`. */
    readonly field: string,
    message: string,
    /** The item (entry, event) the field belongs to, for an excerpt of what the service answered. */
    readonly item: unknown,
  ) {
    super(message);
    this.name = 'ReplyValueError';
  }
}

/** Something the service returned that was usable only after a change (merged, escaped, cut). */
export interface ReplyWarning {
  /** What was changed: addresses merged, characters escaped, a text cut. */
  readonly kind: 'duplicate' | 'escaped' | 'cut';
  /** e.g. `Ok[3].description`. */
  readonly field: string;
  /** One sentence, already safe to show (values escaped and cut). */
  readonly message: string;
}

export interface Checked<Value> {
  readonly value: Value;
  readonly warnings: readonly ReplyWarning[];
}

/**
 * The entries of a `list_<list>` reply, checked, canonical and without duplicates, in the order
 * listed. `items` is the array under "Ok".
 */
export function checkListEntries(items: readonly unknown[]): Checked<ListEntry[]> {
  const warnings: ReplyWarning[] = [];
  // Descriptions as the service sent them (quoteForMessage escapes them once for the warning).
  const byIp = new Map<string, { entry: ListEntry; field: string; kept: string; spellings: string[]; dropped: string[] }>();
  items.forEach((item, index) => {
    const field = `Ok[${index}]`;
    const entry = checkEntry(item, field, warnings);
    const { ip: spelling, description } = item as { ip: string; description?: string | null };
    const first = byIp.get(entry.ip);
    if (first === undefined) {
      byIp.set(entry.ip, { entry, field, kept: description ?? '', spellings: [spelling], dropped: [] });
      return;
    }
    first.spellings.push(spelling);
    first.dropped.push(description ?? '');
  });
  for (const { entry, field, kept, spellings, dropped } of byIp.values()) {
    if (spellings.length === 1) continue;
    const differing = dropped.filter((description) => description !== kept);
    const which =
      differing.length === 0
        ? 'all with the same description'
        : `kept the first, description ${quoteForMessage(kept)}; ignored ${quoteSome(differing)}`;
    warnings.push({
      kind: 'duplicate',
      field,
      message:
        `the service lists ${entry.ip} ${spellings.length} times (as ${quoteSome(spellings)}), ` +
        `one address once canonical: merged into one entry, ${which}. Remove the duplicates on the service.`,
    });
  }
  return { value: [...byIp.values()].map(({ entry }) => entry), warnings };
}

/** One entry (a `get_<list>` reply, or one item of a list), checked and canonical. */
export function checkListEntry(item: unknown, field = 'Ok'): Checked<ListEntry> {
  const warnings: ReplyWarning[] = [];
  return { value: checkEntry(item, field, warnings), warnings };
}

/** The events of an `audit_events` reply, checked; texts escaped and cut. */
export function checkAuditEvents(items: readonly unknown[]): Checked<AuditEvent[]> {
  const warnings: ReplyWarning[] = [];
  const value = items.map((item, index) => {
    const field = `Ok[${index}]`;
    const record = asRecord(item, field);
    // Only the contract's fields go on: nothing unchecked reaches a caller.
    const event: Record<string, unknown> = {};
    event.timestamp = epochSeconds(record.timestamp, `${field}.timestamp`, item);
    for (const name of ['user', 'category', 'action', 'description'] as const) {
      event[name] = checkText(record[name], `${field}.${name}`, MAX_AUDIT_TEXT_LENGTH, `audit event ${index + 1}'s ${name}`, warnings, item);
    }
    return event as AuditEvent;
  });
  return { value, warnings };
}

function checkEntry(item: unknown, field: string, warnings: ReplyWarning[]): ListEntry {
  const record = asRecord(item, field);
  if (typeof record.ip !== 'string') throw new ReplyValueError(`${field}.ip`, `${field} has no text "ip"`, item);
  const checked = checkAddress(record.ip);
  if (!checked.ok) {
    throw new ReplyValueError(`${field}.ip`, `${field}.ip ${quoteForMessage(record.ip)} is not an IP address or CIDR: ${checked.error.reason}`, item);
  }
  const ip = checked.canonical;
  const rawDescription = record.description ?? '';
  if (typeof rawDescription !== 'string') throw new ReplyValueError(`${field}.description`, `${field} has a "description" that is not text`, item);
  const description = checkText(rawDescription, `${field}.description`, MAX_DESCRIPTION_LENGTH, `the entry ${ip}'s description`, warnings, item);
  const created = epochSeconds(record.created, `${field}.created`, item);
  const entry: Record<string, unknown> = { ip, description, created };
  if (record.expires !== undefined && record.expires !== null) entry.expires = epochSeconds(record.expires, `${field}.expires`, item);
  return entry as unknown as ListEntry;
}

/** The first few texts quoted, and how many more there are: a thousand duplicates make one short warning. */
function quoteSome(texts: readonly string[], shown = 5): string {
  const quoted = texts.slice(0, shown).map((text) => quoteForMessage(text)).join(', ');
  return texts.length > shown ? `${quoted} and ${texts.length - shown} more` : quoted;
}

function asRecord(item: unknown, field: string): Record<string, unknown> {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new ReplyValueError(field, `${field} is not an object`, item);
  return item as Record<string, unknown>;
}

/** Whole epoch seconds, as the contract has them; anything else names the field and the value. */
function epochSeconds(value: unknown, field: string, item: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const shown = typeof value === 'number' ? String(value) : value === undefined ? 'missing' : describeValueForMessage(value);
  throw new ReplyValueError(field, `${field} is ${shown}; expected whole epoch seconds (an integer from 0 to ${Number.MAX_SAFE_INTEGER})`, item);
}

/** A text field: absent or null is "", anything else not text is refused; cut, then escaped. */
function checkText(value: unknown, field: string, limit: number, what: string, warnings: ReplyWarning[], item: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ReplyValueError(field, `${field} is ${describeValueForMessage(value)}; expected text`, item);
  let text = value;
  // Only a text longer in code units than the limit can be longer in characters.
  const length = text.length <= limit ? text.length : [...text].length;
  if (length > limit) {
    text = `${[...text.slice(0, limit * 2)].slice(0, limit).join('')}...`;
    warnings.push({
      kind: 'cut',
      field,
      message: `${what} is ${length} characters long; cut to its first ${limit} (${field})`,
    });
  }
  if (needsEscaping(text)) {
    warnings.push({
      kind: 'escaped',
      field,
      message: `${what} holds control or bidirectional-override characters; they are shown escaped, as ${quoteForMessage(text)} (${field})`,
    });
    text = escapeForDisplay(text);
  }
  return text;
}
