/**
 * A corpus of bad inputs across every resource, data source and the provider block, each
 * rejected by the real terraform before anything is written, with the attribute named.
 *
 * Fast: the cases share two terraform runs. Every case is its own block with a distinct name
 * (`case_07`), so each diagnostic is attributed by its `with <address>` line.
 * - "validate" cases: one `terraform validate`; the emulator must see no /svc_api request at all.
 * - "plan" cases need the API to be refused (an unknown tenant or channel, including the tenant
 *   of a per-entry resource and the name of an SSO resource): one `terraform plan`; the emulator
 *   may see a login and reads (list_*, customers/channels list, audit_events), never a write
 *   (new_*, delete_*, bulk_*, update).
 */
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import type { TerraformResult } from '../../scripts/terraform-harness/workspace';
import { startFakeService, type FakeService } from '../api/fake-service';
import { printFigures, useFaultHarness } from './support';

jest.setTimeout(120_000);

const harness = useFaultHarness();
const TENANT = 'corpus';
const PROVIDER_ADDRESS = 'provider["registry.terraform.io/svc-prevent/svc"]';

type Phase = 'validate' | 'plan';
type Kind = 'resource' | 'data' | 'provider';

interface BadInput {
  readonly name: string;
  readonly phase: Phase;
  readonly kind: Kind;
  /** Resource or data source type; unused for the provider block. */
  readonly type: string;
  /** Attribute lines of the block, HCL. */
  readonly body: string;
  /** The attribute the diagnostic must name. */
  readonly attribute: string;
  /** What the diagnostic must say. */
  readonly says: RegExp;
}

const s = hclString;
const entry = (list: string, ip: string): Omit<BadInput, 'name' | 'says'> => ({
  phase: 'validate',
  kind: 'resource',
  type: `svc_${list}_entry`,
  body: `ip = ${s(ip)}`,
  attribute: 'ip',
});
const wholeList = (list: string, body: string, attribute = 'entries'): Omit<BadInput, 'name' | 'says'> => ({
  phase: 'validate',
  kind: 'resource',
  type: `svc_${list}`,
  body,
  attribute,
});
const map = (entries: Readonly<Record<string, string>>) => `{ ${Object.entries(entries).map(([key, value]) => `${s(key)} = ${s(value)}`).join(', ')} }`;
const hugeMap = () => {
  const entries: Record<string, string> = {};
  for (let index = 0; index < 5000; index += 1) entries[`10.${Math.floor(index / 250)}.${index % 250}.1`] = 'bulk';
  entries['10.255.255.256'] = 'the bad one';
  return map(entries);
};
const provider = (body: string, attribute: string): Omit<BadInput, 'name' | 'says'> => ({ phase: 'validate', kind: 'provider', type: 'svc', body, attribute });
const data = (type: string, body: string, attribute: string, phase: Phase = 'validate'): Omit<BadInput, 'name' | 'says'> => ({ phase, kind: 'data', type, body, attribute });
const resource = (type: string, body: string, attribute: string, phase: Phase = 'validate'): Omit<BadInput, 'name' | 'says'> => ({ phase, kind: 'resource', type, body, attribute });

