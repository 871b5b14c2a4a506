/**
 * The HCL module terraform/modules/svc-security-policy, as a team that left CDKTF uses it: the
 * module and its examples validate, the examples plan, apply and destroy against the emulator
 * with our provider, and bad input is refused at plan by a check that names the field and the
 * value, before anything reaches the service.
 *
 * The module is copied into a temporary directory (with its examples, whose source is `../..`),
 * so `terraform init` writes nothing into the repository.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ListName } from '../../src/api/types';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace, type TerraformResult } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

jest.setTimeout(240_000);

const MODULE_DIR = path.join(__dirname, '..', '..', 'terraform', 'modules', 'svc-security-policy');
const TENANTS = { files: 'hcl-files', maps: 'hcl-maps', refused: 'hcl-refused' };

let build: TestProviderBuild;
let emulator: AcceptanceEmulator;
let root: string;
/** The copy of the module every workspace uses. */
let moduleCopy: string;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hcl-policy-'));
  moduleCopy = path.join(root, 'svc-security-policy');
  fs.cpSync(MODULE_DIR, moduleCopy, { recursive: true, filter: (source) => !/[\\/]\.terraform(\.lock\.hcl)?$|\.tfstate/.test(source) });
  build = buildTestProvider();
  emulator = await startAcceptanceEmulator({ tenants: Object.values(TENANTS), channels: ['main'] });
}, 120_000);

afterAll(async () => {
  for (const workspace of workspaces) workspace.killRunning();
  await emulator?.stop();
  build?.remove();
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
});

/** A workspace in `dir` whose provider reaches the emulator as `tenant` (base_url and tenant from the environment, as the examples expect). */
function workspaceIn(dir: string, tenant: string): Workspace {
  const workspace = new Workspace({
    dir,
    cliConfigFile: build.cliConfigFile, trackChild: track,
    env: { SVC_API_KEY: emulator.apiKey, SVC_BASE_URL: emulator.url, SVC_TENANT: tenant },
  });
  workspaces.push(workspace);
  return workspace;
}

/** A scratch root configuration calling the module with `inputs` (HCL attribute lines). */
function scratchWorkspace(name: string, tenant: string, inputs: string, files: Record<string, string> = {}, reuse?: Workspace): Workspace {
  const workspace = reuse ?? workspaceIn(fs.mkdtempSync(path.join(root, `${name}-`)), tenant);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace.dir, file), text);
  }
  workspace.write(
    [
      providerBlock(),
      'module "policy" {',
      `  source = ${hclString(moduleCopy)}`,
      inputs,
      '}',
      '',
    ].join('\n'),
  );
  return workspace;
}

async function apiEntries(tenant: string, list: ListName): Promise<Record<string, string>> {
  const entries = await emulator.client(tenant).listEntries(list);
  return Object.fromEntries(entries.map((entry) => [entry.ip, entry.description]));
}

/** stdout and stderr of a command, for searching. */
const outputOf = (result: TerraformResult) => `${result.stdout}\n${result.stderr}`;
/** Terraform wraps long messages; searching the text with its line breaks as spaces finds a message whole. */
const unwrapped = (result: TerraformResult) => outputOf(result).replace(/\s*\n\s*/g, ' ');

describe('terraform validate', () => {
  test('the module on its own is valid', async () => {
    const workspace = workspaceIn(moduleCopy, TENANTS.files);
    await workspace.init();
    const result = await workspace.validate();
    expect({ code: result.code, output: outputOf(result) }).toEqual({ code: 0, output: expect.stringContaining('The configuration is valid') });
  });

  test.each(['maps', 'entry-files'])('the example %s is valid', async (example) => {
    const workspace = workspaceIn(path.join(moduleCopy, 'examples', example), TENANTS.files);
    await workspace.init();
    const result = await workspace.validate();
    expect({ code: result.code, output: outputOf(result) }).toEqual({ code: 0, output: expect.stringContaining('The configuration is valid') });
  });
});

