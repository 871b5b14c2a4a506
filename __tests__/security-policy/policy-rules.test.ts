/**
 * The policy rules (SVC-POLICY-1..5) through real synth: for each rule a compliant policy, a
 * non-compliant one and the same one acknowledged, read from the annotations synth records;
 * errors failing app.synth(); acknowledgements refused without a reason; token entries skipped;
 * and the shipped example policy passing clean.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import type { IConstruct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { Vpc } from '@cdktf/provider-aws/lib/vpc';
import { Subnet } from '@cdktf/provider-aws/lib/subnet';
import { Eip } from '@cdktf/provider-aws/lib/eip';
import { DataAwsEip } from '@cdktf/provider-aws/lib/data-aws-eip';
import { CATCH_ALL_RANGE, POLICY_RULES, SecurityPolicy, SecurityPolicyRules, type PolicyRule, type SecurityPolicyProps } from '../../modules/security-policy';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { buildApp } from '../../main';
import { svcStack, thrownBy } from './support';

interface Finding {
  readonly level: 'error' | 'warning' | 'info';
  readonly path: string;
  readonly message: string;
}

const LEVELS: Record<string, Finding['level']> = { '@cdktf/error': 'error', '@cdktf/warn': 'warning', '@cdktf/info': 'info' };

function findingsOf(scope: IConstruct): Finding[] {
  return scope.node.findAll().flatMap((node) =>
    node.node.metadata
      .filter((entry) => entry.type in LEVELS)
      .map((entry) => ({ level: LEVELS[entry.type]!, path: node.node.path, message: String(entry.data) })),
  );
}

/** Declares a policy (and whatever else `extra` adds), acknowledges, synthesizes, returns the findings. */
function synthPolicy(props: SecurityPolicyProps, options: { acknowledge?: [string, string]; extra?: (stack: TerraformStack) => void } = {}): Finding[] {
  const stack = svcStack();
  options.extra?.(stack);
  const policy = new SecurityPolicy(stack, 'security-policy', props);
  if (options.acknowledge) policy.acknowledge(...options.acknowledge);
  Testing.synth(stack);
  return findingsOf(stack);
}

const OWN = { vpcCidr: '10.0.0.0/16', sensorCidrs: ['10.20.0.0/16'], egressAddresses: ['203.0.113.50'] };

interface RuleCase {
  readonly rule: string;
  readonly level: 'error' | 'warning';
  readonly compliant: SecurityPolicyProps;
  readonly nonCompliant: SecurityPolicyProps;
  /** Every finding the non-compliant policy gives, in order. */
  readonly messages: readonly string[];
}

