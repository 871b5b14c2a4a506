/** Login, token TTL on the emulator clock, inactive and read-only users. */
import type { RunningEmulator } from '../../src/emulator/server';
import { INACTIVE_KEY, READER_KEY, TENANT, api, login, session, startTestEmulator } from './helpers';

let emulator: RunningEmulator;

afterEach(() => emulator.close());

describe('token lifetime', () => {
  beforeEach(async () => {
    emulator = await startTestEmulator({ tokenTtlSeconds: 600 });
  });

  test('a token works until the TTL passes on the emulator clock, then answers Token Expired', async () => {
    const token = await login(emulator);
    const listBlacklist = () => api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT });
    emulator.advanceClock(590);
    expect((await listBlacklist()).json).toEqual({ Ok: [] });
    emulator.advanceClock(10);
    expect((await listBlacklist()).json).toEqual({ Error: 'Token Expired. Please re-authenticate.' });
    // A new login gives a fresh token with a fresh TTL.
    const renewed = await login(emulator);
    expect(renewed).not.toBe(token);
    expect((await api(emulator, 'lists', { command: 'list_blacklist', token: renewed, customer_name: TENANT })).json).toEqual({ Ok: [] });
  });

  test('the clock admin route expires tokens the same way', async () => {
    const token = await login(emulator);
    const before = emulator.now();
    const reply = await fetch(`${emulator.url}/_emulator/clock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 600 }),
    });
    expect(((await reply.json()) as { now: number }).now).toBeGreaterThanOrEqual(before + 600);
    expect((await api(emulator, 'logs', { command: 'audit_events', token, customer_name: TENANT, limit: 1 })).json).toEqual({
      Error: 'Token Expired. Please re-authenticate.',
    });
  });

  const invalidTokens: Array<[name: string, token: unknown]> = [
    ['missing', undefined],
    ['empty', ''],
    ['unknown', 'made-up-token'],
    ['not a string', 42],
  ];
  test.each(invalidTokens)('%s token -> Invalid token', async (_name, token) => {
    const reply = await api(emulator, 'customers', { command: 'list', token });
    expect(reply.json).toEqual({ Error: 'Invalid token. Please re-authenticate.' });
  });
});

describe('users', () => {
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });

  test('an inactive user gets status false and no token', async () => {
    expect((await api(emulator, 'login', { command: 'login', api_token: INACTIVE_KEY })).json).toEqual({ Ok: { status: false } });
  });

  test('login without api_token is an Error naming the field', async () => {
    expect((await api(emulator, 'login', { command: 'login' })).json.Error).toMatch(/api_token/);
  });

  const writes: Array<[area: string, command: string, fields: Record<string, unknown>]> = [
    ['lists', 'new_blacklist', { customer_name: TENANT, entry: { ip: '192.0.2.1', description: '' } }],
    ['lists', 'delete_whitelist', { customer_name: TENANT, ip: '192.0.2.1' }],
    ['lists', 'bulk_new_blocklist', { customer_name: TENANT, entries: [] }],
    ['lists', 'bulk_delete_blacklist', { customer_name: TENANT, ips: [] }],
    ['customers', 'update', { name: TENANT, customer: {} }],
    ['channels', 'update', { channel: { name: 'main' } }],
  ];
  test.each(writes)('a read-only user is refused %s %s and nothing changes', async (area, command, fields) => {
    const token = await login(emulator, READER_KEY);
    expect((await api(emulator, area, { command, token, ...fields })).json).toEqual({ Error: 'Permission denied: read-only user' });
    expect((await api(emulator, 'logs', { command: 'audit_events', token, customer_name: TENANT, limit: 5 })).json).toEqual({ Ok: [] });
  });

  test('a read-only user can read', async () => {
    const reader = await session(emulator, READER_KEY);
    expect((await reader.lists('list_blacklist')).json).toEqual({ Ok: [] });
    expect((await reader.logs(5)).json).toEqual({ Ok: [] });
  });
});
