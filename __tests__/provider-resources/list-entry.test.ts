/**
 * svc_<list>_entry against the emulator: plan semantic equality of ip spellings, the
 * create/read/update/import/delete round trip of each list, drift, blocklist expiry by moving
 * the emulator clock, and import errors.
 */
import type { ListName } from '../../src/api/types';
import { DiagnosticsError, UNKNOWN, type ObjectValue, type Value } from '../../src/provider/core';
import {
  API_KEY,
  OTHER_TENANT,
  TENANT,
  create,
  BLOCK_SECONDS,
  duringClock,
  expectBlockEndIn,
  expectConformsToPlan,
  plan,
  plansNoChange,
  resourceNamed,
  startWorld,
  update,
  type World,
  failOnWarning,
} from './harness';

const LISTS: ListName[] = ['blacklist', 'blocklist', 'whitelist'];

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

describe('plan', () => {
  const entry = resourceNamed('svc_blacklist_entry');
  const prior: ObjectValue = { ip: '10.0.0.1', description: '', tenant: TENANT, id: `${TENANT}/10.0.0.1`, created: 1700000000 };

  test.each<[string, Record<string, Value>, Partial<ObjectValue>, string[]]>([
    ['/32 spelling of the same address keeps the stored spelling', { ip: '10.0.0.1/32' }, { ip: '10.0.0.1', created: 1700000000 }, []],
    ['identical spelling', { ip: '10.0.0.1' }, { ip: '10.0.0.1', id: `${TENANT}/10.0.0.1` }, []],
    ['a new description updates in place and keeps created', { ip: '10.0.0.1', description: 'scanner' }, { description: 'scanner', created: 1700000000 }, []],
    ['another address replaces', { ip: '10.0.0.2' }, { ip: '10.0.0.2', id: `${TENANT}/10.0.0.2`, created: UNKNOWN }, ['ip']],
    ['another tenant replaces', { ip: '10.0.0.1', tenant: OTHER_TENANT }, { tenant: OTHER_TENANT, id: `${OTHER_TENANT}/10.0.0.1`, created: UNKNOWN }, ['tenant']],
    ['an ip not known yet', { ip: UNKNOWN }, { ip: UNKNOWN, id: UNKNOWN, created: UNKNOWN }, ['ip']],
    ['a description not known yet', { ip: '10.0.0.1', description: UNKNOWN }, { description: UNKNOWN, created: 1700000000 }, []],
  ])('%s', async (_name, values, expected, replace) => {
    const context = await world.configure();
    const outcome = await plan(entry, context, values, prior);
    expect(outcome.planned).toMatchObject(expected);
    expect(outcome.replace).toEqual(replace);
  });

  test.each<[string, Record<string, Value>, Record<string, Value>]>([
    ['IPv6 in capitals and long form', { ip: '2001:DB8:0:0::1' }, { ip: '2001:db8::1' }],
    ['/128 of an IPv6 address', { ip: '2001:db8::1/128' }, { ip: '2001:db8::1' }],
    ['unset description is ""', { ip: '192.0.2.0/24' }, { ip: '192.0.2.0/24', description: '' }],
  ])('no change planned: %s', async (_name, stored, configured) => {
    const context = await world.configure();
    const state = await create(entry, context, stored);
    expect(await plansNoChange(entry, context, state, configured)).toBe(true);
  });

  test('create plans id from known inputs, created unknown, tenant from the provider', async () => {
    const context = await world.configure();
    const { planned } = await plan(resourceNamed('svc_blocklist_entry'), context, { ip: '203.0.113.9/32' });
    expect(planned).toEqual({ ip: '203.0.113.9/32', description: '', tenant: TENANT, id: `${TENANT}/203.0.113.9`, created: UNKNOWN, expires: UNKNOWN });
  });
});