const CASES: readonly RuleCase[] = [
  {
    rule: 'SVC-POLICY-1',
    level: 'error',
    compliant: { blacklist: { entries: [{ ip: '198.51.100.0/24' }] }, whitelist: { entries: [{ ip: '192.0.2.0/28' }] } },
    nonCompliant: { blacklist: { entries: [{ ip: '0.0.0.0/0' }] }, whitelist: { entries: [{ ip: '::/0' }] } },
    messages: [
      '[SVC-POLICY-1 catch-all range] blacklist entry "0.0.0.0/0" (stack/security-policy: blacklist.entries[0]) is a catch-all range: it denies every IPv4 address. List the addresses or ranges you mean instead.',
      '[SVC-POLICY-1 catch-all range] whitelist entry "::/0" (stack/security-policy: whitelist.entries[0]) is a catch-all range: it exempts every IPv6 address. List the addresses or ranges you mean instead.',
    ],
  },
  {
    rule: 'SVC-POLICY-2',
    level: 'warning',
    compliant: { blocklist: { entries: [{ ip: '100.0.0.0/8' }, { ip: '2001:db8::/32' }] }, whitelist: { entries: [{ ip: '172.16.0.0/16' }, { ip: '3fff:cafe::/48' }] } },
    nonCompliant: { blocklist: { entries: [{ ip: '100.0.0.0/7' }, { ip: '2001:db8::/31' }] }, whitelist: { entries: [{ ip: '172.16.0.0/15' }, { ip: '2001:db8:ca00::/40' }] } },
    messages: [
      '[SVC-POLICY-2 broad range] blocklist entry "100.0.0.0/7" (stack/security-policy: blocklist.entries[0]) is broader than /8, the widest IPv4 range expected on the blocklist: it denies 33554432 addresses. Narrow it, or acknowledge the rule with the reason.',
      '[SVC-POLICY-2 broad range] blocklist entry "2001:db8::/31" (stack/security-policy: blocklist.entries[1]) is broader than /32, the widest IPv6 range expected on the blocklist: it denies 2^97 addresses. Narrow it, or acknowledge the rule with the reason.',
      '[SVC-POLICY-2 broad range] whitelist entry "172.16.0.0/15" (stack/security-policy: whitelist.entries[0]) is broader than /16, the widest IPv4 range expected on the whitelist: it exempts from blocking 131072 addresses. Narrow it, or acknowledge the rule with the reason.',
      '[SVC-POLICY-2 broad range] whitelist entry "2001:db8:ca00::/40" (stack/security-policy: whitelist.entries[1]) is broader than /48, the widest IPv6 range expected on the whitelist: it exempts from blocking 2^88 addresses. Narrow it, or acknowledge the rule with the reason.',
    ],
  },
  {
    rule: 'SVC-POLICY-3',
    level: 'warning',
    compliant: { blacklist: { entries: [{ ip: '198.51.100.0/25' }] }, blocklist: { entries: [{ ip: '203.0.113.9' }] }, whitelist: { entries: [{ ip: '198.51.100.128/25' }, { ip: '203.0.113.10' }] } },
    nonCompliant: {
      blacklist: { entries: [{ ip: '198.51.100.0/24' }] },
      blocklist: { entries: [{ ip: '203.0.113.9' }, { ip: '2001:db8::1' }] },
      whitelist: { entries: [{ ip: '198.51.100.20' }, { ip: '203.0.113.0/24' }, { ip: '2001:db8::1/128' }] },
    },
    messages: [
      '[SVC-POLICY-3 allowed and denied] whitelist entry "198.51.100.20" (stack/security-policy: whitelist.entries[0]) lies inside blacklist entry "198.51.100.0/24" (stack/security-policy: blacklist.entries[0]): the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason.',
      '[SVC-POLICY-3 allowed and denied] whitelist entry "2001:db8::1/128" (stack/security-policy: whitelist.entries[2]) is the same as blocklist entry "2001:db8::1" (stack/security-policy: blocklist.entries[1]): the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason.',
      '[SVC-POLICY-3 allowed and denied] whitelist entry "203.0.113.0/24" (stack/security-policy: whitelist.entries[1]) contains blocklist entry "203.0.113.9" (stack/security-policy: blocklist.entries[0]): the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason.',
    ],
  },
  {
    rule: 'SVC-POLICY-4',
    level: 'warning',
    // The same address on two different lists is not redundant (SVC-POLICY-3 is not reported either: no whitelist).
    compliant: { blacklist: { entries: [{ ip: '198.51.100.0/25' }, { ip: '198.51.100.128/25' }] }, blocklist: { entries: [{ ip: '198.51.100.7' }] } },
    nonCompliant: { blacklist: { entries: [{ ip: '198.51.100.0/24' }, { ip: '198.51.100.0/25' }, { ip: '198.51.100.7' }] } },
    messages: [
      '[SVC-POLICY-4 redundant entry] blacklist entry "198.51.100.0/25" (stack/security-policy: blacklist.entries[1]) is already covered by "198.51.100.0/24" (stack/security-policy: blacklist.entries[0]) on the same list. Remove it, or acknowledge the rule with the reason.',
      '[SVC-POLICY-4 redundant entry] blacklist entry "198.51.100.7" (stack/security-policy: blacklist.entries[2]) is already covered by "198.51.100.0/24" (stack/security-policy: blacklist.entries[0]), "198.51.100.0/25" (stack/security-policy: blacklist.entries[1]) on the same list. Remove it, or acknowledge the rule with the reason.',
    ],
  },
  {
    rule: 'SVC-POLICY-5',
    level: 'error',
    // Own addresses on the whitelist are fine; deny entries next to them too.
    compliant: { blacklist: { entries: [{ ip: '10.1.0.0/16' }, { ip: '203.0.113.51' }] }, whitelist: { entries: [{ ip: '203.0.113.50' }] }, ownInfrastructure: OWN },
    nonCompliant: { blacklist: { entries: [{ ip: '10.0.0.0/8' }, { ip: '10.20.3.4' }] }, blocklist: { entries: [{ ip: '203.0.113.50' }] }, ownInfrastructure: OWN },
    messages: [
      '[SVC-POLICY-5 self-lockout] blacklist entry "10.0.0.0/8" (stack/security-policy: blacklist.entries[0]) denies addresses of the stack\'s own infrastructure: 10.20.0.0/16 (ownInfrastructure.sensorCidrs[0]), 10.0.0.0/16 (ownInfrastructure.vpcCidr). Remove or narrow the entry; blocking them cuts the platform off from itself.',
      '[SVC-POLICY-5 self-lockout] blacklist entry "10.20.3.4" (stack/security-policy: blacklist.entries[1]) denies addresses of the stack\'s own infrastructure: 10.20.0.0/16 (ownInfrastructure.sensorCidrs[0]). Remove or narrow the entry; blocking them cuts the platform off from itself.',
      '[SVC-POLICY-5 self-lockout] blocklist entry "203.0.113.50" (stack/security-policy: blocklist.entries[0]) denies addresses of the stack\'s own infrastructure: 203.0.113.50 (ownInfrastructure.egressAddresses[0]). Remove or narrow the entry; blocking them cuts the platform off from itself.',
    ],
  },
];

