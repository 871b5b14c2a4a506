/**
 * The contract's "Known" request bodies, sent raw exactly as written there, get the
 * contract's reply shapes (Ok vs ok, message texts, fields).
 */
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, WRITER_KEY, api, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

test('login: {"command":"login","api_token":KEY} -> {"Ok":{"status":true,"token":...}}', async () => {
  const reply = await api(emulator, 'login', `{"command":"login","api_token":"${WRITER_KEY}"}`);
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.json)).toEqual(['Ok']);
  expect(reply.json.Ok).toEqual({ status: true, token: expect.any(String) });
  token = (reply.json.Ok as { token: string }).token;
  expect(token.length).toBeGreaterThanOrEqual(20);
});

test('login with a wrong key -> {"Ok":{"status":false}}', async () => {
  const reply = await api(emulator, 'login', '{"command":"login","api_token":"not-a-key"}');
  expect(reply.json).toEqual({ Ok: { status: false } });
});

test('new_<list> with entry {ip, description, created} -> lowercase {"ok":"<List> entry for ip <ip> added"}', async () => {
  const created = Math.floor(Date.now() / 1000);
  const body = `{"command":"new_blocklist","token":"${token}","customer_name":"${TENANT}","entry":{"ip":"198.51.100.7","description":"scanner","created":${created}}}`;
  const reply = await api(emulator, 'lists', body);
  expect(reply.json).toEqual({ ok: 'Blocklist entry for ip 198.51.100.7 added' });
});

test('delete_<list> with ip -> {"Ok":"<List> entry for ip <ip> removed"}', async () => {
  const body = `{"command":"delete_blocklist","token":"${token}","customer_name":"${TENANT}","ip":"198.51.100.7"}`;
  const reply = await api(emulator, 'lists', body);
  expect(reply.json).toEqual({ Ok: 'Blocklist entry for ip 198.51.100.7 removed' });
});

test('list_<list> with no other field -> {"Ok":[entry, ...]}', async () => {
  const reply = await api(emulator, 'lists', `{"command":"list_whitelist","token":"${token}","customer_name":"${TENANT}"}`);
  expect(reply.json).toEqual({ Ok: [] });
});

test('audit_events with limit -> {"Ok":[{timestamp,user,category,action,description}]}', async () => {
  const reply = await api(emulator, 'logs', `{"command":"audit_events","token":"${token}","customer_name":"${TENANT}","limit":10}`);
  const events = reply.json.Ok as Array<Record<string, unknown>>;
  expect(events.map((event) => event.action)).toEqual(['remove_entry', 'new_entry']);
  for (const event of events) {
    expect(Object.keys(event).sort()).toEqual(['action', 'category', 'description', 'timestamp', 'user']);
    expect(event).toMatchObject({ category: 'Lists', user: 'ops@acme.example', timestamp: expect.any(Number) });
    expect(event.description).toContain('blocklist');
  }
});

test('customers list -> {"Ok":[customer]} with every contract field and a uuid', async () => {
  const reply = await api(emulator, 'customers', `{"command":"list","token":"${token}"}`);
  const customers = reply.json.Ok as Array<Record<string, unknown>>;
  expect(Object.keys(customers[0])).toEqual([
    'name', 'contact_email', 'description', 'active', 'autoblock_threshold', 'autoblock_timeout', 'block_embargo',
    'ssl_ciphers', 'notify_threshold', 'sso', 'allow_super_admin_users', 'allow_channel_admin_users',
    'tenant_admin_default', 'uuid',
  ]);
  expect(customers[0]).toMatchObject({ name: TENANT, contact_email: 'sec@acme.example', sso: null });
  expect(customers[0].uuid).toMatch(/^[0-9a-f-]{36}$/);
});

test('customers update: the listed object without uuid, sso set -> {"Ok":"<tenant> updated."}', async () => {
  const listed = ((await api(emulator, 'customers', { command: 'list', token })).json.Ok as Array<Record<string, unknown>>)[0];
  const { uuid: _uuid, ...customer } = listed;
  customer.sso = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/metadata' };
  const reply = await api(emulator, 'customers', JSON.stringify({ command: 'update', token, name: TENANT, customer }));
  expect(reply.json).toEqual({ Ok: `${TENANT} updated.` });
});

test('channels list -> {"Ok":[{name, require_totp_setup, uuid, sso}]}', async () => {
  const reply = await api(emulator, 'channels', `{"command":"list","token":"${token}"}`);
  const channels = reply.json.Ok as Array<Record<string, unknown>>;
  expect(channels).toEqual([{ name: 'main', require_totp_setup: false, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), sso: null }]);
});

test('channels update: channel without uuid -> {"Ok":"Channel: <name> updated."}', async () => {
  const body = `{"command":"update","token":"${token}","channel":{"name":"main","require_totp_setup":false,"sso":{"enabled":true,"required":true,"saml_metadata_url":"https://idp.example/md"}}}`;
  const reply = await api(emulator, 'channels', body);
  expect(reply.json).toEqual({ Ok: 'Channel: main updated.' });
});

test('an expired token -> {"Error":"Token Expired. Please re-authenticate."}', async () => {
  emulator.advanceClock(1800);
  const reply = await api(emulator, 'lists', `{"command":"list_blacklist","token":"${token}","customer_name":"${TENANT}"}`);
  expect(reply.json).toEqual({ Error: 'Token Expired. Please re-authenticate.' });
});

test('every reply is HTTP 200 JSON with an X-Request-ID header', async () => {
  const reply = await api(emulator, 'lists', '{"command":"list_blacklist","token":"nope","customer_name":"acme"}');
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(reply.json).toEqual({ Error: 'Invalid token. Please re-authenticate.' });
});
