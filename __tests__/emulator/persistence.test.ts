/** --state-file: a restart keeps lists, audit log, risk counts, sessions, uuids and the moved clock. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateFileError } from '../../src/emulator/errors';
import { STATE_FORMAT, STATE_VERSION, writeStateFile } from '../../src/emulator/persistence';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { TENANT, TEST_SEED, api, session, startTestEmulator } from './helpers';

let directory: string;
let stateFile: string;
const running: RunningEmulator[] = [];

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-emulator-state-'));
  stateFile = path.join(directory, 'state.json');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  fs.rmSync(directory, { recursive: true, force: true });
});

async function start(extra: Parameters<typeof startTestEmulator>[0] = {}): Promise<RunningEmulator> {
  const emulator = await startTestEmulator({ stateFile, ...extra });
  running.push(emulator);
  return emulator;
}

test('a restart loses nothing: lists, audit log, risk counts, uuids, clock and live sessions', async () => {
  const first = await start();
  const call = await session(first);
  await call.lists('new_blacklist', { entry: { ip: '192.0.2.1', description: 'kept', created: 1 } });
  await call.lists('bulk_new_whitelist', { entries: [{ ip: '2001:db8::/32', description: '', created: 2 }] });
  first.riskBlock(TENANT, '203.0.113.1');
  first.riskBlock(TENANT, '203.0.113.1');
  first.advanceClock(600);
  const customersBefore = (await api(first, 'customers', { command: 'list', token: call.token })).json;
  const auditBefore = (await call.logs(100)).json;
  const blocklistBefore = (await call.lists('list_blocklist')).json;
  const clockBefore = first.now();
  await first.close();

  const second = await start();
  expect(second.now()).toBeGreaterThanOrEqual(clockBefore);
  const listBlacklist = await api(second, 'lists', { command: 'list_blacklist', token: call.token, customer_name: TENANT });
  // The session from before the restart still works: its TTL has not run out.
  expect(listBlacklist.json).toEqual({ Ok: [{ ip: '192.0.2.1', description: 'kept', created: 1 }] });
  expect((await api(second, 'customers', { command: 'list', token: call.token })).json).toEqual(customersBefore);
  expect((await api(second, 'logs', { command: 'audit_events', token: call.token, customer_name: TENANT, limit: 100 })).json).toEqual(auditBefore);
  expect((await api(second, 'lists', { command: 'list_blocklist', token: call.token, customer_name: TENANT })).json).toEqual(blocklistBefore);
  // The third block after the restart still counts the two before it.
  expect(second.riskBlock(TENANT, '203.0.113.1')).toEqual({ list: 'blacklist', blocks: 3 });
});

test('the file is replaced atomically: no temporary files left, valid JSON, no plain tokens', async () => {
  const emulator = await start();
  const call = await session(emulator);
  for (let index = 0; index < 20; index += 1) {
    await call.lists('new_whitelist', { entry: { ip: `192.0.2.${index}`, description: '', created: 0 } });
  }
  expect(fs.readdirSync(directory)).toEqual(['state.json']);
  const text = fs.readFileSync(stateFile, 'utf8');
  const saved = JSON.parse(text);
  expect(saved).toMatchObject({ format: 'svc-emulator-state', version: 1 });
  expect(saved.tenants[0].lists.whitelist).toHaveLength(20);
  expect(text).not.toContain(call.token);
  expect((fs.statSync(stateFile).mode & 0o777).toString(8)).toBe('600');
});

test('a seed added on restart adds new tenants and users, keeping saved ones', async () => {
  const first = await start();
  const uuidBefore = ((await api(first, 'customers', { command: 'list', token: (await session(first)).token })).json.Ok as Array<{ uuid: string }>)[0].uuid;
  await first.close();
  const second = await start({
    seed: { ...TEST_SEED, tenants: [...(TEST_SEED.tenants ?? []), { name: 'initech' }], users: [...(TEST_SEED.users ?? []), { email: 'new@x.example', apiKey: 'new-key' }] },
  });
  const call = await session(second, 'new-key');
  const customers = (await api(second, 'customers', { command: 'list', token: call.token })).json.Ok as Array<{ name: string; uuid: string }>;
  expect(customers.map((customer) => customer.name)).toEqual([TENANT, 'globex', 'initech']);
  expect(customers[0].uuid).toBe(uuidBefore);
});

test('the state file holds no API key, only its hash, and the key still logs in after a restart', async () => {
  const first = await start();
  await session(first);
  await first.close();
  const text = fs.readFileSync(stateFile, 'utf8');
  for (const user of TEST_SEED.users ?? []) expect(text).not.toContain(user.apiKey);
  await start({ seed: undefined }).then((second) => session(second));
});

test('a state file written with plain API keys is loaded and rewritten with hashes', async () => {
  const first = await start();
  await (await session(first)).lists('new_blacklist', { entry: { ip: '192.0.2.9', description: 'old file', created: 1 } });
  await first.close();
  const saved = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  saved.users = (TEST_SEED.users ?? []).map(({ email, apiKey, active, readOnly }) => ({ email, apiKey, active, readOnly }));
  fs.writeFileSync(stateFile, JSON.stringify(saved));

  const second = await start({ seed: undefined });
  expect(fs.readFileSync(stateFile, 'utf8')).not.toContain('writer-key-1');
  const call = await session(second);
  expect((await call.lists('list_blacklist')).json).toEqual({ Ok: [{ ip: '192.0.2.9', description: 'old file', created: 1 }] });
});

test('a seed user whose email a saved user already has is not added beside it', async () => {
  const first = await start();
  await first.close();
  const second = await start({ seed: { users: [{ email: 'ops@acme.example', apiKey: 'second-key-for-ops', readOnly: false }] } });
  expect((await api(second, 'login', { command: 'login', api_token: 'second-key-for-ops' })).json).toEqual({ Ok: { status: false } });
  await session(second);
});

const brokenFiles: Array<[name: string, content: string, pattern: RegExp]> = [
  ['not JSON', '{"format":', /not valid JSON/],
  ['another kind of file', '{"hello":"world"}', /not an svc-emulator state file/],
  ['another version', '{"format":"svc-emulator-state","version":99}', /version 99/],
];
test.each(brokenFiles)('a state file that is %s stops the start with a clear error', async (_name, content, pattern) => {
  fs.writeFileSync(stateFile, content);
  const failure = startEmulator({ stateFile });
  await expect(failure).rejects.toThrow(StateFileError);
  await expect(failure).rejects.toThrow(pattern);
  await expect(failure).rejects.toThrow(stateFile);
});

test('a state file in a missing directory stops the start, saying how to fix it', async () => {
  const failure = startEmulator({ stateFile: path.join(directory, 'no-such-dir', 'state.json') });
  await expect(failure).rejects.toThrow(StateFileError);
  await expect(failure).rejects.toThrow(/cannot be written \(ENOENT\)\. Check that its directory exists/);
});

test('a write that fails at the rename leaves no temporary file and says how to fix it', () => {
  const occupied = path.join(directory, 'state.json');
  fs.mkdirSync(occupied);
  fs.writeFileSync(path.join(occupied, 'keep'), '');
  const contents = { format: STATE_FORMAT, version: STATE_VERSION, savedAt: 0, clockOffsetSeconds: 0, tokens: [], tenants: [], channels: [], users: [] } as const;
  expect(() => writeStateFile(occupied, { ...contents, tokens: [], tenants: [], channels: [], users: [] })).toThrow(StateFileError);
  expect(() => writeStateFile(occupied, { ...contents, tokens: [], tenants: [], channels: [], users: [] })).toThrow(/cannot be written \(E[A-Z]+\)\. Check/);
  expect(fs.readdirSync(directory)).toEqual(['state.json']);
});
