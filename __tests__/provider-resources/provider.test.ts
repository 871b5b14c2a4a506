/**
 * The provider around the resources: settings from the block then SVC_* variables, missing or
 * not-yet-known settings named when first needed, one login per tenant, API errors as
 * diagnostics that say what to do (never carrying the key), and close().
 */
import { InvalidAddressError } from '../../src/address';
import { ManagementClient } from '../../src/api/client';
import { startEmulator } from '../../src/emulator/server';
import { DiagnosticsError, UNKNOWN, type ObjectValue } from '../../src/provider/core';
import { createSvcProvider, describeSvcError } from '../../src/provider/provider';
import { API_KEY, OTHER_TENANT, SEED, TENANT, create, plan, resourceNamed, startWorld, type World, failOnWarning } from './harness';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

const entry = resourceNamed('svc_blacklist_entry');

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('settings', () => {
  test('from SVC_* variables when the provider block leaves them out', async () => {
    const context = await world.configure(
      { base_url: null, api_key: null, tenant: null, sso_base: null },
      { SVC_BASE_URL: world.emulator.url, SVC_API_KEY: API_KEY, SVC_TENANT: OTHER_TENANT, SVC_SSO_BASE: 'https://sso.example.org' },
    );
    const state = await create(entry, context, { ip: '192.0.2.1' });
    expect(state.tenant).toBe(OTHER_TENANT);
    expect(context.ssoBase()).toBe('https://sso.example.org');
  });

  test('the provider block wins over the environment', async () => {
    const context = await world.configure({}, { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TENANT: OTHER_TENANT });
    expect((await create(entry, context, { ip: '192.0.2.1' })).tenant).toBe(TENANT);
  });

  test.each([
    ['base_url', 'SVC_BASE_URL', { base_url: null }],
    ['api_key', 'SVC_API_KEY', { api_key: null }],
  ])('a missing %s is named with %s when the API is first needed, not before', async (attribute, variable, config) => {
    // Configure needs no API call; the first is the plan's check of the entry's tenant.
    const context = await world.configure(config);
    const failure = await failureOf(plan(entry, context, { ip: '192.0.2.1' }));
    expect(failure).toBeInstanceOf(DiagnosticsError);
    const [diagnostic] = (failure as DiagnosticsError).diagnostics;
    expect(diagnostic.summary).toBe(`Missing provider setting ${attribute}`);
    expect(diagnostic.detail).toContain(variable);
  });

  test('a missing tenant is named with SVC_TENANT when a resource needs it', async () => {
    const context = await world.configure({ tenant: null });
    const failure = await failureOf(plan(entry, context, { ip: '192.0.2.1' }));
    expect((failure as DiagnosticsError).diagnostics[0]).toMatchObject({ summary: 'Missing provider setting tenant', detail: expect.stringContaining('SVC_TENANT') });
    // A resource naming its own tenant does not need the provider's.
    expect((await plan(entry, context, { ip: '192.0.2.1', tenant: OTHER_TENANT })).planned.id).toBe(`${OTHER_TENANT}/192.0.2.1`);
  });

  test.each([
    ['a misspelt scheme', 'htps://admin:S3cretKey77@127.0.0.1:44089'],
    ['ftp', 'ftp://admin:S3cretKey77@127.0.0.1:44089'],
    ['an otherwise good URL', 'http://admin:S3cretKey77@127.0.0.1:44089'],
  ])('SVC_BASE_URL with credentials (%s) is refused without printing them', async (_name, url) => {
    const failure = await failureOf(world.configure({ base_url: null }, { SVC_BASE_URL: url }));
    const [diagnostic] = (failure as DiagnosticsError).diagnostics;
    expect(diagnostic.summary).toBe('Invalid SVC_BASE_URL');
    expect(diagnostic.detail).toContain('[REDACTED]@127.0.0.1:44089');
    expect(JSON.stringify(diagnostic)).not.toMatch(/S3cretKey77|admin:/);
  });

  test('an invalid SVC_BASE_URL is named at configure', async () => {
    const failure = await failureOf(world.configure({ base_url: null }, { SVC_BASE_URL: 'localhost:8080' }));
    expect((failure as DiagnosticsError).diagnostics[0]).toMatchObject({ summary: 'Invalid SVC_BASE_URL', detail: expect.stringContaining('base_url') });
  });

  test('provider settings not known yet: plan leaves derived values unknown, read keeps the state, apply names the setting', async () => {
    const context = await world.configure({ base_url: UNKNOWN, tenant: UNKNOWN, sso_base: UNKNOWN });
    const { planned, config } = await plan(entry, context, { ip: '192.0.2.1' });
    expect(planned).toMatchObject({ tenant: UNKNOWN, id: UNKNOWN });
    const state: ObjectValue = { ip: '192.0.2.1', description: '', tenant: TENANT, id: `${TENANT}/192.0.2.1`, created: 1 };
    expect(await entry.read({ context, state })).toBe(state);
    const channel = await plan(resourceNamed('svc_channel_sso'), context, { name: 'main', enabled: false });
    expect(channel.planned).toMatchObject({ sp_entity_id: UNKNOWN, sp_acs_url: UNKNOWN });
    const failure = await failureOf(entry.create({ context, config: { ...config, tenant: TENANT }, planned, warn: failOnWarning }));
    expect((failure as DiagnosticsError).diagnostics[0]).toMatchObject({ summary: 'Provider setting base_url is not known yet' });
  });

  test('max_retries reaches the client', async () => {
    const context = await world.configure({ max_retries: 0 });
    world.emulator.setFaults({ rate: 1, kinds: ['503'] });
    world.emulator.resetStats();
    await expect(context.lists.read(TENANT, 'blacklist')).rejects.toMatchObject({ code: 'unexpected_reply' });
    // One attempt for the login, no retry.
    expect(world.emulator.stats().requests).toBe(1);
  });

  test('request_timeout_seconds reaches the client', async () => {
    const context = await world.configure({ max_retries: 0, request_timeout_seconds: 0.2 });
    world.emulator.setFaults({ rate: 0, latencyMs: 2000 });
    const failure = await failureOf(context.lists.read(TENANT, 'blacklist'));
    expect(failure).toMatchObject({ code: 'transport_failed' });
  });
});

