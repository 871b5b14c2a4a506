/**
 * `svc_blacklist`, `svc_blocklist`, `svc_whitelist`: one resource owning a whole list (mode
 * "authoritative") or only the entries it declares (mode "additive", for lists risk-based
 * blocking also writes to). `entries` is a map from address to description: terraform 1.11
 * compares sets of objects pairwise (quadratic; 2,500 objects took a minute to apply), maps by
 * key. Entries compare by canonical address and description; apply sends the difference
 * through bulk_new_/bulk_delete_ in chunks of at most 1000, with progress on stderr.
 */
import { checkAddress } from '../../address';
import { descriptionProblem } from '../../description';
import { LIST_NAMES, type BulkProgress, type ListName } from '../../api/types';
import {
  DiagnosticsError,
  PartialApplyError,
  UNKNOWN,
  errorDiagnostic,
  isUnknown,
  warningDiagnostic,
  isWhollyKnown,
  types,
  type ApplyWarning,
  type AttributePath,
  type Diagnostic,
  type ObjectValue,
  type ResourceDefinition,
  type Schema,
  type Value,
} from '../core';
import type { SvcContext } from '../context';
import type { CachedList } from '../list-cache';
import { validateEntryGuardrails } from '../guardrails';
import { ALL_ADDED, planGuardrails } from './list-guardrails';
import { listId, splitId } from './resource-ids';
import { ADDRESS_FIX, attribute, canonicalIpOf, descriptionDiagnostic, emptyStringDiagnostic, mapAttribute, readListForPlan, requiredString, stringAttribute } from './attributes';

export const LIST_MODES = ['authoritative', 'additive'] as const;
export type ListMode = (typeof LIST_MODES)[number];
const DEFAULT_MODE: ListMode = 'authoritative';

/** `entries` as the core holds it: address or CIDR as written -> description (null means ""). */
export type EntryMap = ObjectValue;

// ---- schema ------------------------------------------------------------------------------------

function listSchema(list: ListName): Schema {
  return {
    version: 0,
    description:
      `The tenant's whole ${list}, or (mode "additive") the part of it this resource declares. ` +
      `Do not manage the same list with \`svc_${list}_entry\` resources as well: the two would undo each other's changes.` +
      (list === 'blocklist' ? ' Blocklist entries end 30 minutes after they are added; the next plan re-adds them, which renews the block.' : ''),
    attributes: {
      entries: {
        description:
          'The entries, as a map from IPv4/IPv6 address or CIDR range (without host bits) to its description (`""` for none). ' +
          'Keys compare by canonical address (`10.0.0.1/32` is `10.0.0.1`), values as text: at most 1,024 characters, no control characters.',
        type: types.map(types.string),
        required: true,
      },
      mode: attribute.optionalComputedString(
        '`"authoritative"` (default): the resource owns the whole list; entries it does not declare are removed at apply and show as ' +
          'drift in plan. `"additive"`: it owns only the entries it declares; others (e.g. added by risk-based blocking) are ignored. ' +
          'Import gives `"authoritative"` with every entry in state; switching such a state to `"additive"` still removes the ' +
          'imported entries the configuration leaves out (the plan lists them).',
      ),
      adopt_existing: {
        type: types.bool,
        optional: true,
        description:
          'mode "additive" only. false (default): declaring an address the list already holds with another description is an error at plan ' +
          '(the resource would take that entry over, and destroy would delete it). true: the resource adopts such entries on purpose; ' +
          'the plan warns "adopts existing entry <ip>, was: <description>" for each, and destroy removes them like its own.',
      },
      tenant: attribute.optionalComputedString("The tenant (customer_name) whose list this is. Defaults to the provider's tenant. Changing it replaces the resource.", {
        requiresReplace: true,
      }),
      id: attribute.computedString('`<tenant>/<list name>`; a "/" in the tenant name is written %2F (and "%" as %25). Also the import ID.'),
    },
  };
}

