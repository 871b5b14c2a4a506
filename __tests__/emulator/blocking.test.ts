/** Blocklist expiry on the emulator clock, and risk-based blocking through the admin route. */
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, postRaw, session, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let call: Awaited<ReturnType<typeof session>>;

beforeEach(async () => {
  // A long TTL so moving the clock by an hour does not end the session.
  emulator = await startTestEmulator({ tokenTtlSeconds: 86_400 });
  call = await session(emulator);
});
afterEach(() => emulator.close());

const riskBlock = (ip: string, tenant = TENANT) => postRaw(emulator.url, '/_emulator/risk-block', { tenant, ip });

test('a blocklist entry disappears 30 minutes after the server added it', async () => {
  const addedAt = emulator.now();
  // `created` from the client does not move the expiry: the server's addition time does.
  await call.lists('new_blocklist', { entry: { ip: '198.51.100.1', description: 'x', created: addedAt - 10_000 } });
  const listed = (await call.lists('list_blocklist')).json.Ok as Array<{ expires: number }>;
  expect(listed[0].expires).toBeGreaterThanOrEqual(addedAt + 1800);

  emulator.advanceClock(1700);
  expect((await call.lists('get_blocklist', { ip: '198.51.100.1' })).json.Ok).toMatchObject({ ip: '198.51.100.1' });
  emulator.advanceClock(110);
  expect((await call.lists('get_blocklist', { ip: '198.51.100.1' })).json).toEqual({
    Error: 'Blocklist entry for ip 198.51.100.1 not found',
  });
  expect((await call.lists('list_blocklist')).json).toEqual({ Ok: [] });
});

test('blacklist and whitelist entries do not expire', async () => {
  await call.lists('new_blacklist', { entry: { ip: '198.51.100.2', description: '', created: 0 } });
  await call.lists('new_whitelist', { entry: { ip: '198.51.100.3', description: '', created: 0 } });
  emulator.advanceClock(7 * 24 * 3600);
  const again = await session(emulator);
  expect((await again.lists('list_blacklist')).json.Ok).toHaveLength(1);
  expect((await again.lists('list_whitelist')).json.Ok).toHaveLength(1);
});

test('the third risk block moves the address from the blocklist to the blacklist', async () => {
  expect((await riskBlock('203.0.113.9')).json).toEqual({ list: 'blocklist', blocks: 1 });
  expect((await call.lists('get_blocklist', { ip: '203.0.113.9' })).json.Ok).toMatchObject({ ip: '203.0.113.9' });

  emulator.advanceClock(1800);
  expect((await call.lists('list_blocklist')).json).toEqual({ Ok: [] });
  expect((await riskBlock('203.0.113.9')).json).toEqual({ list: 'blocklist', blocks: 2 });
  expect((await riskBlock('203.0.113.9')).json).toEqual({ list: 'blacklist', blocks: 3 });

  expect((await call.lists('list_blocklist')).json).toEqual({ Ok: [] });
  expect((await call.lists('get_blacklist', { ip: '203.0.113.9' })).json.Ok).toMatchObject({ ip: '203.0.113.9' });
  emulator.advanceClock(7 * 24 * 3600);
  const weekLater = await session(emulator);
  expect((await weekLater.lists('list_blacklist')).json.Ok).toHaveLength(1);
  // Already blacklisted: it stays there and the count does not move.
  expect((await riskBlock('203.0.113.9')).json).toEqual({ list: 'blacklist', blocks: 3 });
});

test('risk blocks record User Actions events in the audit log', async () => {
  for (let block = 0; block < 3; block += 1) await riskBlock('203.0.113.10');
  const events = (await call.logs(10)).json.Ok as Array<Record<string, string>>;
  expect(events.map((event) => [event.category, event.action])).toEqual([
    ['User Actions', 'blacklist_entity'],
    ['User Actions', 'block_entity'],
    ['User Actions', 'block_entity'],
  ]);
  expect(events[0].description).toContain('blacklist');
  expect(events[1].description).toContain('blocklist');
});

const whitelisted: Array<[name: string, whitelistEntry: string, blocked: string]> = [
  ['the address itself', '203.0.113.20', '203.0.113.20'],
  ['a range containing it', '203.0.113.0/24', '203.0.113.21'],
  ['an IPv6 range containing it', '2001:db8::/32', '2001:db8::5'],
];
test.each(whitelisted)('a whitelisted address is never blocked: %s', async (_name, whitelistEntry, blocked) => {
  await call.lists('new_whitelist', { entry: { ip: whitelistEntry, description: 'partner', created: 0 } });
  for (let block = 0; block < 4; block += 1) {
    expect((await riskBlock(blocked)).json).toEqual({ list: 'none', blocks: 0 });
  }
  expect((await call.lists('list_blocklist')).json).toEqual({ Ok: [] });
  expect((await call.lists('list_blacklist')).json).toEqual({ Ok: [] });
});

test('risk blocks are counted per tenant', async () => {
  await riskBlock('203.0.113.30');
  await riskBlock('203.0.113.30');
  expect((await riskBlock('203.0.113.30', 'globex')).json).toEqual({ list: 'blocklist', blocks: 1 });
});

const badRequests: Array<[name: string, body: unknown, status: number, pattern: RegExp]> = [
  ['unknown tenant', { tenant: 'nobody', ip: '203.0.113.1' }, 400, /Unknown customer: nobody/],
  ['invalid address', { tenant: TENANT, ip: '203.0.113.256' }, 400, /Invalid IP address or CIDR/],
  ['a range, not an address', { tenant: TENANT, ip: '203.0.113.0/24' }, 400, /single address/],
  ['missing ip', { tenant: TENANT }, 400, /risk-block needs/],
];
test.each(badRequests)('risk-block refuses %s', async (_name, body, status, pattern) => {
  const reply = await postRaw(emulator.url, '/_emulator/risk-block', body);
  expect(reply.status).toBe(status);
  expect(reply.json.Error).toMatch(pattern);
});

test('the library riskBlock matches the admin route', async () => {
  expect(emulator.riskBlock(TENANT, '203.0.113.40')).toEqual({ list: 'blocklist', blocks: 1 });
});
