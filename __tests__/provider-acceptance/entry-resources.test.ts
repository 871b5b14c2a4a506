/**
 * Acceptance: svc_blacklist_entry, svc_blocklist_entry and svc_whitelist_entry driven by the
 * real terraform CLI against the emulator, plus the svc_list and svc_audit_events data sources.
 *
 * Each scenario has its own tenant and workspace, and its steps run in order in that workspace
 * (like the framework's acceptance test steps). The main scenario declares one entry of each
 * list in one configuration, so every terraform command exercises all three resource types.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ListEntry, ListName } from '../../src/api/types';
import { useAcceptanceHarness } from './support/harness';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';
import { filesContaining, zipEntriesContaining } from './support/search';
import type { Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(180_000);

const TENANTS = {
  entries: 'entries',
  unknownIp: 'unknown-ip',
  validation: 'validation',
  ephemeralKey: 'ephemeral-key',
  tokens: 'tokens',
  dataSources: 'data-sources',
  savedPlan: 'saved-plan',
};
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });

interface ListCase {
  readonly list: ListName;
  readonly type: string;
  /** As first written in the configuration. */
  readonly ip: string;
  /** Another spelling of the same address or range. */
  readonly respelled: string;
  readonly canonical: string;
}

const LISTS: readonly ListCase[] = [
  { list: 'blacklist', type: 'svc_blacklist_entry', ip: '10.0.0.1', respelled: '10.0.0.1/32', canonical: '10.0.0.1' },
  { list: 'blocklist', type: 'svc_blocklist_entry', ip: '2001:db8:100::/48', respelled: '2001:0DB8:0100::/48', canonical: '2001:db8:100::/48' },
  { list: 'whitelist', type: 'svc_whitelist_entry', ip: '192.0.2.10/32', respelled: '192.0.2.10', canonical: '192.0.2.10' },
];
const address = (entry: ListCase) => `${entry.type}.this`;
const byList = <T>(make: (entry: ListCase) => T): Record<string, T> => Object.fromEntries(LISTS.map((entry) => [entry.list, make(entry)]));

async function apiEntries(tenant: string, list: ListName): Promise<ListEntry[]> {
  return await harness().emulator.client(tenant).listEntries(list);
}

