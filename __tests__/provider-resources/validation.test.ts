/**
 * Validate-time errors of every resource, data source and the provider: the attribute path,
 * the value and how to fix it; values not known yet are skipped.
 */
import { UNKNOWN, type AttributePath, type Diagnostic, type Schema, type Value } from '../../src/provider/core';
import { createSvcProvider } from '../../src/provider/provider';
import { dataSourceNamed, fullObject, resourceNamed } from './harness';

interface Case {
  readonly name: string;
  readonly values: Record<string, Value>;
  /** Expected diagnostics: attribute path and a pattern of the detail; [] for a clean config. */
  readonly expected: ReadonlyArray<{ path: AttributePath | undefined; detail: RegExp }>;
}

function validator(kind: 'resource' | 'data' | 'provider', typeName: string): { schema: Schema; validate: (config: Record<string, Value>) => readonly Diagnostic[] } {
  const definition = kind === 'resource' ? resourceNamed(typeName) : kind === 'data' ? dataSourceNamed(typeName) : createSvcProvider({ env: {} });
  return { schema: definition.schema, validate: (config) => definition.validate?.({ config }) ?? [] };
}

const entryCases: Case[] = [
  { name: 'a valid address', values: { ip: '192.0.2.1' }, expected: [] },
  { name: 'a valid IPv6 range', values: { ip: '2001:db8::/32', description: '' }, expected: [] },
  { name: 'an unknown ip is skipped', values: { ip: UNKNOWN, tenant: UNKNOWN }, expected: [] },
  { name: 'bad syntax', values: { ip: '10.0.0' }, expected: [{ path: ['ip'], detail: /ip = "10\.0\.0": not a dotted-quad IPv4 address/ }] },
  { name: 'host bits name the network', values: { ip: '10.1.2.3/8' }, expected: [{ path: ['ip'], detail: /network of this range is 10\.0\.0\.0\/8/ }] },
  { name: 'an empty ip', values: { ip: '' }, expected: [{ path: ['ip'], detail: /ip = "": the value is empty/ }] },
  { name: 'an empty tenant', values: { ip: '192.0.2.1', tenant: '' }, expected: [{ path: ['tenant'], detail: /tenant = ""/ }] },
];

const listCases: Case[] = [
  { name: 'a valid list', values: { entries: { '192.0.2.1': null, '192.0.2.0/24': 'x', '2001:db8::/32': '' } }, expected: [] },
  { name: 'an empty map', values: { entries: {} }, expected: [] },
  { name: 'unknown entries are skipped', values: { entries: UNKNOWN, mode: UNKNOWN }, expected: [] },
  { name: 'a description not known yet', values: { entries: { '192.0.2.1': UNKNOWN } }, expected: [] },
  {
    name: 'a bad address as a key',
    values: { entries: { '300.1.1.1': 'x' } },
    expected: [{ path: ['entries', { key: '300.1.1.1' }], detail: /entries key "300\.1\.1\.1": octet 300 is above 255\. Give an IPv4 or IPv6 address/ }],
  },
  {
    name: 'host bits in a key',
    values: { entries: { '10.0.0.1/24': 'office' } },
    expected: [{ path: ['entries', { key: '10.0.0.1/24' }], detail: /entries key "10\.0\.0\.1\/24": .*network of this range is 10\.0\.0\.0\/24/ }],
  },
  {
    name: 'host bits in an IPv6 key',
    values: { entries: { '2001:db8::1/32': null } },
    expected: [{ path: ['entries', { key: '2001:db8::1/32' }], detail: /network of this range is 2001:db8::\/32/ }],
  },
  {
    name: 'two bad keys are two errors',
    values: { entries: { '10.0.0': null, '192.0.2.1': null, ' 10.0.0.2': null } },
    expected: [
      { path: ['entries', { key: '10.0.0' }], detail: /entries key "10\.0\.0": not a dotted-quad IPv4 address/ },
      { path: ['entries', { key: ' 10.0.0.2' }], detail: /entries key " 10\.0\.0\.2": leading or trailing white space/ },
    ],
  },
  {
    name: 'two spellings of one address name both',
    values: { entries: { '10.0.0.1': 'a', '10.0.0.1/32': 'b' } },
    expected: [{ path: ['entries', { key: '10.0.0.1/32' }], detail: /keys "10\.0\.0\.1" and "10\.0\.0\.1\/32", which are the same address \(10\.0\.0\.1\)/ }],
  },
  {
    name: 'two spellings of one IPv6 range name both',
    values: { entries: { '2001:DB8::/32': 'a', '2001:db8:0::/32': 'b' } },
    expected: [{ path: ['entries', { key: '2001:db8:0::/32' }], detail: /"2001:DB8::\/32" and "2001:db8:0::\/32", which are the same address \(2001:db8::\/32\)/ }],
  },
  { name: 'an empty key', values: { entries: { '': 'x' } }, expected: [{ path: ['entries', { key: '' }], detail: /entries key "": the value is empty\. Give an IPv4/ }] },
  { name: 'an unknown mode', values: { entries: {}, mode: 'exclusive' }, expected: [{ path: ['mode'], detail: /mode = "exclusive": use "authoritative".*or "additive"/ }] },
  { name: 'additive mode', values: { entries: {}, mode: 'additive' }, expected: [] },
  { name: 'an empty tenant', values: { entries: {}, tenant: '' }, expected: [{ path: ['tenant'], detail: /tenant = ""/ }] },
];

