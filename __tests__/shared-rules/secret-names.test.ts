/**
 * The one secret-name rule (src/secret-names.ts) replaced three copies with different patterns.
 * Each old pattern is kept here as it was, so the test shows that every name any of them caught
 * is still caught, and names what the union adds.
 */
import { isSecretName, normalisedKeyName } from '../../src/secret-names';

/** app/config.ts before: controlPlane keys. */
const appConfigBefore = (key: string): boolean => {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return normalized.includes('apikey') || /secret|password|token|credential/.test(normalized);
};
/** app/state-backend.ts before: stateBackend keys. */
const stateBackendBefore = (key: string): boolean =>
  /accesskey|secret|token|password|credential|customerkey|apikey/.test(key.toLowerCase().replace(/[^a-z0-9]/g, ''));
/** modules/security-policy/config.ts before: securityPolicy keys at any depth. */
const securityPolicyBefore = (key: string): boolean => /api[-_]?key|secret|passw(or)?d|token|credential/i.test(key);

const OLD_COPIES = { appConfigBefore, stateBackendBefore, securityPolicyBefore };

/** Names that hold a secret, in the spellings the three copies' comments and tests named, and more. */
const SECRET_NAMES = [
  'apiKey', 'ApiKey', 'APIKEY', 'api-key', 'api_key', 'API-KEY', 'Api.Key', 'api key', 'ApiKeySecret',
  'secret', 'clientSecret', 'SECRET_KEY', 'secretKey', 'secret_key',
  'password', 'DbPassword', 'db-password', 'passwd', 'PASSWD', 'pass_word',
  'token', 'sessionToken', 'ACCESS_TOKEN', 'tokenFile',
  'credential', 'credentials', 'sharedCredentialsFile',
  'accessKey', 'access_key', 'AccessKeyId', 'aws-access-key',
  'sseCustomerKey', 'sse_customer_key', 'customerKey',
];

/** Names the readers take, which must stay allowed. */
const ORDINARY_NAMES = [
  'baseUrl', 'tenant', 'ssoBase', 'providerSource', 'blacklist', 'blocklist', 'whitelist', 'tenantSso', 'channelSso',
  'allowControlPlaneEgress', 'acknowledge', 'ip', 'description', 'name', 'enabled', 'required', 'samlMetadataUrl',
  'bucket', 'region', 'keyPrefix', 'dynamodbTable', 'useLockfile', 'encrypt', 'directory',
  'TenantId', 'VPC', 'Subnets', 'KeyPairName', 'key', 'apiUrl', 'customer', 'access',
];

describe('isSecretName', () => {
  it.each(SECRET_NAMES)('refuses %j', (key) => {
    expect(isSecretName(key)).toBe(true);
  });

  it.each(ORDINARY_NAMES)('allows %j', (key) => {
    expect(isSecretName(key)).toBe(false);
  });

  it.each(Object.entries(OLD_COPIES))('catches every name that %s caught', (_copy, before) => {
    const caughtBefore = [...SECRET_NAMES, ...ORDINARY_NAMES].filter(before);
    expect(caughtBefore.length).toBeGreaterThan(0);
    expect(caughtBefore.filter((key) => !isSecretName(key))).toEqual([]);
  });

  it.each([...SECRET_NAMES, ...ORDINARY_NAMES])('decides %j as the union of the old copies did', (key) => {
    expect(isSecretName(key)).toBe(Object.values(OLD_COPIES).some((before) => before(key)));
  });

  it('the old copies disagreed, so the union refuses more in some files than before', () => {
    const disagreements = SECRET_NAMES.filter((key) => !Object.values(OLD_COPIES).every((before) => before(key)));
    expect(disagreements).toEqual(expect.arrayContaining(['passwd', 'accessKey', 'sseCustomerKey', 'Api.Key']));
  });

  it('compares keys case-blind with separators dropped', () => {
    expect(normalisedKeyName('Api_Key-Secret.2')).toBe('apikeysecret2');
  });
});
