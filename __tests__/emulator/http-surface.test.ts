/** Replies to malformed requests, admin routes, stats, and X-Request-ID on every reply. */
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, api, login, postRaw, startTestEmulator } from './helpers';

let emulator: RunningEmulator;

beforeEach(async () => {
  emulator = await startTestEmulator();
});
afterEach(() => emulator.close());

test('binds 127.0.0.1 on a free port by default', () => {
  expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
  expect(emulator.port).toBeGreaterThan(0);
});

const malformed: Array<[name: string, path: string, body: string, pattern: RegExp]> = [
  ['malformed JSON', '/svc_api/v2/lists', '{"command":', /^Malformed JSON body/],
  ['a JSON array', '/svc_api/v2/lists', '[1,2]', /must be a JSON object/],
  ['no command', '/svc_api/v2/lists', '{}', /^Missing field: command/],
  ['unknown area', '/svc_api/v2/rules', '{"command":"list"}', /^Unknown area "rules"/],
  ['unknown command', '/svc_api/v2/customers', '{"command":"delete"}', /^Unknown command "delete" for \/svc_api\/v2\/customers; known: list, update/],
  ['a command of another area', '/svc_api/v2/logs', '{"command":"list_blacklist"}', /^Unknown command "list_blacklist"/],
  ['wrong API version', '/svc_api/v1/lists', '{"command":"list_blacklist"}', /^Unknown API path \/svc_api\/v1\/lists/],
];
test.each(malformed)('%s -> HTTP 200 {"Error": ...} naming it', async (_name, path, body, pattern) => {
  const reply = await postRaw(emulator.url, path, body);
  expect(reply.status).toBe(200);
  expect(reply.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(Object.keys(reply.json)).toEqual(['Error']);
  expect(reply.json.Error).toMatch(pattern);
});

test('a GET to the API is an Error reply asking for POST', async () => {
  const response = await fetch(`${emulator.url}/svc_api/v2/lists`);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expect(((await response.json()) as { Error: string }).Error).toMatch(/^Method GET is not allowed/);
});

test('paths outside the API and the admin routes get 404 JSON with X-Request-ID', async () => {
  const response = await fetch(`${emulator.url}/`);
  expect(response.status).toBe(404);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  const admin = await fetch(`${emulator.url}/_emulator/nothing`);
  expect(admin.status).toBe(404);
  expect(((await admin.json()) as { Error: string }).Error).toMatch(/No admin route GET \/_emulator\/nothing/);
});

test('request ids differ between replies', async () => {
  const ids = new Set<string | null>();
  for (let index = 0; index < 5; index += 1) ids.add((await api(emulator, 'lists', '{}')).requestId);
  expect(ids.size).toBe(5);
});

const adminRoutes: Array<[name: string, method: string, path: string, body: unknown, expected: unknown]> = [
  ['health', 'GET', '/_emulator/health', undefined, { ok: true }],
  ['clock read', 'GET', '/_emulator/clock', undefined, { now: expect.any(Number) }],
  ['clock advance', 'POST', '/_emulator/clock', { advanceSeconds: 60 }, { now: expect.any(Number) }],
  ['faults read', 'GET', '/_emulator/faults', undefined, { rate: 0, kinds: ['429', '500', '503', 'reset'], retryAfterSeconds: 1, latencyMs: 0, seed: null }],
  ['stats read', 'GET', '/_emulator/stats', undefined, { requests: 0, byCommand: {}, unknownCommands: 0, faults: { 429: 0, 500: 0, 503: 0, reset: 0 }, logins: 0 }],
  ['stats reset', 'POST', '/_emulator/stats/reset', undefined, { requests: 0, byCommand: {}, unknownCommands: 0, faults: { 429: 0, 500: 0, 503: 0, reset: 0 }, logins: 0 }],
];
test.each(adminRoutes)('admin route: %s', async (_name, method, path, body, expected) => {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: method === 'POST' ? { 'Content-Type': 'application/json' } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expect(await response.json()).toEqual(expected);
});

const adminMistakes: Array<[name: string, body: string, pattern: RegExp]> = [
  ['negative advance', '{"advanceSeconds":-5}', /advanceSeconds must be a number from 0 to 316224000/],
  ['advance not a number', '{"advanceSeconds":"soon"}', /advanceSeconds must be a number/],
  ['an advance over ten years', '{"advanceSeconds":316224001}', /advanceSeconds must be a number from 0 to 316224000 \(ten years.*got 316224001/],
  ['an advance past the year 9999', '{"advanceSeconds":1e308}', /got 1e\+308/],
  ['malformed JSON', '{', /Malformed JSON body/],
];
test.each(adminMistakes)('clock route refuses %s with 400', async (_name, body, pattern) => {
  const before = emulator.now();
  const reply = await postRaw(emulator.url, '/_emulator/clock', body);
  expect(reply.status).toBe(400);
  expect(reply.json.Error).toMatch(pattern);
  expect(emulator.now() - before).toBeLessThan(5);
});

test('stats count requests, commands and logins; reset clears them', async () => {
  const token = await login(emulator);
  await api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT });
  await api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT });
  await api(emulator, 'login', { command: 'login', api_token: 'wrong' });
  await api(emulator, 'lists', 'not json');
  expect(emulator.stats()).toEqual({
    requests: 5,
    byCommand: { login: 2, list_blacklist: 2 },
    unknownCommands: 0,
    faults: { 429: 0, 500: 0, 503: 0, reset: 0 },
    logins: 1,
  });
  const reset = await postRaw(emulator.url, '/_emulator/stats/reset', '');
  expect(reset.json).toMatchObject({ requests: 0, logins: 0 });
  expect(emulator.stats().requests).toBe(0);
});

test('logs carry no API key, token or body', async () => {
  const lines: string[] = [];
  const logged = await startTestEmulator({ log: (line) => lines.push(line) });
  try {
    const token = await login(logged);
    await api(logged, 'lists', { command: 'new_blacklist', token, customer_name: TENANT, entry: { ip: '192.0.2.9', description: 'secret-description', created: 0 } });
    await api(logged, 'login', { command: 'login', api_token: 'wrong-key-value' });
  } finally {
    await logged.close();
  }
  const text = lines.join('\n');
  expect(lines.length).toBeGreaterThanOrEqual(3);
  expect(text).toContain('new_blacklist');
  for (const secret of ['writer-key-1', 'wrong-key-value', 'secret-description']) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/token"?[:=]/);
});