// ---- validate ----------------------------------------------------------------------------------

function validateEntries(list: ListName, entries: EntryMap): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, string>();
  for (const key of Object.keys(entries)) {
    const description = entries[key];
    // The place is spelled out only for a bad description: a list holds thousands of good ones.
    if (typeof description === 'string' && descriptionProblem(description) !== undefined) {
      const invalid = descriptionDiagnostic(description, ['entries', { key }], `entries[${JSON.stringify(key)}]`);
      if (invalid !== undefined) diagnostics.push(invalid);
    }
    const checked = checkAddress(key);
    if (!checked.ok) {
      diagnostics.push(
        errorDiagnostic(
          'Invalid IP address or CIDR in entries',
          `entries key ${JSON.stringify(key)}: ${checked.error.reason}. ${ADDRESS_FIX}`,
          ['entries', { key }],
        ),
      );
      continue;
    }
    const earlier = seen.get(checked.canonical);
    if (earlier !== undefined) {
      diagnostics.push(
        errorDiagnostic(
          'Duplicate address in entries',
          `entries holds the keys ${JSON.stringify(earlier)} and ${JSON.stringify(key)}, which are the same address (${checked.canonical}). ` +
            'Keep one of them.',
          ['entries', { key }],
        ),
      );
      continue;
    }
    seen.set(checked.canonical, key);
    const guardrails = validateEntryGuardrails(list, key, entryPlace(key));
    if (guardrails.length > 0) diagnostics.push(...guardrails);
  }
  return diagnostics;
}

/** The canonical addresses `configured` holds and `prior` does not (all of them on create). */
function addedAddresses(configured: EntryMap, prior: EntryMap | null): ReadonlySet<string> | typeof ALL_ADDED {
  const before = byCanonicalIp(prior);
  // Indexed on create too (the plan's other questions use the same index): a key that is no address is refused here.
  const after = byCanonicalIp(configured);
  if (before.size === 0) return ALL_ADDED;
  return new Set([...after.keys()].filter((canonical) => !before.has(canonical)));
}

/** Where an entries key is, for guardrail messages. */
function entryPlace(key: string): { path: AttributePath; what: string } {
  return { path: ['entries', { key }], what: 'entries key' };
}

function validateList(list: ListName, config: ObjectValue): Diagnostic[] {
  const entries = mapAttribute(config, 'entries');
  // A known map has known keys (only its values may be unknown), so every key is checked.
  const diagnostics = entries === null || isUnknown(entries) ? [] : validateEntries(list, entries);
  const mode = stringAttribute(config, 'mode');
  if (typeof mode === 'string' && !(LIST_MODES as readonly string[]).includes(mode)) {
    diagnostics.push(
      errorDiagnostic('Invalid mode', `mode = ${JSON.stringify(mode)}: use "authoritative" (own the whole list) or "additive" (own only the declared entries).`, [
        'mode',
      ]),
    );
  }
  const emptyTenant = emptyStringDiagnostic(config, 'tenant', "Leave tenant out to use the provider's tenant, or name one.");
  if (emptyTenant !== undefined) diagnostics.push(emptyTenant);
  return diagnostics;
}

// ---- entries -----------------------------------------------------------------------------------

/** null and "" are the same description. */
function effectiveDescription(value: Value | undefined): string | typeof UNKNOWN {
  if (isUnknown(value ?? null)) return UNKNOWN;
  return typeof value === 'string' ? value : '';
}

/** The canonical spelling of an entries key validate accepted (the path of the error is made only for a bad one). */
function canonicalKey(key: string): string {
  const checked = checkAddress(key);
  return checked.ok ? checked.canonical : canonicalIpOf(key, ['entries', { key }]);
}

type CanonicalIndex = ReadonlyMap<string, { readonly key: string; readonly description: Value }>;

