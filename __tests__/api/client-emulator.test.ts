/**
 * The client against the real emulator (src/emulator/server.ts) on 127.0.0.1 port 0: every
 * command, token expiry mid-sequence, read-only refusal, blocklist expiry and risk-based
 * promotion by moving the emulator clock, bulk chunking, and a run with 20% injected faults.
 */
import { AuthenticationError, NotFoundError, PermissionError, ServiceError } from '../../src/api/errors';
import { ManagementClient, type ManagementClientOptions } from '../../src/api/client';
import type { ListName } from '../../src/api/types';
import { startEmulator, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/server';

const WRITER_KEY = 'emulator-test-writer-key';
const READER_KEY = 'emulator-test-reader-key';
const INACTIVE_KEY = 'emulator-test-inactive-key';
const LISTS: ListName[] = ['blacklist', 'blocklist', 'whitelist'];
const FAST_RETRY = { maxAttempts: 10, baseDelayMs: 2, maxDelayMs: 20, deadlineMs: 20_000 } as const;

const SEED: EmulatorSeed = {
  tenants: [
    {
      name: 'acme', contact_email: 'sec@acme.example', description: 'Acme', active: true, autoblock_threshold: 10,
      autoblock_timeout: 1800, block_embargo: 0, ssl_ciphers: '', notify_threshold: 5, sso: null,
      allow_super_admin_users: true, allow_channel_admin_users: true, tenant_admin_default: false,
    },
  ],
  channels: [{ name: 'main', require_totp_setup: false, sso: null }],
  users: [
    { email: 'ops@acme.example', apiKey: WRITER_KEY, active: true, readOnly: false },
    { email: 'audit@acme.example', apiKey: READER_KEY, active: true, readOnly: true },
    { email: 'gone@acme.example', apiKey: INACTIVE_KEY, active: false, readOnly: false },
  ],
} as EmulatorSeed;

let emulator: RunningEmulator;
const clients: ManagementClient[] = [];

function clientFor(options: Partial<ManagementClientOptions> = {}): ManagementClient {
  const client = new ManagementClient({ baseUrl: emulator.url, apiKey: WRITER_KEY, tenant: 'acme', retry: FAST_RETRY, ...options });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  emulator = await startEmulator({ seed: SEED, tokenTtlSeconds: 600 });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await emulator.close();
});