const ADDRESS = /Invalid IP address or CIDR/;
const CASES: BadInput[] = [
  // per-entry ip: IPv4 and CIDR spellings
  { name: 'IPv4 octet above 255', ...entry('blacklist', '10.0.0.256'), says: ADDRESS },
  { name: 'IPv4 with three octets', ...entry('blacklist', '10.0.0'), says: /not a dotted-quad/ },
  { name: 'IPv4 octet with a leading zero', ...entry('blocklist', '010.0.0.1'), says: /leading zero/ },
  { name: 'IPv4 in hex', ...entry('whitelist', '0x0a000001'), says: ADDRESS },
  { name: 'leading white space', ...entry('blacklist', ' 10.0.0.1'), says: /white space/ },
  { name: 'CIDR with host bits /24', ...entry('blacklist', '192.168.1.1/24'), says: /host bits.*192\.168\.1\.0\/24/ },
  { name: 'CIDR with host bits /8', ...entry('whitelist', '10.1.2.3/8'), says: /host bits.*10\.0\.0\.0\/8/ },
  { name: 'IPv4 prefix above 32', ...entry('blocklist', '10.0.0.0/33'), says: /prefix length 33/ },
  { name: 'empty prefix length', ...entry('blacklist', '10.0.0.0/'), says: /prefix length/ },
  { name: 'prefix with a leading zero', ...entry('whitelist', '1.2.3.4/08'), says: ADDRESS },
  // per-entry ip: IPv6 spellings
  { name: 'IPv6 with a triple colon', ...entry('blacklist', '2001:db8:::1'), says: /IPv6/ },
  { name: 'IPv6 with a non-hex digit', ...entry('blocklist', '2001:db8::g'), says: /IPv6/ },
  { name: 'IPv6 with nine groups', ...entry('whitelist', '1:2:3:4:5:6:7:8:9'), says: /IPv6/ },
  { name: 'IPv6 with two double colons', ...entry('blacklist', '2001::db8::1'), says: /IPv6/ },
  { name: 'IPv6 with a zone identifier', ...entry('blocklist', 'fe80::1%eth0'), says: /zone/ },
  { name: 'IPv4-mapped IPv6 with a bad octet', ...entry('whitelist', '::ffff:10.0.0.256'), says: /IPv6/ },
  { name: 'IPv6 CIDR with host bits', ...entry('blacklist', '2001:db8::1/32'), says: /host bits.*2001:db8::\/32/ },
  { name: 'IPv6 prefix above 128', ...entry('blocklist', '2001:db8::/129'), says: /prefix length 129/ },
  // per-entry ip: not addresses at all
  { name: 'empty ip', ...entry('blacklist', ''), says: ADDRESS },
  { name: 'a host name', ...entry('whitelist', 'localhost'), says: ADDRESS },
  { name: 'a URL as ip', ...entry('blacklist', 'http://10.0.0.1/'), says: ADDRESS },
  { name: 'an address with a port', ...entry('blocklist', '10.0.0.1:443'), says: ADDRESS },
  // guardrails: catch-all ranges in any spelling, on every list
  { name: 'IPv4 catch-all on the blacklist', ...entry('blacklist', '0.0.0.0/0'), says: /Catch-all range on the blacklist.*"0\.0\.0\.0\/0"/ },
  { name: 'IPv6 catch-all on the whitelist', ...entry('whitelist', '::/0'), says: /Catch-all range on the whitelist.*"::\/0"/ },
  { name: 'IPv6 catch-all spelled long on the blocklist', ...entry('blocklist', '0:0:0:0:0:0:0:0/0'), says: /Catch-all range on the blocklist.*is ::\/0/ },
  { name: 'IPv4 catch-all with a host part', ...entry('whitelist', '10.0.0.0/0'), says: /host bits.*0\.0\.0\.0\/0/ },
  { name: 'entry tenant empty', ...resource('svc_whitelist_entry', `ip = "192.0.2.1"\n  tenant = ""`, 'tenant'), says: /Empty tenant/ },
  // whole lists
  { name: 'whole-list key octet above 255', ...wholeList('blacklist', `entries = ${map({ '10.0.0.256': 'x' })}`), says: ADDRESS },
  { name: 'whole-list key empty', ...wholeList('blocklist', `entries = ${map({ '': 'x' })}`), says: ADDRESS },
  { name: 'whole-list key with host bits', ...wholeList('whitelist', `entries = ${map({ '192.0.2.1/24': 'x' })}`), says: /host bits/ },
  { name: 'whole-list key IPv6 with a zone', ...wholeList('blacklist', `entries = ${map({ 'fe80::1%1': 'x' })}`), says: /zone/ },
  { name: 'whole-list keys that are one address (/32)', ...wholeList('blocklist', `entries = ${map({ '10.0.0.1': 'a', '10.0.0.1/32': 'b' })}`), says: /Duplicate address/ },
  { name: 'whole-list keys that are one IPv6 address', ...wholeList('whitelist', `entries = ${map({ '2001:db8::1': 'a', '2001:DB8:0::1': 'b' })}`), says: /Duplicate address/ },
  { name: 'huge whole list (5,001 keys) with one bad key', ...wholeList('blacklist', `entries = ${hugeMap()}`), says: /10\.255\.255\.256/ },
  { name: 'whole-list catch-all key', ...wholeList('blacklist', `entries = ${map({ '192.0.2.1': 'ok', '0.0.0.0/0': 'everyone' })}`), says: /Catch-all range on the blacklist.*entries key = "0\.0\.0\.0\/0"/ },
  { name: 'whole-list IPv6 catch-all key in capitals', ...wholeList('whitelist', `entries = ${map({ '0::/0': 'everyone' })}`), says: /Catch-all range on the whitelist.*"0::\/0" is ::\/0/ },
  { name: 'whole-list mode unknown word', ...wholeList('blacklist', `entries = {}\n  mode = "replace"`, 'mode'), says: /Invalid mode/ },
  { name: 'whole-list mode empty', ...wholeList('whitelist', `entries = {}\n  mode = ""`, 'mode'), says: /Invalid mode/ },
  { name: 'whole-list mode in capitals', ...wholeList('blocklist', `entries = {}\n  mode = "Additive"`, 'mode'), says: /Invalid mode/ },
  { name: 'whole-list tenant empty', ...wholeList('blacklist', `entries = {}\n  tenant = ""`, 'tenant'), says: /Empty tenant/ },
  // SSO resources
  { name: 'tenant SSO metadata URL over http', ...resource('svc_tenant_sso', `name = "corpus"\n  enabled = true\n  saml_metadata_url = "http://idp.example.com/metadata"`, 'saml_metadata_url'), says: /https/ },
  { name: 'tenant SSO enabled without a URL', ...resource('svc_tenant_sso', `name = "corpus"\n  enabled = true`, 'saml_metadata_url'), says: /not set/ },
  { name: 'tenant SSO required without enabled', ...resource('svc_tenant_sso', `name = "corpus"\n  enabled = false\n  required = true`, 'required'), says: /Invalid SSO setting required/ },
  { name: 'tenant SSO name empty', ...resource('svc_tenant_sso', `name = ""\n  enabled = false`, 'name'), says: /Empty name/ },
  { name: 'channel SSO metadata URL not a URL', ...resource('svc_channel_sso', `name = "main"\n  enabled = true\n  saml_metadata_url = "not a url"`, 'saml_metadata_url'), says: /https/ },
  { name: 'channel SSO metadata URL over ftp', ...resource('svc_channel_sso', `name = "main"\n  enabled = true\n  saml_metadata_url = "ftp://idp.example.com/m"`, 'saml_metadata_url'), says: /https/ },
  { name: 'channel SSO metadata URL empty', ...resource('svc_channel_sso', `name = "main"\n  enabled = true\n  saml_metadata_url = ""`, 'saml_metadata_url'), says: /https/ },
  { name: 'channel SSO name empty', ...resource('svc_channel_sso', `name = ""\n  enabled = false`, 'name'), says: /Empty name/ },
  { name: 'tenant SSO metadata URL with a password in it', ...resource('svc_tenant_sso', `name = "corpus"\n  enabled = true\n  saml_metadata_url = "https://admin:pw@idp.example.com/m"`, 'saml_metadata_url'), says: /user name or password/ },
  { name: 'channel SSO metadata URL with a newline', ...resource('svc_channel_sso', `name = "main"\n  enabled = true\n  saml_metadata_url = "https://idp.example.com/meta\\ndata"`, 'saml_metadata_url'), says: /U\+000A/ },
  // descriptions
  { name: 'entry description with an ESC sequence', ...resource('svc_blacklist_entry', `ip = "192.0.2.9"\n  description = "scan\\u001b[2Jner"`, 'description'), says: /control character U\+001B/ },
  { name: 'entry description over 1,024 characters', ...resource('svc_whitelist_entry', `ip = "192.0.2.10"\n  description = "${'d'.repeat(1025)}"`, 'description'), says: /1025 characters long/ },
  { name: 'whole-list description with a newline', ...wholeList('blocklist', `entries = { "192.0.2.11" = "two\\nlines" }`), says: /U\+000A/ },
  // data sources
  { name: 'svc_list list unknown', ...data('svc_list', `list = "greylist"`, 'list'), says: /Invalid list.*blacklist/ },
  { name: 'svc_list list empty', ...data('svc_list', `list = ""`, 'list'), says: /Invalid list/ },
  { name: 'svc_list tenant empty', ...data('svc_list', `list = "blacklist"\n  tenant = ""`, 'tenant'), says: /Empty tenant/ },
  { name: 'audit limit 0', ...data('svc_audit_events', 'limit = 0', 'limit'), says: /Invalid limit/ },
  { name: 'audit limit negative', ...data('svc_audit_events', 'limit = -5', 'limit'), says: /Invalid limit/ },
  { name: 'audit limit fractional', ...data('svc_audit_events', 'limit = 1.5', 'limit'), says: /Invalid limit/ },
  { name: 'audit limit above the maximum', ...data('svc_audit_events', 'limit = 100001', 'limit'), says: /Invalid limit.*10000/ },
  { name: 'audit category empty', ...data('svc_audit_events', 'category = ""', 'category'), says: /Empty category/ },
  { name: 'audit action empty', ...data('svc_audit_events', 'action = ""', 'action'), says: /Empty action/ },
  { name: 'svc_tenant name empty', ...data('svc_tenant', 'name = ""', 'name'), says: /Empty name/ },
  { name: 'svc_channel name empty', ...data('svc_channel', 'name = ""', 'name'), says: /Empty name/ },
  // the provider block
  { name: 'base_url with ftp', ...provider('base_url = "ftp://api.example.com"', 'base_url'), says: /Invalid base_url/ },
  { name: 'base_url not a URL', ...provider('base_url = "api.example.com"', 'base_url'), says: /Invalid base_url/ },
  { name: 'base_url empty', ...provider('base_url = ""', 'base_url'), says: /Invalid base_url/ },
  { name: 'base_url with credentials in it', ...provider('base_url = "https://admin:key@api.example.com"', 'base_url'), says: /\[REDACTED\]@api\.example\.com.*user name or password/ },
  { name: 'base_url over http to a remote host', ...provider('base_url = "http://api.vendor.example"', 'base_url'), says: /Insecure base_url.*https:\/\/api\.vendor\.example/ },
  { name: 'base_url over http to a private address', ...provider('base_url = "http://10.0.0.5:8080"', 'base_url'), says: /Insecure base_url.*not a loopback address/ },
  { name: 'sso_base over http', ...provider('sso_base = "http://sso.example.com"', 'sso_base'), says: /Invalid sso_base/ },
  { name: 'api_key empty', ...provider('api_key = ""', 'api_key'), says: /Empty api_key/ },
  { name: 'provider tenant empty', ...provider('tenant = ""', 'tenant'), says: /Empty tenant/ },
  { name: 'max_retries negative', ...provider('max_retries = -1', 'max_retries'), says: /Invalid max_retries/ },
  { name: 'max_retries above 20', ...provider('max_retries = 21', 'max_retries'), says: /Invalid max_retries/ },
  { name: 'max_retries fractional', ...provider('max_retries = 1.5', 'max_retries'), says: /Invalid max_retries/ },
  { name: 'request_timeout_seconds 0', ...provider('request_timeout_seconds = 0', 'request_timeout_seconds'), says: /Invalid request_timeout_seconds/ },
  { name: 'request_timeout_seconds above 600', ...provider('request_timeout_seconds = 601', 'request_timeout_seconds'), says: /Invalid request_timeout_seconds/ },
  // refused at plan: names only the service knows
  { name: 'svc_tenant of an unknown tenant', ...data('svc_tenant', 'name = "nope"', 'name', 'plan'), says: /Unknown tenant "nope"/ },
  { name: 'svc_channel of an unknown channel', ...data('svc_channel', 'name = "nope"', 'name', 'plan'), says: /Unknown channel "nope"/ },
  { name: 'svc_list of an unknown tenant', ...data('svc_list', 'list = "whitelist"\n  tenant = "nope"', 'tenant', 'plan'), says: /Cannot use tenant "nope".* tenant = "nope"/ },
  { name: 'whole list of an unknown tenant', ...resource('svc_blocklist', 'entries = {}\n  tenant = "nope"', 'tenant', 'plan'), says: /Cannot use tenant "nope".* tenant = "nope".*The service lists no tenant named "nope" \(it lists "corpus"\)/ },
  // Refused at apply until the plan checked them (an entry's new_blacklist was even sent).
  { name: 'entry of an unknown tenant', ...resource('svc_blacklist_entry', 'ip = "192.0.2.1"\n  tenant = "nope"', 'tenant', 'plan'), says: /Cannot use tenant "nope".* tenant = "nope".*it lists "corpus"/ },
  { name: 'tenant SSO of an unknown tenant', ...resource('svc_tenant_sso', 'name = "nope"\n  enabled = false', 'name', 'plan'), says: /Unknown tenant "nope".* name = "nope".*it lists "corpus"/ },
  { name: 'channel SSO of an unknown channel', ...resource('svc_channel_sso', 'name = "nope"\n  enabled = false', 'name', 'plan'), says: /Unknown channel "nope".* name = "nope".*it lists "main"/ },
];

