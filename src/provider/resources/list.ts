/**
 * `svc_blacklist`, `svc_blocklist`, `svc_whitelist`: one resource owning a whole list (mode
 * "authoritative") or only the entries it declares (mode "additive", for lists risk-based
 * blocking also writes to). Entries compare by canonical ip and description; apply sends the
 * difference through bulk_new_/bulk_delete_ in chunks of at most 1000, with progress on stderr.
 */
import type { BulkProgress, ListName } from '../../api';
import {
  DiagnosticsError,
  UNKNOWN,
  errorDiagnostic,
  isUnknown,
  isWhollyKnown,
  type Diagnostic,
  type ObjectValue,
  type ResourceDefinition,
  type Schema,
  type Value,
} from '../core';
import type { SvcContext } from '../context';
import type { CachedList } from '../list-cache';
import {
  attribute,
  canonicalIpOf,
  checkIpAttribute,
  collectionAttribute,
  emptyStringDiagnostic,
  requiredString,
  stringAttribute,
} from './attributes';

export const LIST_MODES = ['authoritative', 'additive'] as const;
export type ListMode = (typeof LIST_MODES)[number];
const DEFAULT_MODE: ListMode = 'authoritative';

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
          'The entries, as a set of `{ ip, description }`. Entries compare by canonical ip (`10.0.0.1/32` is `10.0.0.1`) and description.',
        required: true,
        nested: {
          nesting: 'set',
          attributes: {
            ip: attribute.requiredString('IPv4/IPv6 address or CIDR range without host bits.'),
            description: attribute.optionalString('Free text; unset means "".'),
          },
        },
      },
      mode: attribute.optionalComputedString(
        '`"authoritative"` (default): the resource owns the whole list; entries it does not declare are removed at apply and show as ' +
          'drift in plan. `"additive"`: it owns only the entries it declares; others (e.g. added by risk-based blocking) are ignored. ' +
          'Import gives `"authoritative"` with every entry in state; switching such a state to `"additive"` still removes the ' +
          'imported entries the configuration leaves out (the plan lists them).',
      ),
      tenant: attribute.optionalComputedString("The tenant (customer_name) whose list this is. Defaults to the provider's tenant. Changing it replaces the resource.", {
        requiresReplace: true,
      }),
      id: attribute.computedString('`<tenant>/<list name>`.'),
    },
  };
}

// ---- validate ----------------------------------------------------------------------------------

function validateList(config: ObjectValue): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const entries = collectionAttribute(config, 'entries');
  if (Array.isArray(entries)) {
    const seen = new Map<string, string>();
    for (const element of entries) {
      if (!isObjectValue(element)) continue;
      const ip = stringAttribute(element, 'ip');
      if (typeof ip !== 'string') continue;
      const checked = checkIpAttribute(ip, ['entries'], 'entries.ip');
      if ('diagnostic' in checked) {
        diagnostics.push(checked.diagnostic);
        continue;
      }
      const earlier = seen.get(checked.canonical);
      if (earlier !== undefined) {
        diagnostics.push(
          errorDiagnostic(
            'Duplicate address in entries',
            `entries holds ${JSON.stringify(earlier)} and ${JSON.stringify(ip)}, which are the same address (${checked.canonical}). ` +
              'Keep one of them.',
            ['entries'],
          ),
        );
        continue;
      }
      seen.set(checked.canonical, ip);
    }
  }
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