describe.each(CASES)('$rule', ({ rule, level, compliant, nonCompliant, messages }) => {
  test('a compliant policy has no finding', () => {
    expect(synthPolicy(compliant)).toEqual([]);
  });

  test(`a non-compliant policy gets one ${level} per problem, on the policy`, () => {
    const found = synthPolicy(nonCompliant).filter((finding) => finding.message.startsWith(`[${rule} `));
    expect(found).toEqual(messages.map((message) => ({ level, path: 'stack/security-policy', message })));
  });

  test('an acknowledged rule reports info carrying the reason instead', () => {
    const found = synthPolicy(nonCompliant, { acknowledge: [rule, '  accepted by the security team, SEC-42  '] }).filter((finding) => finding.message.startsWith(`[${rule} `));
    expect(found).toEqual(
      messages.map((message) => ({
        level: 'info',
        path: 'stack/security-policy',
        message: message.replace(/^(\[[^\]]+\]) /, '$1 acknowledged (accepted by the security team, SEC-42): '),
      })),
    );
  });
});

describe('self-lockout from the stack\'s own AWS resources', () => {
  const withInfrastructure = (stack: TerraformStack) => {
    new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const vpc = new Vpc(stack, 'vpc', { cidrBlock: '10.0.0.0/16' });
    new Subnet(stack, 'private', { vpcId: vpc.id, cidrBlock: '10.0.1.0/24', ipv6CidrBlock: '2001:db8:0:1::/64' });
    new Eip(stack, 'byoip', { address: '198.51.100.80' });
    new DataAwsEip(stack, 'egress', { publicIp: '203.0.113.60' });
    // Values known only at plan are not guessed.
    new Subnet(stack, 'computed', { vpcId: vpc.id, cidrBlock: new TerraformVariable(stack, 'cidr', { type: 'string' }).stringValue });
  };

  test.each([
    ['the VPC range', '10.0.0.0/8', 'aws_vpc.vpc cidr_block'],
    ['a subnet inside it', '10.0.1.9', 'aws_subnet.private cidr_block'],
    ['a subnet\'s IPv6 range', '2001:db8::/48', 'aws_subnet.private ipv6_cidr_block'],
    ['an Elastic IP with a literal address', '198.51.100.0/24', 'aws_eip.byoip address'],
    ['an Elastic IP read by its public_ip', '203.0.113.60', 'data.aws_eip.egress public_ip'],
  ])('%s', (_name, ip, where) => {
    const found = synthPolicy({ blacklist: { entries: [{ ip }] } }, { extra: withInfrastructure });
    expect(found.map((finding) => finding.level)).toEqual(['error']);
    expect(found[0]!.message).toContain(where);
  });

  test('an address next to them is fine', () => {
    expect(synthPolicy({ blacklist: { entries: [{ ip: '10.1.0.0/16' }, { ip: '198.51.100.81' }] } }, { extra: withInfrastructure })).toEqual([]);
  });
});

