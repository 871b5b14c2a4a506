/**
 * Leaving CDKTF as help/leaving-cdktf.md says: a SecurityPolicy stack applied through its
 * synthesized JSON, then the same directory and state driven by plain HCL, a call of
 * terraform/modules/svc-security-policy, with the moved blocks svc-moved-blocks writes. The plan
 * shows moves and nothing else, apply leaves the service as it was; without the blocks terraform
 * plans to delete every resource and create it again (each new entry adopting the old one's).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalBackend, TerraformStack, Testing } from 'cdktf';
import { SecurityPolicy } from '../../modules/security-policy';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { main as movedBlocksCli } from '../../src/migration/moved-blocks-cli';
import { useAcceptanceHarness } from '../provider-acceptance/support/harness';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';

jest.setTimeout(180_000);

const TENANT = 'leaving-cdktf';
const SSO_BASE = 'https://sso.example.com';
const METADATA_URL = 'https://idp.example.com/app/svc/metadata';
const MODULE_DIR = path.join(__dirname, '..', '..', 'terraform', 'modules', 'svc-security-policy');
const harness = useAcceptanceHarness({ tenants: [TENANT], channels: ['main'] });

function synthesizedStack(outdir: string): string {
  const app = Testing.app({ outdir });
  const stack = new TerraformStack(app, 'security-policy');
  // Its own state file: cdktf's default is terraform.<stack>.tfstate in the working directory (the
  // repository), which another file's stack of the same name would share while both run.
  new LocalBackend(stack, { path: path.join(path.dirname(outdir), 'terraform.security-policy.tfstate') });
  new SvcProvider(stack, 'svc', { baseUrl: harness().emulator.url, tenant: TENANT, ssoBase: SSO_BASE });
  new SecurityPolicy(stack, 'security-policy', {
    blacklist: { entries: [{ ip: '203.0.113.10/32', description: 'scanner' }, { ip: '2001:DB8::1' }] },
    whitelist: { resources: 'whole-list', entries: [{ ip: '192.0.2.0/28', description: 'office' }] },
    tenantSso: { name: TENANT, enabled: true, samlMetadataUrl: METADATA_URL },
    channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: METADATA_URL }],
  });
  app.synth();
  return path.join(outdir, 'stacks', 'security-policy', 'cdk.tf.json');
}

/** The same policy as a module call, as a team writes it after leaving CDKTF: the stack's backend kept. */
function moduleCall(statePath: string): string {
  return `terraform {
  backend "local" {
    path = ${hclString(statePath)}
  }
}

${providerBlock({ baseUrl: harness().emulator.url, tenant: TENANT, ssoBase: SSO_BASE })}
module "security_policy" {
  source = ${hclString(MODULE_DIR)}

  blacklist = {
    entries = {
      "203.0.113.10" = "scanner"
      "2001:db8::1"  = null
    }
  }
  whitelist = {
    resources = "whole-list"
    entries   = { "192.0.2.0/28" = "office" }
  }
  tenant_sso  = { name = ${hclString(TENANT)}, enabled = true, saml_metadata_url = ${hclString(METADATA_URL)} }
  channel_sso = { main = { enabled = true, saml_metadata_url = ${hclString(METADATA_URL)} } }
}
`;
}

function movedBlocksFor(stackFile: string): { code: number; blocks: string; notes: string } {
  let blocks = '';
  let notes = '';
  const code = movedBlocksCli([path.dirname(stackFile)], (text) => (blocks += text), (text) => (notes += text));
  return { code, blocks, notes };
}

