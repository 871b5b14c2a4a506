/**
 * The protocol floor of the bench's plan rows: a provider made of this project's own tfplugin6
 * layer (src/provider/protocol, src/provider/core) and nothing of svc. One resource,
 * `floor_entry`, with the `ip` and `description` of an svc_*_entry; its hooks plan, create,
 * update and read back exactly what they are given: no API, no checks, no canonicalisation, no
 * login. What a plan of N floor_entry costs is what terraform and the plugin protocol in node
 * cost; what an svc plan costs beyond it is the svc provider's own work (help/performance.md).
 * Not shipped: the bench builds it (build.ts) and removes it.
 */
import type { ProviderDefinition, ResourceDefinition, Schema } from '../../../src/provider/core';
import { types } from '../../../src/provider/core';

/** The provider's type, as `provider "floor"` and every `floor_*` resource type name it. */
export const FLOOR_PROVIDER_TYPE = 'floor';
export const FLOOR_PROVIDER_NAMESPACE = 'svc-bench';
/** The fully qualified address its filesystem mirror and the bench's configurations use. */
export const FLOOR_PROVIDER_SOURCE = `registry.terraform.io/${FLOOR_PROVIDER_NAMESPACE}/${FLOOR_PROVIDER_TYPE}`;
export const FLOOR_RESOURCE_TYPE = `${FLOOR_PROVIDER_TYPE}_entry`;

const entrySchema: Schema = {
  version: 0,
  description: 'One address and its description, kept as given: the bench floor of svc_*_entry.',
  attributes: {
    ip: { type: types.string, required: true, description: 'Kept as given.' },
    description: { type: types.string, optional: true, description: 'Kept as given.' },
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

export function floorProvider(): ProviderDefinition<NoContext> {
  return {
    schema: { version: 0, description: 'The bench floor: the plugin protocol and nothing else.', attributes: {} },
    configure: async () => undefined,
    resources: [floorEntry],
    dataSources: [],
  };
}