/**
 * Indexes already made, by the map they index: a plan asks for the same configured and prior
 * maps' index up to four times (added addresses, entries on the service not in the plan, owned
 * entries, private notes), each 10,000 keys for a large list. Maps decoded from a request are
 * never changed afterwards, and an index is read, never changed.
 */
const canonicalIndexes = new WeakMap<EntryMap, CanonicalIndex>();
const NO_ENTRIES: CanonicalIndex = new Map();

/** The entries by canonical address, each with its key as written and its description. */
function byCanonicalIp(entries: EntryMap | null): CanonicalIndex {
  if (entries === null) return NO_ENTRIES;
  let indexed = canonicalIndexes.get(entries);
  if (indexed === undefined) {
    const made = new Map<string, { key: string; description: Value }>();
    for (const [key, description] of Object.entries(entries)) made.set(canonicalKey(key), { key, description });
    indexed = made;
    canonicalIndexes.set(entries, indexed);
  }
  return indexed;
}

/**
 * The entries to plan: the prior map when the config map holds the same entries (canonical
 * address and description) spelled differently, else the config's. Terraform accepts a planned
 * value equal to either, but not a mix of the two, so a partly respelled map plans the config.
 */
export function planEntries(configured: EntryMap, prior: EntryMap | null): EntryMap {
  if (prior === null || !isWhollyKnown(configured)) return configured;
  const configuredKeys = Object.keys(configured);
  if (configuredKeys.length !== Object.keys(prior).length) return configured;
  const priorByIp = byCanonicalIp(prior);
  const unchanged = configuredKeys.every((key) => {
    const match = priorByIp.get(canonicalKey(key));
    return match !== undefined && effectiveDescription(match.description) === effectiveDescription(configured[key]);
  });
  return unchanged ? prior : configured;
}

/**
 * Keys the config spells differently from the state while some values are not known yet, when
 * those values may still turn out to be the state's: planEntries then returns the state's map in
 * terraform's final plan at apply, whose keys differ from this plan's, and terraform stops with
 * "Provider produced inconsistent final plan". Pairs of [config key, state key].
 */
export function respelledKeysAwaitingValues(configured: EntryMap, prior: EntryMap | null): Array<[string, string]> {
  if (prior === null || isWhollyKnown(configured) || Object.keys(configured).length !== Object.keys(prior).length) return [];
  const priorByIp = byCanonicalIp(prior);
  const respelled: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(configured)) {
    const match = priorByIp.get(canonicalKey(key));
    if (match === undefined) return [];
    if (!isUnknown(value) && effectiveDescription(value) !== effectiveDescription(match.description)) return [];
    if (match.key !== key) respelled.push([key, match.key]);
  }
  return respelled;
}

function respelledKeysWarning(respelled: ReadonlyArray<[string, string]>): Diagnostic[] {
  if (respelled.length === 0) return [];
  const [[configKey, stateKey]] = respelled;
  const more = respelled.length > 1 ? ` (and ${respelled.length - 1} more key${respelled.length > 2 ? 's' : ''} spelled differently)` : '';
  return [
    warningDiagnostic(
      'entries keys spelled differently from the state while values are not known yet',
      `entries key ${JSON.stringify(configKey)} is ${JSON.stringify(stateKey)} in the state${more}. If the values not known yet turn out ` +
        'to be the descriptions already in the state, terraform stops this apply with "Provider produced inconsistent final plan" ' +
        '(nothing is sent; applying again succeeds). To avoid it, write the keys as the state does.',
      ['entries', { key: configKey }],
    ),
  ];
}

/**
 * The service's entries as state: all of them (authoritative) or those the state declares
 * (additive), keeping the state's key spelling and null descriptions where they still match.
 */
