/**
 * The list cache: one list_<list> call per (tenant, list) per provider process, shared by
 * concurrent readers, counted with the emulator's stats; invalidated for that (tenant, list)
 * only, after a write; a failed load is not kept.
 */
import type { ListEntry, ListName } from '../../src/api/types';
import { ListCache } from '../../src/provider/list-cache';
import { OTHER_TENANT, TENANT, create, resourceNamed, startWorld, type World, failOnWarning } from './harness';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

function listCalls(command: string): number {
  return world.emulator.stats().byCommand[command] ?? 0;
}

test('50 concurrent reads of per-entry resources cost one list call; a write makes the next read load again', async () => {
  const entry = resourceNamed('svc_blacklist_entry');
  const ips = Array.from({ length: 50 }, (_, index) => `198.51.100.${index + 1}`);
  await world.api.bulkAddEntries('blacklist', ips.map((ip) => ({ ip, description: `host ${ip}` })));
  const context = await world.configure();
  const states = ips.map((ip) => ({ ip, description: `host ${ip}`, tenant: TENANT, id: `${TENANT}/${ip}`, created: 0 }));
  world.emulator.resetStats();

  const read = await Promise.all(states.map((state) => entry.read({ context, state })));
  expect(read.map((state) => state?.ip)).toEqual(ips);
  expect(listCalls('list_blacklist')).toBe(1);

  // Later reads in the same process are served from the cache.
  await Promise.all(states.slice(0, 10).map((state) => entry.read({ context, state })));
  expect(listCalls('list_blacklist')).toBe(1);

  // A write to the list invalidates it; other lists and tenants keep their cache.
  await Promise.all([context.lists.read(TENANT, 'whitelist'), context.lists.read(OTHER_TENANT, 'blacklist')]);
  await create(entry, context, { ip: '203.0.113.1' });
  const after = await Promise.all(states.slice(0, 20).map((state) => entry.read({ context, state })));
  expect(after.every((state) => state !== null)).toBe(true);
  expect(listCalls('list_blacklist')).toBe(3);
  await Promise.all([context.lists.read(TENANT, 'whitelist'), context.lists.read(OTHER_TENANT, 'blacklist')]);
  expect(listCalls('list_whitelist')).toBe(1);
  expect(await context.lists.find(TENANT, 'blacklist', '203.0.113.1/32')).toMatchObject({ ip: '203.0.113.1' });
  expect(listCalls('list_blacklist')).toBe(3);
});

test('10 parallel creates, then 10 parallel deletes, on one list: a read after each write sees it', async () => {
  const entry = resourceNamed('svc_whitelist_entry');
  const context = await world.configure();
  await context.lists.read(TENANT, 'whitelist');
  const ips = Array.from({ length: 10 }, (_, index) => `192.0.2.${index + 1}`);
  const states = await Promise.all(
    ips.map(async (ip) => {
      const state = await create(entry, context, { ip });
      expect(await entry.read({ context, state })).toEqual(state);
      return state;
    }),
  );
  expect((await context.lists.read(TENANT, 'whitelist')).entries.map((each) => each.ip).sort()).toEqual([...ips].sort());
  // The destroys in an apply of their own, as terraform runs them (in the creating process a destroy keeps what a create wrote).
  const destroying = await world.configure();
  await destroying.lists.read(TENANT, 'whitelist');
  await Promise.all(
    states.map(async (state) => {
      await entry.delete({ context: destroying, prior: state, warn: failOnWarning });
      expect(await entry.read({ context: destroying, state })).toBeNull();
    }),
  );
  expect((await destroying.lists.read(TENANT, 'whitelist')).entries).toEqual([]);
  expect(await world.api.listEntries('whitelist')).toEqual([]);
});

describe('ListCache', () => {
  const entry = (ip: string): ListEntry => ({ ip, description: '', created: 1 });

  function countingLoader(results: Array<() => Promise<ListEntry[]>>) {
    const calls: Array<[string, ListName]> = [];
    const load = (tenant: string, list: ListName) => {
      calls.push([tenant, list]);
      const next = results.shift();
      if (next === undefined) throw new Error('test bug: more loads than expected');
      return next();
    };
    return { calls, load };
  }

  test('indexes by canonical ip', async () => {
    const { load } = countingLoader([async () => [entry('2001:db8::1'), entry('10.0.0.0/8')]]);
    const cache = new ListCache(load);
    expect(await cache.find(TENANT, 'blacklist', '2001:DB8:0::1/128')).toEqual(entry('2001:db8::1'));
    expect(await cache.find(TENANT, 'blacklist', '10.0.0.0/8')).toEqual(entry('10.0.0.0/8'));
    expect(await cache.find(TENANT, 'blacklist', '10.0.0.1')).toBeUndefined();
  });

  test('a failed load is not kept: the next read tries again', async () => {
    const { calls, load } = countingLoader([() => Promise.reject(new Error('network down')), async () => [entry('10.0.0.1')]]);
    const cache = new ListCache(load);
    await expect(cache.read(TENANT, 'blacklist')).rejects.toThrow('network down');
    await expect(cache.find(TENANT, 'blacklist', '10.0.0.1')).resolves.toEqual(entry('10.0.0.1'));
    expect(calls).toHaveLength(2);
  });

  test('a read started before a write is not handed to readers after it', async () => {
    let releaseFirst: (entries: ListEntry[]) => void = () => undefined;
    const { calls, load } = countingLoader([
      () => new Promise<ListEntry[]>((resolve) => (releaseFirst = resolve)),
      async () => [entry('10.0.0.1'), entry('10.0.0.2')],
    ]);
    const cache = new ListCache(load);
    const before = cache.read(TENANT, 'blacklist');
    await cache.write(TENANT, 'blacklist', async () => 'written');
    const after = cache.read(TENANT, 'blacklist');
    releaseFirst([entry('10.0.0.1')]);
    expect((await before).entries).toHaveLength(1);
    expect((await after).entries).toHaveLength(2);
    expect(calls).toHaveLength(2);
  });

  test('a failed write still invalidates', async () => {
    const { calls, load } = countingLoader([async () => [], async () => [entry('10.0.0.1')]]);
    const cache = new ListCache(load);
    await cache.read(TENANT, 'whitelist');
    await expect(cache.write(TENANT, 'whitelist', () => Promise.reject(new Error('timed out after sending')))).rejects.toThrow('timed out');
    expect((await cache.read(TENANT, 'whitelist')).entries).toHaveLength(1);
    expect(calls).toHaveLength(2);
  });
});
