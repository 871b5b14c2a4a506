/**
 * StopProvider (terraform's answer to Ctrl-C) ends API work for good: terraform may send it
 * before it asks for the next change, and a change asked for afterwards must send nothing,
 * not make a new client and log in. Driven through the real provider service and emulator.
 */
import { createProviderService } from '../../src/provider/protocol/provider-service';
import { encodeValue } from '../../src/provider/protocol/msgpack';
import { impliedType } from '../../src/provider/core/value-shape';
import { UNKNOWN, type ObjectValue } from '../../src/provider/core';
import { createSvcProvider } from '../../src/provider/provider';
import { API_KEY, TENANT, fullObject, resourceNamed, startWorld, type World } from './harness';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

function dynamic(typeName: string, value: ObjectValue | null) {
  const schema = typeName === 'provider' ? createSvcProvider().schema : resourceNamed(typeName).schema;
  return { msgpack: encodeValue(impliedType(schema), value) };
}

async function configuredService() {
  const service = createProviderService(createSvcProvider({ env: {} }));
  const providerConfig = fullObject(createSvcProvider().schema, { base_url: world.emulator.url, api_key: API_KEY, tenant: TENANT });
  const configured = await service.configureProvider({ terraformVersion: '1.11.4', config: dynamic('provider', providerConfig) });
  expect(configured.diagnostics).toEqual([]);
  return service;
}

test.each(['svc_blacklist', 'svc_blacklist_entry'])('%s: a create asked for after StopProvider sends nothing and says terraform stopped it', async (typeName) => {
  const service = await configuredService();
  const schema = resourceNamed(typeName).schema;
  const config =
    typeName === 'svc_blacklist'
      ? fullObject(schema, { entries: { '198.51.100.77': 'stop test' } })
      : fullObject(schema, { ip: '198.51.100.77', description: 'stop test' });
  const planned: ObjectValue =
    typeName === 'svc_blacklist'
      ? { ...config, mode: 'authoritative', tenant: TENANT, id: `${TENANT}/blacklist` }
      : { ...config, tenant: TENANT, id: `${TENANT}/198.51.100.77`, created: UNKNOWN };
  world.emulator.resetStats();
  expect(await service.stopProvider({})).toEqual({ error: '' });

  const response = await service.applyResourceChange({
    typeName,
    priorState: dynamic(typeName, null),
    plannedState: dynamic(typeName, planned),
    config: dynamic(typeName, config),
    plannedPrivate: Buffer.alloc(0),
  });
  expect(response.diagnostics.map((diagnostic) => diagnostic.summary)).toEqual(['The svc provider was stopping']);
  expect(response.diagnostics[0].detail).toMatch(/terraform stopped the provider \(Ctrl-C\)/);
  expect(world.emulator.stats().requests).toBe(0);
  expect(await world.api.getEntry('blacklist', '198.51.100.77')).toBeNull();
});
