/**
 * The list guardrails as pure rules (src/provider/guardrails.ts), table-driven, and the provider
 * block's http check and the client's refusal of http to a remote host.
 */
import { InsecureBaseUrlError } from '../../src/api/errors';
import { ManagementClient } from '../../src/api/client';
import { isLoopbackHost } from '../../src/api/transport';
import type { ListName } from '../../src/api/types';
import {
  broadRangeDiagnostics,
  catchAllDiagnostics,
  DISTINCT_ENTRIES,
  findEntryFindings,
  ownEntriesCannotOverlap,
  SeenEntries,
  unlikelyAddressDiagnostics,
  validateEntryGuardrails,
  type SeenEntry,
} from '../../src/provider/guardrails';
import { createSvcProvider } from '../../src/provider/provider';

const PLACE = { path: ['ip'], what: 'ip' } as const;

describe('catch-all ranges are an error on every list', () => {
  test.each<[string, ListName, string, boolean]>([
    ['IPv4 catch-all on the blacklist', 'blacklist', '0.0.0.0/0', true],
    ['IPv6 catch-all on the whitelist', 'whitelist', '::/0', true],
    ['IPv6 catch-all spelled long', 'blocklist', '0:0:0:0::/0', true],
    ['a /1 is broad, not catch-all', 'blacklist', '0.0.0.0/1', false],
    ['the unspecified address alone', 'blacklist', '0.0.0.0', false],
    ['an invalid value is left to the address check', 'blacklist', '0.0.0.0/00', false],
  ])('%s', (_name, list, ip, expected) => {
    const found = catchAllDiagnostics(list, ip, PLACE);
    expect(found.length > 0).toBe(expected);
    if (expected) expect(found[0]).toMatchObject({ severity: 'error', path: ['ip'], detail: expect.stringContaining(JSON.stringify(ip)) });
  });
});

describe('very broad ranges warn: shorter than IPv4 /8 or IPv6 /32', () => {
  test.each<[string, ListName, string, boolean]>([
    ['IPv4 /7 on the whitelist', 'whitelist', '10.0.0.0/7', true],
    ['IPv4 /8 on the whitelist', 'whitelist', '10.0.0.0/8', false],
    ['IPv4 /1 on the blacklist', 'blacklist', '128.0.0.0/1', true],
    ['IPv6 /31 on the blocklist', 'blocklist', '2001:db8::/31', true],
    ['IPv6 /32 on the blocklist', 'blocklist', '2001:db8::/32', false],
    ['a catch-all is the error rule, not this one', 'blacklist', '0.0.0.0/0', false],
  ])('%s', (_name, list, ip, expected) => {
    const found = broadRangeDiagnostics(list, ip, PLACE);
    expect(found.length > 0).toBe(expected);
    if (expected) expect(found[0]).toMatchObject({ severity: 'warning', detail: expect.stringContaining('allow_broad_ranges') });
  });
});

describe('addresses no client has warn, naming the better spelling', () => {
  test.each<[string, string, RegExp | undefined]>([
    ['IPv4-mapped IPv6', '::ffff:192.0.2.1', /Did you mean "192\.0\.2\.1"/],
    ['IPv4-mapped IPv6 range', '::ffff:192.0.2.0/120', /Did you mean "192\.0\.2\.0\/24"/],
    ['unspecified IPv4', '0.0.0.0', /unspecified address 0\.0\.0\.0/],
    ['unspecified IPv6', '::', /unspecified address ::/],
    ['loopback IPv4', '127.0.0.1', /loopback/],
    ['loopback range', '127.0.0.0/8', /loopback/],
    ['loopback IPv6', '::1', /loopback address ::1/],
    ['multicast IPv4', '239.1.2.3', /multicast/],
    ['multicast IPv6', 'ff02::1', /multicast/],
    ['broadcast', '255.255.255.255', /broadcast/],
    ['an ordinary address', '192.0.2.1', undefined],
    ['an IPv4-compatible address is not mapped', '::192.0.2.1', undefined],
  ])('%s', (_name, ip, says) => {
    const found = unlikelyAddressDiagnostics('whitelist', ip, PLACE);
    if (says === undefined) expect(found).toEqual([]);
    else expect(found).toEqual([expect.objectContaining({ severity: 'warning', path: ['ip'], detail: expect.stringMatching(says) })]);
  });
});

