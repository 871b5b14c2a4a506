/**
 * svc_<list> (whole list) against the emulator: `entries` is a map from address to description;
 * diff by canonical address and description, an unchanged map reading back and planning
 * identical (the prior map when only spellings differ), drift, additive mode ignoring foreign
 * entries, bulk chunks with progress, blocklist expiry as drift, import and destroy.
 */
import type { ListName } from '../../src/api/types';
import { DiagnosticsError, UNKNOWN, type Diagnostic, type ObjectValue, type Value } from '../../src/provider/core';
import type { SvcContext } from '../../src/provider/context';
import { entriesFromService, planEntries, respelledKeysAwaitingValues, type ListMode } from '../../src/provider/resources/list';
import {
  TENANT,
  create,
  duringClock,
  expectBlockEndIn,
  fullObject,
  plan,
  plansNoChange,
  resourceNamed,
  sameValue,
  startWorld,
  update,
  type World,
  failOnWarning,
} from './harness';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

/** An `entries` map: [address as written, description (null: left unset)] pairs. */
const entries = (...items: Array<[string, string | null]>): ObjectValue => Object.fromEntries(items);

async function listed(list: ListName): Promise<Array<{ ip: string; description: string }>> {
  return (await world.api.listEntries(list)).map(({ ip, description }) => ({ ip, description })).sort((a, b) => a.ip.localeCompare(b.ip));
}

describe('planEntries and entriesFromService', () => {
  // Terraform accepts a planned map equal to the config's or to the prior one, never a mix.
  test.each<[string, ObjectValue, ObjectValue | null, 'config' | 'prior']>([
    ['creation plans the config', entries(['10.0.0.1/32', null]), null, 'config'],
    ['a respelling plans the prior map', entries(['10.0.0.1/32', null]), entries(['10.0.0.1', '']), 'prior'],
    [
      'respellings of every entry plan the prior map',
      entries(['2001:DB8:0::1', 'a'], ['192.0.2.0/24', ''], ['10.0.0.1', null]),
      entries(['2001:db8::1', 'a'], ['192.0.2.0/24', null], ['10.0.0.1/32', '']),
      'prior',
    ],
    ['a changed description plans the config', entries(['10.0.0.1', 'new']), entries(['10.0.0.1', 'old']), 'config'],
    ['an added entry plans the config', entries(['10.0.0.1', ''], ['10.0.0.2', '']), entries(['10.0.0.1', '']), 'config'],
    ['a removed entry plans the config', entries(['10.0.0.1', '']), entries(['10.0.0.1', ''], ['10.0.0.2', '']), 'config'],
    [
      'a respelling next to a change plans the config, respelling included',
      entries(['2001:DB8::1', 'a'], ['192.0.2.0/24', null]),
      entries(['2001:db8::1', 'a'], ['198.51.100.1', null]),
      'config',
    ],
    ['a description not known yet plans the config', { '10.0.0.1': UNKNOWN }, entries(['10.0.0.1', 'x']), 'config'],
    ['an empty map against an empty prior', {}, {}, 'prior'],
  ])('%s', (_name, configured, prior, expected) => {
    expect(planEntries(configured, prior)).toBe(expected === 'config' ? configured : prior);
  });

  test('reading keeps the state spelling and null descriptions, adds foreign entries only when authoritative', () => {
    const current = {
      entries: [],
      byIp: new Map([
        ['10.0.0.1', { ip: '10.0.0.1', description: '', created: 1 }],
        ['2001:db8::1', { ip: '2001:db8::1', description: 'changed', created: 1 }],
        ['192.0.2.9', { ip: '192.0.2.9', description: 'foreign', created: 1 }],
      ]),
    };
    const state = entries(['2001:DB8::1', 'before'], ['10.0.0.1/32', null], ['198.51.100.1', 'gone']);
    expect(entriesFromService(current, state, 'authoritative')).toEqual(
      entries(['2001:DB8::1', 'changed'], ['10.0.0.1/32', null], ['192.0.2.9', 'foreign']),
    );
    expect(entriesFromService(current, state, 'additive')).toEqual(entries(['2001:DB8::1', 'changed'], ['10.0.0.1/32', null]));
    expect(entriesFromService(current, null, 'authoritative')).toEqual(
      entries(['10.0.0.1', ''], ['2001:db8::1', 'changed'], ['192.0.2.9', 'foreign']),
    );
  });
});