const label = (index: number) => `case_${String(index + 1).padStart(2, '0')}`;

function addressOf(testCase: BadInput, index: number): string {
  if (testCase.kind === 'provider') return `${PROVIDER_ADDRESS}.${label(index)}`;
  return `${testCase.kind === 'data' ? 'data.' : ''}${testCase.type}.${label(index)}`;
}

function blockOf(testCase: BadInput, index: number): string {
  const body = testCase.body.split('\n').map((line) => `  ${line.trim()}`);
  if (testCase.kind === 'provider') {
    // An aliased provider with the bad setting, and a data source that uses it (terraform
    // validates only the providers something uses).
    return [
      `provider "svc" {`,
      `  alias = "${label(index)}"`,
      ...body,
      '}',
      `data "svc_tenant" "uses_${label(index)}" {`,
      `  provider = svc.${label(index)}`,
      '}',
      '',
    ].join('\n');
  }
  return [`${testCase.kind} "${testCase.type}" "${label(index)}" {`, ...body, '}', ''].join('\n');
}

/** Terraform's diagnostics (text after `Error:` up to the next one), by the address in their `with` line. */
function diagnosticsByAddress(result: TerraformResult): Map<string, string[]> {
  const text = `${result.stdout}\n${result.stderr}`;
  const found = new Map<string, string[]>();
  for (const block of text.split(/^(?=(?:│ )?Error: )/m).slice(1)) {
    const address = /^\s*(?:│ )?\s*with (\S+?),$/m.exec(block)?.[1] ?? '(no address)';
    found.set(address, [...(found.get(address) ?? []), block.replace(/\s+/g, ' ')]);
  }
  return found;
}