describe("validate's guardrails of one entry, its address parsed once for both", () => {
  test.each<[string, ListName, string]>([
    ['an ordinary address: nothing', 'blacklist', '192.0.2.1'],
    ['a catch-all range: the error alone', 'blacklist', '0.0.0.0/0'],
    ['a loopback address: the warning alone', 'whitelist', '127.0.0.1'],
    ['not an address: nothing (the address check says why)', 'blacklist', 'nope'],
  ])('%s, as the two checks apart say', (_name, list, ip) => {
    const apart = [...catchAllDiagnostics(list, ip, PLACE), ...unlikelyAddressDiagnostics(list, ip, PLACE)];
    expect(validateEntryGuardrails(list, ip, PLACE)).toEqual(apart);
    expect(apart.length > 0).toBe(ip === '0.0.0.0/0' || ip === '127.0.0.1');
  });
});

describe('overlaps at plan: contradictions across lists, redundancy within one', () => {
  const seen = (list: ListName, ip: string, source = 'on the service'): SeenEntry => ({ list, ip, source });
  test.each<[string, SeenEntry, SeenEntry[], Array<[string, string]>]>([
    ['a /32 inside a blacklisted /24', seen('whitelist', '203.0.113.9', 'mine'), [seen('blacklist', '203.0.113.0/24')], [['contradiction', '203.0.113.0/24']]],
    ['a whitelisted /24 holding a blocklisted address', seen('whitelist', '203.0.113.0/24', 'mine'), [seen('blocklist', '203.0.113.9')], [['contradiction', '203.0.113.9']]],
    ['the same address on both', seen('blacklist', '2001:db8::1', 'mine'), [seen('whitelist', '2001:DB8::1')], [['contradiction', '2001:DB8::1']]],
    ['blacklist and blocklist do not contradict', seen('blacklist', '203.0.113.9', 'mine'), [seen('blocklist', '203.0.113.9')], []],
    ['covered by a broader entry of the same list', seen('blacklist', '10.1.2.3', 'mine'), [seen('blacklist', '10.1.0.0/16')], [['redundant', '10.1.0.0/16']]],
    ['the entry itself on the service is no finding', seen('blacklist', '10.1.2.3/32', 'mine'), [seen('blacklist', '10.1.2.3')], []],
    ['a narrower entry of the same list is not reported on the broader one', seen('blacklist', '10.1.0.0/16', 'mine'), [seen('blacklist', '10.1.2.3')], []],
    ['other families never overlap', seen('whitelist', '::ffff:10.0.0.1', 'mine'), [seen('blacklist', '10.0.0.0/8')], []],
    ['disjoint ranges', seen('whitelist', '192.0.2.0/25', 'mine'), [seen('blacklist', '192.0.2.128/25')], []],
  ])('%s', (_name, entry, others, expected) => {
    const found = findEntryFindings([entry], [entry, ...others]).map((finding) => [finding.kind, finding.other.ip]);
    expect(found).toEqual(expected);
  });

  test('many own entries (an index) find what one entry at a time (a scan) finds', () => {
    const own = ['203.0.113.9', '10.1.2.3', '10.1.0.0/16', '2001:db8::/48', '192.0.2.0/24', '198.51.100.7'].map((ip) => seen('whitelist', ip, 'mine'));
    const others = [seen('blacklist', '203.0.113.0/24'), seen('whitelist', '10.0.0.0/8'), seen('blocklist', '2001:db8::1'), seen('blacklist', '192.0.2.77'), seen('blocklist', '0.0.0.0/1')];
    const describe = (findings: ReturnType<typeof findEntryFindings>) => findings.map((finding) => `${finding.kind} ${finding.entry.ip} ${finding.other.ip}`).sort();
    const oneByOne = own.flatMap((entry) => findEntryFindings([entry], [...own, ...others]));
    expect(describe(findEntryFindings(own, others))).toEqual(describe(oneByOne));
    expect(oneByOne.length).toBeGreaterThan(6);
  });

  test('own entries already in a view (ownIn) give the same findings, in the same order, as an index of their own', () => {
    // An earlier resource's entries, then this resource's (some unchanged), as a plan declares them.
    const earlier = [seen('blacklist', '10.1.0.0/16', 'earlier'), seen('blocklist', '192.0.2.7', 'earlier'), seen('whitelist', '10.1.2.3', 'earlier')];
    const mine = ['10.1.2.0/24', '10.1.2.3', '192.0.2.0/24', '2001:db8::/48', '2001:db8::1', 'not an address', '10.9.9.9'].map((ip) => seen('whitelist', ip, 'mine'));
    const changed = mine.filter((entry) => entry.ip !== '10.9.9.9' && entry.ip !== '2001:db8::1');
    const service = new SeenEntries([seen('blacklist', '10.1.2.128/25'), seen('blacklist', '2001:db8::1')]);
    const describe = (findings: ReturnType<typeof findEntryFindings>) => findings.map((finding) => `${finding.kind} ${finding.entry.ip} ${finding.other.ip} (${finding.other.source})`);
    const declared = new SeenEntries(earlier);
    declared.add(mine);
    const planned = { entries: declared, limit: declared.size };
    const withOwnIndex = describe(findEntryFindings(changed, [planned, { entries: service }]));
    expect(describe(findEntryFindings(changed, [planned, { entries: service }], planned))).toEqual(withOwnIndex);
    expect(withOwnIndex).toEqual(expect.arrayContaining(['contradiction 10.1.2.0/24 10.1.0.0/16 (earlier)', 'redundant 10.1.2.3 10.1.2.0/24 (mine)', 'contradiction 2001:db8::/48 2001:db8::1 (on the service)']));
  });

  test.each<[string, SeenEntry[], boolean]>([
    ['single addresses of one list', [seen('blacklist', '10.0.0.1'), seen('blacklist', '2001:db8::1'), seen('blacklist', '10.0.0.1/32')], true],
    ['a range among them', [seen('blacklist', '10.0.0.1'), seen('blacklist', '10.0.0.0/24')], false],
    ['two lists', [seen('blacklist', '10.0.0.1'), seen('whitelist', '10.0.0.2')], false],
    ['not an address', [seen('blacklist', '10.0.0.1'), seen('blacklist', 'nope')], false],
  ])('ownEntriesCannotOverlap: %s', (_name, entries, expected) => {
    expect(ownEntriesCannotOverlap(entries)).toBe(expected);
  });

  test('own entries that cannot overlap (DISTINCT_ENTRIES) are compared with the others only, with the same findings', () => {
    const own = ['10.1.2.3', '10.1.2.4', '192.0.2.9', '2001:db8::1', '10.1.2.3/32'].map((ip) => seen('blacklist', ip, 'mine'));
    const others = new SeenEntries([seen('whitelist', '10.1.2.0/24'), seen('whitelist', '2001:db8::/64'), seen('blacklist', '192.0.2.0/24')]);
    const describe = (findings: ReturnType<typeof findEntryFindings>) => findings.map((finding) => `${finding.kind} ${finding.entry.ip} ${finding.other.ip}`);
    const compared = describe(findEntryFindings(own, [{ entries: others }]));
    expect(describe(findEntryFindings(own, [{ entries: others }], DISTINCT_ENTRIES))).toEqual(compared);
    expect(compared).toEqual(expect.arrayContaining(['contradiction 10.1.2.3 10.1.2.0/24', 'redundant 192.0.2.9 192.0.2.0/24', 'contradiction 2001:db8::1 2001:db8::/64']));
  });

  test('one address held three times (two spellings) is found three times; a range added after a longer prefix still finds what lies inside it', () => {
    const mine = seen('whitelist', '10.0.0.1', 'mine');
    const others = [seen('blacklist', '10.0.0.1', 'a'), seen('blacklist', '10.0.0.1/32', 'b'), seen('blocklist', '10.0.0.1', 'c')];
    expect(findEntryFindings([mine], others).map((finding) => `${finding.kind} ${finding.other.source}`)).toEqual(['contradiction a', 'contradiction b', 'contradiction c']);
    const wide = seen('whitelist', '10.0.0.0/16', 'mine');
    const inside = findEntryFindings([wide], [seen('blacklist', '10.0.3.4'), seen('blacklist', '10.0.2.0/24')]);
    expect(inside.map((finding) => finding.other.ip).sort()).toEqual(['10.0.2.0/24', '10.0.3.4']);
  });

  test('an address of a family no other entry has finds nothing; with no others at all, an entry alone finds nothing', () => {
    expect(findEntryFindings([seen('whitelist', '2001:db8::1', 'mine')], [seen('blacklist', '10.0.0.0/8')])).toEqual([]);
    expect(findEntryFindings([seen('whitelist', '10.0.0.1', 'mine')], [])).toEqual([]);
  });

  // How fast this is at scale is the bench's whole-list rows (npm run bench), not a timed assertion here.
  test('5,000 entries against 5,000 ranges: each entry is found inside its own range and no other', () => {
    const own = Array.from({ length: 5000 }, (_, index) => seen('whitelist', `10.${index >> 8}.${index & 255}.1`, 'mine'));
    const others = Array.from({ length: 5000 }, (_, index) => seen('blacklist', `10.${index >> 8}.${index & 255}.0/24`));
    const findings = findEntryFindings(own, others);
    expect(findings).toHaveLength(5000);
    expect(findings.every((finding) => finding.other.ip === finding.entry.ip.replace(/\.1$/, '.0/24'))).toBe(true);
  });

  test('entries kept in SeenEntries: a view sees those added before its limit, a range sees what is added inside it later', () => {
    const planned = new SeenEntries([seen('blacklist', '198.51.100.0/24', 'first'), seen('blocklist', '198.51.100.7', 'second')]);
    const mine = seen('whitelist', '198.51.100.0/25', 'mine');
    const describe = (findings: ReturnType<typeof findEntryFindings>) => findings.map((finding) => `${finding.kind} ${finding.other.ip}`);
    // The /24 covers mine and the address lies inside it; in the order they were added.
    expect(describe(findEntryFindings([mine], [{ entries: planned }]))).toEqual(['contradiction 198.51.100.0/24', 'contradiction 198.51.100.7']);
    const limit = planned.size;
    planned.add([seen('blacklist', '198.51.100.9', 'later'), seen('blacklist', 'not an address', 'later'), seen('blacklist', '198.51.100.200', 'outside')]);
    // A view made before the later entries does not see them; a full view does (the sorted copy made above took them in).
    expect(describe(findEntryFindings([mine], [{ entries: planned, limit }]))).toEqual(['contradiction 198.51.100.0/24', 'contradiction 198.51.100.7']);
    expect(describe(findEntryFindings([mine], [{ entries: planned }]))).toEqual(['contradiction 198.51.100.0/24', 'contradiction 198.51.100.7', 'contradiction 198.51.100.9']);
    expect(planned.size).toBe(5);
  });
});

