/**
 * What a saved plan does to the security policy, for the people who review it: from
 * `terraform show -json <plan>` (and, optionally, the diagnostics of `terraform plan -json`),
 * per tenant and list the addresses added, removed and re-described, whether they come from a
 * whole-list resource (its map diffed entry by entry) or per-entry resources; SSO changes with
 * their consequence for signing in named; resources of other providers counted only; drift
 * (`resource_drift`, what changed outside terraform) apart from what the configuration changes.
 * Nothing is dropped here: renderers (plan-report-render.ts) decide what fits a comment.
 */
import { checkAddress } from '../address';
import { LIST_NAMES, type ListName } from '../api/types';

export type EntryChangeKind = 'added' | 'removed' | 're-described';

export interface Finding {
  readonly severity: 'error' | 'warning';
  readonly summary: string;
  readonly detail: string;
  /** The resource terraform names, when it names one. */
  readonly address?: string;
}

export interface EntryChange {
  readonly kind: EntryChangeKind;
  /** Canonical. */
  readonly ip: string;
  /** Absent for an addition; "(sensitive)" or "(known after apply)" where the plan hides it. */
  readonly before?: string;
  readonly after?: string;
  /** The resource that makes the change (a whole list, or a per-entry resource). */
  readonly address: string;
  readonly findings: Finding[];
}

export interface ListChanges {
  /** The tenant, or DEFAULT_TENANT when the plan leaves it to the provider. */
  readonly tenant: string;
  readonly list: ListName;
  readonly entries: EntryChange[];
  /** Resource-level notes: a whole list replaced (emptied, then filled), entries not known until apply. */
  readonly notes: string[];
  /** Findings about a resource of this list that name no changed entry. */
  readonly findings: Finding[];
}

export interface SsoSide {
  readonly enabled: boolean | 'unknown';
  readonly required: boolean | 'unknown';
  readonly saml_metadata_url: string | null | 'unknown';
  /** The resource's opt-out of the provider's SSO lockout guard: the sign-in was tested elsewhere. */
  readonly sign_in_tested_elsewhere?: boolean;
}

export interface SsoChange {
  readonly address: string;
  readonly owner: { readonly kind: 'tenant' | 'channel'; readonly name: string };
  readonly action: 'create' | 'update' | 'delete' | 'replace';
  /** null: SSO off (no resource before, or destroyed). */
  readonly before: SsoSide | null;
  readonly after: SsoSide | null;
  /** What the change means for people signing in to the dashboard, most severe first. */
  readonly consequences: string[];
  readonly findings: Finding[];
}

export interface ResourceCount {
  readonly provider: string;
  readonly create: number;
  readonly update: number;
  readonly delete: number;
  readonly replace: number;
}

export interface PolicyChanges {
  readonly lists: ListChanges[];
  readonly sso: SsoChange[];
  /** svc resources that are neither lists nor SSO, and every other provider's, counted. */
  readonly otherResources: ResourceCount[];
}

export interface PlanReport {
  readonly changes: PolicyChanges;
  /** What refresh found changed outside terraform. */
  readonly drift: PolicyChanges;
  /** Findings that name no svc change (or no resource at all). */
  readonly findings: Finding[];
  readonly totals: {
    readonly added: number;
    readonly removed: number;
    readonly redescribed: number;
    readonly sso: number;
    readonly otherResources: number;
    readonly drift: number;
    readonly errors: number;
    readonly warnings: number;
  };
}

/** The label of entries whose tenant the plan leaves to the provider's setting. */
export const DEFAULT_TENANT = "(the provider's tenant)";
const SVC_PROVIDER = /(^|\/)svc-prevent\/svc$/;
const WHOLE_LIST = /^svc_(blacklist|blocklist|whitelist)$/;
const LIST_ENTRY = /^svc_(blacklist|blocklist|whitelist)_entry$/;
const SSO_TYPES: Record<string, 'tenant' | 'channel'> = { svc_tenant_sso: 'tenant', svc_channel_sso: 'channel' };