describe('every command', () => {
  test.each(LISTS)('the six verbs of %s', async (list) => {
    const client = clientFor();
    await client.login();
    expect(await client.listEntries(list)).toEqual([]);

    await expect(client.addEntry(list, { ip: '2001:DB8:0:0::5/128', description: 'first' })).resolves.toMatch(/added/);
    await client.addEntry(list, { ip: '2001:db8::5', description: 'replaced' });
    const listed = await client.listEntries(list);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ ip: '2001:db8::5', description: 'replaced' });
    expect(typeof listed[0].created).toBe('number');
    if (list === 'blocklist') expect(typeof listed[0].expires).toBe('number');
    else expect(listed[0].expires).toBeUndefined();

    await expect(client.getEntry(list, '2001:db8:0::5')).resolves.toMatchObject({ ip: '2001:db8::5' });
    await expect(client.getEntry(list, '198.51.100.1')).resolves.toBeNull();

    await expect(client.deleteEntry(list, '2001:db8::5')).resolves.toMatch(/removed/);
    await expect(client.getEntry(list, '2001:db8::5')).resolves.toBeNull();
    await expect(client.deleteEntry(list, '2001:db8::5')).rejects.toBeInstanceOf(NotFoundError);

    const bulk = ['192.0.2.0/24', '198.51.100.7', '203.0.113.9/32'].map((ip) => ({ ip, description: 'bulk' }));
    await expect(client.bulkAddEntries(list, bulk)).resolves.toMatchObject({ count: 3, chunks: 1 });
    expect((await client.listEntries(list)).map((entry) => entry.ip).sort()).toEqual(['192.0.2.0/24', '198.51.100.7', '203.0.113.9']);
    await expect(client.bulkDeleteEntries(list, ['198.51.100.7', '203.0.113.9', '10.9.9.9'])).resolves.toMatchObject({ messages: ['2 entries removed'] });
    expect((await client.listEntries(list)).map((entry) => entry.ip)).toEqual(['192.0.2.0/24']);
    expect(emulator.stats().logins).toBe(1);
  });

  test('audit_events: newest first, limit honoured, list named in new_entry', async () => {
    const client = clientFor();
    await client.addEntry('whitelist', { ip: '192.0.2.10' });
    await client.addEntry('blacklist', { ip: '192.0.2.11' });
    await client.deleteEntry('blacklist', '192.0.2.11');
    const events = await client.auditEvents(2);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ category: 'Lists', action: 'remove_entry', user: 'ops@acme.example' });
    expect(events[1]).toMatchObject({ action: 'new_entry', description: expect.stringContaining('blacklist') });
    const all = await client.auditEvents(100);
    expect(all.find((event) => event.description.includes('192.0.2.10'))?.description).toContain('whitelist');
  });

  test('customers list and SSO update change sso and nothing else', async () => {
    const client = clientFor();
    const [before] = await client.listCustomers();
    expect(before).toMatchObject({ name: 'acme', sso: null, uuid: expect.any(String) });
    const sso = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/saml/metadata' };
    await expect(client.setTenantSso('acme', sso)).resolves.toBe('acme updated.');
    const [after] = await client.listCustomers();
    expect(after).toEqual({ ...before, sso });
    await client.setTenantSso('acme', { ...sso, required: true });
    expect((await client.listCustomers())[0].sso).toEqual({ ...sso, required: true });
  });

  test('channels list and SSO update', async () => {
    const client = clientFor();
    const [before] = await client.listChannels();
    expect(before).toMatchObject({ name: 'main', require_totp_setup: false, sso: null, uuid: expect.any(String) });
    const sso = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/m' };
    await expect(client.setChannelSso('main', sso)).resolves.toBe('Channel: main updated.');
    expect(await client.listChannels()).toEqual([{ ...before, sso }]);
  });

  test('an update that changes another field is refused by the service and changes nothing', async () => {
    const client = clientFor();
    const [customer] = await client.listCustomers();
    await expect(client.updateCustomer('acme', { ...customer, notify_threshold: 99 })).rejects.toBeInstanceOf(ServiceError);
    expect((await client.listCustomers())[0]).toEqual(customer);
  });

  test('an unknown key and an inactive user are authentication errors', async () => {
    await expect(clientFor({ apiKey: 'no-such-key-anywhere' }).login()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(clientFor({ apiKey: INACTIVE_KEY }).listEntries('blacklist')).rejects.toBeInstanceOf(AuthenticationError);
    expect(emulator.stats().logins).toBe(0);
  });
});