describe('base_url over http', () => {
  const provider = createSvcProvider({ env: {} });
  const validate = (config: Record<string, unknown>) =>
    provider.validate!({ config: { base_url: null, api_key: null, tenant: null, sso_base: null, max_retries: null, request_timeout_seconds: null, allow_broad_ranges: null, allow_insecure_http: null, ...config } as never });

  test.each<[string, string, boolean]>([
    ['http to a remote host', 'http://api.vendor.example', true],
    ['http to 127.0.0.1', 'http://127.0.0.1:8080', false],
    ['http to 127.8.9.10', 'http://127.8.9.10', false],
    ['http to [::1]', 'http://[::1]:8080', false],
    ['http to localhost', 'http://localhost:8080', false],
    ['http to a private address', 'http://10.0.0.5', true],
    ['https to a remote host', 'https://api.vendor.example', false],
  ])('%s', (_name, baseUrl, refused) => {
    const found = validate({ base_url: baseUrl }).filter((diagnostic) => /Insecure base_url/.test(diagnostic.summary));
    expect(found.length > 0).toBe(refused);
    if (refused) expect(found[0]).toMatchObject({ path: ['base_url'], detail: expect.stringContaining('https://') });
  });

  test('allow_insecure_http = true and SVC_ALLOW_INSECURE_HTTP=1 allow it', () => {
    expect(validate({ base_url: 'http://api.vendor.example', allow_insecure_http: true })).toEqual([]);
    const fromEnv = createSvcProvider({ env: { SVC_ALLOW_INSECURE_HTTP: '1' } });
    expect(fromEnv.validate!({ config: { base_url: 'http://api.vendor.example' } as never })).toEqual([]);
  });

  test('from SVC_BASE_URL it fails configure, naming the variable', async () => {
    const fromEnv = createSvcProvider({ env: { SVC_BASE_URL: 'http://api.vendor.example', SVC_API_KEY: 'k' } });
    await expect(fromEnv.configure({ config: {}, terraformVersion: '1.11.4' })).rejects.toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Insecure SVC_BASE_URL: http:// to a remote host' })],
    });
  });

  test('the client refuses it with a typed error unless allowInsecureHttp', async () => {
    expect(() => new ManagementClient({ baseUrl: 'http://api.vendor.example', apiKey: 'k', tenant: 'acme' })).toThrow(InsecureBaseUrlError);
    const allowed = new ManagementClient({ baseUrl: 'http://api.vendor.example', apiKey: 'k', tenant: 'acme', allowInsecureHttp: true });
    await allowed.close();
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.example')).toBe(false);
  });
});