/** API commands the plan may send: a login and reads. */
const READ_COMMANDS = /^(login|list_(blacklist|blocklist|whitelist)|get_(blacklist|blocklist|whitelist)|list|audit_events)$/;

const results: Record<Phase, { result?: TerraformResult; requests: number; commands: Record<string, number> }> = {
  validate: { requests: -1, commands: {} },
  plan: { requests: -1, commands: {} },
};
const COMMANDS: Record<Phase, string[]> = {
  validate: ['validate', '-no-color'],
  plan: ['plan', '-input=false', '-no-color'],
};

beforeAll(async () => {
  const emulator = await harness().startEmulator({ tenants: [TENANT] });
  for (const phase of ['validate', 'plan'] as const) {
    const workspace = harness().createWorkspace(`bad-inputs-${phase}`, emulator.apiKey);
    const blocks = CASES.map((testCase, index) => (testCase.phase === phase ? blockOf(testCase, index) : '')).join('');
    workspace.write(providerBlock({ baseUrl: emulator.url, tenant: TENANT }) + blocks);
    await workspace.init();
    emulator.emulator.resetStats();
    const result = await workspace.terraform(COMMANDS[phase]);
    const stats = emulator.emulator.stats();
    results[phase] = { result, requests: stats.requests, commands: stats.byCommand };
  }
  const count = (phase: Phase) => CASES.filter((testCase) => testCase.phase === phase).length;
  printFigures('bad inputs', {
    cases: CASES.length,
    validate_cases: count('validate'),
    plan_cases: count('plan'),
    api_requests_during_validate: results.validate.requests,
    api_requests_during_plan: results.plan.requests,
    api_writes_at_validate_and_plan: Object.keys({ ...results.validate.commands, ...results.plan.commands }).filter((command) => !READ_COMMANDS.test(command)).length,
  });
}, 120_000);

