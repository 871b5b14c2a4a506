/**
 * The list resources' guardrails (src/provider/guardrails.ts) at plan; validate calls its validateEntryGuardrails directly.
 *
 * What a plan sees: terraform plans one resource at a time, so a resource sees the lists on the
 * service (through the provider's list cache: one `list_<list>` call per tenant and list per
 * process, none per entry) and the entries of the resources planned before it in the same
 * provider process (SvcContext.declared). A pair is reported once, by whichever of the two is
 * planned second, or by the resource when the other is already on the service.
 */
import { DENY_LIST_NAMES, type ListName } from '../../api/types';
import { UNKNOWN, warningDiagnostic, type Diagnostic, type Unknown } from '../core';
import type { SvcContext } from '../context';
import {
  broadRangeDiagnostics,
  findingDiagnostic,
  findingKey,
  DISTINCT_ENTRIES,
  findEntryFindings,
  ownEntriesCannotOverlap,
  SeenEntries,
  type EntryPlace,
  type SeenView,
} from '../guardrails';
import type { CachedList } from '../list-cache';
import { canonicalIpOf, readListForPlan } from './attributes';

/** How many overlap findings one plan of one resource shows before "N more". */
const FINDINGS_SHOWN = 20;

/** The lists a plan compares an entry of `list` with: contradictions cross whitelist and deny lists. */
function opposingLists(list: ListName): ListName[] {
  return list === 'whitelist' ? [...DENY_LIST_NAMES] : ['whitelist'];
}

/** A list read, indexed once per read (the list cache hands every resource of the plan the same read). */
const indexedReads = new WeakMap<CachedList, SeenEntries>();

function serviceEntries(read: CachedList, list: ListName): SeenEntries {
  let entries = indexedReads.get(read);
  if (entries === undefined) {
    entries = new SeenEntries(read.entries.map((entry) => ({ list, ip: entry.ip, source: 'on the service' })));
    indexedReads.set(read, entries);
  }
  return entries;
}

/** PlanGuardrailRequest's `added` when the plan adds every entry (a create). */
export const ALL_ADDED = 'all';

export interface PlannedEntry {
  readonly ip: string;
  readonly place: EntryPlace;
}

export interface PlanGuardrailRequest {
  readonly context: SvcContext;
  readonly list: ListName;
  readonly tenant: string | Unknown;
  readonly tenantIsConfigured: boolean;
  readonly entries: readonly PlannedEntry[];
  /**
   * The canonical addresses of `entries` this plan adds (all on create): only they are compared,
   * so a plan that adds nothing costs no call, and a pair warns when it is introduced.
   */
  readonly added: ReadonlySet<string> | typeof ALL_ADDED;
  /** How the entries are named to others, e.g. `svc_whitelist_entry in this configuration`. */
  readonly source: string;
  /** Compare with the service's copy of the resource's own list (per-entry resources; a whole list replaces its own). */
  readonly compareOwnListOnService: boolean;
}

/**
 * Plan: broad ranges (unless allow_broad_ranges), then contradictions and redundant entries
 * against the service and the resources planned earlier in this process. Skipped for the
 * comparisons while the tenant or the connection is not known yet.
 */
export async function planGuardrails(request: PlanGuardrailRequest): Promise<Diagnostic[]> {
  const { context, list, tenant, entries } = request;
  const diagnostics: Diagnostic[] = [];
  if (!context.allowBroadRanges) {
    for (const entry of entries) diagnostics.push(...broadRangeDiagnostics(list, entry.ip, entry.place));
  }
  if (tenant === UNKNOWN || context.connectionUnknown) return diagnostics;
  const { added } = request;
  const isChanged = entries.map((entry) => added === ALL_ADDED || added.has(canonicalIpOf(entry.ip, entry.place.path)));
  if (!isChanged.includes(true)) return diagnostics;

  const declared = entries.map((entry) => ({ list, ip: entry.ip, source: request.source }));
  // Registered before the reads below, so resources planned at the same time see each other.
  const planned = context.declareEntries(tenant, declared);
  const lists = request.compareOwnListOnService ? [list, ...opposingLists(list)] : opposingLists(list);
  const onService: SeenView[] = [];
  for (const other of lists) onService.push({ entries: serviceEntries(await readListForPlan(context, tenant, other, request.tenantIsConfigured), other) });
  // The changed entries as declared: `planned` holds these very objects, so they are indexed once.
  const own = declared.filter((_, index) => isChanged[index]);
  // The tenant's first resource in this process, none of whose entries overlaps another (a whole
  // list of single addresses): the planned entries are its own alone, and only the service's
  // lists can make a finding, so the planned entries are not indexed (unless a later resource asks).
  const firstAndDistinct = planned.limit === declared.length && ownEntriesCannotOverlap(declared);
  const findings = firstAndDistinct ? findEntryFindings(own, onService, DISTINCT_ENTRIES) : findEntryFindings(own, [planned, ...onService], planned);
  let hidden = 0;
  for (const finding of findings) {
    if (!context.firstReport(tenant, findingKey(finding))) continue;
    if (diagnostics.length >= FINDINGS_SHOWN) {
      hidden += 1;
      continue;
    }
    // Looked up for the few findings shown, not mapped for every entry.
    const place = entries[declared.indexOf(finding.entry)]?.place;
    diagnostics.push(findingDiagnostic(finding, tenant, place ?? { path: [], what: 'entry' }));
  }
  if (hidden > 0) {
    diagnostics.push(
      warningDiagnostic(
        `More list entries that overlap`,
        `${hidden} more overlapping or redundant entries of the ${list} of tenant ${JSON.stringify(tenant)} are not shown; fix those above and plan again.`,
      ),
    );
  }
  return diagnostics;
}