describe.each(LISTS)('svc_%s_entry round trip', (list) => {
  const entry = resourceNamed(`svc_${list}_entry`);

  test('create, read, update, import, delete', async () => {
    const context = await world.configure();
    const { result: state, ...window } = await duringClock(world, () => create(entry, context, { ip: '10.0.0.0/8', description: 'corp' }));
    expect(state).toMatchObject({ ip: '10.0.0.0/8', description: 'corp', tenant: TENANT, id: `${TENANT}/10.0.0.0/8` });
    expect(typeof state.created).toBe('number');
    if (list === 'blocklist') expectBlockEndIn(state.expires, window);
    else expect('expires' in state).toBe(false);
    expect(await world.api.listEntries(list)).toEqual([expect.objectContaining({ ip: '10.0.0.0/8', description: 'corp' })]);

    expect(await entry.read({ context, state })).toEqual(state);

    world.emulator.advanceClock(5);
    const updated = await update(entry, context, state, { ip: '10.0.0.0/8', description: 'corp range' });
    expect(updated).toEqual({ ...state, description: 'corp range' });
    expect(await world.api.getEntry(list, '10.0.0.0/8')).toMatchObject({ description: 'corp range', created: state.created });

    const imported = await entry.import!({ context, id: `${TENANT}/10.0.0.0/8` });
    expect(imported).toEqual(updated);
    expect(await plansNoChange(entry, context, imported, { ip: '10.0.0.0/8', description: 'corp range' })).toBe(true);

    // A destroy of its own, as terraform runs it: in the process that created the address, the destroy would keep it.
    const destroying = await world.configure();
    await entry.delete({ context: destroying, prior: updated, warn: failOnWarning });
    expect(await world.api.listEntries(list)).toEqual([]);
    expect(await entry.read({ context: destroying, state: updated })).toBeNull();
    // Already gone: still a success.
    await expect(entry.delete({ context: destroying, prior: updated, warn: failOnWarning })).resolves.toBeUndefined();
  });

  test('drift made through the API shows on read; a removal reads as gone', async () => {
    const context = await world.configure();
    const state = await create(entry, context, { ip: '198.51.100.7' });
    await world.api.addEntry(list, { ip: '198.51.100.7', description: 'changed elsewhere' });
    const fresh = await world.configure();
    const drifted = await entry.read({ context: fresh, state });
    expect(drifted).toEqual({ ...state, description: 'changed elsewhere' });
    expect(await plansNoChange(entry, fresh, drifted!, { ip: '198.51.100.7' })).toBe(false);
    await world.api.deleteEntry(list, '198.51.100.7');
    expect(await entry.read({ context: await world.configure(), state })).toBeNull();
  });

  test('an entry in another tenant', async () => {
    const context = await world.configure();
    const state = await create(entry, context, { ip: '192.0.2.1', tenant: OTHER_TENANT });
    expect(state.id).toBe(`${OTHER_TENANT}/192.0.2.1`);
    expect(await world.api.listEntries(list)).toEqual([]);
    expect(await entry.read({ context, state })).toEqual(state);
  });
});

describe('blocklist expiry', () => {
  const entry = resourceNamed('svc_blocklist_entry');

  test('the entry is gone 30 minutes after it was added; re-creating renews the block', async () => {
    const context = await world.configure();
    const state = await create(entry, context, { ip: '203.0.113.50' });
    const expires = state.expires as number;
    // A minute of margin on each side: the emulator clock also moves with real time.
    world.emulator.advanceClock(expires - world.emulator.now() - 60);
    expect(await entry.read({ context: await world.configure(), state })).toEqual(state);
    world.emulator.advanceClock(120);
    const later = await world.configure();
    expect(await entry.read({ context: later, state })).toBeNull();
    // Terraform then plans a create; applying it blocks the address for another 30 minutes.
    const { result: renewed, ...window } = await duringClock(world, () => create(entry, later, { ip: '203.0.113.50' }));
    expectBlockEndIn(renewed.expires, window);
    expect(renewed.expires).toBeGreaterThan(expires);
  });

  test('a description update applied after the block ended (a saved plan) re-adds the entry; expires was planned unknown', async () => {
    const context = await world.configure();
    const state = await create(entry, context, { ip: '203.0.113.51', description: 'first' });
    const { planned, config } = await plan(entry, context, { ip: '203.0.113.51', description: 'second' }, state);
    expect(planned).toMatchObject({ description: 'second', created: state.created, expires: UNKNOWN });
    world.emulator.advanceClock(BLOCK_SECONDS + 60);
    const later = await world.configure();
    const { result: updated, ...window } = await duringClock(world, () => entry.update({ context: later, config, prior: state, planned, warn: failOnWarning }));
    expectConformsToPlan(planned, updated);
    expect(updated).toMatchObject({ description: 'second', created: state.created });
    expectBlockEndIn(updated.expires, window);
  });
});

