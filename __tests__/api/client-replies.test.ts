/**
 * The client against a scripted local HTTP server: odd replies, retries, re-login, request
 * shapes and client-side validation. Nothing here waits on a timer longer than a few ms except
 * the one Retry-After case.
 */
import { MockAgent } from 'undici';
import { AuthenticationError, ClientClosedError, NotFoundError, PermissionError, RateLimitError, ServiceError, TokenRejectedError, TransportError, UnexpectedReplyError, ValidationError } from '../../src/api/errors';
import { ManagementClient, type ClientLogEvent, type ManagementClientOptions } from '../../src/api/client';
import { startFakeService, withLogin, type FakeReply, type FakeService, type RecordedRequest } from './fake-service';

const API_KEY = 'replies-test-api-key-7f3a9c';
const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5, deadlineMs: 10_000 } as const;
const FIXED_NOW = Date.UTC(2026, 10, 23, 8, 0, 0);

const services: FakeService[] = [];
const clients: ManagementClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function setUp(
  handler: (request: RecordedRequest) => FakeReply | Promise<FakeReply>,
  options: Partial<ManagementClientOptions> = {},
): Promise<{ service: FakeService; client: ManagementClient; events: ClientLogEvent[] }> {
  const service = await startFakeService(handler);
  services.push(service);
  const events: ClientLogEvent[] = [];
  const client = new ManagementClient({
    baseUrl: service.url,
    apiKey: API_KEY,
    tenant: 'acme',
    retry: FAST_RETRY,
    random: () => 0.5,
    now: () => FIXED_NOW,
    logger: (event) => events.push(event),
    ...options,
  });
  clients.push(client);
  return { service, client, events };
}

/** Replies from `script` in order for non-login calls, then `fallback`. */
function scripted(script: FakeReply[], fallback: FakeReply = { body: { Ok: [] } }) {
  return withLogin('tok-1', () => script.shift() ?? fallback);
}

