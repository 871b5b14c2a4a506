/**
 * `svc_blacklist_entry`, `svc_blocklist_entry`, `svc_whitelist_entry`: one address or CIDR on
 * one list. The ip compares by canonical form (`10.0.0.1/32` is `10.0.0.1`), so a respelling
 * plans no change; a different address replaces the entry. Reads go through the shared list
 * cache, so refreshing many entries costs one `list_<list>` call per list. Plan checks the
 * tenant against what the service knows (one call per process at most, none after a refresh).
 */
import { LIST_NAMES, type ListEntry, type ListName } from '../../api/types';
import {
  DiagnosticsError,
  UNKNOWN,
  errorDiagnostic,
  warningDiagnostic,
  type Diagnostic,
  type ObjectValue,
  type ResourceDefinition,
  type Schema,
  type Value,
} from '../core';
import type { SvcContext } from '../context';
import {
  attribute,
  canonicalIpOf,
  checkIpAttribute,
  checkTenantForPlan,
  descriptionDiagnostic,
  emptyStringDiagnostic,
  requiredString,
  stringAttribute,
} from './attributes';
import { validateEntryGuardrails } from '../guardrails';
import { planGuardrails } from './list-guardrails';
import { entryId, splitId } from './resource-ids';

const LIST_PURPOSE: Record<ListName, string> = {
  blacklist: 'denied permanently, until removed',
  blocklist: 'denied for 30 minutes from the moment the service adds it',
  whitelist: 'never blocked, also not by risk-based blocking',
};

// ---- schema ------------------------------------------------------------------------------------

function entrySchema(list: ListName): Schema {
  const blocklistNote =
    list === 'blocklist'
      ? ' The service drops a blocklist entry 30 minutes after adding it; terraform then sees it gone and plans a create, ' +
        'so the next apply renews the block.'
      : '';
  return {
    version: 0,
    description:
      `One address or CIDR range on the tenant's ${list} (${LIST_PURPOSE[list]}).${blocklistNote} ` +
      `Do not manage the same list with \`svc_${list}\` as well: the two would undo each other's changes.`,
    attributes: {
      ip: attribute.requiredString(
        'IPv4/IPv6 address or CIDR range without host bits. Compared by canonical form, so `10.0.0.1/32` and `10.0.0.1` ' +
          'are the same entry. Changing it to another address replaces the entry.',
        { requiresReplace: true },
      ),
      description: attribute.optionalComputedString(
        'Free text shown next to the entry, at most 1,024 characters with no control characters. Unset means "". Changes update the entry in place.',
      ),
      tenant: attribute.optionalComputedString("The tenant (customer_name) whose list holds the entry. Defaults to the provider's tenant. Changing it replaces the entry.", {
        requiresReplace: true,
      }),
      id: attribute.computedString('`<tenant>/<canonical ip>`; a "/" in the tenant name is written %2F (and "%" as %25). Also the import ID.'),
      created: attribute.computedNumber('When the entry was added, in epoch seconds, as the service reports it.'),
      ...(list === 'blocklist'
        ? { expires: attribute.computedNumber('When the block ends, in epoch seconds; the entry is gone from the service after that.') }
        : {}),
    },
  };
}

// ---- validate ----------------------------------------------------------------------------------

const IP_PLACE = { path: ['ip'], what: 'ip' } as const;

function validateEntry(list: ListName, config: ObjectValue): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const ip = stringAttribute(config, 'ip');
  if (typeof ip === 'string') {
    const checked = checkIpAttribute(ip, ['ip']);
    if ('diagnostic' in checked) diagnostics.push(checked.diagnostic);
    else diagnostics.push(...validateEntryGuardrails(list, ip, IP_PLACE));
  }
  const description = stringAttribute(config, 'description');
  if (typeof description === 'string') {
    const invalid = descriptionDiagnostic(description, ['description'], 'description');
    if (invalid !== undefined) diagnostics.push(invalid);
  }
  const emptyTenant = emptyStringDiagnostic(config, 'tenant', "Leave tenant out to use the provider's tenant, or name one.");
  if (emptyTenant !== undefined) diagnostics.push(emptyTenant);
  return diagnostics;
}

// ---- state -------------------------------------------------------------------------------------

/** The state of an entry as the service lists it, keeping the user's spelling of the ip. */
function entryState(list: ListName, ip: string, tenant: string, entry: ListEntry): ObjectValue {
  const canonical = canonicalIpOf(ip, ['ip']);
  return {
    ip,
    description: entry.description ?? '',
    tenant,
    id: entryId(tenant, canonical),
    created: entry.created,
    ...(list === 'blocklist' ? { expires: typeof entry.expires === 'number' ? entry.expires : null } : {}),
  };
}