describe('per-entry resources: one entry in each list', () => {
  const tenant = TENANTS.entries;
  let workspace: Workspace;
  let created: Record<string, Record<string, unknown>>;

  const configuration = (options: { spelling: 'ip' | 'respelled'; description: string }) =>
    harness().providerBlock(tenant) +
    LISTS.map((entry) => resourceBlock(entry.type, 'this', { ip: hclString(entry[options.spelling]), description: hclString(options.description) })).join('\n');

  const expectApi = async (description: string) => {
    const actual = byList(() => [] as unknown[]);
    for (const entry of LISTS) actual[entry.list] = (await apiEntries(tenant, entry.list)).map(({ ip, description }) => ({ ip, description }));
    expect(actual).toEqual(byList((entry) => [{ ip: entry.canonical, description }]));
  };

  beforeAll(() => {
    workspace = harness().createWorkspace('entries');
  });

  it('creates the entries, and the API and the state agree', async () => {
    workspace.write(configuration({ spelling: 'ip', description: 'created by terraform' }));
    await workspace.init();
    await workspace.apply();
    await expectApi('created by terraform');

    created = byList((entry) => workspace.stateAttributes(address(entry)));
    for (const entry of LISTS) {
      const [onApi] = await apiEntries(tenant, entry.list);
      const expected: Record<string, unknown> = {
        id: `${tenant}/${entry.canonical}`,
        ip: entry.ip,
        description: 'created by terraform',
        tenant,
        created: onApi.created,
      };
      if (entry.list === 'blocklist') expected.expires = onApi.expires;
      expect({ list: entry.list, ...created[entry.list] }).toEqual({ list: entry.list, ...expected });
    }
  });

  it('plans no change for another spelling of the same addresses (e.g. 10.0.0.1/32 for 10.0.0.1)', async () => {
    workspace.write(configuration({ spelling: 'respelled', description: 'created by terraform' }));
    await workspace.planExpecting(0);
    workspace.write(configuration({ spelling: 'ip', description: 'created by terraform' }));
  });

  it('imports into a fresh state with <tenant>/<ip>, and the import plans no change', async () => {
    const fresh = harness().createWorkspace('entries-import');
    fresh.write(configuration({ spelling: 'ip', description: 'created by terraform' }));
    await fresh.init();

    const absent = await fresh.terraform(['import', '-input=false', '-no-color', 'svc_blacklist_entry.this', `${tenant}/192.0.2.99`]);
    expect(absent.code).toBe(1);
    expect(absent.stdout + absent.stderr).toMatch(/192\.0\.2\.99/);
    expect(absent.stdout + absent.stderr).toMatch(/\bno blacklist entry\b|not found|does not exist/i);

    for (const entry of LISTS) await fresh.importResource(address(entry), `${tenant}/${entry.ip}`);
    await fresh.planExpecting(0);
    // Import writes the canonical spelling (issue 30); the configuration's own spelling plans no change.
    const canonicalised = Object.fromEntries(LISTS.map((entry) => [entry.list, { ...(created[entry.list] as object), ip: entry.canonical }]));
    expect(byList((entry) => fresh.stateAttributes(address(entry)))).toEqual(canonicalised);
  });

  it('updates a description in place (not a replacement)', async () => {
    workspace.write(configuration({ spelling: 'ip', description: 'updated by terraform' }));
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual(Object.fromEntries(LISTS.map((entry) => [address(entry), 'update'])));
    expect(plan.summary).toEqual({ add: 0, change: 3, destroy: 0 });
    await workspace.apply();
    await expectApi('updated by terraform');
    for (const entry of LISTS) expect(workspace.stateAttributes(address(entry)).created).toBe(created[entry.list].created);
  });

  it('plans a create for an entry deleted outside terraform, and apply puts it back', async () => {
    for (const entry of LISTS) await harness().emulator.client(tenant).deleteEntry(entry.list, entry.canonical);
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual(Object.fromEntries(LISTS.map((entry) => [address(entry), 'create'])));
    await workspace.apply();
    await expectApi('updated by terraform');
    await workspace.planExpecting(0);
  });

  it('plans an update for a description changed outside terraform, and apply repairs it', async () => {
    for (const entry of LISTS) {
      await harness().emulator.client(tenant).addEntry(entry.list, { ip: entry.canonical, description: 'changed outside terraform' });
    }
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual(Object.fromEntries(LISTS.map((entry) => [address(entry), 'update'])));
    await workspace.apply();
    await expectApi('updated by terraform');
  });

  it('plans a create (a renewed block) once the blocklist entry has expired on the emulator clock', async () => {
    harness().emulator.emulator.advanceClock(31 * 60);
    expect(await apiEntries(tenant, 'blocklist')).toEqual([]);
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'svc_blocklist_entry.this': 'create' });
    await workspace.apply();
    const [renewed] = await apiEntries(tenant, 'blocklist');
    expect(renewed.expires).toBeGreaterThan(harness().emulator.emulator.now());
    expect(workspace.stateAttributes('svc_blocklist_entry.this').expires).toBe(renewed.expires);
  });

  it('keeps the API key out of the state, show -json, the plan file and every output', async () => {
    const apiKey = harness().emulator.apiKey;
    expect(workspace.stateText()).not.toContain(apiKey);
    expect(JSON.stringify(await workspace.showJson())).not.toContain(apiKey);

    workspace.write(configuration({ spelling: 'ip', description: 'planned, not applied' }));
    await workspace.planExpecting(2, ['-out=secret-check.tfplan']);
    workspace.write(configuration({ spelling: 'ip', description: 'updated by terraform' }));
    const planFile = path.join(workspace.dir, 'secret-check.tfplan');
    expect(fs.readFileSync(planFile).includes(apiKey)).toBe(false);
    // The search can find things: the emulator URL is in the plan's configuration snapshot.
    expect(zipEntriesContaining(planFile, harness().emulator.url)).not.toEqual([]);
    expect(zipEntriesContaining(planFile, apiKey)).toEqual([]);
    expect(JSON.stringify(await workspace.showJson('secret-check.tfplan'))).not.toContain(apiKey);

    expect(filesContaining(workspace.dir, apiKey)).toEqual([]);
    const outputs = workspace.history.filter((result) => (result.stdout + result.stderr + result.providerLog).includes(apiKey));
    expect(outputs.map((result) => result.args.join(' '))).toEqual([]);
  });

  it('destroys the entries and leaves the API clean', async () => {
    await workspace.destroy();
    expect(byList(() => [] as ListEntry[])).toEqual(Object.fromEntries(await Promise.all(LISTS.map(async (entry) => [entry.list, await apiEntries(tenant, entry.list)]))));
    expect(workspace.stateJson().resources).toEqual([]);
  });
});

