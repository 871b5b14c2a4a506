/**
 * Acceptance: svc_tenant_sso and svc_channel_sso, and the svc_tenant and svc_channel data
 * sources, driven by the real terraform CLI against the emulator.
 *
 * The main scenario manages a tenant's and a channel's SSO in one configuration, so every
 * terraform command exercises both resource types; its steps run in order in one workspace.
 */
import type { Channel, Customer, SsoSettings } from '../../src/api/types';
import { useAcceptanceHarness } from './support/harness';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(180_000);

const TENANTS = { sso: 'sso-tenant', dataSources: 'sso-data', validation: 'sso-validation', guard: 'sso-guard' };
const CHANNELS = { sso: 'sso-channel', dataSources: 'data-channel', guard: 'guard-channel' };
const SSO_BASE = 'https://sso.example.com';
const METADATA_URL = 'https://idp.example.com/app/svc/metadata';
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS), channels: ['main', ...Object.values(CHANNELS)] });

async function listedTenant(name: string): Promise<Customer> {
  const tenant = (await harness().emulator.client(TENANTS.sso).listCustomers()).find((candidate) => candidate.name === name);
  if (tenant === undefined) throw new Error(`the emulator lists no tenant ${name}`);
  return tenant;
}

async function listedChannel(name: string): Promise<Channel> {
  const channel = (await harness().emulator.client(TENANTS.sso).listChannels()).find((candidate) => candidate.name === name);
  if (channel === undefined) throw new Error(`the emulator lists no channel ${name}`);
  return channel;
}

/** The listed object without `sso`: what an SSO change must leave exactly as it was. */
function withoutSso<T extends { readonly sso: SsoSettings | null }>(listed: T): Omit<T, 'sso'> {
  const { sso: _sso, ...rest } = listed;
  return rest;
}

interface SsoConfig {
  readonly enabled: boolean;
  readonly required?: boolean;
  readonly url?: string;
  readonly testedElsewhere?: boolean;
}

function ssoAttributes(name: string, sso: SsoConfig): Record<string, string> {
  return {
    name: hclString(name),
    enabled: String(sso.enabled),
    ...(sso.required === undefined ? {} : { required: String(sso.required) }),
    ...(sso.url === undefined ? {} : { saml_metadata_url: hclString(sso.url) }),
    ...(sso.testedElsewhere === undefined ? {} : { sign_in_tested_elsewhere: String(sso.testedElsewhere) }),
  };
}