describe('the entry-files example: plan, apply, no drift, destroy', () => {
  const tenant = TENANTS.files;
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = workspaceIn(path.join(moduleCopy, 'examples', 'entry-files'), tenant);
    await workspace.init();
  });

  test('the plan names every entry by its canonical address, per-entry and whole-list as declared', async () => {
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({
      'module.security_policy.svc_blacklist_entry.this["203.0.113.9"]': 'create',
      'module.security_policy.svc_blacklist_entry.this["198.51.100.0/24"]': 'create',
      'module.security_policy.svc_blacklist_entry.this["2001:db8:bad::/48"]': 'create',
      'module.security_policy.svc_blocklist.this[0]': 'create',
      'module.security_policy.svc_whitelist_entry.this["192.0.2.10"]': 'create',
      'module.security_policy.svc_channel_sso.this["main"]': 'create',
    });
  });

  test('apply puts the files and the map on the service, with channel SSO and its SAML URLs', async () => {
    await workspace.apply();
    expect(await apiEntries(tenant, 'blacklist')).toEqual({ '203.0.113.9': 'port scanner', '198.51.100.0/24': 'botnet range', '2001:db8:bad::/48': '' });
    expect(await apiEntries(tenant, 'blocklist')).toEqual({ '192.0.2.77': 'brute force on /login', '192.0.2.200': 'credential stuffing, from the incident channel' });
    expect(await apiEntries(tenant, 'whitelist')).toEqual({ '192.0.2.10': 'office egress' });
    const channels = await emulator.client(tenant).listChannels();
    expect(channels.find((channel) => channel.name === 'main')?.sso).toMatchObject({ enabled: true, saml_metadata_url: 'https://idp.example.com/app/svc/metadata' });
    const output = await workspace.terraformExpecting(['output', '-raw', 'main_channel_acs_url']);
    expect(output.stdout).toMatch(/^https:\/\/sso\.example\.com\//);
  });

  test('a second plan has nothing to do', async () => {
    await workspace.planExpecting(0);
  });

  test('destroy removes what the module declared', async () => {
    await workspace.destroy();
    expect(await apiEntries(tenant, 'blacklist')).toEqual({});
    expect(await apiEntries(tenant, 'blocklist')).toEqual({});
    expect(await apiEntries(tenant, 'whitelist')).toEqual({});
  });
});

describe('the maps example: apply and destroy', () => {
  const tenant = TENANTS.maps;

  test('applies the maps and tenant SSO, then destroys them', async () => {
    const workspace = workspaceIn(path.join(moduleCopy, 'examples', 'maps'), tenant);
    await workspace.init();
    await workspace.apply([`-var=tenant=${tenant}`]);
    expect(await apiEntries(tenant, 'blacklist')).toEqual({ '203.0.113.9': 'port scanner', '198.51.100.0/24': 'botnet range' });
    expect(await apiEntries(tenant, 'whitelist')).toEqual({ '192.0.2.10': 'office egress', '2001:db8:1::/48': 'partner network' });
    const state = await workspace.showJson();
    const addresses = JSON.stringify(state);
    expect(addresses).toContain('module.security_policy.svc_tenant_sso.this[0]');
    await workspace.planExpecting(0, [`-var=tenant=${tenant}`]);
    await workspace.destroy([`-var=tenant=${tenant}`]);
    expect(await apiEntries(tenant, 'blacklist')).toEqual({});
    expect(await apiEntries(tenant, 'whitelist')).toEqual({});
  });
});

