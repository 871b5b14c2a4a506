/** The data sources against the emulator: svc_list, svc_audit_events, svc_tenant, svc_channel. */
import { DiagnosticsError, UNKNOWN, type Value } from '../../src/provider/core';
import { compareAddresses } from '../../src/provider/resources/data-list';
import { OTHER_TENANT, SEED, SSO_BASE, TENANT, dataSourceNamed, duringClock, expectBlockEndIn, fullObject, startWorld, type World } from './harness';
import type { SvcContext } from '../../src/provider/context';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

async function read(typeName: string, context: SvcContext, values: Record<string, Value>) {
  const source = dataSourceNamed(typeName);
  const config = fullObject(source.schema, values);
  expect(source.validate?.({ config }) ?? []).toEqual([]);
  return source.read({ context, config });
}

describe('svc_list', () => {
  test('every entry sorted by address, expires only on the blocklist', async () => {
    const ips = ['2001:db8::1', '10.0.0.0/8', '192.0.2.10', '9.9.9.9', '10.0.0.0/16', '192.0.2.9'];
    await world.api.bulkAddEntries('blacklist', ips.map((ip) => ({ ip, description: `d ${ip}` })));
    const window = await duringClock(world, () => world.api.bulkAddEntries('blocklist', ips.map((ip) => ({ ip, description: `d ${ip}` }))));
    const context = await world.configure();
    const blacklist = await read('svc_list', context, { list: 'blacklist' });
    expect(blacklist.id).toBe(`${TENANT}/blacklist`);
    expect(blacklist.tenant).toBeNull();
    const sortedIps = ['9.9.9.9', '10.0.0.0/8', '10.0.0.0/16', '192.0.2.9', '192.0.2.10', '2001:db8::1'];
    expect((blacklist.entries as Array<{ ip: string }>).map((entry) => entry.ip)).toEqual(sortedIps);
    expect((blacklist.entries as Value[])[0]).toEqual({ ip: '9.9.9.9', description: 'd 9.9.9.9', created: expect.any(Number), expires: null });
    const blocklist = await read('svc_list', context, { list: 'blocklist' });
    expect(blocklist.entries).toHaveLength(ips.length);
    for (const entry of blocklist.entries as Array<{ expires: Value }>) expectBlockEndIn(entry.expires, window);
    const other = await read('svc_list', context, { list: 'blacklist', tenant: OTHER_TENANT });
    expect(other).toMatchObject({ id: `${OTHER_TENANT}/blacklist`, tenant: OTHER_TENANT, entries: [] });
  });

  test('compareAddresses orders IPv4 before IPv6, by value, wider ranges first', () => {
    expect(['::1', '10.0.0.2', '10.0.0.0/24', '2.0.0.0'].sort(compareAddresses)).toEqual(['2.0.0.0', '10.0.0.0/24', '10.0.0.2', '::1']);
  });
});

describe('svc_audit_events', () => {
  test('newest first, limit, and exact category/action filters', async () => {
    await world.api.addEntry('blacklist', { ip: '192.0.2.1' });
    await world.api.addEntry('blacklist', { ip: '192.0.2.2' });
    await world.api.deleteEntry('blacklist', '192.0.2.1');
    await world.api.setTenantSso(TENANT, { enabled: false, required: false, saml_metadata_url: '' });
    const context = await world.configure();

    const all = await read('svc_audit_events', context, {});
    expect(all.id).toBe(`${TENANT}/audit_events`);
    expect((all.events as Array<{ action: string }>).map((event) => event.action)).toEqual(['update_site', 'remove_entry', 'new_entry', 'new_entry']);
    expect((all.events as Value[])[1]).toEqual({
      timestamp: expect.any(Number),
      user: 'ops@acme.example',
      category: 'Lists',
      action: 'remove_entry',
      description: '192.0.2.1 removed from blacklist',
    });

    const limited = await read('svc_audit_events', context, { limit: 2 });
    expect((limited.events as Value[]).length).toBe(2);
    const lists = await read('svc_audit_events', context, { category: 'Lists', limit: 2 });
    expect((lists.events as Array<{ action: string }>).map((event) => event.action)).toEqual(['remove_entry', 'new_entry']);
    const added = await read('svc_audit_events', context, { action: 'new_entry' });
    expect((added.events as Array<{ description: string }>).map((event) => event.description)).toEqual([
      '192.0.2.2 added to blacklist',
      '192.0.2.1 added to blacklist',
    ]);
    expect((await read('svc_audit_events', context, { category: 'lists' })).events).toEqual([]);
  });
});

describe('svc_tenant', () => {
  test("a tenant's texts holding terminal escapes and a bidi override read back escaped", async () => {
    await world.close();
    const hostile = { description: 'Acme\u001b[2J\u009b Corp\u202e', contact_email: 'sec\u2066@acme.example' };
    world = await startWorld({ ...SEED, tenants: (SEED.tenants ?? []).map((tenant) => (tenant.name === TENANT ? { ...tenant, ...hostile } : tenant)) });
    const context = await world.configure();
    expect(await read('svc_tenant', context, {})).toMatchObject({ description: 'Acme\\u001b[2J\\u009b Corp\\u202e', contact_email: 'sec\\u2066@acme.example' });
  });
  test('the provider tenant by default, another by name', async () => {
    await world.api.setTenantSso(TENANT, { enabled: true, required: true, saml_metadata_url: 'https://idp.example.com/m' });
    const context = await world.configure();
    const uuid = (await world.api.listCustomers()).find((tenant) => tenant.name === TENANT)!.uuid;
    expect(await read('svc_tenant', context, {})).toEqual({
      name: null,
      id: TENANT,
      uuid,
      contact_email: 'sec@acme.example',
      description: 'Acme Corp',
      active: true,
      sso_enabled: true,
      sso_required: true,
      saml_metadata_url: 'https://idp.example.com/m',
    });
    expect(await read('svc_tenant', context, { name: OTHER_TENANT })).toMatchObject({
      name: OTHER_TENANT,
      id: OTHER_TENANT,
      sso_enabled: false,
      sso_required: false,
      saml_metadata_url: null,
    });
    await expect(read('svc_tenant', context, { name: 'initech' })).rejects.toBeInstanceOf(DiagnosticsError);
  });
});

describe('svc_channel', () => {
  test('settings and service-provider URLs; an unknown name is an error', async () => {
    const context = await world.configure();
    const channel = (await world.api.listChannels()).find((each) => each.name === 'main')!;
    expect(await read('svc_channel', context, { name: 'main' })).toEqual({
      name: 'main',
      id: 'main',
      uuid: channel.uuid,
      require_totp_setup: true,
      sso_enabled: false,
      sso_required: false,
      saml_metadata_url: null,
      sp_entity_id: `${SSO_BASE}/sign-in`,
      sp_acs_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/acs`,
      sp_metadata_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/metadata`,
    });
    const notKnownYet = read('svc_channel', await world.configure({ sso_base: UNKNOWN }), { name: 'main' });
    await expect(notKnownYet).rejects.toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Provider setting sso_base is not known yet', detail: expect.stringContaining('SVC_SSO_BASE') })],
    });
    const failure = read('svc_channel', context, { name: 'nope' });
    await expect(failure).rejects.toMatchObject({ diagnostics: [expect.objectContaining({ summary: 'Unknown channel "nope"', path: ['name'] })] });
  });
});