const ssoCases: Case[] = [
  { name: 'enabled with an https URL', values: { name: 'main', enabled: true, saml_metadata_url: 'https://idp.example.com/m' }, expected: [] },
  { name: 'disabled without a URL', values: { name: 'main', enabled: false }, expected: [] },
  { name: 'unknowns are skipped', values: { name: UNKNOWN, enabled: UNKNOWN, required: true, saml_metadata_url: UNKNOWN }, expected: [] },
  { name: 'enabled, URL not known yet', values: { name: 'main', enabled: true, saml_metadata_url: UNKNOWN }, expected: [] },
  {
    name: 'required without enabled',
    values: { name: 'main', enabled: false, required: true },
    expected: [{ path: ['required'], detail: /required: SSO cannot be required while enabled is false/ }],
  },
  {
    name: 'required without enabled, URL not known yet',
    values: { name: 'main', enabled: false, required: true, saml_metadata_url: UNKNOWN },
    expected: [{ path: ['required'], detail: /cannot be required while enabled is false/ }],
  },
  {
    name: 'a non-https URL',
    values: { name: 'main', enabled: true, saml_metadata_url: 'http://idp.example.com/m' },
    expected: [{ path: ['saml_metadata_url'], detail: /saml_metadata_url = "http:\/\/idp\.example\.com\/m": .*must be an https:\/\/ URL/ }],
  },
  {
    name: 'a non-https URL while disabled',
    values: { name: 'main', enabled: false, saml_metadata_url: 'ftp://idp.example.com/m' },
    expected: [{ path: ['saml_metadata_url'], detail: /must be an https:\/\/ URL/ }],
  },
  {
    name: 'enabled without a URL (says it is not set, not \'got ""\')',
    values: { name: 'main', enabled: true },
    expected: [{ path: ['saml_metadata_url'], detail: /^saml_metadata_url is not set: enabled = true needs the identity provider's https:\/\/ metadata URL/ }],
  },
  { name: 'an empty name', values: { name: '', enabled: false }, expected: [{ path: ['name'], detail: /name = ""/ }] },
  {
    name: 'required without enabled and a non-https URL: both, the URL first',
    values: { name: 'main', enabled: false, required: true, saml_metadata_url: 'http://idp.example.com/m' },
    expected: [
      { path: ['saml_metadata_url'], detail: /must be an https:\/\/ URL/ },
      { path: ['required'], detail: /cannot be required while enabled is false/ },
    ],
  },
  {
    // Since the shared rule (src/sso-rules.ts): enabled without a URL is wrong whatever required turns out to be.
    name: 'enabled without a URL, required not known yet',
    values: { name: 'main', enabled: true, required: UNKNOWN },
    expected: [{ path: ['saml_metadata_url'], detail: /^saml_metadata_url is not set: enabled = true needs/ }],
  },
  { name: 'an empty URL while disabled', values: { name: 'main', enabled: false, saml_metadata_url: '' }, expected: [{ path: ['saml_metadata_url'], detail: /saml_metadata_url = "": is empty/ }] },
];

const table: Array<[string, 'resource' | 'data' | 'provider', string, Case[]]> = [
  ['svc_blacklist_entry', 'resource', 'svc_blacklist_entry', entryCases],
  ['svc_blocklist_entry', 'resource', 'svc_blocklist_entry', entryCases.slice(0, 4)],
  ['svc_whitelist', 'resource', 'svc_whitelist', listCases],
  ['svc_blocklist', 'resource', 'svc_blocklist', listCases.slice(4, 9)],
  ['svc_blacklist', 'resource', 'svc_blacklist', listCases.slice(4, 9)],
  ['svc_tenant_sso', 'resource', 'svc_tenant_sso', ssoCases],
  ['svc_channel_sso', 'resource', 'svc_channel_sso', ssoCases],
  [
    'svc_list',
    'data',
    'svc_list',
    [
      { name: 'a list', values: { list: 'whitelist' }, expected: [] },
      { name: 'an unknown list', values: { list: 'greylist' }, expected: [{ path: ['list'], detail: /list = "greylist": use one of blacklist, blocklist, whitelist/ }] },
      { name: 'an empty tenant', values: { list: 'blacklist', tenant: '' }, expected: [{ path: ['tenant'], detail: /tenant = ""/ }] },
    ],
  ],
  [
    'svc_audit_events',
    'data',
    'svc_audit_events',
    [
      { name: 'defaults', values: {}, expected: [] },
      { name: 'the largest limit', values: { limit: 10000 }, expected: [] },
      { name: 'limit 0', values: { limit: 0 }, expected: [{ path: ['limit'], detail: /limit = 0: give a whole number from 1 to 10000/ }] },
      { name: 'limit too large', values: { limit: 10001 }, expected: [{ path: ['limit'], detail: /limit = 10001/ }] },
      { name: 'a fractional limit', values: { limit: 2.5 }, expected: [{ path: ['limit'], detail: /limit = 2\.5/ }] },
      { name: 'an empty category', values: { category: '' }, expected: [{ path: ['category'], detail: /category = ""/ }] },
    ],
  ],
  [
    'provider',
    'provider',
    'provider',
    [
      { name: 'everything from the environment', values: {}, expected: [] },
      { name: 'unknown values are skipped', values: { base_url: UNKNOWN, api_key: UNKNOWN, tenant: UNKNOWN, max_retries: UNKNOWN }, expected: [] },
      { name: 'an http base_url', values: { base_url: 'http://127.0.0.1:8080', max_retries: 0, request_timeout_seconds: 5 }, expected: [] },
      { name: 'a base_url that is not a URL', values: { base_url: 'api.example.com' }, expected: [{ path: ['base_url'], detail: /base_url: "api\.example\.com" is not a URL/ }] },
      { name: 'an ftp base_url', values: { base_url: 'ftp://api.example.com' }, expected: [{ path: ['base_url'], detail: /uses ftp; use http or https/ }] },
      { name: 'an http sso_base', values: { sso_base: 'http://sso.example.com' }, expected: [{ path: ['sso_base'], detail: /uses http; use https/ }] },
      { name: 'an empty api_key', values: { api_key: '' }, expected: [{ path: ['api_key'], detail: /api_key is an empty string/ }] },
      { name: 'an empty tenant', values: { tenant: '' }, expected: [{ path: ['tenant'], detail: /tenant is an empty string/ }] },
      { name: 'negative retries', values: { max_retries: -1 }, expected: [{ path: ['max_retries'], detail: /max_retries = -1/ }] },
      { name: 'a zero timeout', values: { request_timeout_seconds: 0 }, expected: [{ path: ['request_timeout_seconds'], detail: /request_timeout_seconds = 0/ }] },
    ],
  ],
];

describe.each(table)('%s', (_label, kind, typeName, cases) => {
  const { schema, validate } = validator(kind, typeName);
  test.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const diagnostics = validate(fullObject(schema, testCase.values));
    expect(diagnostics).toHaveLength(testCase.expected.length);
    testCase.expected.forEach((expected, index) => {
      expect(diagnostics[index]).toMatchObject({ severity: 'error', path: expected.path });
      expect(diagnostics[index].detail).toMatch(expected.detail);
    });
  });
});