export function entriesFromService(current: CachedList, stateEntries: EntryMap | null, mode: ListMode): EntryMap {
  const declared = byCanonicalIp(stateEntries);
  const entries: Array<[string, Value]> = [];
  for (const [canonical, stated] of declared) {
    const entry = current.byIp.get(canonical);
    if (entry === undefined) continue;
    const listed = entry.description ?? '';
    entries.push([stated.key, effectiveDescription(stated.description) === listed ? stated.description : listed]);
  }
  if (mode === 'authoritative') {
    for (const [canonical, entry] of current.byIp) {
      if (!declared.has(canonical)) entries.push([canonical, entry.description ?? '']);
    }
  }
  // fromEntries defines own properties, so no key can reach the prototype.
  return Object.fromEntries(entries);
}

/** `entries` where it must be known (apply-time config, state); null only for a state without it. */
function knownEntries(value: ObjectValue): EntryMap | null {
  const entries = mapAttribute(value, 'entries');
  if (isUnknown(entries)) throw new TypeError('attribute entries must be known here, got unknown');
  return entries;
}

function modeOf(value: ObjectValue): ListMode {
  const mode = stringAttribute(value, 'mode');
  return mode === 'additive' ? 'additive' : DEFAULT_MODE;
}

function describeProgress(list: ListName, progress: BulkProgress): string {
  return `svc_${list}: ${progress.command} chunk ${progress.chunk}/${progress.chunks} (${progress.done}/${progress.total} entries)`;
}

/**
 * Creates or updates: sends what the reviewed plan showed and nothing more. Additions are the
 * planned entries the service lacks or describes differently; removals are the entries of the
 * prior state (what the plan showed as "before", refreshed when the plan was made) that the plan
 * drops. An entry on the service that the prior state does not hold (added after the plan, e.g.
 * by risk-based blocking, or never seen by this state) is left where it is, with a warning: the
 * next plan shows it as a change made outside terraform (mode "authoritative") and proposes its
 * removal for review.
 */
async function applyList(
  context: SvcContext,
  list: ListName,
  config: ObjectValue,
  prior: ObjectValue | null,
  warn: ApplyWarning,
): Promise<ObjectValue> {
  const configuredTenant = stringAttribute(config, 'tenant');
  const tenant = typeof configuredTenant === 'string' ? configuredTenant : context.defaultTenant();
  const mode = modeOf(config);
  const priorEntries = prior === null ? null : knownEntries(prior);
  const entries = planEntries(knownEntries(config) ?? {}, priorEntries);

  const desired = new Map<string, string>();
  for (const [canonical, entry] of byCanonicalIp(entries)) desired.set(canonical, effectiveDescription(entry.description) as string);
  // Alone on the list in this process: a destroy of the object this one replaces, or of per-entry
  // resources of the same list, then leaves what it declares (see apply-registry.ts).
  return context.registry.writeWholeList(tenant, list, new Set(desired.keys()), () =>
    writeDifference(context, list, {
      tenant,
      mode,
      entries,
      desired,
      prior,
      priorEntries,
      warn,
      adoptExisting: typeof config.adopt_existing === 'boolean' ? config.adopt_existing : null,
    }),
  );
}

interface ListWrite {
  readonly tenant: string;
  readonly mode: ListMode;
  readonly entries: EntryMap;
  readonly desired: ReadonlyMap<string, string>;
  readonly prior: ObjectValue | null;
  readonly priorEntries: EntryMap | null;
  readonly warn: ApplyWarning;
  readonly adoptExisting: boolean | null;
}

