/**
 * End to end: a stack that uses every svc binding (all resources, all data sources, the provider
 * twice, the second with an alias) synthesizes to a configuration the real terraform accepts
 * with the real provider (`terraform validate`, which also runs the provider's own validation
 * of each block). Getters of one object feed arguments and outputs of others, so the references
 * they produce must name real attributes of the right types. Both the JSON (cdk.tf.json) and
 * the HCL rendering of the bindings are validated.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, LocalBackend, TerraformOutput, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { createSvcProvider } from '../../src/provider/provider';
import { BlacklistEntry } from '../../modules/svc-provider/blacklist-entry';
import { Blacklist } from '../../modules/svc-provider/blacklist';
import { BlocklistEntry } from '../../modules/svc-provider/blocklist-entry';
import { Blocklist } from '../../modules/svc-provider/blocklist';
import { ChannelSso } from '../../modules/svc-provider/channel-sso';
import { DataSvcAuditEvents } from '../../modules/svc-provider/data-svc-audit-events';
import { DataSvcChannel } from '../../modules/svc-provider/data-svc-channel';
import { DataSvcList } from '../../modules/svc-provider/data-svc-list';
import { DataSvcTenant } from '../../modules/svc-provider/data-svc-tenant';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { TenantSso } from '../../modules/svc-provider/tenant-sso';
import { WhitelistEntry } from '../../modules/svc-provider/whitelist-entry';
import { Whitelist } from '../../modules/svc-provider/whitelist';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

jest.setTimeout(60_000);

let root: string;
let build: TestProviderBuild;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bindings-validate-'));
  build = buildTestProvider();
});

afterAll(() => {
  build?.remove();
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
});

/** The stack under test; `app` decides where synth writes. */
function everyBindingStack(app: App): TerraformStack {
  const stack = new TerraformStack(app, 'every-binding');
  new LocalBackend(stack, { path: path.join(root, 'every-binding.tfstate') });
  // The key comes from a sensitive variable, the way a user passes it (TF_VAR_api_key), never a literal.
  const apiKey = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
  new SvcProvider(stack, 'svc', {
    baseUrl: 'https://svc.example.com',
    apiKey: apiKey.stringValue,
    tenant: 'acme-corp',
    ssoBase: 'https://sso.example.com',
    maxRetries: 3,
    requestTimeoutSeconds: 20,
  });
  const other = new SvcProvider(stack, 'svc-other-tenant', { alias: 'other', tenant: 'other-corp', baseUrl: 'https://svc.example.com' });

  const tenant = new DataSvcTenant(stack, 'tenant');
  const channel = new ChannelSso(stack, 'main', { name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' });
  const channelData = new DataSvcChannel(stack, 'main-channel', { name: channel.name, provider: other });
  new TenantSso(stack, 'tenant-sso', { name: tenant.name, enabled: false, required: false });
  const allowed = new DataSvcList(stack, 'allowed', { list: 'whitelist', tenant: tenant.name });
  const audit = new DataSvcAuditEvents(stack, 'audit', { limit: 10, category: 'Lists', action: 'new_entry' });

  const denied = new BlacklistEntry(stack, 'denied', { ip: '198.51.100.0/24', description: 'scanner range', tenant: tenant.id, dependsOn: [channel] });
  const blocked = new BlocklistEntry(stack, 'blocked', { ip: '203.0.113.9', provider: other });
  new WhitelistEntry(stack, 'office', { ip: '2001:db8::/48', description: allowed.id });
  new Blacklist(stack, 'blacklist', { entries: { '192.0.2.1': 'one', '192.0.2.2': '' }, mode: 'additive', provider: other });
  new Blocklist(stack, 'blocklist', { entries: { '192.0.2.3': denied.description }, tenant: 'acme-corp' });
  const whitelist = new Whitelist(stack, 'whitelist', { entries: { '10.0.0.0/8': 'internal' }, mode: 'authoritative' });

  new TerraformOutput(stack, 'channel_acs_url', { value: channel.spAcsUrl });
  new TerraformOutput(stack, 'channel_entity_id', { value: channelData.spEntityId });
  new TerraformOutput(stack, 'tenant_sso_enabled', { value: tenant.ssoEnabled });
  new TerraformOutput(stack, 'first_allowed_ip', { value: allowed.entries.get(0).ip });
  new TerraformOutput(stack, 'allowed_entries', { value: allowed.entries });
  new TerraformOutput(stack, 'newest_event_time', { value: audit.events.get(0).timestamp });
  new TerraformOutput(stack, 'block_expires', { value: blocked.expires });
  new TerraformOutput(stack, 'whitelist_entries', { value: whitelist.entries });
  return stack;
}

type Synthesized = {
  resource: Record<string, Record<string, Record<string, unknown>>>;
  data: Record<string, Record<string, Record<string, unknown>>>;
  output: Record<string, { value: unknown }>;
  provider: { svc: Array<Record<string, unknown>> };
};

/** Synthesizes through App.synth() (as `cdktf synth` does) and returns the stack file's path. */
function synthesizeJson(): string {
  const outdir = fs.mkdtempSync(path.join(root, 'cdktf.out-'));
  const app = new App({ outdir });
  everyBindingStack(app);
  app.synth();
  const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8')) as { stacks: Record<string, { synthesizedStackPath: string }> };
  return path.join(outdir, manifest.stacks['every-binding']!.synthesizedStackPath);
}

async function validateConfiguration(name: string, fileName: string, content: string): Promise<{ code: number; output: string }> {
  const workspace = new Workspace({ dir: fs.mkdtempSync(path.join(root, `${name}-`)), cliConfigFile: build.cliConfigFile, trackChild: track });
  workspace.write(content, fileName);
  await workspace.init();
  const result = await workspace.validate();
  return { code: result.code, output: result.stdout + result.stderr };
}

describe('a stack using every binding', () => {
  test('uses every resource and data source of the provider, and the provider with and without alias', () => {
    const synthesized = JSON.parse(Testing.synth(everyBindingStack(Testing.app({ outdir: fs.mkdtempSync(path.join(root, 'types-')) })))) as Synthesized;
    const provider = createSvcProvider({ env: {} });
    expect({
      resources: Object.keys(synthesized.resource).sort(),
      dataSources: Object.keys(synthesized.data).sort(),
      aliases: synthesized.provider.svc.map((block) => block.alias ?? null),
    }).toEqual({
      resources: provider.resources.map((resource) => resource.typeName).sort(),
      dataSources: provider.dataSources.map((dataSource) => dataSource.typeName).sort(),
      aliases: [null, 'other'],
    });
  });

  test('getters become references to the attributes, in arguments and outputs', () => {
    const synthesized = JSON.parse(Testing.synth(everyBindingStack(Testing.app({ outdir: fs.mkdtempSync(path.join(root, 'refs-')) })))) as Synthesized;
    expect(synthesized.output).toEqual({
      channel_acs_url: { value: '${svc_channel_sso.main.sp_acs_url}' },
      channel_entity_id: { value: '${data.svc_channel.main-channel.sp_entity_id}' },
      tenant_sso_enabled: { value: '${data.svc_tenant.tenant.sso_enabled}' },
      first_allowed_ip: { value: '${data.svc_list.allowed.entries[0].ip}' },
      allowed_entries: { value: '${data.svc_list.allowed.entries}' },
      newest_event_time: { value: '${data.svc_audit_events.audit.events[0].timestamp}' },
      block_expires: { value: '${svc_blocklist_entry.blocked.expires}' },
      whitelist_entries: { value: '${svc_whitelist.whitelist.entries}' },
    });
    expect(synthesized.resource.svc_blacklist_entry?.denied).toMatchObject({ tenant: '${data.svc_tenant.tenant.id}', depends_on: ['svc_channel_sso.main'] });
    expect(synthesized.resource.svc_blocklist_entry?.blocked).toMatchObject({ provider: 'svc.other' });
    expect(synthesized.data.svc_channel?.['main-channel']).toMatchObject({ name: '${svc_channel_sso.main.name}', provider: 'svc.other' });
    expect(synthesized.resource.svc_blocklist?.blocklist).toMatchObject({ entries: { '192.0.2.3': '${svc_blacklist_entry.denied.description}' } });
    expect(synthesized.provider.svc[0]).toMatchObject({ api_key: '${var.api_key}' });
  });

  test('the synthesized cdk.tf.json passes terraform validate with the real provider', async () => {
    const stackFile = synthesizeJson();
    expect(path.basename(stackFile)).toBe('cdk.tf.json');
    expect(await validateConfiguration('json', 'cdk.tf.json', fs.readFileSync(stackFile, 'utf8'))).toEqual({ code: 0, output: expect.stringContaining('Success!') });
  });

  test('the HCL rendering of the same stack passes terraform validate too', async () => {
    const hcl = Testing.synthHcl(everyBindingStack(Testing.app({ outdir: fs.mkdtempSync(path.join(root, 'hcl-')) })), true) as string;
    expect(hcl).toContain('resource "svc_channel_sso" "main"');
    expect(await validateConfiguration('hcl', 'main.tf', hcl)).toEqual({ code: 0, output: expect.stringContaining('Success!') });
  });

  // Each case breaks the valid synthesized configuration in one place; validate must fail there.
  test.each([
    ['an attribute the provider does not have', 'entry_map', (configuration: Synthesized) => {
      configuration.resource.svc_whitelist!.whitelist!.entry_map = { '10.0.0.0/8': 'internal' };
    }],
    ['a value of the wrong type', 'enabled', (configuration: Synthesized) => {
      configuration.resource.svc_channel_sso!.main!.enabled = 'sometimes';
    }],
    ["a value the provider's own validation rejects", '300.1.1.1', (configuration: Synthesized) => {
      configuration.resource.svc_whitelist_entry!.office!.ip = '300.1.1.1';
    }],
  ] as const)('the validation is real: %s fails it', async (_name, named, breakIt) => {
    const configuration = JSON.parse(fs.readFileSync(synthesizeJson(), 'utf8')) as Synthesized;
    breakIt(configuration);
    const result = await validateConfiguration('broken', 'cdk.tf.json', JSON.stringify(configuration));
    expect(result).toEqual({ code: 1, output: expect.stringContaining(named) });
  });
});