describe('clients', () => {
  test('one login per tenant per provider process, however many concurrent reads', async () => {
    const context = await world.configure();
    world.emulator.resetStats();
    const states = Array.from({ length: 20 }, (_, index) => ({
      ip: `192.0.2.${index}`,
      description: '',
      tenant: index % 2 === 0 ? TENANT : OTHER_TENANT,
      id: 'x',
      created: 0,
    }));
    await Promise.all(states.map((state) => entry.read({ context, state })));
    expect(world.emulator.stats().logins).toBe(2);
    expect(world.emulator.stats().byCommand.list_blacklist).toBe(2);
  });

  test('close() closes every client the provider made', async () => {
    const provider = createSvcProvider({ env: {} });
    const context = await provider.configure({
      config: { base_url: world.emulator.url, api_key: API_KEY, tenant: TENANT, sso_base: null, max_retries: null, request_timeout_seconds: null },
      terraformVersion: '1.11.4',
    });
    const clients = [context.client(TENANT), context.client(OTHER_TENANT)];
    await Promise.all(clients.map((client) => client.listEntries('whitelist')));
    await provider.close?.(context);
    for (const client of clients) await expect(client.listEntries('whitelist')).rejects.toMatchObject({ code: 'client_closed' });
  });

  test('close() also closes the client made for account-wide calls when no tenant is set', async () => {
    const provider = createSvcProvider({ env: {} });
    const context = await provider.configure({
      config: { base_url: world.emulator.url, api_key: API_KEY, tenant: null, sso_base: null, max_retries: null, request_timeout_seconds: null },
      terraformVersion: '1.11.4',
    });
    const client = context.accountClient();
    await expect(client.listChannels()).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ name: 'main' })]));
    await provider.close?.(context);
    await expect(client.listChannels()).rejects.toMatchObject({ code: 'client_closed' });
  });
});