test('token expiry mid-sequence: one re-login shared by concurrent calls', async () => {
  await emulator.close();
  emulator = await startEmulator({ seed: SEED, tokenTtlSeconds: 60 });
  const client = clientFor();
  await client.addEntry('blacklist', { ip: '192.0.2.1' });
  emulator.advanceClock(61);
  const results = await Promise.all([
    client.addEntry('blacklist', { ip: '192.0.2.2' }),
    client.getEntry('blacklist', '192.0.2.1'),
    client.auditEvents(5),
    client.addEntry('whitelist', { ip: '192.0.2.3' }),
    client.listEntries('blocklist'),
  ]);
  expect(results[1]).toMatchObject({ ip: '192.0.2.1' });
  expect(emulator.stats().logins).toBe(2);
  expect(client.stats()).toMatchObject({ logins: 2, reauthentications: 5 });
  expect((await client.listEntries('blacklist')).map((entry) => entry.ip).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
  expect(emulator.stats().logins).toBe(2);
});

test('a read-only user can read but a write is refused once, without retry', async () => {
  const reader = clientFor({ apiKey: READER_KEY });
  await expect(reader.listEntries('blacklist')).resolves.toEqual([]);
  emulator.resetStats();
  const error = await reader.addEntry('blacklist', { ip: '192.0.2.50' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PermissionError);
  expect(error).toMatchObject({ code: 'permission_denied', attempts: 1 });
  await expect(reader.bulkDeleteEntries('whitelist', ['192.0.2.50'])).rejects.toBeInstanceOf(PermissionError);
  expect(emulator.stats().byCommand).toEqual({ new_blacklist: 1, bulk_delete_whitelist: 1 });
  await expect(reader.setTenantSso('acme', null)).rejects.toBeInstanceOf(PermissionError);
});

test('a blocklist entry disappears 30 minutes after it was added', async () => {
  const client = clientFor();
  await client.addEntry('blocklist', { ip: '203.0.113.20', description: 'manual block' });
  const entry = await client.getEntry('blocklist', '203.0.113.20');
  expect(entry?.expires).toBeDefined();
  emulator.advanceClock(29 * 60);
  await expect(client.getEntry('blocklist', '203.0.113.20')).resolves.not.toBeNull();
  emulator.advanceClock(60);
  await expect(client.getEntry('blocklist', '203.0.113.20')).resolves.toBeNull();
  await expect(client.listEntries('blocklist')).resolves.toEqual([]);
});

test('risk-based blocking: the third block moves the address to the blacklist; whitelisted never blocked', async () => {
  const client = clientFor();
  const ip = '198.51.100.66';
  expect(emulator.riskBlock('acme', ip)).toEqual({ list: 'blocklist', blocks: 1 });
  expect(await client.getEntry('blocklist', ip)).not.toBeNull();
  emulator.advanceClock(31 * 60);
  expect(await client.getEntry('blocklist', ip)).toBeNull();
  expect(emulator.riskBlock('acme', ip)).toEqual({ list: 'blocklist', blocks: 2 });
  expect(emulator.riskBlock('acme', ip)).toEqual({ list: 'blacklist', blocks: 3 });
  expect(await client.getEntry('blocklist', ip)).toBeNull();
  expect(await client.getEntry('blacklist', ip)).toMatchObject({ ip });
  emulator.advanceClock(24 * 3600);
  expect(await client.getEntry('blacklist', ip)).toMatchObject({ ip });

  await client.addEntry('whitelist', { ip: '192.0.2.0/24', description: 'office' });
  expect(emulator.riskBlock('acme', '192.0.2.77')).toMatchObject({ list: 'none' });
  expect(await client.getEntry('blocklist', '192.0.2.77')).toBeNull();
  const actions = (await client.auditEvents(50)).map((event) => event.action);
  expect(actions).toEqual(expect.arrayContaining(['block_entity', 'blacklist_entity']));
});

test('bulk calls above 1,000 entries are chunked: 2,500 entries in 3 calls each way', async () => {
  const client = clientFor();
  const entries = Array.from({ length: 2_500 }, (_, index) => ({ ip: `10.1.${index >> 8}.${index & 255}`, description: `bulk ${index}` }));
  const progress: string[] = [];
  const added = await client.bulkAddEntries('blacklist', entries, { onProgress: (step) => progress.push(`${step.chunk}/${step.chunks}:${step.done}`) });
  expect(added).toMatchObject({ count: 2_500, chunks: 3, messages: ['1000 entries added', '1000 entries added', '500 entries added'] });
  expect(progress).toEqual(['1/3:1000', '2/3:2000', '3/3:2500']);
  expect(emulator.stats().byCommand.bulk_new_blacklist).toBe(3);
  expect(await client.listEntries('blacklist')).toHaveLength(2_500);

  const removed = await client.bulkDeleteEntries('blacklist', entries.map((entry) => entry.ip));
  expect(removed.chunks).toBe(3);
  expect(emulator.stats().byCommand.bulk_delete_blacklist).toBe(3);
  expect(await client.listEntries('blacklist')).toEqual([]);
});

test('with 20% injected faults every intended change lands exactly once', async () => {
  const client = clientFor({ random: seededRandom(7) });
  // Starting state, made without faults: 30 blacklist entries, 10 of which the run removes.
  const initial = Array.from({ length: 30 }, (_, index) => ({ ip: `172.16.0.${index + 1}`, description: 'initial' }));
  await client.bulkAddEntries('blacklist', initial);
  emulator.resetStats();
  emulator.setFaults({ rate: 0.2, kinds: ['429', '500', '503', 'reset'], retryAfterSeconds: 0, seed: 20261123 });

  const singles = Array.from({ length: 40 }, (_, index) => `172.16.1.${index + 1}`);
  const removals = initial.slice(0, 10).map((entry) => entry.ip);
  const bulkWhitelist = Array.from({ length: 1_200 }, (_, index) => `10.2.${index >> 8}.${index & 255}`);
  const bulkRemovals = bulkWhitelist.slice(0, 300);
  const sso = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/fault-run' };

  for (let start = 0; start < singles.length; start += 8) {
    await Promise.all(singles.slice(start, start + 8).map((ip) => client.addEntry('blacklist', { ip, description: 'fault run' })));
  }
  // The session expires mid-run: the re-login has to get through the faults as well.
  emulator.advanceClock(601);
  await Promise.all(removals.map((ip) => client.deleteEntry('blacklist', ip)));
  await client.bulkAddEntries('whitelist', bulkWhitelist.map((ip) => ({ ip, description: 'fault run bulk' })));
  await client.bulkDeleteEntries('whitelist', bulkRemovals);
  await client.setTenantSso('acme', sso);
  await client.setChannelSso('main', sso);

  const faulted = emulator.stats();
  emulator.setFaults(undefined);
  const injected = Object.values(faulted.faults).reduce((sum, count) => sum + count, 0);
  console.log(
    `fault run: ${faulted.requests} requests, ${injected} faults injected ${JSON.stringify(faulted.faults)}, ` +
      `${client.stats().retries} retries, ${client.stats().logins} logins`,
  );
  expect(injected).toBeGreaterThan(0);
  expect(faulted.faults['429']! + faulted.faults['500']! + faulted.faults['503']! + faulted.faults.reset!).toBe(injected);
  expect(client.stats().retries).toBe(injected);
  expect(client.stats().logins).toBe(2);

  const expectedBlacklist = [...initial.slice(10).map((entry) => entry.ip), ...singles].sort();
  expect((await client.listEntries('blacklist')).map((entry) => entry.ip).sort()).toEqual(expectedBlacklist);
  const expectedWhitelist = bulkWhitelist.slice(300).sort();
  expect((await client.listEntries('whitelist')).map((entry) => entry.ip).sort()).toEqual(expectedWhitelist);
  expect((await client.listCustomers())[0].sso).toEqual(sso);
  expect((await client.listChannels())[0].sso).toEqual(sso);

  // Exactly once: one new_entry per added address, one remove_entry per removed one.
  const events = await client.auditEvents(10_000);
  const count = (action: string, ip: string) =>
    events.filter((event) => event.action === action && event.description.startsWith(`${ip} `)).length;
  for (const ip of singles) expect(count('new_entry', ip)).toBe(1);
  for (const ip of removals) expect(count('remove_entry', ip)).toBe(1);
  expect(events.filter((event) => event.action === 'new_entry' && event.description.includes('whitelist'))).toHaveLength(1_200);
  expect(events.filter((event) => event.action === 'remove_entry' && event.description.includes('whitelist'))).toHaveLength(300);
});

/** A small deterministic generator, so the run's jitter is the same every time. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