describe('how findings reach synth', () => {
  const CONTINUE = 'CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS';
  let outdir: string;
  let saved: string | undefined;
  beforeEach(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-rules-'));
    saved = process.env[CONTINUE];
    delete process.env[CONTINUE];
  });
  afterEach(() => {
    fs.rmSync(outdir, { recursive: true, force: true });
    if (saved === undefined) delete process.env[CONTINUE];
    else process.env[CONTINUE] = saved;
  });

  function policyApp(props: SecurityPolicyProps): { app: App; policy: SecurityPolicy } {
    const app = new App({ outdir, stackTraces: false });
    const stack = new TerraformStack(app, 'policy');
    new SvcProvider(stack, 'svc', {});
    return { app, policy: new SecurityPolicy(stack, 'security-policy', props) };
  }

  test('an error fails app.synth(), naming the policy and the rule', () => {
    const { app } = policyApp({ blacklist: { entries: [{ ip: '0.0.0.0/0' }] } });
    expect(() => app.synth()).toThrow(/Encountered Annotations with level "ERROR":\n\[policy\/security-policy\] \[SVC-POLICY-1 catch-all range\] blacklist entry "0.0.0.0\/0"/);
  });

  test('a warning does not, and an acknowledged error does not either; both show in the manifest', () => {
    const { app, policy } = policyApp({ blacklist: { entries: [{ ip: '0.0.0.0/0' }, { ip: '198.51.100.0/24' }] } });
    policy.acknowledge('SVC-POLICY-1', 'test tenant, locked down on purpose');
    app.synth();
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
    expect(manifest.stacks.policy.annotations).toEqual([
      expect.objectContaining({ level: '@cdktf/info', constructPath: 'policy/security-policy', message: expect.stringMatching(/^\[SVC-POLICY-1 catch-all range\] acknowledged \(test tenant, locked down on purpose\): blacklist entry "0.0.0.0\/0"/) }),
      expect.objectContaining({ level: '@cdktf/warn', constructPath: 'policy/security-policy', message: expect.stringMatching(/^\[SVC-POLICY-4 redundant entry\] blacklist entry "198.51.100.0\/24"/) }),
    ]);
  });

  test('each policy of a stack is checked once, however often the stack synthesizes', () => {
    const stack = svcStack();
    new SecurityPolicy(stack, 'acme', { blacklist: { entries: [{ ip: '0.0.0.0/0' }] } });
    new SecurityPolicy(stack, 'globex', { namePrefix: 'globex_', blacklist: { entries: [{ ip: '::/0' }] } });
    Testing.synth(stack);
    Testing.synth(stack);
    expect(findingsOf(stack).map((finding) => [finding.path, finding.message.slice(0, 50)])).toEqual([
      ['stack/acme', '[SVC-POLICY-1 catch-all range] blacklist entry "0.'],
      ['stack/globex', '[SVC-POLICY-1 catch-all range] blacklist entry "::'],
    ]);
  });

  test('entries added after construction (addEntries) are checked', () => {
    const stack = svcStack();
    const policy = new SecurityPolicy(stack, 'security-policy', { ownInfrastructure: OWN });
    policy.addEntries('blocklist', [{ ip: '10.0.0.9' }], 'wiring');
    Testing.synth(stack);
    expect(findingsOf(stack).map((finding) => finding.message)).toEqual([expect.stringMatching(/^\[SVC-POLICY-5 self-lockout\] blocklist entry "10.0.0.9" \(stack\/security-policy: wiring\[0\]\)/)]);
  });

  test('entries given as tokens are skipped, and so is a token in ownInfrastructure', () => {
    const stack = svcStack();
    const variable = (name: string) => new TerraformVariable(stack, name, { type: 'string' }).stringValue;
    const policy = new SecurityPolicy(stack, 'security-policy', { ownInfrastructure: { vpcCidr: variable('vpc'), sensorCidrs: [variable('sensor')] } });
    policy.addEntries('blacklist', [{ ip: variable('denied'), name: 'denied' }, { ip: '198.51.100.0/24' }], 'wiring');
    policy.addEntries('whitelist', [{ ip: variable('allowed'), name: 'allowed' }], 'wiring');
    Testing.synth(stack);
    expect(findingsOf(stack)).toEqual([]);
  });
});

