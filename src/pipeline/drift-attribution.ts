/**
 * Who drifted it: for each svc list entry or SSO setting the drift check finds changed outside
 * terraform, the newest matching event of the tenant's audit log (`audit_events`, one call per
 * tenant), or the honest answer that none matched. Matching follows the contract: a user's add
 * records Lists/new_entry and a removal Lists/remove_entry, each naming the address and the
 * list; risk-based blocking records User Actions/block_entity or blacklist_entity; an SSO
 * change records Sites/update_site or unset_field naming the tenant or channel.
 */
import { checkAddress } from '../address';
import type { AuditEvent, ListName } from '../api/types';
import { LIST_NAMES } from '../api/types';

/** Events read per tenant first: far more than a day of console work, one call. */
export const AUDIT_EVENTS_SEARCHED = 1000;
/**
 * The most read per tenant: the API offers no paging, only `limit`, so a window that comes back
 * full with a subject unexplained is asked again once with this limit. One bulk call of 1,000
 * copies of an address cannot push a removal out of it; 10,000 can, and then the answer is
 * "unknown: the audit window is full", never a guess.
 */
export const MAX_AUDIT_EVENTS_SEARCHED = 10_000;

export type DriftKind = 'entry removed' | 'entry added' | 'entry changed' | 'sso changed';

export interface DriftSubject {
  /** The resource address in the plan. */
  readonly address: string;
  readonly kind: DriftKind;
  /** The tenant whose audit log tells; undefined: the provider's default tenant. */
  readonly tenant: string | undefined;
  readonly list?: ListName;
  /** Canonical, as the service writes it in audit descriptions. */
  readonly ip?: string;
  /** `Customer <name>` or `Channel <name>`, for SSO. */
  readonly ssoOwner?: { readonly kind: 'tenant' | 'channel'; readonly name: string };
}