describe.each<ListName>(['blacklist', 'whitelist', 'blocklist'])('svc_%s', (list) => {
  const resource = resourceNamed(`svc_${list}`);

  test('create, read back identical, update by difference, import, destroy', async () => {
    const context = await world.configure();
    const declared = entries(['10.0.0.1/32', null], ['2001:DB8::/32', 'docs range'], ['192.0.2.7', 'scanner']);
    const state = await create(resource, context, { entries: declared });
    expect(state).toMatchObject({ mode: 'authoritative', tenant: TENANT, id: `${TENANT}/${list}` });
    expect(await listed(list)).toEqual([
      { ip: '10.0.0.1', description: '' },
      { ip: '192.0.2.7', description: 'scanner' },
      { ip: '2001:db8::/32', description: 'docs range' },
    ]);

    const read = await resource.read({ context: await world.configure(), state });
    expect(sameValue(read, state)).toBe(true);
    expect(await plansNoChange(resource, context, read!, { entries: declared })).toBe(true);

    world.emulator.resetStats();
    const next = entries(['10.0.0.1', ''], ['2001:db8::/32', 'documentation'], ['198.51.100.0/24', null]);
    const updated = await update(resource, await world.configure(), read!, { entries: next });
    // Not the same entries as before, so the state takes the configuration's map, spellings included.
    expect(updated.entries).toEqual(next);
    const stats = world.emulator.stats().byCommand;
    expect(stats[`bulk_new_${list}`]).toBe(1);
    expect(stats[`bulk_delete_${list}`]).toBe(1);
    expect(await listed(list)).toEqual([
      { ip: '10.0.0.1', description: '' },
      { ip: '198.51.100.0/24', description: '' },
      { ip: '2001:db8::/32', description: 'documentation' },
    ]);

    const imported = await resource.import!({ context: await world.configure(), id: TENANT });
    expect(imported).toMatchObject({ mode: 'authoritative', tenant: TENANT, id: `${TENANT}/${list}` });
    expect(await plansNoChange(resource, context, imported, { entries: next })).toBe(true);

    await resource.delete({ context: await world.configure(), prior: updated, warn: failOnWarning });
    expect(await listed(list)).toEqual([]);
  });

  test('authoritative: an entry added elsewhere shows as drift and the next apply removes it', async () => {
    const context = await world.configure();
    const declared = entries(['192.0.2.1', 'ours']);
    const state = await create(resource, context, { entries: declared });
    await world.api.addEntry(list, { ip: '203.0.113.66', description: 'added by hand' });

    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    expect(read.entries).toEqual(entries(['192.0.2.1', 'ours'], ['203.0.113.66', 'added by hand']));
    expect(await plansNoChange(resource, fresh, read, { entries: declared })).toBe(false);
    const repaired = await update(resource, fresh, read, { entries: declared });
    expect(repaired.entries).toEqual(declared);
    expect(await listed(list)).toEqual([{ ip: '192.0.2.1', description: 'ours' }]);
  });
});

test('a respelled map plans the prior map (no change), which terraform accepts for a non-computed attribute', async () => {
  const resource = resourceNamed('svc_whitelist');
  const context = await world.configure();
  const state = await create(resource, context, { entries: entries(['2001:db8::1', 'a'], ['10.0.0.1', null]) });
  const respelled = entries(['2001:DB8:0:0::1', 'a'], ['10.0.0.1/32', '']);
  const { planned, config } = await plan(resource, context, { entries: respelled }, state);
  expect(planned).toEqual(state);
  expect(planned.entries).not.toEqual(config.entries);
  world.emulator.resetStats();
  await update(resource, context, state, { entries: respelled });
  expect(world.emulator.stats().byCommand).not.toHaveProperty('bulk_new_whitelist');
});

test('an empty map empties an authoritative list', async () => {
  const resource = resourceNamed('svc_blacklist');
  const context = await world.configure();
  const state = await create(resource, context, { entries: entries(['192.0.2.1', 'x']) });
  const emptied = await update(resource, await world.configure(), state, { entries: {} });
  expect(emptied.entries).toEqual({});
  expect(await listed('blacklist')).toEqual([]);
});