describe('an ip unknown until apply (from another resource)', () => {
  const tenant = TENANTS.unknownIp;

  it('plans with the ip unknown, applies, and then plans no change', async () => {
    const workspace = harness().createWorkspace('unknown-ip');
    workspace.write(
      harness().providerBlock(tenant) +
        resourceBlock('terraform_data', 'address', { input: hclString('198.51.100.7') }) +
        resourceBlock('svc_blacklist_entry', 'from_other_resource', { ip: 'terraform_data.address.output', description: hclString('ip known at apply') }),
    );
    await workspace.init();
    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'terraform_data.address': 'create', 'svc_blacklist_entry.from_other_resource': 'create' });
    expect(plan.text).toMatch(/\+ ip\s+= \(known after apply\)/);
    await workspace.apply();
    expect((await apiEntries(tenant, 'blacklist')).map(({ ip, description }) => ({ ip, description }))).toEqual([
      { ip: '198.51.100.7', description: 'ip known at apply' },
    ]);
    expect(workspace.stateAttributes('svc_blacklist_entry.from_other_resource')).toMatchObject({ id: `${tenant}/198.51.100.7`, ip: '198.51.100.7' });
    await workspace.planExpecting(0);
  });
});

describe('bad addresses fail terraform validate, naming ip and the value, and nothing reaches the API', () => {
  const tenant = TENANTS.validation;
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = harness().createWorkspace('validation');
    workspace.write(harness().providerBlock(tenant));
    await workspace.init();
    harness().emulator.emulator.resetStats();
  });

  it.each([
    { name: 'a prefix length above 32', type: 'svc_blacklist_entry', ip: '10.0.0.0/33' },
    { name: 'host bits set', type: 'svc_blocklist_entry', ip: '10.0.0.1/24' },
    { name: 'an octet above 255', type: 'svc_whitelist_entry', ip: '10.0.0.300' },
    { name: 'an empty string', type: 'svc_blacklist_entry', ip: '' },
  ])('$name ($type, ip = "$ip")', async ({ type, ip }) => {
    const configuration = harness().providerBlock(tenant) + resourceBlock(type, 'bad', { ip: hclString(ip), description: hclString('must not be created') });
    workspace.write(configuration);
    const result = await workspace.terraform(['validate', '-json', '-no-color']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      diagnostics: Array<{ severity: string; summary: string; detail: string; range?: { start: { line: number } } }>;
    };
    expect(report.valid).toBe(false);
    const ipLine = configuration.split('\n').findIndex((line) => line.trimStart().startsWith('ip =')) + 1;
    // The diagnostic points at the ip attribute (its path) and quotes the value.
    expect(report.diagnostics.map((diagnostic) => ({ severity: diagnostic.severity, line: diagnostic.range?.start.line }))).toEqual([{ severity: 'error', line: ipLine }]);
    const message = `${report.diagnostics[0].summary}\n${report.diagnostics[0].detail}`;
    expect(message).toContain(ip === '' ? '""' : ip);
    expect(harness().emulator.emulator.stats().requests).toBe(0);
  });
});