test('a cdktf-applied policy moves into the HCL module with moved blocks: the plan shows only moves, the service is untouched', async () => {
  const workspace = harness().createWorkspace('leaving-cdktf');
  const stackFile = synthesizedStack(path.join(workspace.dir, 'cdktf.out'));
  fs.copyFileSync(stackFile, path.join(workspace.dir, 'main.tf.json'));
  await workspace.init();
  await workspace.apply();
  const client = harness().emulator.client(TENANT);
  const before = { blacklist: await client.listEntries('blacklist'), whitelist: await client.listEntries('whitelist') };
  expect(before.blacklist.map((entry) => entry.ip).sort()).toEqual(['2001:db8::1', '203.0.113.10']);

  const generated = movedBlocksFor(stackFile);
  expect(generated.code).toBe(0);
  expect(generated.notes).toContain('5 moved block(s) into module.security_policy');
  expect(generated.blocks).toContain('to   = module.security_policy.svc_blacklist_entry.this["203.0.113.10"]');
  expect(generated.blocks).toContain('to   = module.security_policy.svc_channel_sso.this["main"]');

  // The HCL replaces the JSON in the same directory; the state stays where it is.
  fs.rmSync(path.join(workspace.dir, 'main.tf.json'));
  const backend = (JSON.parse(fs.readFileSync(stackFile, 'utf8')) as { terraform: { backend: { local: { path: string } } } }).terraform.backend.local;
  expect(fs.existsSync(backend.path)).toBe(true);
  workspace.write(moduleCall(backend.path));
  // Installs the module; the backend is the one the stack had, so the state is found as it is.
  await workspace.terraformExpecting(['init', '-input=false', '-no-color']);

  // Without the blocks terraform plans to delete every resource and create it again, and each new
  // entry resource says it adopts the identical entry the old address holds (help/leaving-cdktf.md).
  const withoutMoves = await workspace.planDetailed();
  expect(withoutMoves.code).toBe(2);
  expect(withoutMoves.text).toMatch(/to add, 0 to change, 5 to destroy/);
  expect(withoutMoves.text).toContain('svc_blacklist_entry: adopts existing entry 203.0.113.10');

  workspace.write(generated.blocks, 'moved.tf');
  // A plan of moves only still exits 2 under -detailed-exitcode until the moves are applied
  // (help/leaving-cdktf.md says so: a scheduled drift job would flag it).
  const movesOnly = await workspace.planExpecting(2);
  expect(movesOnly.text).toContain('has moved to module.security_policy.svc_blacklist_entry.this["203.0.113.10"]');
  expect(movesOnly.text).toMatch(/Plan: 0 to add, 0 to change, 0 to destroy/);
  const planFile = path.join(workspace.dir, 'moves.tfplan');
  await workspace.terraformExpecting(['plan', '-input=false', '-no-color', `-out=${planFile}`]);
  const plan = await workspace.showJson(planFile);
  const changes = (plan.resource_changes ?? []) as ReadonlyArray<{ address: string; previous_address?: string; change: { actions: readonly string[] } }>;
  expect(changes.map((change) => [change.address, change.change.actions.join(',')]).sort()).toEqual([
    ['module.security_policy.svc_blacklist_entry.this["2001:db8::1"]', 'no-op'],
    ['module.security_policy.svc_blacklist_entry.this["203.0.113.10"]', 'no-op'],
    ['module.security_policy.svc_channel_sso.this["main"]', 'no-op'],
    ['module.security_policy.svc_tenant_sso.this[0]', 'no-op'],
    ['module.security_policy.svc_whitelist.this[0]', 'no-op'],
  ]);
  expect(changes.every((change) => change.previous_address !== undefined && !change.previous_address.startsWith('module.'))).toBe(true);

  await workspace.terraformExpecting(['apply', '-input=false', '-no-color', planFile]);
  await workspace.planExpecting(0);
  expect({ blacklist: await client.listEntries('blacklist'), whitelist: await client.listEntries('whitelist') }).toEqual(before);

  await workspace.destroy();
  expect(await client.listEntries('blacklist')).toEqual([]);
});

test('svc-moved-blocks refuses what it cannot move, naming the resource and the value', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-moved-blocks-'));
  try {
    const stack = { resource: { svc_whitelist_entry: { office: { ip: '${local.office_ip}' } }, aws_vpc: { main: {} } } };
    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(stack));
    const refused = movedBlocksFor(path.join(dir, 'cdk.tf.json'));
    expect(refused.code).toBe(1);
    expect(refused.notes).toContain('svc_whitelist_entry.office: ip is "${local.office_ip}", not a literal');

    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify({ resource: { svc_blacklist_entry: { a: { ip: '10.0.0.1/32' }, b: { ip: '10.0.0.1' } }, aws_vpc: { main: {} } } }));
    const duplicate = movedBlocksFor(path.join(dir, 'cdk.tf.json'));
    expect(duplicate.notes).toContain('svc_blacklist_entry.a and svc_blacklist_entry.b both become module.security_policy.svc_blacklist_entry.this["10.0.0.1"]');

    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify({ resource: { svc_blacklist_entry: { a: { ip: '10.0.0.1' } }, aws_vpc: { main: {} } } }));
    const partial = movedBlocksFor(path.join(dir, 'cdk.tf.json'));
    expect(partial.code).toBe(0);
    expect(partial.notes).toContain('aws_vpc.main is not part of the svc-security-policy module');

    let usage = '';
    expect(movedBlocksCli([dir, '--module', '9bad'], () => undefined, (text) => (usage += text))).toBe(1);
    expect(usage).toContain('module name "9bad" is not a Terraform identifier');
    expect(movedBlocksCli([], () => undefined, () => undefined)).toBe(2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