describe('odd replies', () => {
  test('a non-JSON body is an unexpected reply carrying status and X-Request-ID, not retried', async () => {
    const { service, client } = await setUp(scripted([{ status: 200, body: '<html>gateway</html>' }]));
    const error = await client.listEntries('blacklist').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedReplyError);
    expect(error).toMatchObject({ code: 'unexpected_reply', status: 200, command: 'list_blacklist' });
    expect((error as UnexpectedReplyError).requestId).toMatch(/^fake-\d+$/);
    expect((error as Error).message).toContain((error as UnexpectedReplyError).requestId);
    expect((error as Error).message).toContain('is not JSON');
    expect(service.commands('list_blacklist')).toHaveLength(1);
  });

  test('a JSON object with neither Ok nor Error is an unexpected reply', async () => {
    const { client } = await setUp(scripted([{ status: 200, body: { result: 'fine' } }]));
    await expect(client.listEntries('whitelist')).rejects.toMatchObject({
      code: 'unexpected_reply',
      status: 200,
      message: expect.stringContaining('neither'),
    });
  });

  test('Ok of the wrong shape: a list where an object belongs and the reverse, naming the command and what was wanted', async () => {
    const { client } = await setUp(scripted([{ body: { Ok: { entries: [] } } }, { body: { Ok: [{ ip: '192.0.2.1' }] } }, { body: { Ok: {} } }, { body: { Ok: 'none' } }]));
    await expect(client.listEntries('whitelist')).rejects.toMatchObject({ code: 'unexpected_reply', message: expect.stringMatching(/^list_whitelist: expected a list under "Ok" \(HTTP 200, X-Request-ID fake-\d+\), got \{"entries":\[\]\}\.$/) });
    await expect(client.getEntry('blacklist', '192.0.2.1')).rejects.toMatchObject({ code: 'unexpected_reply', message: expect.stringMatching(/^get_blacklist: expected an object under "Ok" .*, got \[\{"ip":"192\.0\.2\.1"\}\]\.$/) });
    await expect(client.listCustomers()).rejects.toMatchObject({ code: 'unexpected_reply', command: 'customers list' });
    await expect(client.listChannels()).rejects.toMatchObject({ code: 'unexpected_reply', message: expect.stringContaining('got "none"') });
  });

  test('Ok and ok are accepted alike, whatever the status', async () => {
    const { client } = await setUp(
      scripted([{ status: 200, body: { ok: 'Blacklist entry for ip 192.0.2.1 added' } }, { status: 201, body: { Ok: [] } }]),
    );
    await expect(client.addEntry('blacklist', { ip: '192.0.2.1' })).resolves.toBe('Blacklist entry for ip 192.0.2.1 added');
    await expect(client.listEntries('blacklist')).resolves.toEqual([]);
  });

  test('an Error reply with HTTP 500 is a service error, not retried', async () => {
    const { service, client } = await setUp(scripted([{ status: 500, body: { Error: 'Something broke' } }]));
    await expect(client.listEntries('blacklist')).rejects.toBeInstanceOf(ServiceError);
    expect(service.commands('list_blacklist')).toHaveLength(1);
  });

  test('503 then Ok succeeds on the second attempt', async () => {
    const { service, client, events } = await setUp(scripted([{ status: 503, body: 'busy' }, { body: { Ok: [{ ip: '192.0.2.1', description: '', created: 1 }] } }]));
    await expect(client.listEntries('blacklist')).resolves.toHaveLength(1);
    expect(service.commands('list_blacklist')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    expect(client.stats()).toMatchObject({ retries: 1, logins: 1 });
  });

  test('Retry-After on a 429 is honoured', async () => {
    const { service, client, events } = await setUp(
      scripted([{ status: 429, headers: { 'retry-after': '1' }, body: 'slow down' }, { body: { Ok: [] } }]),
    );
    await expect(client.listEntries('blocklist')).resolves.toEqual([]);
    const retry = events.find((event) => event.type === 'retry');
    expect(retry).toMatchObject({ delayMs: 1_000, reason: expect.stringContaining('Retry-After') });
    expect(service.commands('list_blocklist')).toHaveLength(2);
  });

  test('a connection reset is retried', async () => {
    const { service, client } = await setUp(scripted(['reset', { body: { Ok: [] } }]));
    await expect(client.listEntries('blacklist')).resolves.toEqual([]);
    expect(service.commands('list_blacklist')).toHaveLength(2);
  });

  test('429 every time ends in a RateLimitError after maxAttempts', async () => {
    const { service, client } = await setUp(withLogin('tok-1', () => ({ status: 429, headers: { 'retry-after': '0' }, body: '' })));
    await expect(client.listEntries('blacklist')).rejects.toMatchObject({ code: 'rate_limited', attempts: 4, status: 429 });
    expect(service.commands('list_blacklist')).toHaveLength(4);
  });

  test('resets every time end in a TransportError with the network code and a cause', async () => {
    const { client } = await setUp(withLogin('tok-1', () => 'reset'));
    const error = (await client.listEntries('blacklist').catch((caught: unknown) => caught)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.networkCode).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(error.attempts).toBe(4);
    expect(error.cause).toBeInstanceOf(Error);
  });

  test('a service that never answers times out and the timeout is retried', async () => {
    const { service, client } = await setUp(withLogin('tok-1', () => 'hang'), {
      requestTimeoutMs: 100,
      retry: { ...FAST_RETRY, maxAttempts: 2 },
    });
    await expect(client.listEntries('blacklist')).rejects.toMatchObject({ code: 'transport_failed', networkCode: 'SVC_REQUEST_TIMEOUT' });
    expect(service.commands('list_blacklist')).toHaveLength(2);
  });

  test('a refused connection is a TransportError naming ECONNREFUSED', async () => {
    const service = await startFakeService(() => ({ body: { Ok: [] } }));
    const url = service.url;
    await service.close();
    const client = new ManagementClient({ baseUrl: url, apiKey: API_KEY, tenant: 'acme', retry: { ...FAST_RETRY, maxAttempts: 2 } });
    clients.push(client);
    await expect(client.login()).rejects.toMatchObject({ code: 'transport_failed', networkCode: 'ECONNREFUSED', attempts: 2 });
  });
});

