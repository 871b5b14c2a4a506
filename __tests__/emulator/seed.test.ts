/** Seed (config file) validation and the quick seed. */
import { EmulatorConfigError } from '../../src/emulator/errors';
import { mergeSeeds, quickSeed, validateSeed } from '../../src/emulator/seed';
import { startEmulator } from '../../src/emulator/server';

const invalidSeeds: Array<[name: string, seed: unknown, pattern: RegExp]> = [
  ['not an object', [], /the seed must be an object/],
  ['unknown top-level field', { tenant: [] }, /unknown top-level field "tenant"/],
  ['tenants not an array', { tenants: {} }, /tenants must be an array/],
  ['tenant without a name', { tenants: [{}] }, /tenants\[0\]\.name is required/],
  ['an inherited name at the top', { toString: [] }, /unknown top-level field "toString"/],
  ['an inherited name as a field', { channels: [{ name: 'c', constructor: 'x' }] }, /channels\[0\] has unknown field "constructor"/],
  ['tenant with a typo', { tenants: [{ name: 'a', contact_mail: 'x' }] }, /tenants\[0\] has unknown field "contact_mail"/],
  ['tenant number as string', { tenants: [{ name: 'a', autoblock_threshold: '10' }] }, /autoblock_threshold must be a number, got "10"/],
  ['duplicate tenant', { tenants: [{ name: 'a' }, { name: 'a' }] }, /tenants\[1\]\.name repeats "a"/],
  ['sso enabled over http', { channels: [{ name: 'c', sso: { enabled: true, required: false, saml_metadata_url: 'http://x' } }] }, /channels\[0\]\.sso\.saml_metadata_url "http:\/\/x" is not an https:\/\/ URL/],
  ['user without a key', { users: [{ email: 'a@b.example' }] }, /users\[0\]\.apiKey is required/],
  ['duplicate API key', { users: [{ email: 'a@x', apiKey: 'same' }, { email: 'b@x', apiKey: 'same' }] }, /users\[1\]\.apiKey repeats an API key/],
  ['duplicate email', { users: [{ email: 'a@x', apiKey: 'k1', readOnly: true }, { email: 'a@x', apiKey: 'k2' }] }, /users\[1\]\.email repeats "a@x"/],
  ['readOnly not boolean', { users: [{ email: 'a@x', apiKey: 'k', readOnly: 'yes' }] }, /users\[0\]\.readOnly must be a boolean/],
];
test.each(invalidSeeds)('a seed with %s is refused, naming the field', (_name, seed, pattern) => {
  expect(() => validateSeed(seed, 'seed.json')).toThrow(EmulatorConfigError);
  expect(() => validateSeed(seed, 'seed.json')).toThrow(pattern);
});

test('an API key never appears in a seed error', () => {
  const attempt = () => validateSeed({ users: [{ email: 'a@x', apiKey: 'super-secret-key' }, { email: 'b@x', apiKey: 'super-secret-key' }] }, 's');
  expect(attempt).toThrow(EmulatorConfigError);
  try {
    attempt();
  } catch (error) {
    expect(String((error as Error).message)).not.toContain('super-secret-key');
  }
});

test('the quick seed is one tenant, channel main, one active writable user', () => {
  expect(quickSeed('acme', 'k1')).toEqual({
    tenants: [{ name: 'acme' }],
    channels: [{ name: 'main' }],
    users: [{ email: 'admin@acme.example', apiKey: 'k1', active: true, readOnly: false }],
  });
});

test('merging keeps the first of each name or key', () => {
  const merged = mergeSeeds({ tenants: [{ name: 'acme', description: 'first' }] }, { tenants: [{ name: 'acme', description: 'second' }, { name: 'b' }] });
  expect(merged.tenants).toEqual([{ name: 'acme', description: 'first' }, { name: 'b' }]);
});

test('seed uuids and customer fields are used; missing fields get defaults', async () => {
  const emulator = await startEmulator({
    seed: {
      tenants: [{ name: 'acme', uuid: '11111111-1111-4111-8111-111111111111', notify_threshold: 9 }],
      users: [{ email: 'a@acme.example', apiKey: 'k' }],
    },
  });
  try {
    const post = (area: string, body: unknown) =>
      fetch(`${emulator.url}/svc_api/v2/${area}`, { method: 'POST', body: JSON.stringify(body) }).then((reply) => reply.json() as Promise<{ Ok: any }>);
    const { token } = (await post('login', { command: 'login', api_token: 'k' })).Ok;
    const [customer] = (await post('customers', { command: 'list', token })).Ok;
    expect(customer).toEqual({
      name: 'acme', contact_email: '', description: '', active: true, autoblock_threshold: 10, autoblock_timeout: 1800,
      block_embargo: 0, ssl_ciphers: '', notify_threshold: 9, sso: null, allow_super_admin_users: true,
      allow_channel_admin_users: true, tenant_admin_default: false, uuid: '11111111-1111-4111-8111-111111111111',
    });
  } finally {
    await emulator.close();
  }
});

const badOptions: Array<[name: string, options: Parameters<typeof startEmulator>[0], pattern: RegExp]> = [
  ['port out of range', { port: 70000 }, /port must be a whole number from 0 to 65535/],
  ['zero token TTL', { tokenTtlSeconds: 0 }, /tokenTtlSeconds must be a whole number above 0/],
  ['fault rate above 1', { faults: { rate: 3 } }, /rate must be a number from 0 to 1/],
];
test.each(badOptions)('startEmulator refuses %s', async (_name, options, pattern) => {
  await expect(startEmulator(options)).rejects.toThrow(pattern);
});