describe('the API key from an ephemeral variable instead of SVC_API_KEY', () => {
  const tenant = TENANTS.ephemeralKey;

  it('applies a saved plan, and the key is in no file terraform wrote and in no output', async () => {
    const apiKey = harness().emulator.apiKey;
    const workspace = harness().createWorkspace('ephemeral-key', { SVC_API_KEY: undefined, TF_VAR_svc_api_key: apiKey });
    workspace.write(
      [
        'variable "svc_api_key" {',
        '  type      = string',
        '  sensitive = true',
        '  ephemeral = true',
        '}',
        '',
      ].join('\n') +
        harness().providerBlock(tenant, { extra: { api_key: 'var.svc_api_key' } }) +
        resourceBlock('svc_whitelist_entry', 'office', { ip: hclString('2001:db8:abcd::/48'), description: hclString('office egress') }),
    );
    await workspace.init();
    await workspace.planExpecting(2, ['-out=ephemeral.tfplan']);
    await workspace.terraformExpecting(['apply', '-input=false', '-no-color', 'ephemeral.tfplan']);
    expect((await apiEntries(tenant, 'whitelist')).map((entry) => entry.ip)).toEqual(['2001:db8:abcd::/48']);

    expect(zipEntriesContaining(path.join(workspace.dir, 'ephemeral.tfplan'), apiKey)).toEqual([]);
    expect(JSON.stringify(await workspace.showJson('ephemeral.tfplan'))).not.toContain(apiKey);
    expect(filesContaining(workspace.dir, apiKey)).toEqual([]);
    expect(workspace.history.filter((result) => (result.stdout + result.stderr + result.providerLog).includes(apiKey)).map((result) => result.args.join(' '))).toEqual([]);
  });
});

describe('a session token that expires during apply', () => {
  const tenant = TENANTS.tokens;
  const COUNT = 20;

  it(`applies ${COUNT} entries with -parallelism=2 through repeated re-logins`, async () => {
    // Tokens live 2 s on a clock of whole seconds (so 1 to 2 s of real time) and every request
    // takes at least 150 ms: ten rounds of two creates outlast the first token. (No clock jump:
    // one landing between a fresh login and its first use is refused as a broken service.)
    const emulator = await harness().startEmulator({ tenants: [tenant], tokenTtlSeconds: 2, faults: { rate: 0, latencyMs: 150 } });
    const workspace = harness().createWorkspace('tokens', { SVC_API_KEY: emulator.apiKey });
    workspace.write(
      providerBlock({ baseUrl: emulator.url, tenant }) +
        [
          'resource "svc_blacklist_entry" "many" {',
          `  count       = ${COUNT}`,
          '  ip          = "192.0.2.${count.index + 1}"',
          '  description = "token expiry test ${count.index + 1}"',
          '}',
          '',
        ].join('\n'),
    );
    await workspace.init();
    emulator.emulator.resetStats();
    await workspace.apply(['-parallelism=2']);
    const stats = emulator.emulator.stats();
    expect((await emulator.client(tenant).listEntries('blacklist')).length).toBe(COUNT);
    // The plan and the apply each log in once (their provider processes check the tenant with
    // one list read), so a third login is a re-login, and a command refused for an expired
    // token was sent again: more often than there are entries.
    expect(stats.logins).toBeGreaterThanOrEqual(3);
    const { login, ...commands } = stats.byCommand;
    expect({ login, mostSent: Math.max(...Object.values(commands)) }).toEqual({ login: stats.logins, mostSent: expect.any(Number) });
    expect(Math.max(...Object.values(commands))).toBeGreaterThan(COUNT);
  });
});