test('the corpus has at least 50 cases rejected before apply, across resources, data sources and the provider block', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(50);
  expect(new Set(CASES.map((testCase) => testCase.kind))).toEqual(new Set(['resource', 'data', 'provider']));
});

test('terraform validate fails and sends nothing to the API', () => {
  expect(results.validate.result?.code).toBe(1);
  expect(results.validate.requests).toBe(0);
});

test('terraform plan fails and sends no write to the API (a login and reads at most)', () => {
  expect(results.plan.result?.code).toBe(1);
  expect(Object.keys(results.plan.commands).filter((command) => !READ_COMMANDS.test(command))).toEqual([]);
});

test.each(CASES.map((testCase, index) => [testCase.name, testCase.phase, testCase, index] as const))('%s: rejected at %s, naming the attribute', (_name, phase, testCase, index) => {
  const address = addressOf(testCase, index);
  const diagnostics = diagnosticsByAddress(results[phase].result!).get(address) ?? [];
  expect({ address, rejected: diagnostics.length > 0 }).toEqual({ address, rejected: true });
  const matching = diagnostics.filter((text) => testCase.says.test(text));
  expect({ address, says: testCase.says.source, found: matching.length > 0 ? 'yes' : diagnostics }).toEqual({ address, says: testCase.says.source, found: 'yes' });
  // The attribute: in the source line terraform quotes, or in the message.
  expect(matching.some((text) => new RegExp(`\\b${testCase.attribute}\\b`).test(text))).toBe(true);
});