describe('additive mode', () => {
  const resource = resourceNamed('svc_blacklist');

  test('ignores foreign entries in read, plan, apply and destroy', async () => {
    await world.api.addEntry('blacklist', { ip: '203.0.113.5', description: 'foreign' });
    const context = await world.configure();
    const declared = entries(['192.0.2.1', 'ours'], ['192.0.2.2', null]);
    const state = await create(resource, context, { entries: declared, mode: 'additive' });
    expect(state.mode).toBe('additive');
    // Risk-based blocking adds another one while terraform owns the list.
    for (let block = 0; block < 3; block += 1) world.emulator.riskBlock(TENANT, '198.51.100.9');
    expect((await world.api.listEntries('blacklist')).map((entry) => entry.ip)).toContain('198.51.100.9');

    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    expect(sameValue(read, state)).toBe(true);
    expect(await plansNoChange(resource, fresh, read, { entries: declared, mode: 'additive' })).toBe(true);

    const updated = await update(resource, fresh, read, { entries: entries(['192.0.2.1', 'ours']), mode: 'additive' });
    expect(updated.entries).toEqual(entries(['192.0.2.1', 'ours']));
    expect(await listed('blacklist')).toEqual([
      { ip: '192.0.2.1', description: 'ours' },
      { ip: '198.51.100.9', description: expect.stringContaining('Risk-based blocking') },
      { ip: '203.0.113.5', description: 'foreign' },
    ]);

    // A destroy of its own, as terraform runs it: in a process that wrote the list, the destroy keeps what that write declared.
    await resource.delete({ context: await world.configure(), prior: updated, warn: failOnWarning });
    expect((await listed('blacklist')).map((entry) => entry.ip)).toEqual(['198.51.100.9', '203.0.113.5']);
  });

  test('a declared entry removed elsewhere is re-added', async () => {
    const context = await world.configure();
    const declared = entries(['192.0.2.1', 'ours']);
    const state = await create(resource, context, { entries: declared, mode: 'additive' });
    await world.api.deleteEntry('blacklist', '192.0.2.1');
    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    expect(read.entries).toEqual({});
    await update(resource, fresh, read, { entries: declared, mode: 'additive' });
    expect(await listed('blacklist')).toEqual([{ ip: '192.0.2.1', description: 'ours' }]);
  });
});

test('large lists go in chunks of at most 1000, with progress in the log', async () => {
  const resource = resourceNamed('svc_whitelist');
  const declared = Object.fromEntries(Array.from({ length: 2500 }, (_, index) => [`10.${Math.floor(index / 256)}.${index % 256}.1`, null]));
  const context = await world.configure();
  world.emulator.resetStats();
  const state = await create(resource, context, { entries: declared });
  expect(world.emulator.stats().byCommand.bulk_new_whitelist).toBe(3);
  expect((await world.api.listEntries('whitelist')).length).toBe(2500);
  const progress = world.logs.filter((line) => line.level === 'info').map((line) => line.message);
  expect(progress).toEqual(
    expect.arrayContaining([
      'svc_whitelist (acme): 2500 to add or update, 0 to remove',
      'svc_whitelist: bulk_new_whitelist chunk 1/3 (1000/2500 entries)',
      'svc_whitelist: bulk_new_whitelist chunk 3/3 (2500/2500 entries)',
    ]),
  );
  world.emulator.resetStats();
  await resource.delete({ context: await world.configure(), prior: state, warn: failOnWarning });
  expect(world.emulator.stats().byCommand.bulk_delete_whitelist).toBe(3);
  expect(await world.api.listEntries('whitelist')).toEqual([]);
});

test('blocklist: entries that ended read as drift and the next apply re-adds them', async () => {
  const resource = resourceNamed('svc_blocklist');
  const declared = entries(['203.0.113.1', 'bot']);
  const state = await create(resource, await world.configure(), { entries: declared });
  world.emulator.advanceClock(1800);
  const later = await world.configure();
  const read = (await resource.read({ context: later, state }))!;
  expect(read.entries).toEqual({});
  const { from, to } = await duringClock(world, () => update(resource, later, read, { entries: declared }));
  const [renewed] = await world.api.listEntries('blocklist');
  expect(renewed.ip).toBe('203.0.113.1');
  expectBlockEndIn(renewed.expires, { from, to });
});