describe('svc_tenant_sso and svc_channel_sso: create, import, drift, update, destroy', () => {
  const tenantName = TENANTS.sso;
  const channelName = CHANNELS.sso;
  let workspace: Workspace;
  let tenantBefore: Omit<Customer, 'sso'>;
  let channelBefore: Omit<Channel, 'sso'>;

  const configuration = (tenantSso: SsoConfig, channelSso: SsoConfig) =>
    harness().providerBlock(tenantName, { ssoBase: SSO_BASE }) +
    resourceBlock('svc_tenant_sso', 'this', ssoAttributes(tenantName, tenantSso)) +
    '\n' +
    resourceBlock('svc_channel_sso', 'this', ssoAttributes(channelName, channelSso));

  const expectOtherFieldsUntouched = async () => {
    expect(withoutSso(await listedTenant(tenantName))).toEqual(tenantBefore);
    expect(withoutSso(await listedChannel(channelName))).toEqual(channelBefore);
  };

  beforeAll(async () => {
    tenantBefore = withoutSso(await listedTenant(tenantName));
    channelBefore = withoutSso(await listedChannel(channelName));
    workspace = harness().createWorkspace('sso');
  });

  it('enables SSO with an https metadata URL, then requires it in a second apply; the API holds it and the state has uuid and the sp_* URLs', async () => {
    workspace.write(configuration({ enabled: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.init();
    await workspace.apply();
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: true, required: false, saml_metadata_url: METADATA_URL });
    workspace.write(configuration({ enabled: true, required: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.apply();

    const tenant = await listedTenant(tenantName);
    const channel = await listedChannel(channelName);
    expect(tenant.sso).toEqual({ enabled: true, required: true, saml_metadata_url: METADATA_URL });
    expect(channel.sso).toEqual({ enabled: true, required: false, saml_metadata_url: METADATA_URL });
    await expectOtherFieldsUntouched();

    expect(workspace.stateAttributes('svc_tenant_sso.this')).toEqual({
      id: tenantName,
      name: tenantName,
      uuid: tenant.uuid,
      enabled: true,
      required: true,
      saml_metadata_url: METADATA_URL,
      sign_in_tested_elsewhere: null,
    });
    expect(workspace.stateAttributes('svc_channel_sso.this')).toEqual({
      id: channelName,
      name: channelName,
      uuid: channel.uuid,
      enabled: true,
      required: false,
      saml_metadata_url: METADATA_URL,
      sign_in_tested_elsewhere: null,
      sp_entity_id: `${SSO_BASE}/sign-in`,
      sp_acs_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/acs`,
      sp_metadata_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/metadata`,
    });
    await workspace.planExpecting(0);
  });

  it('imports both by name into a fresh state, and the import plans no change', async () => {
    const fresh = harness().createWorkspace('sso-import');
    fresh.write(configuration({ enabled: true, required: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await fresh.init();
    await fresh.importResource('svc_tenant_sso.this', tenantName);
    await fresh.importResource('svc_channel_sso.this', channelName);
    expect(fresh.stateAttributes('svc_tenant_sso.this')).toEqual(workspace.stateAttributes('svc_tenant_sso.this'));
    expect(fresh.stateAttributes('svc_channel_sso.this')).toEqual(workspace.stateAttributes('svc_channel_sso.this'));
    await fresh.planExpecting(0);
  });

  it('shows SSO disabled outside terraform as drift (exit 2, an update), and apply turns it back on', async () => {
    const client = harness().emulator.client(tenantName);
    await client.setChannelSso(channelName, null);
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'svc_channel_sso.this': 'update' });
    expect(plan.text).toMatch(/~ enabled\s+= false -> true/);
    await workspace.apply();
    expect((await listedChannel(channelName)).sso).toEqual({ enabled: true, required: false, saml_metadata_url: METADATA_URL });
    await expectOtherFieldsUntouched();
    await workspace.planExpecting(0);
  });

  it('refuses to restore a required SSO turned off outside terraform in one apply (the lockout guard); two applies restore it', async () => {
    const client = harness().emulator.client(tenantName);
    await client.setTenantSso(tenantName, { enabled: false, required: false, saml_metadata_url: METADATA_URL });
    harness().emulator.emulator.resetStats();
    const refused = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(refused.code).toBe(1);
    const output = (refused.stdout + refused.stderr).replace(/\s+/g, ' ');
    expect(output).toContain(`Error: SSO lockout guard: required would turn on before anyone signed in through the identity provider`);
    expect(output).toContain(`svc_tenant_sso for tenant "${tenantName}": required = true in the same apply that enables SSO`);
    expect(output).toContain('Apply in two steps');
    expect(output).toContain('sign_in_tested_elsewhere = true');
    expect(output).toContain('with svc_tenant_sso.this');
    expect(harness().emulator.emulator.stats().byCommand).not.toHaveProperty('update');
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: false, required: false, saml_metadata_url: METADATA_URL });

    workspace.write(configuration({ enabled: true, required: false, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.apply();
    workspace.write(configuration({ enabled: true, required: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.apply();
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: true, required: true, saml_metadata_url: METADATA_URL });
    expect((await listedChannel(channelName)).sso).toEqual({ enabled: true, required: false, saml_metadata_url: METADATA_URL });
    await expectOtherFieldsUntouched();
    await workspace.planExpecting(0);
  });

  it('updates in place (tenant: required off, another URL; channel: required on) and leaves the other fields alone', async () => {
    const otherUrl = 'https://idp.example.com/app/svc/metadata-v2';
    workspace.write(configuration({ enabled: true, required: false, url: otherUrl }, { enabled: true, required: true, url: METADATA_URL }));
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'svc_tenant_sso.this': 'update', 'svc_channel_sso.this': 'update' });
    await workspace.apply();
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: true, required: false, saml_metadata_url: otherUrl });
    expect((await listedChannel(channelName)).sso).toEqual({ enabled: true, required: true, saml_metadata_url: METADATA_URL });
    await expectOtherFieldsUntouched();
  });

  it('destroy turns SSO off (sso null) and leaves the tenant and the channel', async () => {
    await workspace.destroy();
    expect((await listedTenant(tenantName)).sso).toBeNull();
    expect((await listedChannel(channelName)).sso).toBeNull();
    await expectOtherFieldsUntouched();
    expect(workspace.stateJson().resources).toEqual([]);
  });
});

describe('the SSO lockout guard: required refused at plan in the apply that enables SSO or changes the metadata URL', () => {
  const tenantName = TENANTS.guard;
  const channelName = CHANNELS.guard;
  const otherUrl = 'https://idp.example.com/app/svc/metadata-v2';
  let workspace: Workspace;

  const configuration = (tenantSso: SsoConfig, channelSso: SsoConfig) =>
    harness().providerBlock(tenantName) +
    resourceBlock('svc_tenant_sso', 'guarded', ssoAttributes(tenantName, tenantSso)) +
    '\n' +
    resourceBlock('svc_channel_sso', 'guarded', ssoAttributes(channelName, channelSso));

  /** Runs apply, expects the guard's error for each resource named, and checks nothing was sent. */
  const expectRefused = async (refusals: ReadonlyArray<{ address: string; says: string }>) => {
    const tenantBefore = await listedTenant(tenantName);
    const channelBefore = await listedChannel(channelName);
    harness().emulator.emulator.resetStats();
    const result = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(result.code).toBe(1);
    const output = (result.stdout + result.stderr).replace(/\s+/g, ' ');
    expect(output.match(/Error: SSO lockout guard/g)).toHaveLength(refusals.length);
    for (const { address, says } of refusals) {
      expect(output).toContain(says);
      expect(output).toContain(`with ${address}`);
    }
    expect(output).not.toContain('Apply complete');
    expect(harness().emulator.emulator.stats().byCommand).not.toHaveProperty('update');
    expect(await listedTenant(tenantName)).toEqual(tenantBefore);
    expect(await listedChannel(channelName)).toEqual(channelBefore);
  };

  beforeAll(async () => {
    workspace = harness().createWorkspace('sso-guard');
    workspace.write(harness().providerBlock(tenantName));
    await workspace.init();
  });

  it('refuses new resources that enable SSO with required = true, naming each resource and the two-step fix', async () => {
    workspace.write(configuration({ enabled: true, required: true, url: METADATA_URL }, { enabled: true, required: true, url: METADATA_URL }));
    await expectRefused([
      { address: 'svc_tenant_sso.guarded', says: `svc_tenant_sso for tenant "${tenantName}": required = true in the same apply that enables SSO` },
      { address: 'svc_channel_sso.guarded', says: `svc_channel_sso for channel "${channelName}": required = true in the same apply that enables SSO` },
    ]);
  });

  it('lets required = false through, then required = true once SSO is on with that URL', async () => {
    workspace.write(configuration({ enabled: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.apply();
    workspace.write(configuration({ enabled: true, required: true, url: METADATA_URL }, { enabled: true, url: METADATA_URL }));
    await workspace.apply();
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: true, required: true, saml_metadata_url: METADATA_URL });
  });

  it('lets a required SSO move to another URL (required is not turning on), but refuses required on with a new URL', async () => {
    workspace.write(configuration({ enabled: true, required: true, url: otherUrl }, { enabled: true, required: true, url: otherUrl }));
    await expectRefused([
      {
        address: 'svc_channel_sso.guarded',
        says: `svc_channel_sso for channel "${channelName}": required = true in the same apply that changes saml_metadata_url from "${METADATA_URL}" to "${otherUrl}"`,
      },
    ]);
  });

  it('applies both in one step with sign_in_tested_elsewhere = true, keeps it in state, and plans no change after', async () => {
    workspace.write(
      configuration({ enabled: true, required: true, url: otherUrl }, { enabled: true, required: true, url: otherUrl, testedElsewhere: true }),
    );
    await workspace.apply();
    expect((await listedTenant(tenantName)).sso).toEqual({ enabled: true, required: true, saml_metadata_url: otherUrl });
    expect((await listedChannel(channelName)).sso).toEqual({ enabled: true, required: true, saml_metadata_url: otherUrl });
    expect(workspace.stateAttributes('svc_channel_sso.guarded')).toMatchObject({ sign_in_tested_elsewhere: true });
    expect(workspace.stateAttributes('svc_tenant_sso.guarded')).toMatchObject({ sign_in_tested_elsewhere: null });
    await workspace.planExpecting(0);
    await workspace.destroy();
  });
});

describe('SSO mistakes fail terraform validate with the attribute named; nothing reaches the API', () => {
  const tenant = TENANTS.validation;
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = harness().createWorkspace('sso-validation');
    workspace.write(harness().providerBlock(tenant));
    await workspace.init();
  });

  interface ValidationCase {
    readonly name: string;
    readonly type: 'svc_tenant_sso' | 'svc_channel_sso';
    readonly sso: SsoConfig;
    readonly attribute: string;
    /** Must appear in the diagnostic (besides the attribute). */
    readonly mentions: readonly string[];
  }

  const CASES: readonly ValidationCase[] = [
    { name: 'required without enabled', type: 'svc_tenant_sso', sso: { enabled: false, required: true, url: METADATA_URL }, attribute: 'required', mentions: ['enabled'] },
    {
      name: 'an http:// metadata URL',
      type: 'svc_channel_sso',
      sso: { enabled: true, url: 'http://idp.example.com/metadata' },
      attribute: 'saml_metadata_url',
      mentions: ['http://idp.example.com/metadata', 'https'],
    },
    { name: 'enabled without a metadata URL', type: 'svc_tenant_sso', sso: { enabled: true }, attribute: 'saml_metadata_url', mentions: ['https'] },
  ];

  it.each(CASES)('$name ($type)', async ({ type, sso, attribute, mentions }) => {
    const target = type === 'svc_tenant_sso' ? tenant : 'main';
    const configuration = harness().providerBlock(tenant) + resourceBlock(type, 'bad', ssoAttributes(target, sso));
    workspace.write(configuration);
    harness().emulator.emulator.resetStats();
    const result = await workspace.terraform(['validate', '-json', '-no-color']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      diagnostics: Array<{ severity: string; summary: string; detail: string; range?: { start: { line: number } } }>;
    };
    expect(report.valid).toBe(false);
    expect(report.diagnostics.map((diagnostic) => diagnostic.severity)).toEqual(['error']);
    // Terraform points at the attribute when the configuration sets it (its path came with the diagnostic).
    const attributeLine = configuration.split('\n').findIndex((line) => line.trimStart().startsWith(`${attribute} =`)) + 1;
    if (attributeLine > 0) expect(report.diagnostics[0].range?.start.line).toBe(attributeLine);
    const message = `${report.diagnostics[0].summary}\n${report.diagnostics[0].detail}`;
    for (const mention of [attribute, ...mentions]) expect(message).toContain(mention);
    expect(harness().emulator.emulator.stats().requests).toBe(0);
  });

  it.each([
    { type: 'svc_tenant_sso', name: 'no-such-tenant' },
    { type: 'svc_channel_sso', name: 'no-such-channel' },
  ])('an unknown name ($type "$name") fails the plan with an error on name naming it, and sends no update', async ({ type, name }) => {
    const tenantsBefore = await harness().emulator.client(tenant).listCustomers();
    const channelsBefore = await harness().emulator.client(tenant).listChannels();
    const configuration = harness().providerBlock(tenant) + resourceBlock(type, 'unknown', ssoAttributes(name, { enabled: true, url: METADATA_URL }));
    workspace.write(configuration);
    harness().emulator.emulator.resetStats();
    const result = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(result.code).toBe(1);
    const output = (result.stdout + result.stderr).replace(/\s+/g, ' ');
    // The plan's diagnostic, quoting the name line: terraform never got to ask for approval.
    expect(output).toMatch(new RegExp(`Error: Unknown ${type === 'svc_tenant_sso' ? 'tenant' : 'channel'} "${name}" .* name *= "${name}"`));
    expect(output).not.toContain('Apply complete');
    expect(harness().emulator.emulator.stats().byCommand).not.toHaveProperty('update');
    expect(await harness().emulator.client(tenant).listCustomers()).toEqual(tenantsBefore);
    expect(await harness().emulator.client(tenant).listChannels()).toEqual(channelsBefore);
  });
});

describe('data sources svc_tenant and svc_channel', () => {
  const tenantName = TENANTS.dataSources;
  const channelName = CHANNELS.dataSources;

  it('read what the API lists, with the sp_* URLs from sso_base (null without it)', async () => {
    const client = harness().emulator.client(tenantName);
    await client.setTenantSso(tenantName, { enabled: true, required: false, saml_metadata_url: METADATA_URL });
    await client.setChannelSso(channelName, { enabled: true, required: true, saml_metadata_url: METADATA_URL });
    const tenant = await listedTenant(tenantName);
    const channel = await listedChannel(channelName);
    const mainChannel = await listedChannel('main');

    const workspace = harness().createWorkspace('sso-data');
    workspace.write(
      harness().providerBlock(tenantName, { ssoBase: SSO_BASE }) +
        'data "svc_tenant" "default" {}\n' +
        `data "svc_tenant" "named" {\n  name = ${hclString(TENANTS.sso)}\n}\n` +
        `data "svc_channel" "this" {\n  name = ${hclString(channelName)}\n}\n` +
        'data "svc_channel" "main" {\n  name = "main"\n}\n',
    );
    await workspace.init();
    await workspace.apply();

    expect(workspace.stateAttributes('data.svc_tenant.default')).toEqual({
      id: tenantName,
      name: null,
      uuid: tenant.uuid,
      contact_email: tenant.contact_email,
      description: tenant.description,
      active: tenant.active,
      sso_enabled: true,
      sso_required: false,
      saml_metadata_url: METADATA_URL,
    });
    const named = await listedTenant(TENANTS.sso);
    expect(workspace.stateAttributes('data.svc_tenant.named')).toMatchObject({ id: TENANTS.sso, name: TENANTS.sso, uuid: named.uuid });
    expect(workspace.stateAttributes('data.svc_channel.this')).toEqual({
      id: channelName,
      name: channelName,
      uuid: channel.uuid,
      require_totp_setup: channel.require_totp_setup,
      sso_enabled: true,
      sso_required: true,
      saml_metadata_url: METADATA_URL,
      sp_entity_id: `${SSO_BASE}/sign-in`,
      sp_acs_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/acs`,
      sp_metadata_url: `${SSO_BASE}/auth/v2/channels/${channel.uuid}/metadata`,
    });
    expect(workspace.stateAttributes('data.svc_channel.main')).toMatchObject({
      uuid: mainChannel.uuid,
      sso_enabled: false,
      sso_required: false,
      saml_metadata_url: null,
    });

    // Without sso_base the service-provider URLs are null.
    workspace.write(harness().providerBlock(tenantName) + `data "svc_channel" "this" {\n  name = ${hclString(channelName)}\n}\n`);
    await workspace.apply();
    expect(workspace.stateAttributes('data.svc_channel.this')).toMatchObject({ uuid: channel.uuid, sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null });

    // An unknown name is an error naming it.
    workspace.write(harness().providerBlock(tenantName) + 'data "svc_channel" "missing" {\n  name = "no-such-channel"\n}\n');
    const missing = await workspace.terraform(['plan', '-input=false', '-no-color']);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('no-such-channel');
  });
});
