/**
 * The client's checks before anything is sent (src/api/validation.ts), table-driven: each
 * refusal names the field and the value, and carries the command when there is one.
 */
import { ValidationError } from '../../src/api/errors';
import { assertListName, assertName, assertPositiveInteger, assertSsoSettings, canonicalIp, normaliseEntry } from '../../src/api/validation';
import type { NewListEntry } from '../../src/api/types';

function refusal(action: () => unknown): ValidationError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ValidationError);
  return thrown as ValidationError;
}

describe('accepted values come back canonical', () => {
  test('addresses, entries with defaults, SSO settings', () => {
    expect(canonicalIp('2001:DB8:0::1/128', 'ip')).toBe('2001:db8::1');
    expect(normaliseEntry({ ip: '192.0.2.1' }, 'entry', 1_700_000_000)).toEqual({ ip: '192.0.2.1', description: '', created: 1_700_000_000 });
    expect(assertSsoSettings(null, 'sso')).toBeNull();
    expect(assertSsoSettings({ enabled: true, required: false, saml_metadata_url: 'https://idp.example/m' }, 'sso')).toEqual({ enabled: true, required: false, saml_metadata_url: 'https://idp.example/m' });
    expect(assertListName('whitelist')).toBe('whitelist');
    expect(assertPositiveInteger(3, 'limit')).toBe(3);
    expect(assertName('acme', 'tenant')).toBe('acme');
  });
});

describe('refusals name the field and the value', () => {
  const cases: Array<[name: string, action: () => unknown, field: string, message: string]> = [
    ['a list that is not one', () => assertListName('denylist', 'list_entries'), 'list', 'list: "denylist" is not a list of the service; use one of blacklist, blocklist, whitelist.'],
    ['an address that is not text', () => canonicalIp(42, 'entries[0].ip', 'new_blacklist'), 'entries[0].ip', 'entries[0].ip: expected an IP address or CIDR as a string, got number.'],
    ['an address with host bits', () => canonicalIp('10.0.0.1/8', 'ip'), 'ip', 'ip: Invalid IP address or CIDR: "10.0.0.1/8" (host bits are set; the network of this range is 10.0.0.0/8). Give an IPv4 or IPv6 address, or a CIDR range without host bits.'],
    ['an entry that is not an object', () => normaliseEntry(null as unknown as NewListEntry, 'entries[2]', 0, 'new_whitelist'), 'entries[2]', 'entries[2]: expected an object with ip, description and created.'],
    ['a description that is not text', () => normaliseEntry({ ip: '192.0.2.1', description: 7 as unknown as string }, 'entry', 0), 'entry.description', 'entry.description: expected a string.'],
    ['a description with a control character', () => normaliseEntry({ ip: '192.0.2.1', description: 'a\u001bb' }, 'entry', 0), 'entry.description', 'entry.description "a\\u001bb": holds the control character U+001B at position 2; descriptions are one line of printable text.'],
    ['a creation time before 1970', () => normaliseEntry({ ip: '192.0.2.1', created: -1 }, 'entry', 0), 'entry.created', 'entry.created: expected whole epoch seconds, got -1.'],
    ['a limit of zero', () => assertPositiveInteger(0, 'limit', 'audit_events'), 'limit', 'limit: expected a positive whole number, got 0.'],
    ['a blank name', () => assertName('  ', 'tenant', 'get_customer'), 'tenant', 'tenant: expected a non-empty name, got "  ".'],
    ['SSO that is a list', () => assertSsoSettings([], 'sso', 'update_site'), 'sso', 'sso: expected null or {enabled, required, saml_metadata_url}.'],
    ['SSO enabled as text', () => assertSsoSettings({ enabled: 'yes', required: false, saml_metadata_url: '' }, 'sso'), 'sso.enabled', 'sso.enabled: expected true or false, got "yes".'],
    ['SSO required missing', () => assertSsoSettings({ enabled: true, saml_metadata_url: '' }, 'sso'), 'sso.required', 'sso.required: expected true or false, got undefined.'],
    ['an SSO metadata URL that is not text', () => assertSsoSettings({ enabled: false, required: false, saml_metadata_url: null }, 'sso'), 'sso.saml_metadata_url', 'sso.saml_metadata_url: expected a URL string, got null.'],
  ];
  test.each(cases)('%s', (_name, action, field, message) => {
    const error = refusal(action);
    expect(error.field).toBe(field);
    expect(error.code).toBe('validation_failed');
    expect(error.message.startsWith(message)).toBe(true);
  });

  test('the command is carried when given, and absent when not', () => {
    expect(refusal(() => canonicalIp(42, 'ip', 'new_blacklist'))).toMatchObject({ command: 'new_blacklist', value: 42 });
    expect(refusal(() => canonicalIp(42, 'ip')).command).toBeUndefined();
    expect(refusal(() => normaliseEntry({ ip: '192.0.2.1', created: 1.5 }, 'entry', 0, 'new_blocklist'))).toMatchObject({ command: 'new_blocklist', field: 'entry.created', value: 1.5 });
  });
});