test('a tenant change replaces; a mode change updates in place', async () => {
  const resource = resourceNamed('svc_blacklist');
  const context = await world.configure();
  const prior: ObjectValue = { entries: {}, mode: 'authoritative', tenant: TENANT, id: `${TENANT}/blacklist` };
  expect((await plan(resource, context, { entries: {}, tenant: 'globex' }, prior)).replace).toEqual(['tenant']);
  const modeChange = await plan(resource, context, { entries: {}, mode: 'additive' }, prior);
  expect(modeChange.replace).toEqual([]);
  expect(modeChange.planned).toEqual({ ...prior, adopt_existing: null, mode: 'additive' });
});

test('import by the tenant name or by the id the state shows; anything else is refused, naming the ID', async () => {
  const resource = resourceNamed('svc_blacklist');
  const context = await world.configure();
  await world.api.addEntry('blacklist', { ip: '192.0.2.77', description: 'imported' });
  for (const id of [TENANT, `${TENANT}/blacklist`]) {
    const imported = await resource.import!({ context, id });
    expect({ id, imported }).toMatchObject({ id, imported: { tenant: TENANT, id: `${TENANT}/blacklist`, entries: { '192.0.2.77': 'imported' } } });
  }
  const refusals: Array<[string, RegExp]> = [
    [`${TENANT}/whitelist`, /"acme\/whitelist".*names the whitelist, which svc_whitelist imports/],
    [`${TENANT}/blacklist/extra`, /"acme\/blacklist\/extra": svc_blacklist is imported by the tenant name/],
    [`${TENANT}/`, /"acme\/"/],
    ['/blacklist', /"\/blacklist"/],
    ['', /Import ID "": svc_blacklist is imported by the tenant name \(e\.g\. acme\) or by its id \(e\.g\. acme\/blacklist\)/],
  ];
  for (const [id, message] of refusals) {
    const refused = await resource.import!({ context, id }).then(
      () => 'imported',
      (error: unknown) => (error instanceof DiagnosticsError ? error.diagnostics.map((d) => `${d.summary}: ${d.detail}`).join('\n') : String(error)),
    );
    expect({ id, refused }).toEqual({ id, refused: expect.stringMatching(message) });
  }
});

describe('a bulk apply that fails part-way: the 2nd chunk refused after its retries', () => {
  const resource = resourceNamed('svc_whitelist');
  const kept = entries(['192.0.2.1', 'kept']);
  const many = Object.fromEntries(Array.from({ length: 2500 }, (_, index) => [`10.1.${Math.floor(index / 256)}.${index % 256}`, 'bulk']));

  /** From the moment the first chunk of `command` has landed, the service answers every call with 503. */
  function refuseAfterFirstChunk(context: SvcContext, command: string): void {
    const progress = context.progress.bind(context);
    context.progress = (message: string) => {
      progress(message);
      if (message.includes(`${command} chunk 1/`)) world.emulator.setFaults({ rate: 1, kinds: ['503'] });
    };
  }

  // Terraform keeps the prior state when an update fails (nothing at all when a create fails);
  // what landed must then show in the next refresh or be skipped by the next apply's difference.
  test.each<ListMode>(['authoritative', 'additive'])('%s update: the next refresh, plan and apply converge, sending only what did not land', async (mode) => {
    const prior = await create(resource, await world.configure(), { entries: kept, mode });
    const failing = await world.configure();
    refuseAfterFirstChunk(failing, 'bulk_new_whitelist');
    const config = fullObject(resource.schema, { entries: { ...kept, ...many }, mode });
    const { planned } = await plan(resource, failing, { entries: { ...kept, ...many }, mode }, prior);
    await expect(resource.update({ context: failing, config, prior, planned, warn: failOnWarning })).rejects.toThrow(/503|unavailable/i);
    world.emulator.setFaults(undefined);
    expect((await world.api.listEntries('whitelist')).length).toBe(1 + 1000);

    const next = await world.configure();
    const refreshed = (await resource.read({ context: next, state: prior }))!;
    // Authoritative reads the whole list, so the landed entries are in state already; additive
    // owns only what its state declares, so they come back through the plan.
    expect(Object.keys(refreshed.entries as ObjectValue).length).toBe(mode === 'authoritative' ? 1001 : 1);
    expect(await plansNoChange(resource, next, refreshed, { entries: { ...kept, ...many }, mode })).toBe(false);
    world.emulator.resetStats();
    const converged = await update(resource, next, refreshed, { entries: { ...kept, ...many }, mode });
    expect(world.emulator.stats().byCommand.bulk_new_whitelist).toBe(2);
    expect((await world.api.listEntries('whitelist')).length).toBe(2501);
    const last = await world.configure();
    expect(await plansNoChange(resource, last, (await resource.read({ context: last, state: converged }))!, { entries: { ...kept, ...many }, mode })).toBe(true);
  });

  test('create: terraform stores nothing; the next apply creates again and sends only what did not land', async () => {
    const failing = await world.configure();
    refuseAfterFirstChunk(failing, 'bulk_new_whitelist');
    const { planned, config } = await plan(resource, failing, { entries: many });
    await expect(resource.create({ context: failing, config, planned, warn: failOnWarning })).rejects.toThrow(/503|unavailable/i);
    world.emulator.setFaults(undefined);
    world.emulator.resetStats();
    await create(resource, await world.configure(), { entries: many });
    expect(world.emulator.stats().byCommand.bulk_new_whitelist).toBe(2);
    expect((await world.api.listEntries('whitelist')).length).toBe(2500);
  });
});