describe('errors as diagnostics', () => {
  // `plan: false`: the create hook alone, as apply runs it when the plan could not check the
  // tenant (not known until apply); with a plan, an unknown tenant is refused there instead.
  test.each([
    ['a wrong API key', { api_key: 'wrong-key-0b5e' }, true, 'Login to the svc management API failed', /bad API key or inactive user.*api_key in the provider block, else from SVC_API_KEY/],
    ['a read-only user', { api_key: 'provider-resources-reader-key' }, true, 'The svc management API refused a change', /read-only user.*allowed to write/],
    ['an unknown tenant', { tenant: 'initech' }, false, 'The svc management API refused the request', /Unknown customer: initech/],
  ])('%s', async (_name, config, withPlan, summary, detail) => {
    const context = await world.configure(config);
    const values = { ip: '192.0.2.1', description: null, tenant: null, id: null, created: null };
    const failure = await failureOf(withPlan ? create(entry, context, values) : entry.create({ context, config: values, planned: { ...values, tenant: 'initech' }, warn: failOnWarning }));
    const diagnostic = describeSvcError(failure, 'svc_blacklist_entry create');
    expect(diagnostic).toMatchObject({ severity: 'error', summary });
    expect(diagnostic!.detail).toMatch(detail);
    expect(diagnostic!.detail).toMatch(/^svc_blacklist_entry create: /);
    expect(JSON.stringify(diagnostic)).not.toContain('wrong-key-0b5e');
    expect(JSON.stringify(diagnostic)).not.toContain('provider-resources-reader-key');
  });

  test('an unreachable service names base_url', async () => {
    const gone = await startEmulator({ seed: SEED });
    const url = gone.url;
    await gone.close();
    const context = await world.configure({ base_url: url, max_retries: 0 });
    const failure = await failureOf(context.lists.read(TENANT, 'blacklist'));
    expect(describeSvcError(failure, 'svc_blacklist read')).toMatchObject({
      summary: 'Could not reach the svc management API',
      detail: expect.stringContaining('Check base_url (or SVC_BASE_URL)'),
    });
  });

  test('a service that answers 5xx until the retries run out says so, not "check base_url"', async () => {
    const context = await world.configure({ max_retries: 1 });
    world.emulator.setFaults({ rate: 1, kinds: ['503'], retryAfterSeconds: 0 });
    const failure = await failureOf(context.lists.read(TENANT, 'blacklist'));
    const diagnostic = describeSvcError(failure, 'read svc_blacklist_entry');
    expect(diagnostic).toMatchObject({ summary: 'The svc management API is failing' });
    expect(diagnostic!.detail).toMatch(/HTTP 503.*try again later.*max_retries/s);
    expect(diagnostic!.detail).not.toContain('Check that base_url');
  });

  test('a call cut short by StopProvider says terraform stopped it, without the client\'s advice to make a new ManagementClient', async () => {
    const client = new ManagementClient({ baseUrl: world.emulator.url, apiKey: API_KEY, tenant: TENANT });
    await client.close();
    const failure = await failureOf(client.listEntries('whitelist'));
    const diagnostic = describeSvcError(failure, 'create svc_whitelist_entry');
    expect(diagnostic).toMatchObject({ summary: 'The svc provider was stopping' });
    expect(diagnostic!.detail).toMatch(/^create svc_whitelist_entry: terraform stopped the provider \(Ctrl-C\) before or during list_whitelist;.*next plan.*run the command again/s);
    expect(diagnostic!.detail).not.toContain('ManagementClient');
  });

  test('an invalid address and anything else', () => {
    expect(describeSvcError(new InvalidAddressError('10.0.0.1/40', 'prefix length 40 is above 32'), 'svc_blacklist_entry read')).toMatchObject({
      summary: 'Invalid IP address or CIDR',
      detail: expect.stringContaining('"10.0.0.1/40"'),
    });
    expect(describeSvcError(new TypeError('a bug'), 'x')).toBeUndefined();
  });

  test('the key stays out of the provider log', async () => {
    const context = await world.configure();
    await create(entry, context, { ip: '192.0.2.1' });
    expect(world.logs.some((line) => line.level === 'debug' && line.message.includes('login'))).toBe(true);
    expect(JSON.stringify(world.logs)).not.toContain(API_KEY);
  });
});

test('a client outside the provider is not affected by its close', async () => {
  const client = new ManagementClient({ baseUrl: world.emulator.url, apiKey: API_KEY, tenant: TENANT });
  const provider = createSvcProvider({ env: {} });
  await provider.close?.(undefined);
  await expect(client.listEntries('blacklist')).resolves.toEqual([]);
  await client.close();
});

describe('one login failure per provider process', () => {
  const plans = (context: Awaited<ReturnType<World['configure']>>) =>
    Promise.allSettled((['blacklist', 'blocklist', 'whitelist'] as const).map((list) => context.lists.read(TENANT, list)));

  test('a wrong key: one login is sent; the first failure is described in full, every other briefly', async () => {
    const provider = createSvcProvider({ env: {} });
    const context = await provider.configure({
      config: { base_url: world.emulator.url, api_key: 'not-the-key', tenant: TENANT, sso_base: null, max_retries: null, request_timeout_seconds: null },
      terraformVersion: '1.11.4',
    });
    world.emulator.resetStats();
    const first = await plans(context);
    const later = await Promise.allSettled([context.lists.read(OTHER_TENANT, 'blacklist'), context.client(TENANT).listChannels()]);
    const summaries = [...first, ...later].map((outcome) => (outcome.status === 'rejected' ? provider.describeError!(outcome.reason, 'plan')?.summary : 'fulfilled'));
    expect(summaries.filter((summary) => summary === 'Login to the svc management API failed')).toHaveLength(1);
    expect(summaries.filter((summary) => summary === 'Skipped: the svc provider could not log in')).toHaveLength(4);
    expect(world.emulator.stats().byCommand).toEqual({ login: 1 });
    await provider.close?.(context);
  });

  test('unreachable: the retries are spent once, not once per resource', async () => {
    const provider = createSvcProvider({ env: {}, clientOptions: { retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 200, deadlineMs: 5_000 } } });
    const context = await provider.configure({
      config: { base_url: 'http://127.0.0.1:9', api_key: API_KEY, tenant: TENANT, sso_base: null, max_retries: null, request_timeout_seconds: null },
      terraformVersion: '1.11.4',
    });
    const started = Date.now();
    await plans(context);
    const afterFirst = Date.now() - started;
    const again = await Promise.allSettled([context.lists.read(OTHER_TENANT, 'whitelist')]);
    expect(Date.now() - started - afterFirst).toBeLessThan(100);
    expect(again[0]).toMatchObject({ status: 'rejected', reason: { name: 'EarlierLoginFailureError' } });
    await provider.close?.(context);
  });
});