describe('acknowledge()', () => {
  const policy = () => new SecurityPolicy(svcStack(), 'security-policy', {});

  test.each([
    ['an empty reason', 'SVC-POLICY-3', '', 'stack/security-policy: acknowledge(reason) = "": is empty; say why the SVC-POLICY-3 findings are acceptable (it is shown in every synth)'],
    ['a blank reason', 'SVC-POLICY-3', '  \n', 'acknowledge(reason) = "  \\n": is empty'],
    ['an unknown rule', 'SVC-POLICY-9', 'because', `acknowledge(ruleId) = "SVC-POLICY-9": is not a policy rule; expected one of ${POLICY_RULES.map((rule) => rule.id).join(', ')}`],
    ['an architecture rule', 'SVC-ARCH-3', 'because', 'is not a policy rule'],
  ])('refuses %s', (_name, ruleId, reason, message) => {
    const error = thrownBy(() => policy().acknowledge(ruleId, reason));
    expect(error.name).toBe('SecurityPolicyPropError');
    expect(error.message).toContain(message);
  });

  test('refuses a second reason for one rule', () => {
    const acknowledged = policy();
    acknowledged.acknowledge('SVC-POLICY-2', 'first');
    expect(() => acknowledged.acknowledge('SVC-POLICY-2', 'second')).toThrow('acknowledge(ruleId) = "SVC-POLICY-2": is already acknowledged ("first"); give one reason per rule');
  });
});

describe('ownInfrastructure', () => {
  test.each([
    [{ vpcCidr: '10.0.0.1/16' }, 'ownInfrastructure.vpcCidr = "10.0.0.1/16": is not an IPv4 or IPv6 address or CIDR range (host bits are set'],
    [{ sensorCidrs: ['10.20.0.0/16', 'sensors'] }, 'ownInfrastructure.sensorCidrs[1] = "sensors": is not an IPv4 or IPv6 address'],
    [{ egressAddresses: [42] }, 'ownInfrastructure.egressAddresses[0] = 42: expected a string'],
    [{ egressAddress: ['203.0.113.9'] }, 'ownInfrastructure.egressAddress = "(unknown prop)"'],
  ])('refuses %j', (own, message) => {
    expect(() => new SecurityPolicy(svcStack(), 'security-policy', { ownInfrastructure: own as never })).toThrow(message);
  });
});

