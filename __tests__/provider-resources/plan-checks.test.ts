/**
 * Names only the service knows, checked at plan time: the tenant of a per-entry resource and
 * the name of svc_tenant_sso / svc_channel_sso. Refused before anything is written, on the
 * attribute, naming the value and what exists; a plan of many resources costs at most one call
 * per process for it (none after a refresh); skipped while a value is not known; the service out
 * of reach is said as such, not as a wrong name.
 */
import { startEmulator } from '../../src/emulator/server';
import { DiagnosticsError, UNKNOWN, type Diagnostic, type ObjectValue, type Value } from '../../src/provider/core';
import type { SvcContext } from '../../src/provider/context';
import { describeSvcError } from '../../src/provider/provider';
import { OTHER_TENANT, SEED, TENANT, create, plan, resourceNamed, startWorld, type World } from './harness';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

const WRITE = /^(new_|delete_|bulk_|update$)/;

async function diagnosticsOf(promise: Promise<unknown>): Promise<readonly Diagnostic[]> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof DiagnosticsError)) throw new Error(`expected a DiagnosticsError, got ${String(error)}`);
  return error.diagnostics;
}

describe('an unknown name is refused at plan, on the attribute, naming it and what exists, with nothing written', () => {
  test.each<[string, Record<string, Value>, string, Record<string, Value>, Partial<Diagnostic>, RegExp]>([
    [
      'entry tenant',
      {},
      'svc_blacklist_entry',
      { ip: '192.0.2.1', tenant: 'initech' },
      { summary: 'Cannot use tenant "initech"', path: ['tenant'] },
      /The service lists no tenant named "initech" \(it lists "acme", "globex"\)\. Check tenant; names are case-sensitive\./,
    ],
    [
      "entry tenant from the provider's tenant",
      { tenant: 'initech' },
      'svc_whitelist_entry',
      { ip: '192.0.2.1' },
      { summary: 'Cannot use tenant "initech"', path: undefined },
      /lists no tenant named "initech" \(it lists "acme", "globex"\)\. Check the provider's tenant \(tenant in the provider block, or SVC_TENANT\)/,
    ],
    [
      "entry tenant spelt like the provider's, in another case",
      {},
      'svc_blocklist_entry',
      { ip: '192.0.2.1', tenant: 'ACME' },
      { summary: 'Cannot use tenant "ACME"', path: ['tenant'] },
      /it lists "acme", "globex"/,
    ],
    ['svc_tenant_sso name', {}, 'svc_tenant_sso', { name: 'initech', enabled: false }, { summary: 'Unknown tenant "initech"', path: ['name'] }, /it lists "acme", "globex"/],
    ['svc_channel_sso name', {}, 'svc_channel_sso', { name: 'mian', enabled: false }, { summary: 'Unknown channel "mian"', path: ['name'] }, /it lists "main", "partners"/],
  ])('%s', async (_name, providerConfig, type, values, expected, detail) => {
    const context = await world.configure(providerConfig);
    world.emulator.resetStats();
    const diagnostics = await diagnosticsOf(plan(resourceNamed(type), context, values));
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', ...expected, detail: expect.stringMatching(detail) })]);
    expect(Object.keys(world.emulator.stats().byCommand).filter((command) => WRITE.test(command))).toEqual([]);
  });

  test('the names listed are bounded: the first 10, then how many more', async () => {
    const tenants = Array.from({ length: 14 }, (_, index) => ({ name: `tenant-${String(index).padStart(2, '0')}` }));
    const crowded = await startWorld({ ...SEED, tenants: [...SEED.tenants!, ...tenants] });
    try {
      const diagnostics = await diagnosticsOf(plan(resourceNamed('svc_blacklist_entry'), await crowded.configure(), { ip: '192.0.2.1', tenant: 'nope' }));
      expect(diagnostics[0].detail).toContain('(it lists "acme", "globex", "tenant-00", "tenant-01", "tenant-02", "tenant-03", "tenant-04", "tenant-05", "tenant-06", "tenant-07", and 6 more)');
    } finally {
      await crowded.close();
    }
  });
});

