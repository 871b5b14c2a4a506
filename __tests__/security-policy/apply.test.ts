/**
 * A synthesized SecurityPolicy stack applied with the real terraform and the real svc provider
 * against the emulator: apply, the API holds every entry and SSO setting, the outputs carry the
 * channel's SAML URLs, a second plan is empty, destroy empties the lists again.
 *
 * The whitelist is a whole list whose map has token keys: one from a local (known at plan) and
 * one from terraform_data's output (known only at apply), as a NAT gateway's address would be
 * when the gateway is created in the same apply.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataResource, LocalBackend, TerraformLocal, TerraformStack, Testing, Token } from 'cdktf';
import { ChannelServiceProviderOutputs, SecurityPolicy, loadPolicyEntryFile } from '../../modules/security-policy';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { useAcceptanceHarness } from '../provider-acceptance/support/harness';

jest.setTimeout(120_000);

const TENANT = 'policy-apply';
const SSO_BASE = 'https://sso.example.com';
const METADATA_URL = 'https://idp.example.com/app/svc/metadata';
const POLICY_DIR = path.join(__dirname, '..', '..', 'policy');
const harness = useAcceptanceHarness({ tenants: [TENANT], channels: ['main'] });

function policyStack(outdir: string, policyDir: string): string {
  const app = Testing.app({ outdir });
  const stack = new TerraformStack(app, 'security-policy');
  // Its own state file: cdktf's default is terraform.<stack>.tfstate in the working directory (the
  // repository), which another file's stack of the same name would share while both run.
  new LocalBackend(stack, { path: path.join(path.dirname(outdir), 'terraform.tfstate') });
  new SvcProvider(stack, 'svc', { baseUrl: harness().emulator.url, tenant: TENANT, ssoBase: SSO_BASE });
  const officeIp = new TerraformLocal(stack, 'office_ip', '192.0.2.77');
  const laterIp = new DataResource(stack, 'later_ip', { input: { ip: '192.0.2.88' } });
  const policy = new SecurityPolicy(stack, 'security-policy', {
    blacklist: { entries: [{ ip: '203.0.113.10/32', description: 'scanner ${ticket}' }], files: [path.join(policyDir, 'blacklist.yaml')] },
    blocklist: { files: [path.join(policyDir, 'blocklist.json')] },
    whitelist: { resources: 'whole-list', files: [path.join(policyDir, 'whitelist.yaml')] },
    tenantSso: { name: TENANT, enabled: true, samlMetadataUrl: METADATA_URL },
    channelSso: [{ name: 'main', enabled: true, required: true, samlMetadataUrl: METADATA_URL, signInTestedElsewhere: true }],
  });
  policy.addEntries('whitelist', [
    { ip: officeIp.asString, description: 'office (a local)' },
    { ip: Token.asString(laterIp.output.lookup('ip')), description: 'known at apply (terraform_data)' },
  ], 'wiring');
  new ChannelServiceProviderOutputs(stack, 'saml-main', { policy, channel: 'main' });
  app.synth();
  return path.join(outdir, 'stacks', 'security-policy', 'cdk.tf.json');
}

/** address -> description, as the API lists them, or as the example files declare them. */
function byIp(entries: ReadonlyArray<{ ip: string; description?: string }>): Record<string, string> {
  return Object.fromEntries(entries.map((entry) => [entry.ip, entry.description ?? '']));
}

function declared(file: string): Record<string, string> {
  return byIp(loadPolicyEntryFile(path.join(POLICY_DIR, file)).map((entry) => ({ ip: entry.canonical!, description: entry.description })));
}

test('apply, check the API and outputs, plan empty, destroy', async () => {
  const workspace = harness().createWorkspace('security-policy');
  const outdir = path.join(workspace.dir, 'cdktf.out');
  fs.copyFileSync(policyStack(outdir, POLICY_DIR), path.join(workspace.dir, 'main.tf.json'));
  fs.rmSync(outdir, { recursive: true, force: true });
  const client = harness().emulator.client(TENANT);

  await workspace.init();
  // terraform_data's output is unknown until apply, so one key of the whitelist map is too,
  // and terraform shows the whole map as unknown.
  const firstPlan = await workspace.planExpecting(2);
  expect(firstPlan.actions['svc_whitelist.whitelist']).toBe('create');
  expect(firstPlan.text).toMatch(/\+ entries = \(known after apply\)/);
  await workspace.apply();

  const blacklist = { '203.0.113.10': 'scanner ${ticket}', ...declared('blacklist.yaml') };
  const blocklist = declared('blocklist.json');
  const whitelist = { ...declared('whitelist.yaml'), '192.0.2.77': 'office (a local)', '192.0.2.88': 'known at apply (terraform_data)' };
  expect(Object.keys(blacklist).length).toBeGreaterThan(3);
  expect(byIp(await client.listEntries('blacklist'))).toEqual(blacklist);
  expect(byIp(await client.listEntries('blocklist'))).toEqual(blocklist);
  expect(byIp(await client.listEntries('whitelist'))).toEqual(whitelist);
  const tenant = (await client.listCustomers()).find((candidate) => candidate.name === TENANT);
  expect(tenant?.sso).toEqual({ enabled: true, required: false, saml_metadata_url: METADATA_URL });
  const channel = (await client.listChannels()).find((candidate) => candidate.name === 'main');
  expect(channel?.sso).toEqual({ enabled: true, required: true, saml_metadata_url: METADATA_URL });

  const outputs = JSON.parse((await workspace.terraformExpecting(['output', '-json', '-no-color'])).stdout) as Record<string, { value: string }>;
  expect(outputs.saml_main_entity_id.value).toBe(`${SSO_BASE}/sign-in`);
  expect(outputs.saml_main_acs_url.value).toBe(`${SSO_BASE}/auth/v2/channels/${channel?.uuid}/acs`);
  expect(outputs.saml_main_metadata_url.value).toBe(`${SSO_BASE}/auth/v2/channels/${channel?.uuid}/metadata`);

  const plan = await workspace.planExpecting(0);
  expect(plan.text).toContain('No changes.');

  await workspace.destroy();
  expect(await client.listEntries('blacklist')).toEqual([]);
  expect(await client.listEntries('blocklist')).toEqual([]);
  expect(await client.listEntries('whitelist')).toEqual([]);
  expect((await client.listChannels()).find((candidate) => candidate.name === 'main')?.sso).toBeNull();
});