describe('the shipped example policy (svc.config.json, policy/)', () => {
  const root = path.join(__dirname, '..', '..');
  const shippedConfig = path.join(root, 'svc.config.json');

  function findingsOfExample(configFile: string): { findings: Finding[]; policy: SecurityPolicy } {
    const app = buildApp(Testing.app(), configFile);
    const stack = app.node.findChild('security-policy') as TerraformStack;
    Testing.synth(stack);
    return { findings: findingsOf(stack), policy: stack.node.findChild('security-policy') as SecurityPolicy };
  }

  test('passes every rule clean', () => {
    const { findings, policy } = findingsOfExample(shippedConfig);
    expect(policy.entries('blacklist').length + policy.entries('whitelist').length).toBeGreaterThan(3);
    expect(findings).toEqual([]);
  });

  /** The shipped configuration with more blacklist entries, from a temporary copy. */
  function withBlacklistEntries<T>(entries: { ip: string; description: string }[], use: (file: string) => T, acknowledge?: unknown): T {
    const config = JSON.parse(fs.readFileSync(shippedConfig, 'utf8'));
    for (const list of ['blacklist', 'blocklist', 'whitelist']) config.securityPolicy[list].files = config.securityPolicy[list].files.map((file: string) => path.join(root, file));
    config.securityPolicy.blacklist.entries = entries;
    if (acknowledge !== undefined) config.securityPolicy.acknowledge = acknowledge;
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-config-'));
    try {
      const file = path.join(directory, 'svc.config.json');
      fs.writeFileSync(file, JSON.stringify(config));
      return use(file);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }

  test('and stays clean with the entry getting-started.md adds', () => {
    withBlacklistEntries([{ ip: '192.0.2.200', description: 'brute force, ticket SEC-1301' }], (file) => {
      const { findings, policy } = findingsOfExample(file);
      expect(policy.entries('blacklist').map((entry) => entry.ip)).toContain('192.0.2.200');
      expect(findings).toEqual([]);
    });
  });

  test('and knows the configured VPC range: a blacklist entry over it fails', () => {
    withBlacklistEntries([{ ip: '10.0.0.0/8', description: 'a mistake' }], (file) => {
      const { findings } = findingsOfExample(file);
      expect(findings.map((finding) => [finding.level, finding.message.slice(0, 100)])).toEqual([
        ['error', `[SVC-POLICY-5 self-lockout] blacklist entry "10.0.0.0/8" (${file}: securityPolicy.blacklist.entries[0]) d`.slice(0, 100)],
      ]);
      expect(findings[0]!.message).toContain('10.0.0.0/16 (ownInfrastructure.sensorCidrs[0]), 10.0.0.0/16 (ownInfrastructure.vpcCidr)');
    });
  });
  test('acknowledge in the config file turns the findings into info with the reason', () => {
    const findings = withBlacklistEntries([{ ip: '192.0.2.0/24', description: 'covers 192.0.2.66 and the office' }], (file) => findingsOfExample(file).findings, [
      { rule: 'SVC-POLICY-3', reason: 'the office stays allowed; SEC-7' },
      { rule: 'SVC-POLICY-4', reason: 'kept while SEC-8 is open' },
    ]);
    expect(findings.map((finding) => [finding.level, finding.message.replace(/ \(policy\/.*$/, '')])).toEqual([
      ['info', '[SVC-POLICY-3 allowed and denied] acknowledged (the office stays allowed; SEC-7): whitelist entry "192.0.2.0/28"'],
      ['info', '[SVC-POLICY-3 allowed and denied] acknowledged (the office stays allowed; SEC-7): whitelist entry "192.0.2.100"'],
      ['info', '[SVC-POLICY-4 redundant entry] acknowledged (kept while SEC-8 is open): blacklist entry "192.0.2.66"'],
    ]);
  });

  test.each([
    [[{ rule: 'SVC-POLICY-7', reason: 'x' }], 'securityPolicy.acknowledge[0].rule: "SVC-POLICY-7" is not a policy rule; expected one of SVC-POLICY-1, SVC-POLICY-2, SVC-POLICY-3, SVC-POLICY-4, SVC-POLICY-5'],
    [[{ rule: 'SVC-POLICY-3', reason: ' ' }], 'securityPolicy.acknowledge[0].reason: " ": give the reason the SVC-POLICY-3 findings are acceptable (it is shown in every synth)'],
    [[{ rule: 'SVC-POLICY-3' }], 'securityPolicy.acknowledge[0].reason: undefined: give the reason'],
    [[{ rule: 'SVC-POLICY-3', reason: 'a' }, { rule: 'SVC-POLICY-3', reason: 'b' }], 'securityPolicy.acknowledge[1].rule: "SVC-POLICY-3" is also securityPolicy.acknowledge[0]; give one reason per rule'],
    [{ rule: 'SVC-POLICY-3', reason: 'a' }, 'securityPolicy.acknowledge: expected a list of { rule, reason }'],
  ])('the config file refuses acknowledge %j', (acknowledge, message) => {
    expect(() => withBlacklistEntries([], (file) => findingsOfExample(file), acknowledge)).toThrow(message);
  });
});

describe('a rule that throws', () => {
  test('becomes an error finding naming the rule, and the other rules still run', () => {
    const stack = svcStack();
    new SecurityPolicy(stack, 'security-policy', { blacklist: { entries: [{ ip: '0.0.0.0/0' }] } });
    const broken: PolicyRule = { id: 'TEST-THROWS', name: 'always throws', level: 'warning', evaluate: () => { throw new Error('cannot read prefixLength'); } };
    // The aspect's rule list is fixed for users; a test swaps it to reach the defensive path.
    Object.assign(SecurityPolicyRules.of(stack), { rules: [broken, CATCH_ALL_RANGE] });
    Testing.synth(stack);
    expect(findingsOf(stack)).toEqual([
      expect.objectContaining({ level: 'error', message: expect.stringMatching(/^\[TEST-THROWS always throws\] the rule failed while checking stack\/security-policy: cannot read prefixLength\. This is a defect in the rule/) }),
      expect.objectContaining({ level: 'error', message: expect.stringMatching(/^\[SVC-POLICY-1 catch-all range\] blacklist entry "0\.0\.0\.0\/0"/) }),
    ]);
  });
});
