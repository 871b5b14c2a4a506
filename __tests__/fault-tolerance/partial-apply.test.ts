/**
 * PartialApplyError at the protocol boundary: an update that fails part-way hands terraform
 * the state it left together with the error; a create never does (terraform would keep it as a
 * tainted object and replace it), and a state that does not fit the schema is not sent.
 */
import type { ProviderDefinition, ResourceDefinition } from '../../src/provider/core/definition';
import { PartialApplyError } from '../../src/provider/core/diagnostics';
import type { Schema } from '../../src/provider/core/schema';
import { types } from '../../src/provider/core/types';
import type { ObjectValue } from '../../src/provider/core/values';
import type { DynamicValue } from '../../src/provider/protocol/messages';
import { decodeValue, encodeValue } from '../../src/provider/protocol/msgpack';
import { createProviderService } from '../../src/provider/protocol/provider-service';
import { impliedType } from '../../src/provider/protocol/schema-conversion';

const schema: Schema = {
  version: 0,
  description: 'A list.',
  attributes: {
    entries: { description: 'Entries.', type: types.map(types.string), required: true },
    id: { description: 'ID.', type: types.string, computed: true },
  },
};
const type = impliedType(schema);
const providerSchema: Schema = { version: 0, description: 'Provider.', attributes: {} };

class BulkCallFailed extends Error {}

function serviceThrowing(partialState: ObjectValue) {
  const failing = () => {
    throw new PartialApplyError(new BulkCallFailed('chunk 2 of 3 failed: ECONNREFUSED'), partialState);
  };
  const resource: ResourceDefinition<null> = {
    typeName: 'svc_list',
    schema,
    create: async () => failing(),
    update: async () => failing(),
    delete: async () => undefined,
    read: async ({ state }) => state,
  };
  const definition: ProviderDefinition<null> = {
    schema: providerSchema,
    configure: async () => null,
    resources: [resource],
    dataSources: [],
    describeError: (error, operation) =>
      error instanceof BulkCallFailed ? { severity: 'error', summary: 'Could not reach the API', detail: `${operation}: ${error.message}` } : undefined,
  };
  return createProviderService(definition);
}

const dynamic = (value: ObjectValue | null): DynamicValue => ({ msgpack: encodeValue(type, value) });
const prior = { entries: { '10.0.0.1': 'kept' }, id: 'acme/list' };
const planned = { entries: { '10.0.0.1': 'kept', '10.0.0.2': 'new', '10.0.0.3': 'new' }, id: 'acme/list' };
const partial = { entries: { '10.0.0.1': 'kept', '10.0.0.2': 'new', '10.0.0.3': 'new' }, id: 'acme/list' };

async function applyWith(partialState: ObjectValue, priorState: ObjectValue | null) {
  const service = serviceThrowing(partialState);
  await service.configureProvider({ terraformVersion: '1.11.4', config: { msgpack: encodeValue(impliedType(providerSchema), {}) } });
  const response = await service.applyResourceChange({
    typeName: 'svc_list',
    priorState: dynamic(priorState),
    plannedState: dynamic(planned),
    config: dynamic({ ...planned, id: null }),
    plannedPrivate: Buffer.alloc(0),
  });
  return { state: decodeValue(type, response.newState!.msgpack!), summaries: response.diagnostics.map((diagnostic) => diagnostic.summary) };
}

test.each<[name: string, partialState: ObjectValue, priorState: ObjectValue | null, expectedState: ObjectValue | null, summaries: string[]]>([
  ['an update records the partial state with the error described as usual', partial, prior, partial, ['Could not reach the API']],
  ['a create records nothing', partial, null, null, ['Could not reach the API']],
  ['an update whose partial state does not fit the schema keeps the prior state', { entries: 'not a map', id: 'x' }, prior, prior, ['Could not reach the API', 'Internal error in the svc provider']],
])('%s', async (_name, partialState, priorState, expectedState, summaries) => {
  const outcome = await applyWith(partialState, priorState);
  expect(outcome).toEqual({ state: expectedState, summaries });
});