/** The parts of a `resource_drift` item read here (terraform show -json). */
export interface DriftedResource {
  readonly address: string;
  readonly type?: string;
  readonly mode?: string;
  readonly change: { readonly actions: readonly string[]; readonly before?: unknown; readonly after?: unknown };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringField(value: unknown, field: string): string | undefined {
  const found = record(value)[field];
  return typeof found === 'string' && found !== '' ? found : undefined;
}

function canonical(ip: string): string {
  const checked = checkAddress(ip);
  return checked.ok ? checked.canonical : ip;
}

const ENTRY_TYPE = /^svc_(blacklist|blocklist|whitelist)_entry$/;
const LIST_TYPE = /^svc_(blacklist|blocklist|whitelist)$/;

/** What changed outside terraform in svc resources, one subject per entry or SSO setting. */
export function driftSubjects(drift: readonly DriftedResource[]): DriftSubject[] {
  const subjects: DriftSubject[] = [];
  for (const item of drift) {
    if (item.mode !== undefined && item.mode !== 'managed') continue;
    const type = item.type ?? item.address.split('.').slice(-2, -1)[0] ?? '';
    const { before, after, actions } = item.change;
    const tenant = stringField(before, 'tenant') ?? stringField(after, 'tenant');
    const entryType = ENTRY_TYPE.exec(type);
    if (entryType !== null) {
      const ip = stringField(before, 'ip') ?? stringField(after, 'ip');
      if (ip === undefined) continue;
      const kind: DriftKind = actions.includes('delete') && !actions.includes('create') ? 'entry removed' : 'entry changed';
      subjects.push({ address: item.address, kind, tenant, list: entryType[1] as ListName, ip: canonical(ip) });
      continue;
    }
    const listType = LIST_TYPE.exec(type);
    if (listType !== null) {
      const list = listType[1] as ListName;
      const beforeEntries = record(record(before).entries);
      const afterEntries = record(record(after).entries);
      for (const ip of Object.keys({ ...beforeEntries, ...afterEntries }).sort()) {
        const inBefore = Object.hasOwn(beforeEntries, ip);
        const inAfter = Object.hasOwn(afterEntries, ip);
        const kind: DriftKind | undefined = inBefore && !inAfter ? 'entry removed' : !inBefore && inAfter ? 'entry added' : beforeEntries[ip] !== afterEntries[ip] ? 'entry changed' : undefined;
        if (kind !== undefined) subjects.push({ address: item.address, kind, tenant, list, ip: canonical(ip) });
      }
      continue;
    }
    if (type === 'svc_tenant_sso' || type === 'svc_channel_sso') {
      const name = stringField(before, 'name') ?? stringField(after, 'name');
      if (name === undefined) continue;
      const kind = type === 'svc_tenant_sso' ? 'tenant' : 'channel';
      // A channel spans tenants and every tenant's log records its change: the default tenant's will do.
      subjects.push({ address: item.address, kind: 'sso changed', tenant: kind === 'tenant' ? name : undefined, ssoOwner: { kind, name } });
    }
  }
  return subjects;
}

/**
 * The description's words, so `192.0.2.1` does not match `192.0.2.10`. Not split at ':' (IPv6
 * addresses hold it); a word's trailing punctuation is dropped unless it is an address's `::`.
 */
function words(description: string): string[] {
  return description
    .split(/[\s,;()"']+/)
    .map((word) => (word.endsWith('::') ? word : word.replace(/[.:]+$/, '')))
    .filter((word) => word !== '');
}

function namesAddress(event: AuditEvent, ip: string): boolean {
  return words(event.description).some((word) => {
    const checked = checkAddress(word);
    return checked.ok && checked.canonical === ip;
  });
}

function namesList(event: AuditEvent, list: ListName): boolean {
  const text = event.description.toLowerCase();
  // Only this list: "moved to blacklist" names the blacklist, not the blocklist it left.
  return text.includes(list) || !LIST_NAMES.some((other) => other !== list && text.includes(other));
}

const RISK_ACTIONS: Partial<Record<ListName, string>> = {
  blocklist: 'block_entity',
  blacklist: 'blacklist_entity',
};

/** Whether the event is about the subject at all (any change of that entry or SSO setting). */
function isAbout(subject: DriftSubject, event: AuditEvent): boolean {
  if (subject.kind === 'sso changed') {
    const owner = subject.ssoOwner!;
    const label = owner.kind === 'tenant' ? 'customer' : 'channel';
    return (event.action === 'update_site' || event.action === 'unset_field') && event.description.toLowerCase().includes(label) && words(event.description).includes(owner.name);
  }
  const { ip, list } = subject;
  if (ip === undefined || list === undefined || !namesAddress(event, ip)) return false;
  if (event.action === 'new_entry' || event.action === 'remove_entry') return namesList(event, list);
  // Risk-based blocking onto this list. A move from the blocklist to the blacklist is an add to
  // another list: it never explains a removal (a user's removal before it would be hidden).
  return event.action === RISK_ACTIONS[list];
}

/** Whether that event explains this kind of change. */
function explains(subject: DriftSubject, event: AuditEvent): boolean {
  switch (subject.kind) {
    case 'sso changed':
      return true;
    case 'entry removed':
      return event.action === 'remove_entry';
    case 'entry added':
    case 'entry changed':
      return event.action === 'new_entry' || event.action === RISK_ACTIONS[subject.list!];
  }
}

/**
 * The event that explains the subject: the newest event about it (events come newest first),
 * if it is of the right kind. An older one does not count: after `remove_entry` then terraform's
 * own `new_entry`, a second disappearance (a blocklist entry's expiry) is not that removal.
 */
export function matchAuditEvent(subject: DriftSubject, events: readonly AuditEvent[]): AuditEvent | undefined {
  const newest = events.find((event) => isAbout(subject, event));
  return newest !== undefined && explains(subject, newest) ? newest : undefined;
}

function isoMinute(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/:\d\d\.\d{3}Z$/, 'Z');
}

function subjectText(subject: DriftSubject): string {
  switch (subject.kind) {
    case 'entry removed':
      return `${subject.ip} deleted outside terraform from the ${subject.list}`;
    case 'entry added':
      return `${subject.ip} added outside terraform to the ${subject.list}`;
    case 'entry changed':
      return `${subject.ip} changed outside terraform on the ${subject.list}`;
    case 'sso changed':
      return `SSO of ${subject.ssoOwner!.kind} ${subject.ssoOwner!.name} changed outside terraform`;
  }
}

/**
 * How sure an attribution is: `matched` (the newest event about it explains it), `no event`
 * (the log was read to its start and nothing explains it), `window full` (the events read do not
 * reach back far enough to say), `unreadable` (the log could not be read).
 */
export type AttributionCertainty = 'matched' | 'no event' | 'window full' | 'unreadable';

export interface Attribution {
  readonly subject: DriftSubject;
  readonly certainty: AttributionCertainty;
  readonly event?: AuditEvent;
  /** How many events were searched. */
  readonly searched: number;
  /** One line for people (service text escaped by the caller). */
  readonly text: string;
}

/** One line for people: who and when, or that no event matched (and the likely reason), or that the window was full. */
export function describeAttribution(subject: DriftSubject, event: AuditEvent | undefined, searched: number, windowFull = false): string {
  if (event !== undefined) {
    return `${subjectText(subject)}: ${event.category}/${event.action} by ${event.user} at ${isoMinute(event.timestamp)}`;
  }
  if (windowFull) return `${subjectText(subject)}: unknown: the audit window is full (the newest ${searched} events hold no event that explains it)`;
  const expiry = subject.kind === 'entry removed' && subject.list === 'blocklist' ? '; blocklist entries also end on their own 30 minutes after they are added' : '';
  return `${subjectText(subject)}: no matching audit event in the tenant's last ${searched} events${expiry}`;
}

/** Reads a tenant's newest `limit` events (tenant undefined: the default tenant). */
export type AuditLookup = (tenant: string | undefined, limit: number) => Promise<readonly AuditEvent[]>;

/**
 * One attribution per subject. Each tenant's log is read once (AUDIT_EVENTS_SEARCHED events);
 * when that window comes back full and leaves a subject unexplained, once more with
 * MAX_AUDIT_EVENTS_SEARCHED; a window still full says "unknown" rather than name anyone from
 * what is left. A log that cannot be read gives its reason per subject, never the key; the
 * drift verdict does not depend on it.
 */
export async function attributeDriftDetailed(subjects: readonly DriftSubject[], lookup: AuditLookup): Promise<Attribution[]> {
  const logs = new Map<string, { limit: number; events: Promise<readonly AuditEvent[]> }>();
  const read = (tenant: string | undefined, limit: number) => {
    const key = tenant ?? '';
    const known = logs.get(key);
    if (known !== undefined && known.limit >= limit) return known.events;
    const events = lookup(tenant, limit);
    logs.set(key, { limit, events });
    return events;
  };
  const results: Attribution[] = [];
  for (const subject of subjects) {
    try {
      let limit = logs.get(subject.tenant ?? '')?.limit ?? AUDIT_EVENTS_SEARCHED;
      let events = await read(subject.tenant, limit);
      let event = matchAuditEvent(subject, events);
      if (event === undefined && events.length >= limit && limit < MAX_AUDIT_EVENTS_SEARCHED) {
        limit = MAX_AUDIT_EVENTS_SEARCHED;
        events = await read(subject.tenant, limit);
        event = matchAuditEvent(subject, events);
      }
      const windowFull = event === undefined && events.length >= limit;
      const certainty: AttributionCertainty = event !== undefined ? 'matched' : windowFull ? 'window full' : 'no event';
      results.push({ subject, certainty, ...(event === undefined ? {} : { event }), searched: events.length, text: describeAttribution(subject, event, events.length, windowFull) });
    } catch (error) {
      results.push({ subject, certainty: 'unreadable', searched: 0, text: `${subjectText(subject)}: who did it is unknown, the audit log could not be read (${(error as Error).message})` });
    }
  }
  return results;
}