async function writeDifference(context: SvcContext, list: ListName, write: ListWrite): Promise<ObjectValue> {
  const { tenant, mode, entries, desired, prior, priorEntries, warn } = write;
  const current = (await context.lists.read(tenant, list)).byIp;

  const toAdd = [...desired]
    .filter(([ip, description]) => current.get(ip)?.description !== description)
    .map(([ip, description]) => ({ ip, description }));
  const shownBefore = byCanonicalIp(priorEntries);
  const toDelete = [...shownBefore.keys()].filter((ip) => !desired.has(ip) && current.has(ip));
  if (mode === 'authoritative') {
    const unshown = [...current.keys()].filter((ip) => !desired.has(ip) && !shownBefore.has(ip));
    if (unshown.length > 0) warn(leftInPlaceWarning(list, tenant, unshown, 'apply'));
  }

  const applied = { entries, mode, adopt_existing: write.adoptExisting, tenant, id: listId(tenant, list) };
  if (toAdd.length > 0 || toDelete.length > 0) {
    context.progress(`svc_${list} (${tenant}): ${toAdd.length} to add or update, ${toDelete.length} to remove`);
    try {
      await context.writeList(tenant, list, async (client) => {
        const onProgress = (progress: BulkProgress) => context.progress(describeProgress(list, progress));
        if (toAdd.length > 0) await client.bulkAddEntries(list, toAdd, { onProgress });
        if (toDelete.length > 0) await client.bulkDeleteEntries(list, toDelete, { onProgress });
      });
    } catch (error) {
      // Deliberate: an update that failed part-way records every entry that may exist now, so
      // an additive list keeps owning the chunks that landed (else a config reverted before the
      // next apply would leave them behind). The next refresh drops those that did not land.
      if (prior === null) throw error;
      throw new PartialApplyError(error, { ...applied, entries: mayExistAfterFailure(entries, priorEntries) });
    }
  }
  return applied;
}

/** The destroy of an object whose entries a newer resource of the same apply declares. */
function keptForNewerWarning(list: ListName, tenant: string, kept: number): Diagnostic {
  return warningDiagnostic(
    `svc_${list}: ${kept === 1 ? '1 entry' : `${kept} entries`} kept for the resource that replaces this one`,
    `The object replacing this one in this apply (terraform apply -replace, create_before_destroy), or another resource taking the list ` +
      `over, declares ${kept === 1 ? 'this entry' : 'these entries'} of the ${list} of tenant ${JSON.stringify(tenant)}, so this destroy left ` +
      `${kept === 1 ? 'it' : 'them'} in place and removed only the rest: the list is never emptied in between.`,
  );
}

/** Entries an authoritative apply or destroy did not remove because its plan never showed them. */
function leftInPlaceWarning(list: ListName, tenant: string, unshown: readonly string[], operation: 'apply' | 'destroy'): Diagnostic {
  const next =
    operation === 'apply'
      ? 'The next plan shows them as changed outside terraform and, with mode = "authoritative", proposes their removal for you to review; ' +
        'add them to entries to keep them.'
      : 'They stay on the service, no longer managed by terraform.';
  return warningDiagnostic(
    `svc_${list}: ${describeCount(unshown)} not in this plan left in place`,
    `The ${list} of tenant ${JSON.stringify(tenant)} holds ${describeCount(unshown)} (${nameSome(unshown)}) that this plan did not show, ` +
      `so ${operation} left them in place (an entry added after the plan, e.g. by risk-based blocking, or one this state never held). ${next}`,
    operation === 'apply' ? ['entries'] : undefined,
  );
}

function describeCount(ips: readonly string[]): string {
  return `${ips.length} ${ips.length === 1 ? 'entry' : 'entries'}`;
}

/** The first few addresses, and how many more. */
function nameSome(ips: readonly string[]): string {
  return ips.slice(0, UNSEEN_NAMED).join(', ') + (ips.length > UNSEEN_NAMED ? `, and ${ips.length - UNSEEN_NAMED} more` : '');
}

/** The planned entries, plus the prior ones (by canonical address) whose removal may not have happened. */
function mayExistAfterFailure(planned: EntryMap, prior: EntryMap | null): EntryMap {
  const plannedIps = byCanonicalIp(planned);
  const kept = Object.entries(prior ?? {}).filter(([key]) => !plannedIps.has(canonicalKey(key)));
  return { ...Object.fromEntries(kept), ...planned };
}