describe('session', () => {
  test('login is lazy, once, and its token is reused', async () => {
    const { service, client } = await setUp(scripted([]));
    expect(service.requests).toHaveLength(0);
    await Promise.all([client.listEntries('blacklist'), client.listEntries('whitelist'), client.auditEvents(5)]);
    await client.listEntries('blocklist');
    expect(service.commands('login')).toHaveLength(1);
    for (const request of service.requests.filter((r) => r.body.command !== 'login')) expect(request.body.token).toBe('tok-1');
  });

  test('an expired token causes one shared re-login and one retry per concurrent call', async () => {
    let loginCount = 0;
    const service = await startFakeService((request) => {
      if (request.body.command === 'login') {
        loginCount += 1;
        return { body: { Ok: { status: true, token: `tok-${loginCount}` } } };
      }
      if (request.body.token === 'tok-1') return { body: { Error: 'Token Expired. Please re-authenticate.' } };
      return { body: { Ok: [] } };
    });
    services.push(service);
    const client = new ManagementClient({ baseUrl: service.url, apiKey: API_KEY, tenant: 'acme', retry: FAST_RETRY });
    clients.push(client);
    await client.login();
    await Promise.all(['blacklist', 'blocklist', 'whitelist', 'blacklist', 'whitelist'].map((list, index) =>
      index % 2 === 0 ? client.listEntries(list as 'blacklist') : client.auditEvents(index),
    ));
    expect(service.commands('login')).toHaveLength(2);
    expect(client.stats().logins).toBe(2);
  });

  test('an invalid token is treated like expiry', async () => {
    let loginCount = 0;
    const { service, client } = await setUp((request) => {
      if (request.body.command === 'login') {
        loginCount += 1;
        return { body: { Ok: { status: true, token: `tok-${loginCount}` } } };
      }
      return request.body.token === 'tok-1' ? { body: { Error: 'Invalid token. Please re-authenticate.' } } : { body: { Ok: [] } };
    });
    await expect(client.auditEvents(1)).resolves.toEqual([]);
    expect(service.commands('login')).toHaveLength(2);
  });

  test('a token refused right after a fresh login is not retried again', async () => {
    const { service, client } = await setUp(scripted([], { body: { Error: 'Token Expired. Please re-authenticate.' } }));
    await expect(client.listEntries('blacklist')).rejects.toBeInstanceOf(TokenRejectedError);
    expect(service.commands('login')).toHaveLength(2);
    expect(service.commands('list_blacklist')).toHaveLength(2);
  });

  test('bad credentials are an AuthenticationError, not retried', async () => {
    const { service, client } = await setUp(() => ({ body: { Ok: { status: false } } }));
    await expect(client.listEntries('blacklist')).rejects.toBeInstanceOf(AuthenticationError);
    expect(service.requests).toHaveLength(1);
  });

  test('a login reply without a token is an unexpected reply', async () => {
    const { client } = await setUp(() => ({ body: { Ok: { status: true } } }));
    await expect(client.login()).rejects.toMatchObject({ code: 'unexpected_reply' });
  });

  test('a login answered with an Error names the service\'s reason and the tenant, not retried', async () => {
    const { service, client } = await setUp(() => ({ body: { Error: 'Invalid API token' } }));
    const error = await client.login().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe('login refused for tenant "acme": "Invalid API token". Check the API key.');
    expect(service.requests).toHaveLength(1);
  });

  test('an odd login reply that carries a token anyway: unexpected, and the token is not in the message', async () => {
    const { client } = await setUp(() => ({ body: { Ok: { status: 'yes', token: 'odd-token-5b1c9e' } } }));
    const error = (await client.login().catch((caught: unknown) => caught)) as UnexpectedReplyError;
    expect(error).toBeInstanceOf(UnexpectedReplyError);
    expect(error.message).toMatch(/^login: expected \{"status":true,"token":\.\.\.\} under "Ok", got /);
    expect(error.message).toContain('"status":"yes"');
    expect(`${error.message} ${error.bodyExcerpt}`).not.toContain('odd-token-5b1c9e');
  });

  test('close releases the pool and later calls fail with ClientClosedError', async () => {
    const { client } = await setUp(scripted([]));
    await client.listEntries('blacklist');
    await client.close();
    await expect(client.listEntries('blacklist')).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.close()).resolves.toBeUndefined();
  });

  test('close ends a call that is waiting to retry at once, leaving no timer behind', async () => {
    let waiting!: () => void;
    const retryScheduled = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    // An hour's Retry-After: without close() cutting the wait, this test would time out.
    const { client } = await setUp(withLogin('tok-1', () => ({ status: 429, headers: { 'retry-after': '3600' }, body: '' })), {
      retry: { ...FAST_RETRY, deadlineMs: 7_200_000 },
      logger: (event) => {
        if (event.type === 'retry') waiting();
      },
    });
    const call = client.listEntries('blacklist');
    await retryScheduled;
    const outcome = expect(call).rejects.toBeInstanceOf(ClientClosedError);
    await client.close();
    await outcome;
  });
});