/** ip, tenant and description as the wholly known config (apply time) asks for them. */
function desiredEntry(context: SvcContext, config: ObjectValue): { ip: string; canonical: string; tenant: string; description: string } {
  const ip = requiredString(config, 'ip');
  const tenant = stringAttribute(config, 'tenant');
  const description = stringAttribute(config, 'description');
  return {
    ip,
    canonical: canonicalIpOf(ip, ['ip']),
    tenant: typeof tenant === 'string' ? tenant : context.defaultTenant(),
    description: typeof description === 'string' ? description : '',
  };
}

async function readBack(context: SvcContext, list: ListName, tenant: string, canonical: string): Promise<ListEntry> {
  const entry = await context.client(tenant).getEntry(list, canonical);
  if (entry !== null) return entry;
  throw new DiagnosticsError([
    errorDiagnostic(
      `The ${list} entry ${canonical} is missing right after it was written`,
      `new_${list} for ${canonical} in tenant ${JSON.stringify(tenant)} succeeded, but get_${list} does not find it. ` +
        'Something else removed it at the same moment (another terraform run, risk-based blocking, a person); run terraform apply again.',
    ),
  ]);
}

/** The private note an update plan leaves for the create plan of a replacement: the id of the entry it replaces. */
const REPLACES_NOTE = 'replaces';

/**
 * A create of an address the list already holds: new_<list> would overwrite that entry's
 * description and terraform would own it from then on, so destroy would delete an entry it never
 * made (a block placed by risk-based blocking, a colleague's entry). Import it instead.
 */
function alreadyOnListDiagnostic(list: ListName, tenant: string, canonical: string, existing: ListEntry): Diagnostic {
  const id = entryId(tenant, canonical);
  const description = existing.description === undefined || existing.description === '' ? 'no description' : `description ${JSON.stringify(existing.description)}`;
  return errorDiagnostic(
    `The ${list} already holds ${canonical}`,
    `Tenant ${JSON.stringify(tenant)}'s ${list} already has an entry for ${canonical} (${description}) that this resource did not create, ` +
      'so creating it would take that entry over, and destroying the resource later would delete it. Nothing was sent. ' +
      `To manage it with terraform, import it: terraform import <address of this resource> ${id}, ` +
      `or add an import block: import { to = <address of this resource>, id = "${id}" }. ` +
      'Otherwise remove this resource from the configuration. (A resource marked tainted is planned as a new one: ' +
      'run terraform untaint on it, or replace it with terraform apply -replace=<address>.)',
    ['ip'],
  );
}

/** A create of an address the list already holds with exactly the configured description. */
function adoptsSameEntryWarning(list: ListName, tenant: string, canonical: string): Diagnostic {
  return warningDiagnostic(
    `svc_${list}_entry: adopts existing entry ${canonical}`,
    `Tenant ${JSON.stringify(tenant)}'s ${list} already holds ${canonical} with the configured description; this resource takes it over, ` +
      'and destroying the resource will remove it. (During a create_before_destroy replacement this is the entry of the object being replaced.)',
    ['ip'],
  );
}

function keptForReplacementWarning(list: ListName, tenant: string, canonical: string): Diagnostic {
  return warningDiagnostic(
    `svc_${list}_entry: ${canonical} kept for the resource that replaces this one`,
    `A create earlier in this apply wrote ${canonical} to the ${list} of tenant ${JSON.stringify(tenant)} (a create_before_destroy replacement, ` +
      'or another resource for the same address), so destroying this object left the entry on the list.',
  );
}

function keptForWholeListWarning(list: ListName, tenant: string, canonical: string): Diagnostic {
  return warningDiagnostic(
    `svc_${list}_entry: ${canonical} kept for svc_${list}`,
    `svc_${list} of tenant ${JSON.stringify(tenant)}, written earlier in this apply, declares ${canonical}, so destroying this per-entry ` +
      `resource left the entry on the list: it belongs to svc_${list} now. (To move between per-entry and whole-list resources without ` +
      'a destroy at all, use removed { lifecycle { destroy = false } } and import: see help/provider.md.)',
  );
}

/** Two per-entry resources of one configuration for the same address (in any spelling). */
function duplicateAddressDiagnostic(list: ListName, tenant: string, canonical: string, earlier: string, written: string): Diagnostic {
  const spellings = earlier === written ? JSON.stringify(written) : `${JSON.stringify(earlier)} and ${JSON.stringify(written)}`;
  return errorDiagnostic(
    `Two svc_${list}_entry resources for ${canonical}`,
    `Two svc_${list}_entry resources of this configuration declare ${canonical} (${spellings}) in the ${list} of tenant ${JSON.stringify(tenant)}. ` +
      'They are one entry on the service: both would write it, each overwriting the other\'s description, and destroying one would delete the ' +
      "other's entry. Keep one resource for the address.",
    ['ip'],
  );
}

