import { TerraformLocal, TerraformOutput } from 'cdktf';
import {
  PolicyFileError,
  SecurityPolicy,
  SecurityPolicyPropError,
  entryResourceName,
  type SecurityPolicyProps,
} from '../../modules/security-policy';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { svcStack, synthJson, thrownBy, useTemporaryWorkingDirectory, type SynthesizedStack } from './support';

const workingDirectory = useTemporaryWorkingDirectory();

function synthPolicy(props: SecurityPolicyProps): SynthesizedStack {
  const stack = svcStack();
  new SecurityPolicy(stack, 'security-policy', props);
  return synthJson(stack);
}

describe('entryResourceName', () => {
  test.each([
    ['an IPv4 address', 'blacklist', '203.0.113.9', 'blacklist_203_0_113_9'],
    ['an IPv4 range', 'whitelist', '198.51.100.0/24', 'whitelist_198_51_100_0_24'],
    ['an IPv6 address', 'blocklist', '2001:db8::1', 'blocklist_2001_db8__1'],
    ['an IPv6 range', 'blacklist', '2001:db8::/32', 'blacklist_2001_db8___32'],
    ['an IPv4-mapped address', 'blacklist', '::ffff:192.0.2.1', 'blacklist___ffff_192_0_2_1'],
  ] as const)('names %s from its canonical spelling', (_name, list, canonical, expected) => {
    expect(entryResourceName(list, canonical)).toBe(expected);
    expect(expected).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/);
  });
});

describe('SecurityPolicy: per-entry lists', () => {
  test('declares one resource per inline and file entry, named from the canonical address', () => {
    workingDirectory.write('policy/blacklist.yaml', 'entries:\n  - ip: 198.51.100.0/24\n    description: botnet range\n  - ip: 2001:DB8::1\n');
    const json = synthPolicy({
      blacklist: { entries: [{ ip: '203.0.113.9/32', description: 'scanner' }], files: ['policy/blacklist.yaml'] },
      blocklist: { entries: [{ ip: '192.0.2.7' }] },
    });
    expect(json.resource.svc_blacklist_entry).toEqual({
      blacklist_203_0_113_9: { ip: '203.0.113.9', description: 'scanner' },
      blacklist_198_51_100_0_24: { ip: '198.51.100.0/24', description: 'botnet range' },
      blacklist_2001_db8__1: { ip: '2001:db8::1' },
    });
    expect(json.resource.svc_blocklist_entry).toEqual({ blocklist_192_0_2_7: { ip: '192.0.2.7' } });
    expect(json.resource.svc_whitelist_entry).toBeUndefined();
    expect(json.resource.svc_blacklist).toBeUndefined();
  });

  test('reordering and respelling a file changes nothing in the synthesized stack', () => {
    workingDirectory.write('policy/a.yaml', '- ip: 203.0.113.9\n  description: x\n- ip: 198.51.100.0/24\n');
    workingDirectory.write('policy/b.yaml', '- ip: 198.51.100.0/24\n- ip: 203.0.113.9/32\n  description: x\n');
    const first = synthPolicy({ whitelist: { files: ['policy/a.yaml'] } });
    const second = synthPolicy({ whitelist: { files: ['policy/b.yaml'] } });
    expect(JSON.stringify(second.resource)).toBe(JSON.stringify(first.resource));
  });

  test('passes the tenant and an aliased provider to every resource', () => {
    const stack = svcStack();
    const other = new SvcProvider(stack, 'svc-globex', { alias: 'globex', tenant: 'globex' });
    new SecurityPolicy(stack, 'security-policy', {
      provider: other,
      tenant: 'globex',
      whitelist: { entries: [{ ip: '192.0.2.1' }] },
      blacklist: { resources: 'whole-list', entries: [] },
      tenantSso: { name: 'globex', enabled: false },
    });
    const json = synthJson(stack);
    expect(json.resource.svc_whitelist_entry.whitelist_192_0_2_1).toEqual({ ip: '192.0.2.1', tenant: 'globex', provider: 'svc.globex' });
    expect(json.resource.svc_blacklist.blacklist).toEqual({ entries: {}, tenant: 'globex', provider: 'svc.globex' });
    expect(json.resource.svc_tenant_sso.tenant).toEqual({ name: 'globex', enabled: false, provider: 'svc.globex' });
  });

  test('the default provider passed explicitly is not named: synth --hcl would write provider = "svc", a deprecated quoted reference', () => {
    const stack = svcStack();
    const defaultProvider = stack.node.children.find((child) => child instanceof SvcProvider) as SvcProvider;
    new SecurityPolicy(stack, 'security-policy', {
      provider: defaultProvider,
      whitelist: { entries: [{ ip: '192.0.2.1' }] },
      blacklist: { resources: 'whole-list', entries: [] },
      tenantSso: { name: 'acme', enabled: false },
    });
    const json = synthJson(stack);
    expect(json.resource.svc_whitelist_entry.whitelist_192_0_2_1).toEqual({ ip: '192.0.2.1' });
    expect(json.resource.svc_blacklist.blacklist).toEqual({ entries: {} });
    expect(json.resource.svc_tenant_sso.tenant).toEqual({ name: 'acme', enabled: false });
  });

  test('a provider that is not svc (the stack\'s aws one) is refused, naming it', () => {
    const stack = svcStack();
    const aws = new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const error = thrownBy(() => new SecurityPolicy(stack, 'security-policy', { provider: aws as never, blacklist: { entries: [{ ip: '203.0.113.9' }] } }));
    expect(error.code).toBe('invalid_security_policy_prop');
    expect(error.message).toBe('stack/security-policy: provider = "the aws provider stack/aws": is not an svc provider; pass the stack\'s SvcProvider (from svc-prevent/provider), or leave provider out to use the default one');
  });

  test('without tenant and provider, resources use the default provider and its tenant', () => {
    const json = synthPolicy({ whitelist: { entries: [{ ip: '192.0.2.1' }] } });
    expect(json.resource.svc_whitelist_entry.whitelist_192_0_2_1).toEqual({ ip: '192.0.2.1' });
  });
});