describe('entries on the service that the plan cannot show: the plan names them, apply leaves them, the next plan proposes their removal', () => {
  const resource = resourceNamed('svc_blacklist');
  const foreign = Array.from({ length: 7 }, (_, index) => `203.0.113.${index + 1}`);

  async function addForeign(): Promise<void> {
    await world.api.bulkAddEntries('blacklist', foreign.map((ip) => ({ ip, description: 'risk-based' })));
  }

  test('create over a list holding other entries: warned at plan, left in place at apply, proposed for removal by the next plan', async () => {
    await addForeign();
    await world.api.addEntry('blacklist', { ip: '192.0.2.1', description: 'ours' });
    const context = await world.configure();
    const values = { entries: entries(['192.0.2.1/32', 'ours']) };
    const { diagnostics, planned, config } = await plan(resource, context, values);
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        summary: 'svc_blacklist: 7 entries on the service not in this plan',
        detail: expect.stringMatching(
          /^The blacklist of tenant "acme" holds 7 entries that entries does not declare \(203\.0\.113\.1, 203\.0\.113\.2, 203\.0\.113\.3, 203\.0\.113\.4, 203\.0\.113\.5, and 2 more\)\. This apply leaves them in place.*next plan.*proposes their removal.*set mode = "additive"/,
        ),
        path: ['mode'],
      },
    ]);
    const warnings: Diagnostic[] = [];
    const state = await resource.create({ context, config, planned, warn: (warning) => warnings.push(warning) });
    expect(warnings).toEqual([expect.objectContaining({ severity: 'warning', summary: 'svc_blacklist: 7 entries not in this plan left in place' })]);
    expect((await world.api.listEntries('blacklist')).map((entry) => entry.ip).sort()).toEqual(['192.0.2.1', ...foreign].sort());
    // The refresh puts them in state (drift), so the next plan shows their removal itself, without a warning.
    const later = await world.configure();
    const refreshed = (await resource.read({ context: later, state }))!;
    expect(Object.keys(refreshed.entries as ObjectValue).sort()).toEqual(['192.0.2.1/32', ...foreign].sort());
    const next = await plan(resource, later, values, refreshed);
    expect(next.diagnostics).toEqual([]);
    expect(Object.keys(next.planned.entries as ObjectValue)).toEqual(['192.0.2.1/32']);
  });

  test('an authoritative create whose keys are not known yet names them too', async () => {
    await addForeign();
    const { diagnostics, planned } = await plan(resource, await world.configure(), { entries: UNKNOWN });
    expect(planned.entries).toBe(UNKNOWN);
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        summary: 'svc_blacklist: 7 entries on the service not in this plan',
        detail: expect.stringMatching(/^The blacklist of tenant "acme" holds 7 entries that entries may not declare \(its keys are not known yet\) \(203\.0\.113\.1, .*, and 2 more\)\. This apply leaves them in place.*set mode = "additive"/),
        path: ['mode'],
      },
    ]);
  });

  test.each<[string, Record<string, Value>]>([
    ['additive create', { entries: entries(['192.0.2.1', null]), mode: 'additive' }],
    ['an authoritative create declaring every entry (any spelling)', { entries: Object.fromEntries(foreign.map((ip) => [`${ip}/32`, 'x'])) }],
  ])('no warning: %s', async (_name, values) => {
    await addForeign();
    expect((await plan(resource, await world.configure(), values)).diagnostics).toEqual([]);
  });

  test('an additive resource switched to authoritative: the plan names the entries its state never held, apply keeps them', async () => {
    const context = await world.configure();
    const declared = entries(['192.0.2.1', 'ours'], ['192.0.2.2', 'ours too']);
    const state = await create(resource, context, { entries: declared, mode: 'additive' });
    for (let block = 0; block < 3; block += 1) world.emulator.riskBlock(TENANT, '198.51.100.9');
    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    // 192.0.2.2 leaves entries too, but that removal is in the plan already.
    const switched = await plan(resource, fresh, { entries: entries(['192.0.2.1', 'ours']) }, read);
    expect(switched.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', summary: 'svc_blacklist: 1 entry on the service not in this plan' })]);
    expect(switched.diagnostics[0].detail).toContain('(198.51.100.9)');
    const warnings: Diagnostic[] = [];
    const owned = await resource.update({ context: fresh, config: switched.config, prior: read, planned: switched.planned, warn: (warning) => warnings.push(warning) });
    expect(warnings.map((warning) => warning.summary)).toEqual(['svc_blacklist: 1 entry not in this plan left in place']);
    expect((await world.api.listEntries('blacklist')).map((entry) => entry.ip).sort()).toEqual(['192.0.2.1', '198.51.100.9']);
    // Once authoritative, the refresh reads the whole list, so the plan itself shows such drift.
    await addForeign();
    const later = await world.configure();
    const drifted = (await resource.read({ context: later, state: owned }))!;
    expect((await plan(resource, later, { entries: entries(['192.0.2.1', 'ours']) }, drifted)).diagnostics).toEqual([]);
  });
});