/**
 * The private note an update plan leaves for the create plan of a replacement: the list it
 * replaces and the canonical addresses its state held (they are the resource's own, not a takeover).
 */
const REPLACES_NOTE = 'replaces';
const OWNED_NOTE = 'owned';
/** What the create plan of a replacement declares: the destroy of the object it replaces keeps those entries. */
const KEEP_NOTE = 'keep';

/**
 * An additive resource that declares an address the list already holds, which its state does not:
 * with another description that is a takeover (an error unless adopt_existing = true, then a warning
 * naming the description it replaces); with the same description it is adopted with a warning, since
 * destroy will remove it.
 */
async function takeoverDiagnostics(
  context: SvcContext,
  list: ListName,
  tenant: string,
  tenantIsConfigured: boolean,
  configured: EntryMap,
  owned: ReadonlySet<string>,
  adopt: boolean,
): Promise<Diagnostic[]> {
  const declared = [...byCanonicalIp(configured)].filter(([canonical]) => !owned.has(canonical));
  if (declared.length === 0) return [];
  const current = (await readListForPlan(context, tenant, list, tenantIsConfigured)).byIp;
  const diagnostics: Diagnostic[] = [];
  for (const [canonical, { key, description }] of declared) {
    const existing = current.get(canonical);
    if (existing === undefined) continue;
    const was = existing.description ?? '';
    const path: AttributePath = ['entries', { key }];
    const wanted = effectiveDescription(description);
    if (wanted !== UNKNOWN && wanted === was) {
      diagnostics.push(
        warningDiagnostic(
          `svc_${list}: adopts existing entry ${canonical}`,
          `The ${list} of tenant ${JSON.stringify(tenant)} already holds ${canonical} with the same description; this resource takes it over, ` +
            'and destroying the resource (or dropping the key) will remove it.',
          path,
        ),
      );
    } else if (adopt) {
      diagnostics.push(
        warningDiagnostic(
          `svc_${list}: adopts existing entry ${canonical}, was: ${JSON.stringify(was)}`,
          `adopt_existing = true: the entry's description ${JSON.stringify(was)} is replaced, and destroy will remove the entry.`,
          path,
        ),
      );
    } else {
      diagnostics.push(
        errorDiagnostic(
          `The ${list} already holds ${canonical}`,
          `svc_${list} (tenant ${JSON.stringify(tenant)}, mode "additive") declares ${canonical}, which the ${list} already holds with description ` +
            `${JSON.stringify(was)}, an entry this resource did not create: applying would overwrite it and destroying the resource would delete it. ` +
            'Nothing was sent. Remove the key, or set adopt_existing = true to take the entry over on purpose (the plan then names each adopted entry).',
          path,
        ),
      );
    }
  }
  return diagnostics;
}

/** How many of the unseen addresses a warning names. */
const UNSEEN_NAMED = 5;

/**
 * On create, and when an additive resource turns authoritative, the list may hold entries the
 * state never saw. Apply leaves them (it removes only what a plan shows), so the warning says so
 * and that the next plan, made from state that then holds them, proposes their removal.
 * `configured` is null while the keys of `entries` are not known yet.
 */