/** The parts of terraform's JSON plan read here. */
export interface JsonChange {
  readonly actions: readonly string[];
  readonly before?: unknown;
  readonly after?: unknown;
  readonly after_unknown?: unknown;
  readonly before_sensitive?: unknown;
  readonly after_sensitive?: unknown;
}
export interface JsonResourceChange {
  readonly address: string;
  readonly mode?: string;
  readonly type?: string;
  readonly provider_name?: string;
  readonly change: JsonChange;
}
export interface JsonPlanDocument {
  readonly format_version?: string;
  readonly resource_changes?: readonly JsonResourceChange[];
  readonly resource_drift?: readonly JsonResourceChange[];
  readonly configuration?: { readonly provider_config?: Record<string, { readonly name?: string; readonly expressions?: Record<string, { readonly constant_value?: unknown }> }> };
}

export class PlanReportError extends Error {
  readonly code = 'plan_report';
  constructor(message: string) {
    super(message);
    this.name = 'PlanReportError';
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function canonical(ip: string): string {
  const checked = checkAddress(ip);
  return checked.ok ? checked.canonical : ip;
}

/** A value of the plan as text: "(sensitive)" and "(known after apply)" where terraform says so. */
function shown(value: unknown, sensitive: unknown, unknown: unknown): string {
  if (unknown === true) return '(known after apply)';
  if (sensitive === true) return '(sensitive)';
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

type Actions = 'create' | 'update' | 'delete' | 'replace' | null;

function actionOf(actions: readonly string[]): Actions {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  const [first] = actions;
  return first === 'create' || first === 'update' || first === 'delete' ? first : null;
}

/** The tenant of one side of a change: the attribute, else the provider block's literal tenant, else DEFAULT_TENANT. */
function tenantOf(side: unknown, defaultTenant: string): string {
  const tenant = record(side).tenant;
  return typeof tenant === 'string' && tenant !== '' ? tenant : defaultTenant;
}

class ChangeCollector {
  private readonly lists = new Map<string, ListChanges>();
  readonly sso: SsoChange[] = [];
  private readonly others = new Map<string, { create: number; update: number; delete: number; replace: number }>();

  constructor(private readonly defaultTenant: string) {}

  listFor(tenant: string, list: ListName): ListChanges {
    const key = `${tenant}\u0000${list}`;
    let found = this.lists.get(key);
    if (found === undefined) {
      found = { tenant, list, entries: [], notes: [], findings: [] };
      this.lists.set(key, found);
    }
    return found;
  }

  count(provider: string, action: Exclude<Actions, null>): void {
    const counts = this.others.get(provider) ?? { create: 0, update: 0, delete: 0, replace: 0 };
    counts[action] += 1;
    this.others.set(provider, counts);
  }

  add(change: JsonResourceChange): void {
    if (change.mode !== undefined && change.mode !== 'managed') return;
    const action = actionOf(change.change.actions);
    if (action === null) return;
    const type = change.type ?? change.address.split('.').slice(-2, -1)[0] ?? '';
    const provider = change.provider_name ?? 'unknown provider';
    if (!SVC_PROVIDER.test(provider)) return this.count(provider, action);
    const whole = WHOLE_LIST.exec(type);
    if (whole !== null) return this.addWholeList(change, whole[1] as ListName, action);
    const entry = LIST_ENTRY.exec(type);
    if (entry !== null) return this.addEntryResource(change, entry[1] as ListName, action);
    const ssoKind = SSO_TYPES[type];
    if (ssoKind !== undefined) return this.addSso(change, ssoKind, action);
    this.count(provider, action);
  }

  private addWholeList(change: JsonResourceChange, list: ListName, action: Exclude<Actions, null>): void {
    const { before, after, after_unknown: afterUnknown, before_sensitive: beforeSensitive, after_sensitive: afterSensitive } = change.change;
    const beforeTenant = tenantOf(before, this.defaultTenant);
    const afterTenant = tenantOf(after, record(afterUnknown).tenant === true ? this.defaultTenant : beforeTenant);
    const entriesOf = (side: unknown) => new Map(Object.entries(record(record(side).entries)).map(([ip, description]) => [canonical(ip), String(description ?? '')]));
    const beforeEntries = action === 'create' ? new Map<string, string>() : entriesOf(before);
    const afterEntries = action === 'delete' ? new Map<string, string>() : entriesOf(after);
    const entriesUnknown = action !== 'delete' && (record(afterUnknown).entries === true || afterUnknown === true);
    const beforeMask = record(record(beforeSensitive).entries);
    const afterMask = record(record(afterSensitive).entries);
    const sensitiveEntries = record(beforeSensitive).entries === true || record(afterSensitive).entries === true;
    const text = (value: string | undefined, mask: Record<string, unknown>, ip: string) => (value === undefined ? undefined : sensitiveEntries || mask[ip] === true ? '(sensitive)' : value);
    if (action === 'replace' && beforeTenant === afterTenant) {
      this.listFor(beforeTenant, list).notes.push(
        `${change.address} is replaced: its ${beforeEntries.size} entries are removed and then added again, so the list is without them for a moment`,
      );
    }
    if (entriesUnknown) {
      this.listFor(afterTenant, list).notes.push(`${change.address}: the entries are not known until apply (they depend on other resources)`);
    }
    const sameTenant = beforeTenant === afterTenant && action !== 'replace';
    for (const [ip, description] of beforeEntries) {
      const next = sameTenant ? afterEntries.get(ip) : undefined;
      if (next === undefined && !entriesUnknown) {
        this.listFor(beforeTenant, list).entries.push({ kind: 'removed', ip, before: text(description, beforeMask, ip), address: change.address, findings: [] });
      } else if (next !== undefined && next !== description) {
        this.listFor(beforeTenant, list).entries.push({ kind: 're-described', ip, before: text(description, beforeMask, ip), after: text(next, afterMask, ip), address: change.address, findings: [] });
      }
    }
    for (const [ip, description] of afterEntries) {
      if (sameTenant && beforeEntries.has(ip)) continue;
      this.listFor(afterTenant, list).entries.push({ kind: 'added', ip, after: text(description, afterMask, ip), address: change.address, findings: [] });
    }
  }

  private addEntryResource(change: JsonResourceChange, list: ListName, action: Exclude<Actions, null>): void {
    const { before, after, after_unknown: afterUnknown, before_sensitive: beforeSensitive, after_sensitive: afterSensitive } = change.change;
    const side = (value: unknown, sensitive: unknown, unknown: unknown) => {
      const ip = record(value).ip;
      return {
        ip: typeof ip === 'string' ? canonical(ip) : record(unknown).ip === true ? '(known after apply)' : '(unknown)',
        description: shown(record(value).description, record(sensitive).description, record(unknown).description),
      };
    };
    const beforeTenant = tenantOf(before, this.defaultTenant);
    const afterTenant = tenantOf(after, record(afterUnknown).tenant === true ? this.defaultTenant : beforeTenant);
    if (action === 'delete' || action === 'replace') {
      const old = side(before, beforeSensitive, undefined);
      this.listFor(beforeTenant, list).entries.push({ kind: 'removed', ip: old.ip, before: old.description, address: change.address, findings: [] });
    }
    if (action === 'create' || action === 'replace') {
      const added = side(after, afterSensitive, afterUnknown);
      this.listFor(afterTenant, list).entries.push({ kind: 'added', ip: added.ip, after: added.description, address: change.address, findings: [] });
    }
    if (action === 'update') {
      const old = side(before, beforeSensitive, undefined);
      const next = side(after, afterSensitive, afterUnknown);
      if (old.description !== next.description) {
        this.listFor(beforeTenant, list).entries.push({ kind: 're-described', ip: old.ip, before: old.description, after: next.description, address: change.address, findings: [] });
      }
    }
  }

  private addSso(change: JsonResourceChange, kind: 'tenant' | 'channel', action: Exclude<Actions, null>): void {
    const { before, after, after_unknown: afterUnknown } = change.change;
    const sideOf = (value: unknown, unknown: unknown): SsoSide | null => {
      if (value === null || value === undefined) return null;
      const fields = record(value);
      const known = (name: string) => record(unknown)[name] !== true;
      return {
        enabled: known('enabled') ? fields.enabled === true : 'unknown',
        required: known('required') ? fields.required === true : 'unknown',
        saml_metadata_url: known('saml_metadata_url') ? (typeof fields.saml_metadata_url === 'string' ? fields.saml_metadata_url : null) : 'unknown',
        sign_in_tested_elsewhere: fields.sign_in_tested_elsewhere === true,
      };
    };
    const beforeSide = action === 'create' ? null : sideOf(before, undefined);
    const afterSide = action === 'delete' ? null : sideOf(after, afterUnknown);
    const name = record(after).name ?? record(before).name;
    this.sso.push({
      address: change.address,
      owner: { kind, name: typeof name === 'string' ? name : '(unknown)' },
      action,
      before: beforeSide,
      after: afterSide,
      consequences: ssoConsequences(beforeSide, afterSide),
      findings: [],
    });
  }

  result(): PolicyChanges {
    const order = (changes: ListChanges) => `${changes.tenant}\u0000${LIST_NAMES.indexOf(changes.list)}`;
    const kindOrder: Record<EntryChangeKind, number> = { removed: 0, 're-described': 1, added: 2 };
    const lists = [...this.lists.values()].sort((a, b) => order(a).localeCompare(order(b)));
    for (const list of lists) list.entries.sort((a, b) => kindOrder[a.kind] - kindOrder[b.kind] || a.ip.localeCompare(b.ip, 'en', { numeric: true }) || a.address.localeCompare(b.address));
    return {
      lists,
      sso: this.sso,
      otherResources: [...this.others.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([provider, counts]) => ({ provider, ...counts })),
    };
  }
}

/** What an SSO change means for signing in, most severe first. */
export function ssoConsequences(before: SsoSide | null, after: SsoSide | null): string[] {
  const consequences: string[] = [];
  const wasEnabled = before?.enabled === true;
  const wasRequired = before?.required === true;
  const enabled = after?.enabled ?? false;
  const required = after?.required ?? false;
  const url = after?.saml_metadata_url ?? null;
  const newUrl = enabled !== false && url !== null && url !== (before?.saml_metadata_url ?? null);
  if (required === true && !wasRequired) {
    const untested = !wasEnabled || newUrl;
    consequences.push(
      'SSO becomes required: password sign-in to the dashboard is refused; everyone must sign in through the identity provider' +
        (untested
          ? ' (in the same apply that ' +
            (!wasEnabled ? 'turns SSO on' : 'changes the metadata URL') +
            ': nobody can have signed in through it yet, a lockout risk; ' +
            (after?.sign_in_tested_elsewhere === true
              ? 'the configuration sets sign_in_tested_elsewhere = true: it says the sign-in was tested elsewhere)'
              : 'enable and test first, require in a second change)')
          : ''),
    );
  }
  if (required === 'unknown') consequences.push('whether SSO is required is not known until apply');
  if (wasEnabled && (after === null || enabled === false)) consequences.push('SSO is turned off: everyone signs in with a password; the identity provider\'s checks (MFA, leavers) no longer apply');
  else if (wasRequired && required === false) consequences.push('SSO is no longer required: password sign-in to the dashboard is allowed again');
  if (!wasEnabled && enabled === true) consequences.push('SSO is turned on');
  if (newUrl) consequences.push(url === 'unknown' ? 'the identity provider metadata URL is not known until apply' : `a new identity provider: sign-in trusts the metadata at ${url}; check it is yours`);
  return consequences;
}

function defaultTenantOf(plan: JsonPlanDocument): string {
  const providers = Object.values(plan.configuration?.provider_config ?? {});
  const svc = providers.find((provider) => provider.name === 'svc');
  const tenant = svc?.expressions?.tenant?.constant_value;
  return typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_TENANT;
}

function collect(changes: readonly JsonResourceChange[] | undefined, defaultTenant: string): PolicyChanges {
  const collector = new ChangeCollector(defaultTenant);
  for (const change of changes ?? []) collector.add(change);
  return collector.result();
}

/** Words of a text that are addresses, canonical: `entries["203.0.113.9"]` and `203.0.113.9:` alike. */
function addressesIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const word of text.split(/[\s,;()"'[\]{}<>=]+/)) {
    const trimmed = word.endsWith('::') ? word : word.replace(/[.:]+$/, '');
    const checked = checkAddress(trimmed);
    if (checked.ok) found.add(checked.canonical);
  }
  return found;
}

/**
 * Puts each finding next to the entries it names, else on the list or SSO change of its resource,
 * else in the report's own list. A warning about a list read (control characters, duplicates)
 * reaches terraform on whichever resource's refresh read the list first, so when the entries it
 * names are not its resource's, the changed entries of other resources that it names take it.
 */
function attachFindings(changes: PolicyChanges, findings: readonly Finding[]): Finding[] {
  const unattached: Finding[] = [];
  for (const finding of findings) {
    let attached = false;
    if (finding.address !== undefined) {
      const named = addressesIn(`${finding.summary} ${finding.detail}`);
      const namedOfItsResource = changes.lists.some((list) => list.entries.some((entry) => entry.address === finding.address && named.has(entry.ip)));
      if (!namedOfItsResource) {
        for (const list of changes.lists) {
          for (const entry of list.entries.filter((candidate) => named.has(candidate.ip))) {
            entry.findings.push(finding);
            attached = true;
          }
        }
        if (attached) continue;
      }
      for (const list of changes.lists) {
        const ofResource = list.entries.filter((entry) => entry.address === finding.address);
        const entries = ofResource.filter((entry) => named.has(entry.ip));
        for (const entry of entries.length > 0 ? entries : ofResource.length === 1 ? ofResource : []) {
          entry.findings.push(finding);
          attached = true;
        }
        if (!attached && ofResource.length > 1) {
          list.findings.push(finding);
          attached = true;
        }
      }
      for (const sso of changes.sso) {
        if (sso.address === finding.address) {
          sso.findings.push(finding);
          attached = true;
        }
      }
    }
    if (!attached) unattached.push(finding);
  }
  return unattached;
}

/** The diagnostics of `terraform plan -json` (one JSON object per line); other lines are skipped. */
export function parsePlanLog(text: string): Finding[] {
  const findings: Finding[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      throw new PlanReportError(`line ${index + 1} of the diagnostics is not JSON; give the output of terraform plan -json (one JSON object per line)`);
    }
    const fields = record(message);
    if (fields.type !== 'diagnostic') continue;
    const diagnostic = record(fields.diagnostic);
    const severity = diagnostic.severity === 'error' ? 'error' : 'warning';
    const address = typeof diagnostic.address === 'string' ? diagnostic.address : undefined;
    findings.push({
      severity,
      summary: String(diagnostic.summary ?? ''),
      detail: String(diagnostic.detail ?? ''),
      ...(address === undefined ? {} : { address }),
    });
  }
  return findings;
}

/** Checks the document is a plan terraform show -json wrote; names what is missing. */
export function checkPlanDocument(value: unknown, source: string): JsonPlanDocument {
  const fields = record(value);
  if (typeof fields.format_version !== 'string') throw new PlanReportError(`${source} is not the output of terraform show -json <plan>: it has no format_version`);
  for (const key of ['resource_changes', 'resource_drift'] as const) {
    if (fields[key] !== undefined && !Array.isArray(fields[key])) throw new PlanReportError(`${source}: ${key} is not a list`);
  }
  if (fields.planned_values === undefined && fields.resource_changes === undefined) {
    throw new PlanReportError(`${source} is a state, not a plan (terraform show -json of a saved plan holds planned_values)`);
  }
  return value as JsonPlanDocument;
}

export function buildPlanReport(plan: JsonPlanDocument, findings: readonly Finding[] = []): PlanReport {
  const defaultTenant = defaultTenantOf(plan);
  const changes = collect(plan.resource_changes, defaultTenant);
  const drift = collect(plan.resource_drift, defaultTenant);
  const unattached = attachFindings(changes, findings);
  const entries = (kind: EntryChangeKind) => changes.lists.reduce((sum, list) => sum + list.entries.filter((entry) => entry.kind === kind).length, 0);
  const countOthers = (counts: readonly ResourceCount[]) => counts.reduce((sum, count) => sum + count.create + count.update + count.delete + count.replace, 0);
  const driftCount = drift.lists.reduce((sum, list) => sum + list.entries.length, 0) + drift.sso.length + countOthers(drift.otherResources);
  return {
    changes,
    drift,
    findings: unattached,
    totals: {
      added: entries('added'),
      removed: entries('removed'),
      redescribed: entries('re-described'),
      sso: changes.sso.length,
      otherResources: countOthers(changes.otherResources),
      drift: driftCount,
      errors: findings.filter((finding) => finding.severity === 'error').length,
      warnings: findings.filter((finding) => finding.severity === 'warning').length,
    },
  };
}