describe('service Error replies', () => {
  test('read-only refusal is a PermissionError and is not retried', async () => {
    const { service, client } = await setUp(scripted([{ body: { Error: 'Permission denied: read-only user' } }]));
    await expect(client.addEntry('blacklist', { ip: '192.0.2.7' })).rejects.toBeInstanceOf(PermissionError);
    expect(service.commands('new_blacklist')).toHaveLength(1);
  });

  test.each([
    ['Error matching not found', { body: { Error: 'Whitelist entry for ip 192.0.2.9 not found' } }],
    ['Ok null', { body: { Ok: null } }],
    ['Error in other words', { body: { Error: 'IP Not Found' } }],
  ] as const)('get answers null for %s', async (_name, reply) => {
    const { client } = await setUp(scripted([reply]));
    await expect(client.getEntry('whitelist', '192.0.2.9')).resolves.toBeNull();
  });

  test('delete of an absent entry is a NotFoundError', async () => {
    const { client } = await setUp(scripted([{ body: { Error: 'Blacklist entry for ip 192.0.2.9 not found' } }]));
    await expect(client.deleteEntry('blacklist', '192.0.2.9')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('delete whose first attempt landed before the connection broke counts as done', async () => {
    let landed = false;
    const { service, client } = await setUp(
      withLogin('tok-1', () => {
        if (!landed) {
          landed = true;
          return 'reset';
        }
        return { body: { Error: 'Blacklist entry for ip 192.0.2.9 not found' } };
      }),
    );
    await expect(client.deleteEntry('blacklist', '192.0.2.9')).resolves.toContain('not found');
    expect(service.commands('delete_blacklist')).toHaveLength(2);
  });
});

describe('request shapes', () => {
  test('bodies, path and content type follow the contract', async () => {
    const { service, client } = await setUp(
      withLogin('tok-1', (request) => ({ body: request.body.command === 'audit_events' ? { Ok: [] } : { Ok: null } })),
    );
    await client.addEntry('blacklist', { ip: '2001:DB8::1/128', description: 'scanner' });
    await client.deleteEntry('whitelist', '10.0.0.0/8');
    await client.auditEvents(10);
    await client.getEntry('blocklist', '192.0.2.1/32');
    const [login, added, deleted, audit, get] = service.requests;
    expect(login.path).toBe('/svc_api/v2/login');
    expect(login.rawBody).toBe(JSON.stringify({ command: 'login', api_token: API_KEY }));
    expect(login.headers['content-type']).toBe('application/json');
    expect(login.method).toBe('POST');
    expect(added.path).toBe('/svc_api/v2/lists');
    expect(added.body).toEqual({
      command: 'new_blacklist',
      token: 'tok-1',
      customer_name: 'acme',
      entry: { ip: '2001:db8::1', description: 'scanner', created: FIXED_NOW / 1000 },
    });
    expect(deleted.body).toEqual({ command: 'delete_whitelist', token: 'tok-1', customer_name: 'acme', ip: '10.0.0.0/8' });
    expect(audit.path).toBe('/svc_api/v2/logs');
    expect(audit.rawBody).toBe(JSON.stringify({ command: 'audit_events', token: 'tok-1', customer_name: 'acme', limit: 10 }));
    expect(get.body).toMatchObject({ command: 'get_blocklist', ip: '192.0.2.1' });
  });

  test('a base URL with a path prefix keeps it', async () => {
    const service = await startFakeService(scripted([]));
    services.push(service);
    const client = new ManagementClient({ baseUrl: `${service.url}/tenant-gw/`, apiKey: API_KEY, tenant: 'acme' });
    clients.push(client);
    await client.listEntries('blacklist');
    expect(service.requests.map((request) => request.path)).toEqual(['/tenant-gw/svc_api/v2/login', '/tenant-gw/svc_api/v2/lists']);
  });

  test('customer update copies the listed object exactly, without uuid, with sso set', async () => {
    const listed = {
      name: 'acme', contact_email: 'sec@acme.example', description: 'd', active: true, autoblock_threshold: 10,
      autoblock_timeout: 1800, block_embargo: 0, ssl_ciphers: 'x', notify_threshold: 5, sso: null,
      allow_super_admin_users: true, allow_channel_admin_users: false, tenant_admin_default: false,
      uuid: '11111111-2222-3333-4444-555555555555', future_field: { kept: true },
    };
    const { service, client } = await setUp(
      withLogin('tok-1', (request) => (request.body.command === 'list' ? { body: { Ok: [listed] } } : { body: { Ok: 'acme updated.' } })),
    );
    const sso = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/metadata' };
    await expect(client.setTenantSso('acme', sso)).resolves.toBe('acme updated.');
    const update = service.commands('update')[0];
    expect(update.path).toBe('/svc_api/v2/customers');
    const { uuid: _uuid, ...withoutUuid } = listed;
    expect(update.body).toEqual({ command: 'update', token: 'tok-1', name: 'acme', customer: { ...withoutUuid, sso } });
  });

  test('channel update copies the listed channel without uuid', async () => {
    const listed = { name: 'main', require_totp_setup: true, uuid: 'c-1', sso: null };
    const { service, client } = await setUp(
      withLogin('tok-1', (request) => (request.body.command === 'list' ? { body: { Ok: [listed] } } : { body: { Ok: 'Channel: main updated.' } })),
    );
    await client.setChannelSso('main', null);
    expect(service.commands('update')[0].body).toEqual({
      command: 'update',
      token: 'tok-1',
      channel: { name: 'main', require_totp_setup: true, sso: null },
    });
  });

  test('SSO for an unknown tenant is a NotFoundError and sends no update', async () => {
    const { service, client } = await setUp(scripted([{ body: { Ok: [] } }]));
    await expect(client.setTenantSso('nobody', null)).rejects.toBeInstanceOf(NotFoundError);
    expect(service.commands('update')).toHaveLength(0);
  });

  test('SSO for an unknown channel names the channels there are and where to look', async () => {
    const { service, client } = await setUp(scripted([{ body: { Ok: [{ name: 'main', require_totp_setup: false, uuid: 'c-1', sso: null }] } }]));
    const error = await client.setChannelSso('mian', null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/no channel named "mian" among the 1 listed \("main"\); check the name against listChannels\(\)/);
    expect(service.commands('update')).toHaveLength(0);
  });

  test('bulk adds chunk at 1,000, report progress and collapse duplicate addresses', async () => {
    const { service, client } = await setUp(withLogin('tok-1', (request) => ({ body: { Ok: `${(request.body.entries as unknown[]).length} entries added` } })));
    const entries = Array.from({ length: 2_500 }, (_, index) => ({ ip: `10.${index >> 8}.${index & 255}.1`, description: `n${index}` }));
    entries.push({ ip: '10.0.0.1/32', description: 'duplicate of the first' });
    const progress: number[] = [];
    const result = await client.bulkAddEntries('blocklist', entries, { onProgress: (step) => progress.push(step.done) });
    expect(result).toMatchObject({ count: 2_500, chunks: 3 });
    expect(service.commands('bulk_new_blocklist').map((request) => (request.body.entries as unknown[]).length)).toEqual([1000, 1000, 500]);
    expect(progress).toEqual([1000, 2000, 2500]);
    const sent = service.commands('bulk_new_blocklist').flatMap((request) => request.body.entries as Array<{ ip: string; description: string }>);
    expect(sent.find((entry) => entry.ip === '10.0.0.1')?.description).toBe('duplicate of the first');
  });

  test('an empty bulk call sends nothing', async () => {
    const { service, client } = await setUp(scripted([]));
    await expect(client.bulkDeleteEntries('whitelist', [])).resolves.toMatchObject({ count: 0, chunks: 0 });
    expect(service.requests).toHaveLength(0);
  });
});

describe('transport', () => {
  test('sequential calls reuse keep-alive connections', async () => {
    const { service, client } = await setUp(scripted([]));
    for (let round = 0; round < 10; round += 1) {
      for (const list of ['blacklist', 'blocklist', 'whitelist'] as const) await client.listEntries(list);
    }
    expect(service.requests).toHaveLength(31);
    // The pool may open a second connection while the first is finishing a reply; never one per call.
    expect(service.connections()).toBeLessThanOrEqual(2);
  });

  test('maxConnections: 1 keeps concurrent calls on one connection; connectTimeoutMs is accepted with it', async () => {
    const { service, client } = await setUp(scripted([]), { maxConnections: 1, connectTimeoutMs: 2_000 });
    await client.login();
    await Promise.all([1, 2, 3, 4, 5, 6].map((limit) => client.auditEvents(limit)));
    expect(service.requests).toHaveLength(7);
    expect(service.connections()).toBe(1);
  });

  test('an injected undici dispatcher carries the calls and is left open by close()', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const origin = agent.get('https://api.example.test');
    origin
      .intercept({ path: '/svc_api/v2/login', method: 'POST' })
      .reply(200, { Ok: { status: true, token: 'mock-token' } }, { headers: { 'x-request-id': 'm-1' } });
    origin
      .intercept({ path: '/svc_api/v2/lists', method: 'POST', body: (body) => JSON.parse(body).command === 'list_whitelist' })
      .reply(200, { Ok: [{ ip: '192.0.2.1', description: 'mocked', created: 1 }] });
    const client = new ManagementClient({ baseUrl: 'https://api.example.test', apiKey: API_KEY, tenant: 'acme', dispatcher: agent });
    await expect(client.listEntries('whitelist')).resolves.toEqual([{ ip: '192.0.2.1', description: 'mocked', created: 1 }]);
    await client.close();
    agent.assertNoPendingInterceptors();
    await expect(agent.close()).resolves.toBeUndefined();
  });
});

describe('shared list reads', () => {
  test('concurrent reads of one list share one request; a write starts a fresh read', async () => {
    const { service, client } = await setUp(withLogin('tok-1', (request) => ({ body: request.body.command === 'list_blacklist' ? { Ok: [] } : { ok: 'added' } })));
    const reads = await Promise.all([client.listEntries('blacklist'), client.listEntries('blacklist'), client.listEntries('blacklist')]);
    expect(reads).toHaveLength(3);
    expect(service.commands('list_blacklist')).toHaveLength(1);
    const during = client.listEntries('blacklist');
    await client.addEntry('blacklist', { ip: '192.0.2.1' });
    await Promise.all([during, client.listEntries('blacklist')]);
    expect(service.commands('list_blacklist')).toHaveLength(3);
  });

  test('a failed write still stops later readers from joining a read that started before it ended', async () => {
    let releaseFirstRead!: () => void;
    const firstReadHeld = new Promise<FakeReply>((resolve) => {
      releaseFirstRead = () => resolve({ body: { Ok: [] } });
    });
    let reads = 0;
    const { service, client } = await setUp(
      withLogin('tok-1', (request) => {
        if (request.body.command !== 'list_blacklist') return { body: { Error: 'Something broke' } };
        reads += 1;
        return reads === 1 ? firstReadHeld : { body: { Ok: [] } };
      }),
    );
    await client.login();
    const write = client.addEntry('blacklist', { ip: '192.0.2.1' });
    const during = client.listEntries('blacklist');
    await expect(write).rejects.toBeInstanceOf(ServiceError);
    const after = client.listEntries('blacklist');
    releaseFirstRead();
    await Promise.all([during, after]);
    expect(service.commands('list_blacklist')).toHaveLength(2);
  });
});

describe('client-side validation happens before anything is sent', () => {
  const invalidCalls: Array<[string, (client: ManagementClient) => Promise<unknown>, string, string]> = [
    ['host bits set', (client) => client.addEntry('blacklist', { ip: '10.0.0.1/8' }), 'entry.ip', 'host bits'],
    ['not an address', (client) => client.getEntry('whitelist', 'example.com'), 'ip', 'example.com'],
    ['bad address deep in a bulk call', (client) => client.bulkAddEntries('blacklist', [{ ip: '192.0.2.1' }, { ip: '300.1.1.1' }]), 'entries[1].ip', '300.1.1.1'],
    ['bad address in bulk delete', (client) => client.bulkDeleteEntries('blacklist', ['::1', 'nope']), 'ips[1]', 'nope'],
    ['unknown list', (client) => client.listEntries('greylist' as 'blacklist'), 'list', 'greylist'],
    ['limit zero', (client) => client.auditEvents(0), 'limit', '0'],
    ['limit fraction', (client) => client.auditEvents(2.5), 'limit', '2.5'],
    ['created not whole seconds', (client) => client.addEntry('blacklist', { ip: '192.0.2.1', created: 1.5 }), 'entry.created', '1.5'],
    ['SSO over http', (client) => client.setTenantSso('acme', { enabled: true, required: false, saml_metadata_url: 'http://idp.example/m' }), 'sso.saml_metadata_url', 'https'],
    ['SSO required without enabled', (client) => client.setChannelSso('main', { enabled: false, required: true, saml_metadata_url: 'https://idp.example/m' }), 'sso.required', 'enabled'],
    ['SSO enabled with no URL', (client) => client.setTenantSso('acme', { enabled: true, required: false, saml_metadata_url: '' }), 'sso.saml_metadata_url', 'https'],
    ['bulk entries that are not a list', (client) => client.bulkAddEntries('blacklist', 'not a list' as unknown as []), 'entries', 'expected an array of entries'],
    ['bulk addresses that are not a list', (client) => client.bulkDeleteEntries('blocklist', { ip: '192.0.2.1' } as unknown as []), 'ips', 'expected an array of addresses'],
    ['a customer that is not an object', (client) => client.updateCustomer('acme', null as unknown as { name: string }), 'customer', 'expected the object as listed by the service'],
    ['a channel that is a list', (client) => client.updateChannel([] as unknown as { name: string }), 'channel', 'expected the object as listed by the service'],
  ];
  test.each(invalidCalls)('%s', async (_name, call, field, mentioned) => {
    const { service, client } = await setUp(scripted([]));
    const error = await Promise.resolve().then(() => call(client)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'validation_failed', field });
    expect((error as Error).message).toContain(mentioned);
    expect(service.requests).toHaveLength(0);
  });

  test('an invalid address keeps the InvalidAddressError as cause', async () => {
    const { client } = await setUp(scripted([]));
    const error = (await client.addEntry('blacklist', { ip: '1.2.3.04' }).catch((caught: unknown) => caught)) as ValidationError;
    expect(error.value).toBe('1.2.3.04');
    expect((error.cause as { code?: string }).code).toBe('invalid_address');
  });

  test.each([
    ['empty API key', { apiKey: '' }, 'apiKey'],
    ['empty tenant', { tenant: ' ' }, 'tenant'],
    ['not a URL', { baseUrl: 'api.example.com' }, 'baseUrl'],
    ['ftp URL', { baseUrl: 'ftp://api.example.com' }, 'baseUrl'],
    ['chunk size above the service limit', { bulkChunkSize: 1001 }, 'bulkChunkSize'],
    ['a bulk body under 1 KiB', { bulkBodyBytes: 100 }, 'bulkBodyBytes'],
    ['zero attempts', { retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
  ] as const)('constructor refuses %s', (_name, override, field) => {
    expect(() => new ManagementClient({ baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, tenant: 'acme', ...override })).toThrow(
      expect.objectContaining({ code: 'validation_failed', field }),
    );
  });
});

test('logger events never carry the API key or token', async () => {
  const { client, events } = await setUp(scripted(['reset', { status: 503, body: 'x' }]));
  await client.listEntries('blacklist');
  const text = JSON.stringify(events);
  expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['login', 'request', 'retry', 'reply', 'network-error']));
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain('tok-1');
});

test('RateLimitError is exported for callers that branch on it', () => {
  expect(new RateLimitError('x', 1000).code).toBe('rate_limited');
});