describe('import', () => {
  const entry = resourceNamed('svc_whitelist_entry');

  test('the tenant is everything before the first slash', async () => {
    await world.api.addEntry('whitelist', { ip: '10.0.0.0/8', description: 'office' });
    const context = await world.configure();
    const imported = await entry.import!({ context, id: `${TENANT}/10.0.0.0/8` });
    expect(imported).toMatchObject({ ip: '10.0.0.0/8', tenant: TENANT, description: 'office', id: `${TENANT}/10.0.0.0/8` });
  });

  test.each([
    ['no slash', 'acme', /expected <tenant>\/<ip or CIDR>/],
    ['no tenant', '/10.0.0.1', /expected <tenant>\/<ip or CIDR>/],
    ['no address', 'acme/', /expected <tenant>\/<ip or CIDR>/],
    ['a bad address', 'acme/10.0.0.300', /octet 300 is above 255/],
    ['host bits', 'acme/10.0.0.1/8', /network of this range is 10\.0\.0\.0\/8/],
    ['an absent entry', 'acme/192.0.2.99', /has no whitelist entry for "192\.0\.2\.99"/],
  ])('%s is an error that says so', async (_name, id, message) => {
    const context = await world.configure();
    const failure = entry.import!({ context, id });
    await expect(failure).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(failure).rejects.toMatchObject({ diagnostics: [expect.objectContaining({ detail: expect.stringMatching(message) })] });
  });
});

test('the API key never lands in state', async () => {
  const context = await world.configure();
  const state = await create(resourceNamed('svc_blocklist_entry'), context, { ip: '192.0.2.8', description: 'x' });
  expect(JSON.stringify(state)).not.toContain(API_KEY);
});

describe('an entry this resource did not make is never taken over', () => {
  const entry = resourceNamed('svc_whitelist_entry');
  const thrown = async (action: () => Promise<unknown>) => {
    const error = await action().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiagnosticsError);
    return (error as DiagnosticsError).diagnostics;
  };

  test('plan: an address already on the list with another description is refused with how to import it; with the same description it is adopted with a warning', async () => {
    await world.api.addEntry('whitelist', { ip: '192.0.2.10', description: 'colleague' });
    const context = await world.configure();
    const [refused] = await thrown(() => plan(entry, context, { ip: '192.0.2.10/32', description: 'mine' }));
    expect(refused!.summary).toBe('The whitelist already holds 192.0.2.10');
    expect(refused!.detail).toContain(`(description "colleague") that this resource did not create`);
    expect(refused!.detail).toContain(`terraform import <address of this resource> ${TENANT}/192.0.2.10`);
    const adopting = await plan(entry, await world.configure(), { ip: '192.0.2.10', description: 'colleague' });
    expect(adopting.diagnostics.map((diagnostic) => [diagnostic.severity, diagnostic.summary])).toEqual([['warning', 'svc_whitelist_entry: adopts existing entry 192.0.2.10']]);
    expect(await world.api.getEntry('whitelist', '192.0.2.10')).toMatchObject({ description: 'colleague' });
  });

  test('plan: two resources of one configuration for one address, in two spellings, are refused', async () => {
    const context = await world.configure();
    await plan(entry, context, { ip: '2001:db8::7' });
    const [duplicate] = await thrown(() => plan(entry, context, { ip: '2001:DB8:0::7/128' }));
    expect(duplicate!.summary).toBe('Two svc_whitelist_entry resources for 2001:db8::7');
    expect(duplicate!.detail).toContain('("2001:db8::7" and "2001:DB8:0::7/128")');
  });

  test('apply: an entry that appeared after the plan is refused when its description differs, and left as it is when it matches', async () => {
    const context = await world.configure();
    const { planned, config } = await plan(entry, context, { ip: '192.0.2.20', description: 'mine' });
    await world.api.addEntry('whitelist', { ip: '192.0.2.20', description: 'someone else' });
    const [refused] = await thrown(() => entry.create({ context, config, planned, warn: failOnWarning }));
    expect(refused!.summary).toBe('The whitelist already holds 192.0.2.20');
    expect(await world.api.getEntry('whitelist', '192.0.2.20')).toMatchObject({ description: 'someone else' });

    const again = await world.configure();
    const second = await plan(entry, again, { ip: '192.0.2.21', description: 'same' });
    await world.api.addEntry('whitelist', { ip: '192.0.2.21', description: 'same' });
    const state = await entry.create({ context: again, config: second.config, planned: second.planned, warn: failOnWarning });
    expect(state).toMatchObject({ ip: '192.0.2.21', description: 'same', id: `${TENANT}/192.0.2.21` });
  });

  test('destroy in the process that wrote the address (a create_before_destroy replacement) keeps the entry and says why', async () => {
    const context = await world.configure();
    const state = await create(entry, context, { ip: '192.0.2.30', description: 'replacement' });
    const warnings: string[] = [];
    await entry.delete({ context, prior: state, warn: (diagnostic) => warnings.push(`${diagnostic.summary}: ${diagnostic.detail}`) });
    expect(warnings).toEqual([expect.stringMatching(/^svc_whitelist_entry: 192\.0\.2\.30 kept for the resource that replaces this one: A create earlier in this apply wrote 192\.0\.2\.30/)]);
    expect(await world.api.getEntry('whitelist', '192.0.2.30')).toMatchObject({ description: 'replacement' });
  });
});