async function unseenEntriesWarning(
  context: SvcContext,
  list: ListName,
  tenant: string,
  tenantIsConfigured: boolean,
  configured: EntryMap | null,
  priorEntries: EntryMap | null,
): Promise<Diagnostic[]> {
  const listed = (await readListForPlan(context, tenant, list, tenantIsConfigured)).byIp;
  // Asked of the indexes of the plan's two maps (made once per plan): no set of 10,000 addresses for an empty list.
  const [configuredIps, priorIps] = [byCanonicalIp(configured), byCanonicalIp(priorEntries)];
  const unseen = [...listed.keys()].filter((ip) => !configuredIps.has(ip) && !priorIps.has(ip));
  if (unseen.length === 0) return [];
  const what = configured === null ? 'that entries may not declare (its keys are not known yet)' : 'that entries does not declare';
  return [
    warningDiagnostic(
      `svc_${list}: ${describeCount(unseen)} on the service not in this plan`,
      `The ${list} of tenant ${JSON.stringify(tenant)} holds ${describeCount(unseen)} ${what} (${nameSome(unseen)}). ` +
        'This apply leaves them in place: it removes only what a plan shows. Afterwards the state holds the whole list, so the next ' +
        'plan shows them as changed outside terraform and, with mode = "authoritative", proposes their removal for review. ' +
        'To keep them, add them to entries, or set mode = "additive" (the resource then owns only its declared entries).',
      ['mode'],
    ),
  ];
}

/**
 * The tenant an import ID names: the tenant alone (`acme`) or the resource's own id
 * (`acme/blacklist`), so the id shown in state can be pasted back into an import. A tenant with
 * "/" in its name is written with it escaped as %2F (and "%" as %25), as its id shows it.
 */
export function importedTenant(list: ListName, id: string): string {
  const { tenant, rest } = splitId(id);
  if (tenant.trim() !== '' && (rest === undefined || rest === list)) return tenant;
  const otherList = tenant.trim() !== '' && LIST_NAMES.find((name) => name === rest);
  throw new DiagnosticsError([
    errorDiagnostic(
      'Invalid import ID',
      `Import ID ${JSON.stringify(id)}: svc_${list} is imported by the tenant name (e.g. acme) or by its id (e.g. acme/${list}); ` +
        (otherList ? `that ID names the ${otherList}, which svc_${otherList} imports. ` : '') +
        'Write a "/" in the tenant name as %2F and a "%" as %25 (the id in state shows it so). ' +
        'The resource then owns the whole list (mode "authoritative").',
    ),
  ]);
}

// ---- definition --------------------------------------------------------------------------------