/**
 * Parses `<tenant>/<ip or CIDR>`: the tenant is everything before the first slash, with a "/" in
 * its name written %2F (and "%" as %25), as the resource's id shows it.
 */
export function parseEntryImportId(list: ListName, id: string): { tenant: string; ip: string } {
  const { tenant, rest } = splitId(id);
  const ip = rest ?? '';
  if (tenant === '' || ip === '') {
    throw new DiagnosticsError([
      errorDiagnostic(
        'Invalid import ID',
        `Import ID ${JSON.stringify(id)}: expected <tenant>/<ip or CIDR>, e.g. acme/203.0.113.9 or acme/10.0.0.0/8 ` +
          '(the tenant is everything before the first slash; write a "/" in the tenant name as %2F and a "%" as %25). ' +
          `Import it as svc_${list}_entry with that ID.`,
      ),
    ]);
  }
  const checked = checkIpAttribute(ip, [], 'the ip of the import ID');
  if ('diagnostic' in checked) throw new DiagnosticsError([checked.diagnostic]);
  return { tenant, ip };
}

// ---- definition --------------------------------------------------------------------------------

export function createListEntryResource(list: ListName): ResourceDefinition<SvcContext> {
  const hasExpiry = list === 'blocklist';
  return {
    typeName: `svc_${list}_entry`,
    schema: entrySchema(list),

    validate: ({ config }) => validateEntry(list, config),

    async plan({ context, config, prior, proposed, priorPrivate }) {
      const configuredIp = stringAttribute(config, 'ip');
      const configuredTenant = stringAttribute(config, 'tenant');
      const tenant = context.tenantForPlan(configuredTenant);
      // Before anything is written: an unknown tenant is refused here, not by new_<list> at apply.
      await checkTenantForPlan(context, tenant, configuredTenant !== null, list);
      const configuredDescription = stringAttribute(config, 'description');

      let ip: Value = configuredIp;
      let canonical: string | undefined;
      if (typeof configuredIp === 'string') {
        canonical = canonicalIpOf(configuredIp, ['ip']);
        // Semantic equality: the same address in another spelling keeps the stored spelling.
        const priorIp = prior === null ? null : stringAttribute(prior, 'ip');
        if (typeof priorIp === 'string' && canonicalIpOf(priorIp, ['ip']) === canonical) ip = priorIp;
      }
      // A create must not adopt an entry someone else made (destroy would then delete it). A
      // replacement (-replace) plans its create right after the update plan of the object it
      // replaces, whose entry is in the list until apply deletes it: that one is ours.
      const replacing = typeof priorPrivate?.[REPLACES_NOTE] === 'string' ? priorPrivate[REPLACES_NOTE] : undefined;
      const adoption: Diagnostic[] = [];
      // Two resources creating one address would race at apply, each overwriting the other's
      // description (a create next to an existing resource is refused below as already on the list).
      if (prior === null && replacing === undefined && canonical !== undefined && typeof tenant === 'string') {
        const earlier = context.registry.claimEntry(tenant, list, canonical, configuredIp as string);
        if (earlier !== undefined) throw new DiagnosticsError([duplicateAddressDiagnostic(list, tenant, canonical, earlier, configuredIp as string)]);
      }
      if (prior === null && canonical !== undefined && typeof tenant === 'string' && !context.connectionUnknown && replacing !== entryId(tenant, canonical)) {
        const existing = await context.lists.find(tenant, list, canonical);
        const wanted = configuredDescription === null ? '' : configuredDescription;
        // The same entry as configured (also the old object of a create_before_destroy replacement,
        // planned again at apply) is adopted with a warning; another description is a takeover.
        if (existing !== undefined && (existing.description ?? '') === wanted) adoption.push(adoptsSameEntryWarning(list, tenant, canonical));
        else if (existing !== undefined) throw new DiagnosticsError([alreadyOnListDiagnostic(list, tenant, canonical, existing)]);
      }
      // Same tenant and address: an update in place (the upsert keeps created and the block's end).
      const sameEntry = prior !== null && canonical !== undefined && ip === prior.ip && tenant === prior.tenant;
      const planned: Record<string, Value> = {
        ...proposed,
        ip,
        tenant,
        description: configuredDescription === null ? '' : configuredDescription,
        id: typeof tenant === 'string' && canonical !== undefined ? entryId(tenant, canonical) : UNKNOWN,
        created: sameEntry ? prior.created : UNKNOWN,
      };
      // An update re-adds an entry whose block ended after this plan (e.g. a saved plan applied
      // later), which starts a new block: expires is only known when nothing is sent at all.
      if (hasExpiry) planned.expires = sameEntry && planned.description === prior.description ? prior.expires : UNKNOWN;
      const diagnostics =
        typeof configuredIp === 'string'
          ? await planGuardrails({
              context,
              list,
              tenant,
              tenantIsConfigured: configuredTenant !== null,
              entries: [{ ip: configuredIp, place: IP_PLACE }],
              added: new Set(canonical !== undefined && !sameEntry ? [canonical] : []),
              source: `svc_${list}_entry in this configuration`,
              compareOwnListOnService: true,
            })
          : [];
      const priorId = prior === null ? null : stringAttribute(prior, 'id');
      diagnostics.push(...adoption);
      return { planned, diagnostics, ...(typeof priorId === 'string' ? { privateData: { [REPLACES_NOTE]: priorId } } : {}) };
    },

    async create({ context, config }) {
      const desired = desiredEntry(context, config);
      await context.writeList(desired.tenant, list, async (client) => {
        // Again right before writing: new_<list> is an upsert, and the entry may have appeared since the plan.
        const existing = await client.getEntry(list, desired.canonical);
        // The entry exactly as configured (the old object of a create_before_destroy replacement): nothing to write.
        if (existing !== null && (existing.description ?? '') === desired.description) {
          context.registry.entryWritten(desired.tenant, list, desired.canonical);
          return;
        }
        if (existing !== null) throw new DiagnosticsError([alreadyOnListDiagnostic(list, desired.tenant, desired.canonical, existing)]);
        // Before the write: a destroy later in this apply (of the object this one replaces) must not undo it.
        context.registry.entryWritten(desired.tenant, list, desired.canonical);
        await client.addEntry(list, { ip: desired.canonical, description: desired.description });
      });
      const entry = await readBack(context, list, desired.tenant, desired.canonical);
      return entryState(list, desired.ip, desired.tenant, entry);
    },

    async read({ context, state }) {
      // Without base_url/api_key (not known yet during plan) the entry cannot be checked: keep it.
      if (context.connectionUnknown) return state;
      const ip = requiredString(state, 'ip');
      const tenant = requiredString(state, 'tenant');
      const entry = await context.lists.find(tenant, list, ip);
      // Gone (removed elsewhere, or a blocklist entry whose 30 minutes ended): terraform plans a create.
      if (entry === undefined) return null;
      return entryState(list, ip, tenant, entry);
    },

    async update({ context, config, prior }) {
      const desired = desiredEntry(context, config);
      const ip = requiredString(prior, 'ip');
      const created = prior.created;
      // new_<list> is an upsert; sending the stored `created` keeps it even where the service takes it from the request.
      await context.writeList(desired.tenant, list, (client) =>
        client.addEntry(list, {
          ip: desired.canonical,
          description: desired.description,
          ...(typeof created === 'number' ? { created } : {}),
        }),
      );
      const entry = await readBack(context, list, desired.tenant, desired.canonical);
      return entryState(list, ip, desired.tenant, entry);
    },

    async delete({ context, prior, warn }) {
      const ip = canonicalIpOf(requiredString(prior, 'ip'), ['ip']);
      const tenant = requiredString(prior, 'tenant');
      await context.registry.deleteEntry(tenant, list, ip, async (declaredByWholeList) => {
        if (declaredByWholeList) {
          // The whole list created in this apply owns the entry now (moving from per-entry resources to svc_<list>).
          warn(keptForWholeListWarning(list, tenant, ip));
          return;
        }
        if (context.registry.entryWrittenInThisProcess(tenant, list, ip)) {
          // A create earlier in this apply wrote the same address: the create_before_destroy replacement of this object.
          warn(keptForReplacementWarning(list, tenant, ip));
          return;
        }
        await context.writeList(tenant, list, async (client) => {
          try {
            await client.deleteEntry(list, ip);
          } catch (error) {
            // Deliberate: an entry already gone (removed elsewhere, or an ended block) is deleted.
            if ((error as { code?: unknown }).code !== 'not_found') throw error;
          }
        });
      });
    },

    async import({ context, id }) {
      const { tenant, ip } = parseEntryImportId(list, id);
      const entry = await context.lists.find(tenant, list, ip);
      if (entry === undefined) {
        const hint = hasExpiry ? ' Blocklist entries disappear 30 minutes after they were added.' : '';
        throw new DiagnosticsError([
          errorDiagnostic(
            `No ${list} entry to import`,
            `Tenant ${JSON.stringify(tenant)} has no ${list} entry for ${JSON.stringify(ip)}.${hint} ` +
              `Check the address and the tenant (import ID <tenant>/<ip or CIDR>), or let terraform create the entry instead of importing it.`,
          ),
        ]);
      }
      // The canonical spelling, as a create would have written it (2001:DB8:0::7 is 2001:db8::7).
      return entryState(list, canonicalIpOf(ip, ['ip']), tenant, entry);
    },
  };
}

export const listEntryResources: readonly ResourceDefinition<SvcContext>[] = LIST_NAMES.map(
  createListEntryResource,
);