test('validation never echoes the API key', () => {
  const { schema, validate } = validator('provider', 'provider');
  const secret = 'not-a-url-secret-key';
  const diagnostics = validate(fullObject(schema, { api_key: secret, base_url: 'nope' }));
  expect(diagnostics).toHaveLength(1);
  expect(JSON.stringify(diagnostics)).not.toContain(secret);
});

describe.each(['svc_tenant_sso', 'svc_channel_sso'])('%s: a metadata URL the service must not store', (typeName) => {
  const { schema, validate } = validator('resource', typeName);
  test.each<[string, string, RegExp]>([
    ['a password before the host, never echoed', 'https://admin:Pw0rd9@idp.example.com/metadata', /"https:\/\/\[REDACTED\]@idp\.example\.com\/metadata": holds a user name or password/],
    ['a user name alone', 'https://admin@idp.example.com/metadata', /holds a user name or password/],
    // The URL parser would drop it and accept https://idp.example.com/metadata.
    ['a newline', 'https://idp.example.com/meta\ndata', /"https:\/\/idp\.example\.com\/meta\\ndata": holds white space or a control character \(U\+000A at position 29\)/],
    ['a tab', 'https://idp.example.com/\tmetadata', /U\+0009/],
  ])('%s', (_name, url, detail) => {
    const diagnostics = validate(fullObject(schema, { name: 'acme', enabled: true, saml_metadata_url: url }));
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', path: ['saml_metadata_url'], detail: expect.stringMatching(detail) })]);
    expect(JSON.stringify(diagnostics)).not.toContain('Pw0rd9');
  });
});