export function createListResource(list: ListName): ResourceDefinition<SvcContext> {
  return {
    typeName: `svc_${list}`,
    schema: listSchema(list),

    validate: ({ config }) => validateList(list, config),

    async plan({ context, config, prior, proposed, priorPrivate }) {
      const configuredTenant = stringAttribute(config, 'tenant');
      const tenant = context.tenantForPlan(configuredTenant);
      const configuredMode = stringAttribute(config, 'mode');
      const mode = configuredMode === null ? DEFAULT_MODE : configuredMode;
      const entries = mapAttribute(config, 'entries');
      const configured = entries === null || isUnknown(entries) ? null : entries;
      const priorEntries = prior === null ? null : mapAttribute(prior, 'entries');
      const knownPriorEntries = priorEntries === null || isUnknown(priorEntries) ? null : priorEntries;
      const diagnostics = configured === null ? [] : respelledKeysWarning(respelledKeysAwaitingValues(configured, knownPriorEntries));
      // Only create and a switch from additive can remove entries the state never held.
      const stateSawWholeList = prior !== null && modeOf(prior) === 'authoritative';
      if (entries !== null && mode === 'authoritative' && !stateSawWholeList && typeof tenant === 'string' && !context.connectionUnknown) {
        diagnostics.push(...(await unseenEntriesWarning(context, list, tenant, configuredTenant !== null, configured, knownPriorEntries)));
      }
      const id = typeof tenant === 'string' ? listId(tenant, list) : UNKNOWN;
      // A replacement's create plan: the entries of the object it replaces are its own.
      const replacing = priorPrivate?.[REPLACES_NOTE] === id && Array.isArray(priorPrivate?.[OWNED_NOTE]) ? (priorPrivate[OWNED_NOTE] as unknown[]) : undefined;
      const owned = new Set([...byCanonicalIp(knownPriorEntries).keys(), ...(replacing ?? []).filter((ip): ip is string => typeof ip === 'string')]);
      if (configured !== null && mode === 'additive' && typeof tenant === 'string' && !context.connectionUnknown) {
        const adopt = config.adopt_existing === true;
        diagnostics.push(...(await takeoverDiagnostics(context, list, tenant, configuredTenant !== null, configured, owned, adopt)));
      }
      if (configured !== null) {
        diagnostics.push(
          ...(await planGuardrails({
            context,
            list,
            tenant,
            tenantIsConfigured: configuredTenant !== null,
            entries: Object.keys(configured).map((key) => ({ ip: key, place: entryPlace(key) })),
            added: addedAddresses(configured, knownPriorEntries),
            source: `svc_${list} in this configuration`,
            compareOwnListOnService: false,
          })),
        );
      }
      return {
        planned: {
          ...proposed,
          entries: configured === null ? entries : planEntries(configured, knownPriorEntries),
          mode,
          tenant,
          id,
        },
        diagnostics,
        ...(prior !== null
          ? { privateData: { [REPLACES_NOTE]: prior.id, [OWNED_NOTE]: [...byCanonicalIp(knownPriorEntries).keys()] } }
          : replacing !== undefined && configured !== null
            ? { privateData: { [REPLACES_NOTE]: id, [KEEP_NOTE]: [...byCanonicalIp(configured).keys()] } }
            : {}),
      };
    },

    create: ({ context, config, warn }) => applyList(context, list, config, null, warn),

    async read({ context, state }) {
      if (context.connectionUnknown) return state;
      const tenant = requiredString(state, 'tenant');
      const mode = modeOf(state);
      const current = await context.lists.read(tenant, list);
      return { ...state, mode, entries: entriesFromService(current, knownEntries(state), mode) };
    },

    update: ({ context, config, prior, warn }) => applyList(context, list, config, prior, warn),

    async delete({ context, prior, warn, privateData }) {
      // Only what the destroy plan showed (the state's entries); anything added since stays.
      const tenant = requiredString(prior, 'tenant');
      // The destroy half of a replacement by the same list: what the new object declares stays, so the list is never emptied.
      const keep = privateData?.[REPLACES_NOTE] === prior.id && Array.isArray(privateData?.[KEEP_NOTE]) ? (privateData[KEEP_NOTE] as unknown[]) : [];
      await context.registry.destroyWholeList(tenant, list, async (declaredByNewer) => {
        const current = (await context.lists.read(tenant, list)).byIp;
        const shown = byCanonicalIp(knownEntries(prior));
        const present = [...shown.keys()].filter((ip) => current.has(ip));
        // A create_before_destroy replacement (or another resource taking the list over) wrote
        // this list earlier in this apply: what it declares is its own now.
        const owned = present.filter((ip) => !declaredByNewer.has(ip) && !keep.includes(ip));
        if (owned.length < present.length) warn(keptForNewerWarning(list, tenant, present.length - owned.length));
        if (modeOf(prior) === 'authoritative') {
          const unshown = [...current.keys()].filter((ip) => !shown.has(ip));
          if (unshown.length > 0) warn(leftInPlaceWarning(list, tenant, unshown, 'destroy'));
        }
        if (owned.length === 0) return;
        context.progress(`svc_${list} (${tenant}): removing ${owned.length} entries`);
        await context.writeList(tenant, list, (client) =>
          client.bulkDeleteEntries(list, owned, { onProgress: (progress) => context.progress(describeProgress(list, progress)) }),
        );
      });
    },

    async import({ context, id }) {
      const tenant = importedTenant(list, id);
      const current = await context.lists.read(tenant, list);
      return {
        entries: entriesFromService(current, null, 'authoritative'),
        mode: DEFAULT_MODE,
        adopt_existing: null,
        tenant,
        id: listId(tenant, list),
      };
    },
  };
}

export const listResources: readonly ResourceDefinition<SvcContext>[] = LIST_NAMES.map(createListResource);