describe('SecurityPolicy: whole-list resources', () => {
  test.each([
    ['authoritative', 'authoritative'],
    ['additive', 'additive'],
    ['no mode (the provider\'s default, authoritative)', undefined],
  ] as const)('declares one resource with an entries map, mode %s', (_name, mode) => {
    workingDirectory.write('policy/whitelist.json', '[{"ip": "2001:DB8::/32", "description": "lab"}]');
    const json = synthPolicy({
      whitelist: { resources: 'whole-list', ...(mode === undefined ? {} : { mode }), entries: [{ ip: '192.0.2.0/28', description: 'office' }, { ip: '198.51.100.20' }], files: ['policy/whitelist.json'] },
    });
    expect(json.resource.svc_whitelist).toEqual({
      whitelist: {
        entries: { '192.0.2.0/28': 'office', '198.51.100.20': '', '2001:db8::/32': 'lab' },
        ...(mode === undefined ? {} : { mode }),
      },
    });
    expect(json.resource.svc_whitelist_entry).toBeUndefined();
  });
});

describe('SecurityPolicy: SSO', () => {
  test('declares tenant and channel SSO, named tenant and channel_<name>', () => {
    const json = synthPolicy({
      tenantSso: { name: 'acme-corp', enabled: true, required: true, samlMetadataUrl: 'https://idp.example.com/metadata' },
      channelSso: [
        { name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/main' },
        { name: 'partner portal', enabled: false },
      ],
    });
    expect(json.resource.svc_tenant_sso).toEqual({
      tenant: { name: 'acme-corp', enabled: true, required: true, saml_metadata_url: 'https://idp.example.com/metadata' },
    });
    expect(json.resource.svc_channel_sso).toEqual({
      channel_main: { name: 'main', enabled: true, saml_metadata_url: 'https://idp.example.com/main' },
      'channel_partner_portal': { name: 'partner portal', enabled: false },
    });
  });

  test('channelServiceProvider gives the svc_channel_sso service-provider URLs as references', () => {
    const stack = svcStack();
    const policy = new SecurityPolicy(stack, 'security-policy', { channelSso: [{ name: 'main', enabled: false }] });
    const urls = policy.channelServiceProvider('main');
    new TerraformOutput(stack, 'entity', { value: urls.entityId });
    new TerraformOutput(stack, 'acs', { value: urls.acsUrl });
    new TerraformOutput(stack, 'metadata', { value: urls.metadataUrl });
    const json = synthJson(stack);
    expect(json.output).toEqual({
      entity: { value: '${svc_channel_sso.channel_main.sp_entity_id}' },
      acs: { value: '${svc_channel_sso.channel_main.sp_acs_url}' },
      metadata: { value: '${svc_channel_sso.channel_main.sp_metadata_url}' },
    });
    const error = thrownBy(() => policy.channelServiceProvider('mian'));
    expect(error.message).toBe('stack/security-policy: channelServiceProvider(name) = "mian": is not in channelSso ("main"); declare the channel\'s SSO first');
  });
});

describe('SecurityPolicy: addEntries', () => {
  test('literal and token entries on a per-entry list become resources; a token entry is named from its source', () => {
    const stack = svcStack();
    const natIp = new TerraformLocal(stack, 'nat_ip', '192.0.2.1');
    const policy = new SecurityPolicy(stack, 'security-policy', { whitelist: { entries: [{ ip: '198.51.100.20' }] } });
    policy.addEntries('whitelist', [{ ip: natIp.asString, description: 'egress' }, { ip: '203.0.113.10' }], 'egress');
    policy.addEntries('whitelist', [{ ip: natIp.asString }], 'egress');
    policy.addEntries('whitelist', [{ ip: natIp.asString, name: 'nat a' }], 'egress');
    const json = synthJson(stack);
    expect(json.resource.svc_whitelist_entry).toEqual({
      whitelist_198_51_100_20: { ip: '198.51.100.20' },
      whitelist_egress_0: { ip: '${local.nat_ip}', description: 'egress' },
      whitelist_203_0_113_10: { ip: '203.0.113.10' },
      whitelist_egress_1: { ip: '${local.nat_ip}' },
      whitelist_nat_a: { ip: '${local.nat_ip}' },
    });
  });

  test('on a whole-list list the entries go into its map, token keys included (a separate resource would be removed)', () => {
    const stack = svcStack();
    const natIp = new TerraformLocal(stack, 'nat_ip', '192.0.2.1');
    const policy = new SecurityPolicy(stack, 'security-policy', { whitelist: { resources: 'whole-list', entries: [{ ip: '198.51.100.20', description: 'partner' }] } });
    policy.addEntries('whitelist', [{ ip: natIp.asString, description: 'egress' }, { ip: '203.0.113.10' }], 'egress');
    const json = synthJson(stack);
    expect(json.resource.svc_whitelist.whitelist.entries).toEqual({ '198.51.100.20': 'partner', '${local.nat_ip}': 'egress', '203.0.113.10': '' });
    expect(json.resource.svc_whitelist_entry).toBeUndefined();
  });

  test('addEntryMap: a whole list merges the map after a local of its declared entries; a per-entry list gets one for_each resource', () => {
    const stack = svcStack();
    const map = new TerraformLocal(stack, 'more', { '192.0.2.5': 'more' });
    const policy = new SecurityPolicy(stack, 'security-policy', {
      whitelist: { resources: 'whole-list', entries: [{ ip: '198.51.100.20', description: 'partner' }] },
      blocklist: {},
    });
    policy.addEntryMap('whitelist', map.asAnyMap, 'more');
    policy.addEntries('whitelist', [{ ip: '203.0.113.10' }], 'later');
    policy.addEntryMap('blocklist', map.asAnyMap, 'more');
    const json = synthJson(stack);
    expect(json.locals?.whitelist_entries).toEqual({ '198.51.100.20': 'partner', '203.0.113.10': '' });
    expect(json.resource.svc_whitelist.whitelist.entries).toBe('${merge(local.whitelist_entries, local.more)}');
    expect(json.resource.svc_blocklist_entry.blocklist_more).toEqual({ for_each: '${local.more}', ip: '${each.key}', description: '${each.value}' });
    const error = thrownBy(() => policy.addEntryMap('blocklist', map.asAnyMap, 'more'));
    expect(error.message).toContain('addEntryMap(source) = "more": was already used for the blocklist');
  });

  test('addEntryMap refuses a literal map (its addresses would be neither checked nor named), pointing at addEntries', () => {
    const stack = svcStack();
    const policy = new SecurityPolicy(stack, 'security-policy', { whitelist: {} });
    const error = thrownBy(() => policy.addEntryMap('whitelist', { '10.0.0.300': 'typo' }, 'literal'));
    expect(error.code).toBe('invalid_security_policy_prop');
    expect(error.message).toContain('addEntryMap(entries) = {"10.0.0.300":"typo"}: is a literal map; give literal entries to addEntries');
    expect(synthJson(stack).resource?.svc_whitelist_entry).toBeUndefined();
  });

  test('descriptions escape ${ and %{, which Terraform\'s JSON syntax would read as templates', () => {
    workingDirectory.write('policy/blacklist.yaml', '- ip: 203.0.113.9\n  description: "ticket ${SEC-1} %{if} $5"\n');
    const json = synthPolicy({ blacklist: { files: ['policy/blacklist.yaml'] }, whitelist: { resources: 'whole-list', entries: [{ ip: '192.0.2.1', description: 'a ${b}' }] } });
    expect(json.resource.svc_blacklist_entry.blacklist_203_0_113_9.description).toBe('ticket $${SEC-1} %%{if} $5');
    expect(json.resource.svc_whitelist.whitelist.entries).toEqual({ '192.0.2.1': 'a $${b}' });
  });

  test('a list without props gets per-entry resources', () => {
    const stack = svcStack();
    const policy = new SecurityPolicy(stack, 'security-policy', {});
    policy.addEntries('blocklist', [{ ip: '203.0.113.10' }]);
    expect(synthJson(stack).resource.svc_blocklist_entry).toEqual({ blocklist_203_0_113_10: { ip: '203.0.113.10' } });
    expect(policy.listResources('blocklist')).toBe('per-entry');
  });

  test.each([
    ['a bad literal address', [{ ip: '203.0.113.300' }], 'invalid_security_policy_prop', 'stack/security-policy: egress[0].ip = "203.0.113.300": is not an IPv4 or IPv6 address or CIDR range (octet 300 is above 255); write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32'],
    ['an address the list already has', [{ ip: '198.51.100.20/32' }], 'duplicate_policy_entry', 'stack/security-policy: egress[0].ip = "198.51.100.20/32": is the same address as "198.51.100.20" at stack/security-policy: whitelist.entries[0] (both are 198.51.100.20 on the whitelist); keep one of the two entries'],
    ['a description that is not text', [{ ip: '203.0.113.1', description: 7 }], 'invalid_security_policy_prop', 'stack/security-policy: egress[0].description = 7: expected a string, or leave it out'],
  ])('refuses %s', (_name, entries, code, message) => {
    const policy = new SecurityPolicy(svcStack(), 'security-policy', { whitelist: { entries: [{ ip: '198.51.100.20' }] } });
    const error = thrownBy(() => policy.addEntries('whitelist', entries as never, 'egress'));
    expect(error).toBeInstanceOf(SecurityPolicyPropError);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });
});

describe('SecurityPolicy: wrong props', () => {
  const cases: ReadonlyArray<[string, SecurityPolicyProps, string, string]> = [
    ['a bad inline address', { blacklist: { entries: [{ ip: '203.0.113.9' }, { ip: '10.0.0.1/8' }] } }, 'invalid_security_policy_prop', 'stack/security-policy: blacklist.entries[1].ip = "10.0.0.1/8": is not an IPv4 or IPv6 address or CIDR range (host bits are set; the network of this range is 10.0.0.0/8)'],
    ['a duplicate inline address', { blocklist: { entries: [{ ip: '2001:db8::1' }, { ip: '2001:DB8::1' }] } }, 'duplicate_policy_entry', 'stack/security-policy: blocklist.entries[1].ip = "2001:DB8::1": is the same address as "2001:db8::1" at stack/security-policy: blocklist.entries[0]'],
    ['mode on a per-entry list', { whitelist: { mode: 'additive', entries: [] } }, 'invalid_security_policy_prop', 'stack/security-policy: whitelist.mode = "additive": applies to whole-list resources only'],
    ['an unknown mode', { whitelist: { resources: 'whole-list', mode: 'owned' as never } }, 'invalid_security_policy_prop', 'stack/security-policy: whitelist.mode = "owned": expected "authoritative" or "additive"'],
    ['an unknown resources style', { whitelist: { resources: 'each' as never } }, 'invalid_security_policy_prop', 'stack/security-policy: whitelist.resources = "each": expected "per-entry" or "whole-list"'],
    ['an empty tenant', { tenant: '' }, 'invalid_security_policy_prop', 'stack/security-policy: tenant = "": is empty'],
    ['required SSO that is off', { tenantSso: { name: 'acme', enabled: false, required: true } }, 'invalid_security_policy_prop', 'stack/security-policy: tenantSso.required = true: needs enabled = true'],
    ['an http metadata URL', { channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'http://idp.example.com/m' }] }, 'invalid_security_policy_prop', 'stack/security-policy: channelSso[0].samlMetadataUrl = "http://idp.example.com/m": is not an https:// URL'],
    ['a metadata URL with a password (not echoed)', { channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://admin:Pw0rd9@idp.example.com/m' }] }, 'invalid_security_policy_prop', 'stack/security-policy: channelSso[0].samlMetadataUrl = "https://[REDACTED]@idp.example.com/m": holds a user name or password'],
    ['a metadata URL with a newline', { tenantSso: { name: 'acme', enabled: true, samlMetadataUrl: 'https://idp.example.com/meta\ndata' } }, 'invalid_security_policy_prop', 'stack/security-policy: tenantSso.samlMetadataUrl = "https://idp.example.com/meta\\ndata": holds white space or a control character (U+000A'],
    ['a description with an ESC sequence', { blacklist: { entries: [{ ip: '192.0.2.1', description: 'scan\u001b[2Jner' }] } }, 'invalid_security_policy_prop', 'stack/security-policy: blacklist.entries[0].description = "scan\\u001b[2Jner": holds the control character U+001B'],
    ['enabled SSO without a metadata URL', { channelSso: [{ name: 'main', enabled: true }] }, 'invalid_security_policy_prop', 'stack/security-policy: channelSso[0].samlMetadataUrl = undefined: is not set, and enabled SSO needs it'],
    ['a channel named twice', { channelSso: [{ name: 'main', enabled: false }, { name: 'main', enabled: false }] }, 'invalid_security_policy_prop', 'stack/security-policy: channelSso[1].name = "main": is named twice in channelSso'],
    ['two channels with one Terraform name', { channelSso: [{ name: 'partner portal', enabled: false }, { name: 'partner_portal', enabled: false }] }, 'policy_resource_name_clash', 'stack/security-policy: channelSso[1].name = "partner_portal": gives the Terraform name svc_channel_sso.channel_partner_portal, as channelSso[0] ("partner portal") does (names keep only letters, digits, _ and -); declare one of the two in a second SecurityPolicy with its own namePrefix'],
    ['SSO enabled given as text', { tenantSso: { name: 'acme', enabled: 'true' as never } }, 'invalid_security_policy_prop', 'stack/security-policy: tenantSso.enabled = "true": expected true or false'],
    ['SSO required given as text', { channelSso: [{ name: 'main', enabled: true, required: 'yes' as never, samlMetadataUrl: 'https://idp.example.com/m' }] }, 'invalid_security_policy_prop', 'stack/security-policy: channelSso[0].required = "yes": expected true or false, or leave it out'],
    ['SSO without enabled', { tenantSso: { name: 'acme' } as never }, 'invalid_security_policy_prop', 'stack/security-policy: tenantSso.enabled = undefined: is missing; give true or false'],
    ['a bad name prefix', { namePrefix: '1st' }, 'invalid_security_policy_prop', 'stack/security-policy: namePrefix = "1st": must start with a letter or _'],
    // Props TypeScript cannot check (built elsewhere, or JavaScript): dropped silently, a typo would declare an empty list.
    ['an unknown list', { greylist: { entries: [] } } as never, 'invalid_security_policy_prop', 'stack/security-policy: greylist = "(unknown prop)": is not a SecurityPolicy prop; expected one of provider, tenant, blacklist'],
    ['a typo in a list prop (file for files)', { blacklist: { file: ['policy/blacklist.yaml'] } } as never, 'invalid_security_policy_prop', 'stack/security-policy: blacklist.file = ["policy/blacklist.yaml"]: is not a list prop; expected resources, mode, entries, files'],
    ['files given as one string', { blacklist: { files: 'policy/blacklist.yaml' } } as never, 'invalid_security_policy_prop', 'stack/security-policy: blacklist.files = "policy/blacklist.yaml": expected a list of entry-file paths'],
    ['an empty file path', { blacklist: { files: [''] } }, 'invalid_security_policy_prop', 'stack/security-policy: blacklist.files[0] = "": expected the path of a .yaml, .yml or .json entry file'],
    ['entries given as one object', { whitelist: { entries: { ip: '203.0.113.9' } } } as never, 'invalid_security_policy_prop', 'stack/security-policy: whitelist.entries = {"ip":"203.0.113.9"}: expected a list of { ip, description? }'],
    ['a list given as an array', { whitelist: [{ ip: '203.0.113.9' }] } as never, 'invalid_security_policy_prop', 'stack/security-policy: whitelist = [{"ip":"203.0.113.9"}]: expected { resources?, mode?, entries?, files? }'],
    ['channelSso given as one object', { channelSso: { name: 'main', enabled: false } } as never, 'invalid_security_policy_prop', 'stack/security-policy: channelSso = {"name":"main","enabled":false}: expected a list of { name, enabled'],
  ];
  test.each(cases)('refuses %s, naming the construct path, the prop and the value', (_name, props, code, message) => {
    const error = thrownBy(() => synthPolicy(props));
    expect(error).toBeInstanceOf(SecurityPolicyPropError);
    expect(error.code).toBe(code);
    expect(error.message.startsWith(message)).toBe(true);
  });

  test('an inline entry duplicated in a file names the file line and the inline entry', () => {
    workingDirectory.write('policy/blacklist.yaml', '- ip: 198.51.100.1\n- ip: 203.0.113.9\n');
    const error = thrownBy(() => synthPolicy({ blacklist: { entries: [{ ip: '203.0.113.9/32' }], files: ['policy/blacklist.yaml'] } }));
    expect(error).toBeInstanceOf(PolicyFileError);
    expect(error.message).toBe(
      'policy/blacklist.yaml:2: [1].ip: "203.0.113.9" is the same address as "203.0.113.9/32" at stack/security-policy: blacklist.entries[0] (both are 203.0.113.9 on the blacklist); keep one of the two entries',
    );
  });

  test('two policies of one stack need their own namePrefix', () => {
    const stack = svcStack();
    new SecurityPolicy(stack, 'acme', { blacklist: { entries: [{ ip: '203.0.113.9' }] } });
    const error = thrownBy(() => new SecurityPolicy(stack, 'globex', { tenant: 'globex', blacklist: { entries: [{ ip: '203.0.113.9' }] } }));
    expect(error.code).toBe('policy_resource_name_clash');
    expect(error.message).toContain('svc_blacklist_entry.blacklist_203_0_113_9 is already declared by stack/acme in this stack');
    new SecurityPolicy(stack, 'globex-prefixed', { tenant: 'globex', namePrefix: 'globex_', blacklist: { entries: [{ ip: '203.0.113.9' }] } });
    expect(Object.keys(synthJson(stack).resource.svc_blacklist_entry)).toEqual(['blacklist_203_0_113_9', 'globex_blacklist_203_0_113_9']);
  });
});