function isObjectValue(value: Value | undefined): value is ObjectValue {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** null and "" are the same description. */
function effectiveDescription(value: Value | undefined): string | typeof UNKNOWN {
  if (isUnknown(value ?? null)) return UNKNOWN;
  return typeof value === 'string' ? value : '';
}

/** Known declared entries by canonical ip (state or config). */
function byCanonicalIp(entries: readonly Value[] | null): Map<string, ObjectValue> {
  const indexed = new Map<string, ObjectValue>();
  for (const element of entries ?? []) {
    if (!isObjectValue(element)) continue;
    const ip = stringAttribute(element, 'ip');
    if (typeof ip === 'string') indexed.set(canonicalIpOf(ip, ['entries']), element);
  }
  return indexed;
}

/**
 * The entries to plan (and, at apply, to store): the config's, except that an entry equal to a
 * prior one (same canonical ip and description) is the prior object, spelling included, so an
 * unchanged set plans exactly as stored.
 */
export function planEntries(configured: readonly Value[], prior: readonly Value[] | null): Value[] {
  const priorByIp = byCanonicalIp(prior);
  return configured.map((element) => {
    if (!isObjectValue(element) || !isWhollyKnown(element)) return element;
    const canonical = canonicalIpOf(requiredString(element, 'ip'), ['entries']);
    const match = priorByIp.get(canonical);
    if (match !== undefined && effectiveDescription(match.description) === effectiveDescription(element.description)) {
      priorByIp.delete(canonical);
      return match;
    }
    return element;
  });
}

/**
 * The service's entries as state: all of them (authoritative) or those the state declares
 * (additive), keeping the state's spelling and null descriptions where they still match.
 */
export function entriesFromService(current: CachedList, stateEntries: readonly Value[] | null, mode: ListMode): Value[] {
  const declared = byCanonicalIp(stateEntries);
  const entries: Value[] = [];
  // State order first (an unchanged list reads back as stored), then entries added elsewhere.
  for (const [canonical, stated] of declared) {
    const entry = current.byIp.get(canonical);
    if (entry === undefined) continue;
    const listed = entry.description ?? '';
    entries.push({ ip: stated.ip, description: effectiveDescription(stated.description) === listed ? stated.description : listed });
  }
  if (mode === 'authoritative') {
    for (const [canonical, entry] of current.byIp) {
      if (!declared.has(canonical)) entries.push({ ip: entry.ip, description: entry.description ?? '' });
    }
  }
  return entries;
}

function modeOf(value: ObjectValue): ListMode {
  const mode = stringAttribute(value, 'mode');
  return mode === 'additive' ? 'additive' : DEFAULT_MODE;
}

function describeProgress(list: ListName, progress: BulkProgress): string {
  return `svc_${list}: ${progress.command} chunk ${progress.chunk}/${progress.chunks} (${progress.done}/${progress.total} entries)`;
}

/** Creates or updates: sends the difference between the service's list and the planned entries. */
async function applyList(context: SvcContext, list: ListName, config: ObjectValue, prior: ObjectValue | null): Promise<ObjectValue> {
  const configuredTenant = stringAttribute(config, 'tenant');
  const tenant = typeof configuredTenant === 'string' ? configuredTenant : context.defaultTenant();
  const mode = modeOf(config);
  const entries = planEntries(collectionAttribute(config, 'entries') as readonly Value[], prior === null ? null : (collectionAttribute(prior, 'entries') as readonly Value[] | null));

  const desired = new Map<string, string>();
  for (const [canonical, element] of byCanonicalIp(entries)) desired.set(canonical, effectiveDescription(element.description) as string);
  const current = (await context.lists.read(tenant, list)).byIp;

  const toAdd = [...desired]
    .filter(([ip, description]) => current.get(ip)?.description !== description)
    .map(([ip, description]) => ({ ip, description }));
  const owned = mode === 'authoritative' ? [...current.keys()] : [...byCanonicalIp(prior === null ? null : (collectionAttribute(prior, 'entries') as readonly Value[] | null)).keys()];
  const toDelete = owned.filter((ip) => !desired.has(ip) && current.has(ip));

  if (toAdd.length > 0 || toDelete.length > 0) {
    context.progress(`svc_${list} (${tenant}): ${toAdd.length} to add or update, ${toDelete.length} to remove`);
    await context.writeList(tenant, list, async (client) => {
      const onProgress = (progress: BulkProgress) => context.progress(describeProgress(list, progress));
      if (toAdd.length > 0) await client.bulkAddEntries(list, toAdd, { onProgress });
      if (toDelete.length > 0) await client.bulkDeleteEntries(list, toDelete, { onProgress });
    });
  }
  return { entries, mode, tenant, id: `${tenant}/${list}` };
}

// ---- definition --------------------------------------------------------------------------------

export function createListResource(list: ListName): ResourceDefinition<SvcContext> {
  return {
    typeName: `svc_${list}`,
    schema: listSchema(list),

    validate: ({ config }) => validateList(config),

    async plan({ context, config, prior, proposed }) {
      const tenant = context.tenantForPlan(stringAttribute(config, 'tenant'));
      const mode = stringAttribute(config, 'mode');
      const entries = collectionAttribute(config, 'entries');
      const priorEntries = prior === null ? null : collectionAttribute(prior, 'entries');
      return {
        planned: {
          ...proposed,
          entries: Array.isArray(entries) ? planEntries(entries, Array.isArray(priorEntries) ? priorEntries : null) : entries,
          mode: mode === null ? DEFAULT_MODE : mode,
          tenant,
          id: typeof tenant === 'string' ? `${tenant}/${list}` : UNKNOWN,
        },
      };
    },

    create: ({ context, config }) => applyList(context, list, config, null),

    async read({ context, state }) {
      if (context.connectionUnknown) return state;
      const tenant = requiredString(state, 'tenant');
      const mode = modeOf(state);
      const current = await context.lists.read(tenant, list);
      return { ...state, mode, entries: entriesFromService(current, collectionAttribute(state, 'entries') as readonly Value[] | null, mode) };
    },

    update: ({ context, config, prior }) => applyList(context, list, config, prior),

    async delete({ context, prior }) {
      const tenant = requiredString(prior, 'tenant');
      const owned =
        modeOf(prior) === 'authoritative'
          ? [...(await context.lists.read(tenant, list)).byIp.keys()]
          : [...byCanonicalIp(collectionAttribute(prior, 'entries') as readonly Value[] | null).keys()];
      if (owned.length === 0) return;
      context.progress(`svc_${list} (${tenant}): removing ${owned.length} entries`);
      await context.writeList(tenant, list, (client) =>
        client.bulkDeleteEntries(list, owned, { onProgress: (progress) => context.progress(describeProgress(list, progress)) }),
      );
    },

    async import({ context, id }) {
      if (id.trim() === '' || id.includes('/')) {
        throw new DiagnosticsError([
          errorDiagnostic(
            'Invalid import ID',
            `Import ID ${JSON.stringify(id)}: svc_${list} is imported by the tenant name alone (e.g. acme); it then owns the whole list (mode "authoritative").`,
          ),
        ]);
      }
      const current = await context.lists.read(id, list);
      return {
        entries: entriesFromService(current, null, 'authoritative'),
        mode: DEFAULT_MODE,
        tenant: id,
        id: `${id}/${list}`,
      };
    },
  };
}

export const listResources: readonly ResourceDefinition<SvcContext>[] = (['blacklist', 'blocklist', 'whitelist'] as const).map(createListResource);