describe('unknown values at plan, a list emptied elsewhere', () => {
  const resource = resourceNamed('svc_blacklist');
  const prior: ObjectValue = { entries: entries(['10.0.0.1', 'a']), mode: 'authoritative', tenant: TENANT, id: `${TENANT}/blacklist` };

  test.each<[string, Record<string, Value>, ObjectValue | null, Partial<ObjectValue>]>([
    ['a wholly unknown map on an additive create', { entries: UNKNOWN, mode: 'additive' }, null, { entries: UNKNOWN, mode: 'additive', tenant: TENANT }],
    ['a map with an unknown value plans the config', { entries: { '10.0.0.1': UNKNOWN } }, prior, { entries: { '10.0.0.1': UNKNOWN } }],
    ['an unknown mode stays unknown', { entries: entries(['10.0.0.1', 'a']), mode: UNKNOWN }, prior, { entries: prior.entries, mode: UNKNOWN }],
    ['an unknown tenant makes the id unknown', { entries: {}, tenant: UNKNOWN }, null, { tenant: UNKNOWN, id: UNKNOWN }],
  ])('%s: no API call, no diagnostic', async (_name, values, priorState, expected) => {
    await world.api.addEntry('blacklist', { ip: '203.0.113.1', description: 'foreign' });
    const context = await world.configure();
    world.emulator.resetStats();
    const outcome = await plan(resource, context, values, priorState);
    expect(outcome.planned).toMatchObject(expected);
    expect(outcome.diagnostics).toEqual([]);
    expect(world.emulator.stats().byCommand).toEqual({});
  });

  test.each<ListMode>(['authoritative', 'additive'])('%s: refresh reads an emptied list as {}, apply re-adds, and destroy of an emptied list succeeds', async (mode) => {
    const declared = entries(['192.0.2.1', 'ours'], ['192.0.2.2/32', null]);
    const state = await create(resource, await world.configure(), { entries: declared, mode });
    await world.api.bulkDeleteEntries('blacklist', ['192.0.2.1', '192.0.2.2']);
    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    expect(read.entries).toEqual({});
    const readded = await update(resource, fresh, read, { entries: declared, mode });
    expect(await listed('blacklist')).toEqual([
      { ip: '192.0.2.1', description: 'ours' },
      { ip: '192.0.2.2', description: '' },
    ]);
    await world.api.bulkDeleteEntries('blacklist', ['192.0.2.1', '192.0.2.2']);
    await resource.delete({ context: await world.configure(), prior: readded, warn: failOnWarning });
    expect(await listed('blacklist')).toEqual([]);
  });

  test('additive: a declared description changed elsewhere reads as drift and apply sets it back', async () => {
    const declared = entries(['192.0.2.1', 'ours']);
    const state = await create(resource, await world.configure(), { entries: declared, mode: 'additive' });
    await world.api.addEntry('blacklist', { ip: '192.0.2.1', description: 'edited in the console' });
    const fresh = await world.configure();
    const read = (await resource.read({ context: fresh, state }))!;
    expect(read.entries).toEqual(entries(['192.0.2.1', 'edited in the console']));
    await update(resource, fresh, read, { entries: declared, mode: 'additive' });
    expect(await listed('blacklist')).toEqual([{ ip: '192.0.2.1', description: 'ours' }]);
  });
});