describe('data sources svc_list and svc_audit_events', () => {
  const tenant = TENANTS.dataSources;

  it('read the same entries and events as the API', async () => {
    const client = harness().emulator.client(tenant);
    await client.addEntry('blacklist', { ip: '192.0.2.2', description: 'second' });
    await client.addEntry('blacklist', { ip: '192.0.2.1', description: 'first' });
    await client.addEntry('blacklist', { ip: '198.51.100.0/24', description: 'a range' });
    await client.addEntry('blocklist', { ip: '203.0.113.9', description: 'blocked for 30 minutes' });
    await client.addEntry('whitelist', { ip: '192.0.2.200', description: 'to be removed' });
    await client.deleteEntry('whitelist', '192.0.2.200');

    const workspace = harness().createWorkspace('data-sources');
    workspace.write(
      harness().providerBlock(tenant) +
        ['blacklist', 'blocklist', 'whitelist'].map((list) => `data "svc_list" "${list}" {\n  list = "${list}"\n}\n`).join('\n') +
        'data "svc_audit_events" "all" {}\n' +
        'data "svc_audit_events" "removals" {\n  category = "Lists"\n  action   = "remove_entry"\n}\n' +
        'data "svc_audit_events" "newest_two" {\n  limit = 2\n}\n',
    );
    await workspace.init();
    await workspace.apply();

    for (const list of ['blacklist', 'blocklist', 'whitelist'] as const) {
      const expected = (await client.listEntries(list))
        .map((entry) => ({ ip: entry.ip, description: entry.description, created: entry.created, expires: entry.expires ?? null }))
        .sort((left, right) => (left.ip < right.ip ? -1 : 1));
      expect({ list, entries: workspace.stateAttributes(`data.svc_list.${list}`).entries }).toEqual({ list, entries: expected });
    }
    expect(workspace.stateAttributes('data.svc_list.blacklist').entries).toHaveLength(3);

    const events = (await client.auditEvents(100)).map(({ timestamp, user, category, action, description }) => ({ timestamp, user, category, action, description }));
    expect(events.length).toBeGreaterThanOrEqual(6);
    expect(workspace.stateAttributes('data.svc_audit_events.all').events).toEqual(events);
    expect(workspace.stateAttributes('data.svc_audit_events.removals').events).toEqual(
      events.filter((event) => event.category === 'Lists' && event.action === 'remove_entry'),
    );
    expect(workspace.stateAttributes('data.svc_audit_events.removals').events).toHaveLength(1);
    expect(workspace.stateAttributes('data.svc_audit_events.newest_two').events).toEqual(events.slice(0, 2));
  });
});

// Last in this file: its clock jump ends every block started before it.
describe('a saved plan that updates a blocklist entry, applied after the block ended', () => {
  const tenant = TENANTS.savedPlan;

  it('applies (the update re-adds the entry, so expires was planned unknown) and then plans no change', async () => {
    const workspace = harness().createWorkspace('saved-plan');
    const configuration = (description: string) =>
      harness().providerBlock(tenant) + resourceBlock('svc_blocklist_entry', 'burst', { ip: hclString('192.0.2.66'), description: hclString(description) });
    workspace.write(configuration('first'));
    await workspace.init();
    await workspace.apply();
    const firstExpires = workspace.stateAttributes('svc_blocklist_entry.burst').expires as number;

    workspace.write(configuration('second'));
    const plan = await workspace.planExpecting(2, ['-out=update.tfplan']);
    expect(plan.text).toMatch(/~ expires\s+= \d+ -> \(known after apply\)/);
    harness().emulator.emulator.advanceClock(31 * 60);
    await workspace.terraformExpecting(['apply', '-input=false', '-no-color', 'update.tfplan']);

    const [onApi] = await apiEntries(tenant, 'blocklist');
    expect(onApi).toMatchObject({ ip: '192.0.2.66', description: 'second' });
    expect(onApi.expires).toBeGreaterThan(firstExpires);
    expect(workspace.stateAttributes('svc_blocklist_entry.burst')).toMatchObject({ description: 'second', expires: onApi.expires });
    await workspace.planExpecting(0);
  });
});
