/**
 * Acceptance: a new user's walkthrough. One configuration (fixtures/walkthrough/main.tf) uses
 * every resource and data source of the provider, with base_url and tenant from SVC_BASE_URL
 * and SVC_TENANT as README.md shows. It goes through init, validate, apply, an out-of-band
 * change, plan exit 2, apply, plan exit 0 and destroy, and the API is checked at each step.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ListName } from '../../src/api/types';
import { useAcceptanceHarness } from './support/harness';
import type { Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(120_000);

const CONFIGURATION = fs.readFileSync(path.join(__dirname, 'fixtures', 'walkthrough', 'main.tf'), 'utf8');
const METADATA_URL = 'https://idp.example.com/app/svc/metadata';
const harness = useAcceptanceHarness({ tenants: ['acme', 'globex'], channels: ['main'] });

/** address -> description of one list, as the API holds it. */
async function listed(tenant: string, list: ListName): Promise<Record<string, string>> {
  const entries = await harness().emulator.client(tenant).listEntries(list);
  return Object.fromEntries(entries.map((entry) => [entry.ip, entry.description]));
}

async function ssoOf(kind: 'tenant' | 'channel', name: string): Promise<unknown> {
  const client = harness().emulator.client('acme');
  const objects = kind === 'tenant' ? await client.listCustomers() : await client.listChannels();
  return objects.find((object) => object.name === name)?.sso;
}

const ENABLED = { enabled: true, required: false, saml_metadata_url: METADATA_URL };
const CONFIGURED_LISTS = {
  'acme blacklist': { '203.0.113.9': 'port scanner' },
  'acme blocklist': { '198.51.100.7': 'ssh brute force', '203.0.113.50': 'credential stuffing', '10.1.0.0/16': '' },
  'acme whitelist': { '2001:db8::1': 'office egress' },
  'globex blacklist': { '192.0.2.0/24': 'botnet range', '192.0.2.200': 'known bad host' },
  'globex blocklist': {},
  'globex whitelist': { '198.51.100.0/24': 'head office' },
};

async function everyList(): Promise<Record<string, Record<string, string>>> {
  const result: Record<string, Record<string, string>> = {};
  for (const tenant of ['acme', 'globex']) {
    for (const list of ['blacklist', 'blocklist', 'whitelist'] as const) result[`${tenant} ${list}`] = await listed(tenant, list);
  }
  return result;
}

async function expectConfiguredPolicy(extra: { acmeBlocklist?: Record<string, string> } = {}): Promise<void> {
  expect(await everyList()).toEqual({
    ...CONFIGURED_LISTS,
    'acme blocklist': { ...CONFIGURED_LISTS['acme blocklist'], ...extra.acmeBlocklist },
  });
  expect(await ssoOf('tenant', 'acme')).toEqual({ ...ENABLED, required: true });
  expect(await ssoOf('channel', 'main')).toEqual(ENABLED);
}

describe('walkthrough: every resource and data source in one configuration', () => {
  let workspace: Workspace;

  beforeAll(() => {
    workspace = harness().createWorkspace('walkthrough', { SVC_BASE_URL: harness().emulator.url, SVC_TENANT: 'acme' });
    workspace.write(CONFIGURATION);
  });

  it('initialises and validates', async () => {
    await workspace.init();
    const validation = await workspace.validate();
    expect(validation.stdout).toContain('The configuration is valid.');
  });

  it('applies: every list, both SSO settings and the data sources as configured', async () => {
    await workspace.apply();
    await expectConfiguredPolicy();
    const outputs = JSON.parse((await workspace.terraformExpecting(['output', '-json'])).stdout) as Record<string, { value: unknown }>;
    const channelUuid = (await harness().emulator.client('acme').listChannels()).find((channel) => channel.name === 'main')!.uuid;
    expect(outputs.blocked_now.value).toEqual(['10.1.0.0/16', '198.51.100.7', '203.0.113.50']);
    expect(outputs.audit_additions.value).toBeGreaterThanOrEqual(4);
    expect(outputs.acme_sso_enforced.value).toBe(true);
    expect(outputs.acs_url.value).toBe(`https://sso.example.com/auth/v2/channels/${channelUuid}/acs`);
    expect(outputs.channel_metadata_url.value).toBe(`https://sso.example.com/auth/v2/channels/${channelUuid}/metadata`);
    expect(workspace.stateAttributes('svc_whitelist_entry.office')).toMatchObject({ ip: '2001:DB8:0::1', id: 'acme/2001:db8::1' });
    await workspace.planExpecting(0);
  });

  it('plans exit 2 after out-of-band changes, and leaves alone what the additive list does not own', async () => {
    const acme = harness().emulator.client('acme');
    await acme.deleteEntry('blacklist', '203.0.113.9');
    await acme.addEntry('whitelist', { ip: '2001:db8::1', description: 'changed by hand' });
    await acme.setChannelSso('main', null);
    await harness().emulator.client('globex').addEntry('blacklist', { ip: '192.0.2.77', description: 'added by hand' });
    harness().emulator.emulator.riskBlock('acme', '203.0.113.77');

    const drift = await workspace.planExpecting(2);
    expect(drift.actions).toMatchObject({
      'svc_blacklist_entry.scanner': 'create',
      'svc_whitelist_entry.office': 'update',
      'svc_channel_sso.main': 'update',
      'svc_blacklist.globex': 'update',
    });
    for (const unchanged of ['svc_blocklist_entry.bruteforce', 'svc_blocklist.acme_extra', 'svc_whitelist.globex', 'svc_tenant_sso.acme']) {
      expect(drift.actions[unchanged]).toBeUndefined();
    }
    expect(drift.text).toMatch(/- "192\.0\.2\.77"\s+= "added by hand" -> null/);
  });

  it('applies the configuration back; the risk-based block stays; the next plan exits 0', async () => {
    await workspace.apply();
    await expectConfiguredPolicy({ acmeBlocklist: { '203.0.113.77': expect.stringContaining('isk-based blocking') } });
    await workspace.planExpecting(0);
  });

  it('destroys: the lists it owns are empty, SSO is off, the risk-based block is still there', async () => {
    await workspace.destroy();
    expect(await everyList()).toEqual({
      'acme blacklist': {},
      'acme blocklist': { '203.0.113.77': expect.stringContaining('isk-based blocking') },
      'acme whitelist': {},
      'globex blacklist': {},
      'globex blocklist': {},
      'globex whitelist': {},
    });
    expect(await ssoOf('tenant', 'acme')).toBeNull();
    expect(await ssoOf('channel', 'main')).toBeNull();
  });

  it('never shows the API key in any output', () => {
    const apiKey = harness().emulator.apiKey;
    const leaks = workspace.history.filter((result) => (result.stdout + result.stderr + result.providerLog).includes(apiKey));
    expect(leaks.map((result) => result.args.join(' '))).toEqual([]);
  });
});