describe('plan stays cheap: one call per (tenant, list) at most, however many resources', () => {
  const entries = (count: number, tenant: string | null) =>
    Array.from({ length: count }, (_, index) => ({
      type: `svc_${(['blacklist', 'blocklist', 'whitelist'] as const)[index % 3]}_entry`,
      values: { ip: `10.0.${Math.floor(index / 250)}.${index % 250}`, tenant },
    }));

  async function planAll(context: SvcContext, resources: ReadonlyArray<{ type: string; values: Record<string, Value> }>): Promise<number> {
    const outcomes = await Promise.allSettled(resources.map(({ type, values }) => plan(resourceNamed(type), context, values)));
    return outcomes.filter((outcome) => outcome.status === 'rejected').length;
  }

  test.each<[string, string | null, Record<string, Value>, Record<string, number>, number]>([
    // The provider's tenant is proven by one list read, which a refresh would make anyway; a
    // create also checks that its list does not hold the address yet: one read per list.
    ["1,000 entries of the provider's tenant: one read per list", null, {}, { login: 1, list_blacklist: 1, list_blocklist: 1, list_whitelist: 1 }, 0],
    // Clients are bound to a tenant, so the other tenant's list reads log in once more.
    [
      '1,000 entries naming another tenant: one customers listing and one read per list',
      OTHER_TENANT,
      {},
      { login: 2, list: 1, list_blacklist: 1, list_blocklist: 1, list_whitelist: 1 },
      0,
    ],
    ['1,000 entries naming an unknown tenant: one customers listing, every plan refused', 'initech', {}, { login: 1, list: 1 }, 1000],
    ["1,000 entries of an unknown provider's tenant: one refused list read and one customers listing", null, { tenant: 'initech' }, { login: 1, list_blacklist: 1, list: 1 }, 1000],
  ])('%s', async (_name, tenant, providerConfig, calls, refused) => {
    const context = await world.configure(providerConfig);
    world.emulator.resetStats();
    expect(await planAll(context, entries(1000, tenant))).toBe(refused);
    expect(world.emulator.stats().byCommand).toEqual(calls);
  });

  test('after a refresh read the lists, planning the entries reads only the list a new entry could contradict', async () => {
    const entry = resourceNamed('svc_blacklist_entry');
    const other = await create(entry, await world.configure(), { ip: '192.0.2.1', tenant: OTHER_TENANT });
    const own = await create(entry, await world.configure(), { ip: '192.0.2.2' });
    const context = await world.configure();
    await Promise.all([other, own].map((state) => entry.read({ context, state })));
    world.emulator.resetStats();
    await plan(entry, context, { ip: '192.0.2.1', tenant: OTHER_TENANT }, other);
    await plan(entry, context, { ip: '192.0.2.2' }, own);
    await plan(entry, context, { ip: '192.0.2.3', tenant: OTHER_TENANT });
    // Only the new entry's guardrail reads the list it could contradict (the whitelist), once.
    expect(world.emulator.stats().byCommand).toEqual({ list_whitelist: 1 });
  });

  test('SSO resources: one listing per kind per process, none after a refresh listed them', async () => {
    const tenantSso = resourceNamed('svc_tenant_sso');
    const channelSso = resourceNamed('svc_channel_sso');
    let context = await world.configure();
    world.emulator.resetStats();
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => [
        plan(tenantSso, context, { name: index % 2 === 0 ? TENANT : OTHER_TENANT, enabled: false }),
        plan(channelSso, context, { name: index % 2 === 0 ? 'main' : 'partners', enabled: false }),
      ]).flat(),
    );
    // Each listing's command is "list" (customers and channels).
    expect(world.emulator.stats().byCommand).toEqual({ login: 1, list: 2 });

    const states: ObjectValue[] = [await create(tenantSso, context, { name: OTHER_TENANT, enabled: false }), await create(channelSso, context, { name: 'partners', enabled: false })];
    context = await world.configure();
    await Promise.all(states.map((state, index) => (index === 0 ? tenantSso : channelSso).read({ context, state })));
    world.emulator.resetStats();
    await plan(tenantSso, context, { name: OTHER_TENANT, enabled: false }, states[0]);
    await plan(channelSso, context, { name: 'partners', enabled: false }, states[1]);
    expect(world.emulator.stats().requests).toBe(0);
  });
});

describe('when the check cannot run', () => {
  test.each<[string, Record<string, Value>, string, Record<string, Value>]>([
    ['an entry tenant not known until apply', {}, 'svc_blacklist_entry', { ip: '192.0.2.1', tenant: UNKNOWN }],
    ["the provider's tenant not known until apply", { tenant: UNKNOWN }, 'svc_blacklist_entry', { ip: '192.0.2.1' }],
    ['base_url not known until apply', { base_url: UNKNOWN }, 'svc_blacklist_entry', { ip: '192.0.2.1', tenant: 'initech' }],
    ['an SSO name not known until apply', {}, 'svc_tenant_sso', { name: UNKNOWN, enabled: false }],
    ['api_key not known until apply', { api_key: UNKNOWN }, 'svc_channel_sso', { name: 'mian', enabled: false }],
  ])('%s: the plan passes without an API call (apply checks)', async (_name, providerConfig, type, values) => {
    const context = await world.configure(providerConfig);
    world.emulator.resetStats();
    const { diagnostics } = await plan(resourceNamed(type), context, values);
    expect(diagnostics).toEqual([]);
    expect(world.emulator.stats().requests).toBe(0);
  });

  test.each([
    ['svc_whitelist_entry', { ip: '192.0.2.1', tenant: OTHER_TENANT }],
    ['svc_whitelist_entry', { ip: '192.0.2.1' }],
    ['svc_tenant_sso', { name: TENANT, enabled: false }],
    ['svc_channel_sso', { name: 'main', enabled: false }],
  ])('the service out of reach (%s %j): the connection diagnostic, not a wrong name', async (type, values) => {
    const gone = await startEmulator({ seed: SEED });
    await gone.close();
    const context = await world.configure({ base_url: gone.url, max_retries: 0 });
    const failure = await plan(resourceNamed(type), context, values).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).not.toBeInstanceOf(DiagnosticsError);
    expect(describeSvcError(failure, `plan ${type}`)).toMatchObject({
      summary: 'Could not reach the svc management API',
      detail: expect.stringContaining('Check base_url (or SVC_BASE_URL)'),
    });
  });
});
