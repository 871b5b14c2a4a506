/**
 * The protocol floor of the bench's plan rows: a provider made of this project's own tfplugin6
 * layer (src/provider/protocol, src/provider/core) and nothing of svc. One resource,
 * `floor_entry`, with the `ip` and `description` of an svc_*_entry; its hooks plan, create,
 * update and read back exactly what they are given: no API, no checks, no canonicalisation, no
 * login. What a plan of N floor_entry costs is what terraform and the plugin protocol in node
 * cost; what an svc plan costs beyond it is the svc provider's own work (help/performance.md).
 *
 * A second resource, `floor_wide_entry`, has the attributes of svc_blacklist_entry (`tenant`,
 * `id` and `created` besides `ip` and `description`) and plans what svc plans for the same
 * configuration, still with no API, no checks and no canonicalisation: the plan of N of them
 * against N floor_entry is terraform's own work on svc's extra attributes, which no change to
 * the svc provider can remove; svc against it is what svc's code costs with the same schema.
 * (svc_blocklist_entry also has `expires`, a third of the bench's svc resources: not modelled.)
 * Not shipped: the bench builds it (build.ts) and removes it.
 */
import type { ObjectValue, PlanRequest, ProviderDefinition, ResourceDefinition, Schema, Value } from '../../../src/provider/core';
import { types, UNKNOWN } from '../../../src/provider/core';

/** The provider's type, as `provider "floor"` and every `floor_*` resource type name it. */
export const FLOOR_PROVIDER_TYPE = 'floor';
export const FLOOR_PROVIDER_NAMESPACE = 'svc-bench';
/** The fully qualified address its filesystem mirror and the bench's configurations use. */
export const FLOOR_PROVIDER_SOURCE = `registry.terraform.io/${FLOOR_PROVIDER_NAMESPACE}/${FLOOR_PROVIDER_TYPE}`;
export const FLOOR_RESOURCE_TYPE = `${FLOOR_PROVIDER_TYPE}_entry`;
/** The floor resource with svc_blacklist_entry's attributes. */
export const FLOOR_WIDE_RESOURCE_TYPE = `${FLOOR_PROVIDER_TYPE}_wide_entry`;
/** floor_wide_entry's tenant where the configuration sets none (svc's is the provider's tenant). */
export const FLOOR_WIDE_DEFAULT_TENANT = 'bench';
/** What a floor_wide_entry's create stores as `created` (svc's comes from the service). */
export const FLOOR_WIDE_CREATED = 1_767_225_600;

const entrySchema: Schema = {
  version: 0,
  description: 'One address and its description, kept as given: the bench floor of svc_*_entry.',
  attributes: {
    ip: { type: types.string, required: true, description: 'Kept as given.' },
    description: { type: types.string, optional: true, description: 'Kept as given.' },
  },
};

/** svc_blacklist_entry's attributes (src/provider/resources/list-entry.ts), with the same types and flags. */
const wideEntrySchema: Schema = {
  version: 0,
  description: 'The attributes of svc_blacklist_entry, planned as svc plans them: the bench floor with svc\'s schema.',
  attributes: {
    ip: { type: types.string, required: true, requiresReplace: true, description: 'Kept as given.' },
    description: { type: types.string, optional: true, computed: true, description: 'Kept as given; unset plans "".' },
    tenant: { type: types.string, optional: true, computed: true, requiresReplace: true, description: `Kept as given; unset plans "${FLOOR_WIDE_DEFAULT_TENANT}".` },
    id: { type: types.string, computed: true, description: '`<tenant>/<ip>`, known at plan.' },
    created: { type: types.number, computed: true, description: `Unknown at create, ${FLOOR_WIDE_CREATED} after it; kept from the prior state.` },
  },
};

/** No context: the floor configures nothing and calls nothing. */
type NoContext = undefined;

const floorEntry: ResourceDefinition<NoContext> = {
  typeName: FLOOR_RESOURCE_TYPE,
  schema: entrySchema,
  // No plan hook: the core's default plan (terraform's proposal) is the plan.
  create: async ({ planned }) => planned,
  update: async ({ planned }) => planned,
  delete: async () => undefined,
  read: async ({ state }) => state,
};

/** What svc_blacklist_entry's plan hook plans for the same configuration, minus its checks, API calls and canonicalisation. */
async function planWideEntry({ config, prior, proposed }: PlanRequest<NoContext>): Promise<{ planned: ObjectValue }> {
  const ip: Value = config.ip;
  const tenant: Value = config.tenant === null ? FLOOR_WIDE_DEFAULT_TENANT : config.tenant;
  const sameEntry = prior !== null && typeof ip === 'string' && ip === prior.ip && tenant === prior.tenant;
  return {
    planned: {
      ...proposed,
      description: config.description === null ? '' : config.description,
      tenant,
      id: typeof ip === 'string' && typeof tenant === 'string' ? `${tenant}/${ip}` : UNKNOWN,
      created: sameEntry ? prior.created : UNKNOWN,
    },
  };
}

/** The planned values with `created` filled, as svc's apply does from the service's reply. */
function applied(planned: ObjectValue): ObjectValue {
  return { ...planned, created: planned.created === UNKNOWN ? FLOOR_WIDE_CREATED : planned.created };
}

const floorWideEntry: ResourceDefinition<NoContext> = {
  typeName: FLOOR_WIDE_RESOURCE_TYPE,
  schema: wideEntrySchema,
  plan: planWideEntry,
  create: async ({ planned }) => applied(planned),
  update: async ({ planned }) => applied(planned),
  delete: async () => undefined,
  read: async ({ state }) => state,
};

export function floorProvider(): ProviderDefinition<NoContext> {
  return {
    schema: { version: 0, description: 'The bench floor: the plugin protocol and nothing else.', attributes: {} },
    configure: async () => undefined,
    resources: [floorEntry, floorWideEntry],
    dataSources: [],
  };
}