/*
 * The service side of the corpus: what a hostile or broken service returns is checked like
 * configuration (src/api/reply-checks.ts). A scripted loopback server answers each case's tenant
 * with that case's list_blacklist reply; one `terraform plan` of one svc_blacklist per case. A
 * value that cannot be used is an error naming the field; one that can be made safe is changed
 * (escaped, cut, merged) with a warning; no raw control character reaches terraform's output.
 */
describe('service-side bad inputs: hostile list replies, at plan', () => {
  interface BadReply {
    readonly name: string;
    /** The list_blacklist reply body. */
    readonly reply: object;
    readonly severity: 'Error' | 'Warning';
    readonly says: RegExp;
  }
  const one = (fields: Record<string, unknown>) => ({ Ok: [{ ip: '192.0.2.1', description: 'x', created: 1_700_000_000, ...fields }] });
  const ESCAPED = /they are shown escaped/;
  const REPLY_CASES: BadReply[] = [
    { name: 'a description that clears the screen and fakes "No changes."', reply: one({ description: '\u001b[2J\u001b[H\u001b[32mNo changes.\u001b[0m' }), severity: 'Warning', says: /description holds control .*shown escaped, as "\\u001b\[2J\\u001b\[H\\u001b\[32mNo changes\.\\u001b\[0m" \(Ok\[0\]\.description\)/ },
    { name: 'a description with a C1 control sequence introducer (U+009B)', reply: one({ description: 'a\u009b2Jb' }), severity: 'Warning', says: /shown escaped, as "a\\u009b2Jb"/ },
    { name: 'a description with a right-to-left override (U+202E)', reply: one({ description: 'ok\u202Eexe.fdp' }), severity: 'Warning', says: /shown escaped, as "ok\\u202eexe\.fdp"/ },
    { name: 'a description with a right-to-left isolate (U+2067)', reply: one({ description: 'a\u2067b\u2069' }), severity: 'Warning', says: /shown escaped, as "a\\u2067b\\u2069"/ },
    { name: 'a description with a newline and a NUL', reply: one({ description: 'line1\nline2\u0000' }), severity: 'Warning', says: ESCAPED },
    { name: 'one address listed as 10.0.0.1/32 and 10.0.0.1', reply: { Ok: [{ ip: '10.0.0.1/32', description: 'a', created: 1 }, { ip: '10.0.0.1', description: 'b', created: 2 }] }, severity: 'Warning', says: /lists 10\.0\.0\.1 2 times \(as "10\.0\.0\.1\/32", "10\.0\.0\.1"\).*kept the first, description "a"; ignored "b"/ },
    { name: 'one IPv6 address in two spellings', reply: { Ok: [{ ip: '2001:DB8::1', description: 'a', created: 1 }, { ip: '2001:db8:0::1', description: 'a', created: 2 }] }, severity: 'Warning', says: /lists 2001:db8::1 2 times .*all with the same description/ },
    { name: 'a 5 MB description', reply: one({ description: 'd'.repeat(5 * 1024 * 1024) }), severity: 'Warning', says: /description is 5242880 characters long; cut to its first 1024 \(Ok\[0\]\.description\)/ },
    { name: 'created: null', reply: one({ created: null }), severity: 'Error', says: /Ok\[0\]\.created is null; expected whole epoch seconds/ },
    { name: 'created: 1e308', reply: one({ created: 1e308 }), severity: 'Error', says: /Ok\[0\]\.created is 1e\+308; expected whole epoch seconds/ },
    { name: 'created not whole', reply: one({ created: 1_700_000_000.5 }), severity: 'Error', says: /Ok\[0\]\.created is 1700000000\.5; expected whole epoch seconds/ },
    { name: 'created as text', reply: one({ created: '1700000000' }), severity: 'Error', says: /Ok\[0\]\.created is "1700000000"; expected whole epoch seconds/ },
    { name: 'created missing', reply: { Ok: [{ ip: '192.0.2.1', description: 'x' }] }, severity: 'Error', says: /Ok\[0\]\.created is missing; expected whole epoch seconds/ },
    { name: 'expires negative', reply: one({ expires: -5 }), severity: 'Error', says: /Ok\[0\]\.expires is -5; expected whole epoch seconds/ },
    { name: 'an ip that is not an address', reply: one({ ip: '10.0.0.256' }), severity: 'Error', says: /Ok\[0\]\.ip "10\.0\.0\.256" is not an IP address or CIDR: octet 256 is above 255/ },
    { name: 'an ip with host bits', reply: one({ ip: '10.0.0.1/8' }), severity: 'Error', says: /Ok\[0\]\.ip "10\.0\.0\.1\/8" is not an IP address or CIDR: host bits/ },
    { name: 'a 1 MB ip', reply: one({ ip: '9'.repeat(1_000_000) }), severity: 'Error', says: /Ok\[0\]\.ip "9{100}"\.\.\. \(1000000 characters\) is not an IP address or CIDR/ },
    { name: 'a description that is a number', reply: one({ description: 7 }), severity: 'Error', says: /Ok\[0\] has a "description" that is not text/ },
    { name: 'an Error text with terminal escapes', reply: { Error: '\u001b[2Jdatabase\u009b down\u202E' }, severity: 'Error', says: /"\\u001b\[2Jdatabase\\u009b down\\u202e"/ },
  ];
  const tenantOf = (index: number) => `svc_case_${String(index + 1).padStart(2, '0')}`;
  const addressOfReply = (index: number) => `svc_blacklist.${tenantOf(index)}`;
  /** Everything terraform printed, by the address of each diagnostic's `with` line. */
  const byAddress = (result: TerraformResult, severity: 'Error' | 'Warning'): Map<string, string[]> => {
    const found = new Map<string, string[]>();
    for (const block of `${result.stdout}\n${result.stderr}`.split(/^(?=(?:│ )?(?:Error|Warning): )/m).slice(1)) {
      if (!new RegExp(`^(?:│ )?${severity}: `).test(block)) continue;
      const address = /^\s*(?:│ )?\s*with (\S+?),$/m.exec(block)?.[1] ?? '(no address)';
      found.set(address, [...(found.get(address) ?? []), block.replace(/\s*\n\s*(?:│\s*)?/g, ' ')]);
    }
    return found;
  };
  let service: FakeService | undefined;
  let plan: TerraformResult | undefined;

  beforeAll(async () => {
    const tenants = REPLY_CASES.map((_testCase, index) => tenantOf(index));
    service = await startFakeService((request) => {
      if (request.body.command === 'login') return { body: { Ok: { status: true, token: 'corpus-session-token' } } };
      if (request.body.command === 'list') return { body: { Ok: tenants.map((name) => ({ name })) } };
      const index = tenants.indexOf(String(request.body.customer_name));
      if (request.body.command === 'list_blacklist' && index >= 0) return { body: REPLY_CASES[index].reply };
      return { body: { Error: `not scripted: ${String(request.body.command)}` } };
    });
    const workspace = harness().createWorkspace('bad-replies', 'corpus-key-unused-by-the-fake');
    const blocks = REPLY_CASES.map((_testCase, index) =>
      [`resource "svc_blacklist" "${tenantOf(index)}" {`, `  tenant  = "${tenantOf(index)}"`, `  entries = { "198.51.100.1" = "mine" }`, '}', ''].join('\n'),
    ).join('\n');
    workspace.write(providerBlock({ baseUrl: service.url, tenant: tenants[0], extra: { max_retries: '0' } }) + blocks);
    await workspace.init();
    plan = await workspace.terraform(['plan', '-input=false', '-no-color']);
    printFigures('bad service replies', {
      cases: REPLY_CASES.length,
      plan_exit_code: plan.code,
      output_bytes: plan.stdout.length + plan.stderr.length,
    });
  }, 120_000);

  afterAll(async () => {
    await service?.close();
  });

  test('the plan fails (some replies cannot be used) and sends no write', () => {
    expect(plan?.code).toBe(1);
    expect(service!.requests.map((request) => String(request.body.command)).filter((command) => !READ_COMMANDS.test(command))).toEqual([]);
  });

  test('no raw control or bidi character reaches terraform output, and a 5 MB value is not printed whole', () => {
    const output = `${plan!.stdout}${plan!.stderr}`;
    expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(output.length).toBeLessThan(200_000);
  });

  test.each(REPLY_CASES.map((testCase, index) => [testCase.name, testCase.severity, testCase, index] as const))('%s: %s naming the field', (_name, severity, testCase, index) => {
    const address = addressOfReply(index);
    const diagnostics = byAddress(plan!, severity).get(address) ?? [];
    const matching = diagnostics.filter((text) => testCase.says.test(text));
    expect({ address, says: testCase.says.source, found: matching.length > 0 ? 'yes' : diagnostics }).toEqual({ address, says: testCase.says.source, found: 'yes' });
  });
});