describe('bad input is refused at plan, naming the field and the value', () => {
  const tenant = TENANTS.refused;
  let workspace: Workspace;

  /**
   * A few plans hold every case (a plan reports every failed check, and each plan costs seconds):
   * one whose inputs break variable validations, one whose inputs pass them but break the
   * checks of entry files and of maps and files together (output preconditions, evaluated only
   * once the variables are valid), and one for acknowledge.
   */
  const VALIDATION_INPUTS = [
    '  blacklist = { mode = "additive", entries = { "10.0.0.300" = "typo" } }',
    `  tenant_sso = { name = "${TENANTS.refused}", enabled = true, saml_metadata_url = "http://admin:hunter2@idp.example.com/metadata" }`,
    '  channel_sso = { main = { enabled = false, required = true } }',
  ].join('\n');
  // Terraform evaluates a variable's checks that read other variables (the policy rules) only
  // once its simple ones pass and the variables they read are valid, and a failing variable can
  // hold back another's: a plan per group.
  const WHITELIST_RULE_INPUTS = [
    '  blacklist = { entries = { "198.51.100.0/24" = "" } }',
    '  whitelist = { entries = { "10.0.0.0/12" = "all of it", "198.51.100.7" = "partner" } }',
  ].join('\n');
  // A list's rule checks read acknowledge, so terraform skips them while acknowledge itself is invalid: a plan of its own.
  const ACKNOWLEDGE_INPUTS = '  blacklist = { entries = { "10.0.0.300" = "typo" } }\n  acknowledge = { "SVC-POLICY-4" = "  " }';
  // The whitelist's checks wait for the blacklist's (its overlap rule reads var.blacklist).
  const SPELLINGS_INPUTS = '  whitelist = { entries = { "2001:DB8::1" = "a", "2001:db8::1" = "b" } }';
  const SELF_LOCKOUT_INPUTS = '  blocklist = { entries = { "10.20.0.0/24" = "" } }\n  own_infrastructure = { vpc_cidr = "10.20.0.0/16" }';
  const PRECONDITION_INPUTS = [
    '  blacklist = { files = ["policy/blacklist.yaml"] }',
    '  whitelist = { files = ["policy/whitelist.json"], entries = { "2001:db8:5::1" = "partner" } }',
    '  blocklist = { files = ["policy/blocklist.yaml"], entries = { "192.0.2.9" = "" } }',
  ].join('\n');
  const PRECONDITION_FILES = {
    'policy/blacklist.yaml': '- ip: 203.0.113.9\n- ip: 203.0.113.300\n  description: typo\n- ip: 2001:db8:5::/48\n',
    'policy/whitelist.json': '{ "entries": [ { "ip": "192.0.2.10", "descripton": "office" } ] }',
    'policy/blocklist.yaml': '- ip: 192.0.2.9/32\n',
  };

  const VALIDATION = 'Error: Invalid value for variable';
  const PRECONDITION = 'Error: Module output value precondition failed';
  type PlanName = 'validation' | 'spellings' | 'whitelistRules' | 'selfLockout' | 'precondition' | 'acknowledge';
  const CASES: ReadonlyArray<{ readonly name: string; readonly plan: PlanName; readonly message: string }> = [
    { name: 'an address that is not one', plan: 'validation', message: 'blacklist.entries["10.0.0.300"]: "10.0.0.300" is not an IPv4 or IPv6 address or CIDR range without host bits' },
    { name: 'two spellings of one address', plan: 'spellings', message: 'whitelist.entries: "2001:DB8::1" and "2001:db8::1" are the same address (both are 2001:db8::1 on the whitelist)' },
    { name: 'a broad range that is not acknowledged', plan: 'whitelistRules', message: 'SVC-POLICY-2 broad range: whitelist.entries["10.0.0.0/12"]: "10.0.0.0/12" is broader than /16, the widest IPv4 range expected on the whitelist' },
    { name: 'a whitelisted address inside a blacklisted range', plan: 'whitelistRules', message: 'SVC-POLICY-3 allowed and denied: whitelist.entries["198.51.100.7"] lies inside blacklist.entries["198.51.100.0/24"]' },
    { name: 'a deny entry over the own VPC', plan: 'selfLockout', message: 'SVC-POLICY-5 self-lockout: blocklist.entries["10.20.0.0/24"] denies addresses of your own infrastructure: 10.20.0.0/16 (own_infrastructure.vpc_cidr)' },
    { name: 'mode on a per-entry list', plan: 'validation', message: 'blacklist.mode = "additive": applies to whole-list resources only' },
    { name: 'an SSO metadata URL over http, credentials redacted', plan: 'validation', message: 'tenant_sso.saml_metadata_url = "http://[REDACTED]@idp.example.com/metadata": is not an https:// URL (it uses http)' },
    { name: 'required SSO that is off', plan: 'validation', message: 'channel_sso["main"].required = true: needs enabled = true' },
    { name: 'an empty acknowledgement reason', plan: 'acknowledge', message: 'acknowledge["SVC-POLICY-4"] = "  ": is empty; say why the SVC-POLICY-4 findings are acceptable' },
    { name: 'a bad address in an entry file', plan: 'precondition', message: 'policy/blacklist.yaml: [1].ip: "203.0.113.300" is not an IPv4 or IPv6 address or CIDR range without host bits' },
    { name: 'an unknown field in an entry file', plan: 'precondition', message: 'policy/whitelist.json: entries[0].descripton: unknown field; an entry has ip and description' },
    {
      name: 'a file entry that a map entry contradicts',
      plan: 'precondition',
      message: 'SVC-POLICY-3 allowed and denied: whitelist entry "2001:db8:5::1" (whitelist.entries["2001:db8:5::1"]) lies inside blacklist entry "2001:db8:5::/48" (policy/blacklist.yaml: [2])',
    },
    { name: 'the same address in a map and a file', plan: 'precondition', message: 'blocklist: "192.0.2.9" at blocklist.entries["192.0.2.9"] and "192.0.2.9/32" at policy/blocklist.yaml: [0] are the same address (both are 192.0.2.9)' },
  ];

  const plans: Partial<Record<PlanName, TerraformResult>> = {};

  beforeAll(async () => {
    workspace = scratchWorkspace('refused', tenant, VALIDATION_INPUTS);
    await workspace.init();
    plans.validation = await workspace.planDetailed();
    scratchWorkspace('refused', tenant, SPELLINGS_INPUTS, {}, workspace);
    plans.spellings = await workspace.planDetailed();
    scratchWorkspace('refused', tenant, WHITELIST_RULE_INPUTS, {}, workspace);
    plans.whitelistRules = await workspace.planDetailed();
    scratchWorkspace('refused', tenant, SELF_LOCKOUT_INPUTS, {}, workspace);
    plans.selfLockout = await workspace.planDetailed();
    scratchWorkspace('refused', tenant, PRECONDITION_INPUTS, PRECONDITION_FILES, workspace);
    plans.precondition = await workspace.planDetailed();
    scratchWorkspace('refused', tenant, ACKNOWLEDGE_INPUTS, {}, workspace);
    plans.acknowledge = await workspace.planDetailed();
  });

  test.each(CASES)('$name', ({ plan, message }) => {
    const result = plans[plan]!;
    expect(result.code).toBe(1);
    const text = unwrapped(result);
    expect(text).toContain(plan === 'precondition' ? PRECONDITION : VALIDATION);
    expect(text).toContain(message);
  });

  test('the messages never repeat the password of a metadata URL', () => {
    // terraform itself quotes the offending line of the caller's configuration; the module's own messages redact it.
    const messages = unwrapped(plans.validation!).match(/tenant_sso\.saml_metadata_url = .*?This was checked/g) ?? [];
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).not.toContain('hunter2');
  });

  test('a refused plan changes nothing on the service', async () => {
    for (const list of ['blacklist', 'blocklist', 'whitelist'] as const) expect(await apiEntries(tenant, list)).toEqual({});
    const tenants = await emulator.client(tenant).listCustomers();
    expect(tenants.find((customer) => customer.name === tenant)?.sso ?? null).toBeNull();
  });

  test('an acknowledged rule passes', async () => {
    scratchWorkspace('refused', tenant, '  whitelist = { entries = { "10.0.0.0/12" = "all of it" } }\n  acknowledge = { "SVC-POLICY-2" = "the whole lab network, by decision of the security team" }', {}, workspace);
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'module.policy.svc_whitelist_entry.this["10.0.0.0/12"]': 'create' });
  });
});