describe('keys spelled differently from the state while values are not known yet', () => {
  // Terraform's final plan at apply must keep this plan's keys; planEntries returns the state's
  // map once the values are known and equal, so the plan warns (terraform 1.11.4 reproduced it).
  const state = entries(['10.0.0.1', 'a'], ['2001:db8::1', null]);

  test.each<[string, ObjectValue, ObjectValue | null, Array<[string, string]>]>([
    ['a respelled key with an unknown value', { '10.0.0.1/32': UNKNOWN, '2001:db8::1': '' }, state, [['10.0.0.1/32', '10.0.0.1']]],
    ['two respelled keys, one value known and equal', { '10.0.0.1/32': 'a', '2001:DB8::1': UNKNOWN }, state, [['10.0.0.1/32', '10.0.0.1'], ['2001:DB8::1', '2001:db8::1']]],
    ['the state spelling: no risk', { '10.0.0.1': UNKNOWN, '2001:db8::1': null }, state, []],
    ['a known value that differs: the config is planned either way', { '10.0.0.1/32': UNKNOWN, '2001:db8::1': 'changed' }, state, []],
    ['an added key: the config is planned either way', { '10.0.0.1/32': UNKNOWN, '2001:db8::1': null, '192.0.2.1': null }, state, []],
    ['all values known: planned as usual', { '10.0.0.1/32': 'a', '2001:db8::1': null }, state, []],
    ['create', { '10.0.0.1/32': UNKNOWN }, null, []],
  ])('%s', (_name, configured, prior, expected) => {
    expect(respelledKeysAwaitingValues(configured, prior)).toEqual(expected);
  });

  test('the plan warns on the first such key, naming both spellings and the fix', async () => {
    const resource = resourceNamed('svc_whitelist');
    const context = await world.configure();
    const created = await create(resource, context, { entries: state });
    const { diagnostics, planned } = await plan(resource, context, { entries: { '10.0.0.1/32': UNKNOWN, '2001:DB8::1': null } }, created);
    expect(planned.entries).toEqual({ '10.0.0.1/32': UNKNOWN, '2001:DB8::1': null });
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        summary: 'entries keys spelled differently from the state while values are not known yet',
        detail: expect.stringMatching(
          /^entries key "10\.0\.0\.1\/32" is "10\.0\.0\.1" in the state \(and 1 more key spelled differently\)\. .*"Provider produced inconsistent final plan".*write the keys as the state does\.$/,
        ),
        path: ['entries', { key: '10.0.0.1/32' }],
      },
    ]);
  });
});

describe('additive mode and entries already on the service (adopt_existing)', () => {
  const resource = resourceNamed('svc_whitelist');
  const summaries = (diagnostics: readonly Diagnostic[]) => diagnostics.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`);

  test('an entry someone else made is refused at plan, naming it and adopt_existing; nothing is sent', async () => {
    await world.api.addEntry('whitelist', { ip: '192.0.2.5', description: 'colleague' });
    const outcome = await plan(resource, await world.configure(), { entries: entries(['192.0.2.5/32', 'ours'], ['192.0.2.6', 'new']), mode: 'additive' });
    expect(summaries(outcome.diagnostics)).toEqual(['error: The whitelist already holds 192.0.2.5']);
    expect(outcome.diagnostics[0]!.detail).toContain('already holds with description "colleague", an entry this resource did not create');
    expect(outcome.diagnostics[0]!.detail).toContain('set adopt_existing = true');
    expect(outcome.diagnostics[0]!.path).toEqual(['entries', { key: '192.0.2.5/32' }]);
    expect(await listed('whitelist')).toEqual([{ ip: '192.0.2.5', description: 'colleague' }]);
  });

  test('adopt_existing = true takes it over on purpose: the plan names it with its old description, apply sets the new one', async () => {
    await world.api.addEntry('whitelist', { ip: '192.0.2.5', description: 'colleague' });
    await world.api.addEntry('whitelist', { ip: '192.0.2.7', description: 'same' });
    const context = await world.configure();
    const config = { entries: entries(['192.0.2.5', 'ours'], ['192.0.2.7', 'same']), mode: 'additive', adopt_existing: true };
    const outcome = await plan(resource, context, config);
    expect(summaries(outcome.diagnostics)).toEqual(['warning: svc_whitelist: adopts existing entry 192.0.2.5, was: "colleague"', 'warning: svc_whitelist: adopts existing entry 192.0.2.7']);
    const state = await resource.create({ context, config: outcome.config, planned: outcome.planned, warn: failOnWarning });
    expect(state).toMatchObject({ adopt_existing: true, mode: 'additive' });
    expect(await listed('whitelist')).toEqual([
      { ip: '192.0.2.5', description: 'ours' },
      { ip: '192.0.2.7', description: 'same' },
    ]);
  });

  test('a description with a control character is refused at validate, naming its key', () => {
    const config = fullObject(resource.schema, { entries: entries(['192.0.2.1', 'fine'], ['192.0.2.2', 'bell\u0007']) });
    const diagnostics = resource.validate!({ config });
    expect(diagnostics.map((diagnostic) => [diagnostic.summary, diagnostic.path])).toEqual([['Invalid description in entries["192.0.2.2"]', ['entries', { key: '192.0.2.2' }]]]);
    expect(diagnostics[0]!.detail).toContain('U+0007');
  });
});

describe('a tenant the service does not know, at plan', () => {
  test.each<[string, Record<string, Value>, Record<string, Value>, string, string[] | undefined]>([
    ['set on the resource', {}, { tenant: 'initech' }, 'Check tenant; names are case-sensitive.', ['tenant']],
    ["the provider's", { tenant: 'initech' }, {}, "Check the provider's tenant (tenant in the provider block, or SVC_TENANT); names are case-sensitive.", undefined],
  ])('%s: the tenants there are named, no call made past the read', async (_name, providerConfig, resourceConfig, check, path) => {
    const context = await world.configure(providerConfig);
    const error = await plan(resourceNamed('svc_blocklist'), context, { entries: entries(['198.51.100.1', 'bot']), ...resourceConfig }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DiagnosticsError);
    const [diagnostic] = (error as DiagnosticsError).diagnostics;
    expect(diagnostic!.summary).toBe('Cannot use tenant "initech"');
    expect(diagnostic!.detail).toBe(`The service lists no tenant named "initech" (it lists "acme", "globex"). ${check}`);
    expect(diagnostic!.path).toEqual(path);
    expect(await world.api.listEntries('blocklist')).toEqual([]);
  });
});

describe('two whole lists planned in one provider process', () => {
  test('the first (single addresses, nothing planned before it) leaves its entries for the second, which reports the overlap', async () => {
    const context = await world.configure();
    const contradictions = (diagnostics: readonly Diagnostic[]) => diagnostics.filter((diagnostic) => diagnostic.summary.includes('whitelist and the'));
    const blacklist = await plan(resourceNamed('svc_blacklist'), context, { entries: { '198.18.7.1': 'first', '198.18.7.2': '' } });
    expect(contradictions(blacklist.diagnostics)).toEqual([]);
    const whitelist = await plan(resourceNamed('svc_whitelist'), context, { entries: { '198.18.7.0/30': 'second' } });
    expect(contradictions(whitelist.diagnostics).map((diagnostic) => diagnostic.detail)).toEqual([
      expect.stringMatching(/^entries key = "198\.18\.7\.0\/30" \(198\.18\.7\.0\/30, whitelist\) overlaps 198\.18\.7\.1 on the blacklist \(svc_blacklist in this configuration\)/),
      expect.stringMatching(/overlaps 198\.18\.7\.2 on the blacklist \(svc_blacklist in this configuration\)/),
    ]);
  });
});
