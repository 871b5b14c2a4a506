/**
 * Acceptance: what the reviewed plan shows is what apply does (issue: fixes from an adversarial
 * review), with the real terraform CLI and the emulator.
 *
 * - A whole list applied from a saved plan removes only what that plan showed: an address that
 *   risk-based blocking (or anyone) put on the list between plan and apply stays, apply warns
 *   naming it, and the next plan shows it as drift and proposes its removal.
 * - The same through a plain `terraform apply` answered at its prompt.
 * - A per-entry create of an address already on the list is refused at plan, naming the import.
 * - Ctrl-C during a large apply: no bulk call starts after terraform stops the provider.
 * - A tenant whose name holds "/" imports by the id its state shows.
 */
import { spawn } from 'node:child_process';
import { useAcceptanceHarness } from './support/harness';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

jest.setTimeout(180_000);

const TENANTS = {
  savedPlan: 'saved-plan',
  outOfBand: 'out-of-band',
  prompt: 'prompt',
  adopt: 'adopt',
  stop: 'stop',
  slashed: 'team/red',
};
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });

async function riskBlock(tenant: string, ip: string, times: number): Promise<void> {
  for (let block = 0; block < times; block += 1) {
    const response = await fetch(`${harness().emulator.url}/_emulator/risk-block`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tenant, ip }),
    });
    expect(response.status).toBe(200);
  }
}

async function listed(tenant: string, list: 'blacklist' | 'blocklist' | 'whitelist'): Promise<string[]> {
  return (await harness().emulator.client(tenant).listEntries(list)).map((entry) => entry.ip).sort();
}

/** The configuration of the issue: a known entry merged with a variable's entries. */
function blacklistWithExtra(tenant: string): string {
  return [
    harness().providerBlock(tenant),
    'variable "extra" {',
    '  type    = map(string)',
    '  default = {}',
    '}',
    '',
    'resource "svc_blacklist" "bl" {',
    '  entries = merge({ "198.51.100.1" = "known bad" }, var.extra)',
    '}',
    '',
  ].join('\n');
}

async function appliedBlacklist(tenant: string): Promise<Workspace> {
  const workspace = harness().createWorkspace(tenant.replace(/\W/g, '-'));
  workspace.write(blacklistWithExtra(tenant));
  await workspace.init();
  await workspace.apply();
  expect(await listed(tenant, 'blacklist')).toEqual(['198.51.100.1']);
  return workspace;
}

/** After apply left `foreign` in place: refresh shows it as drift, and the next plan proposes its removal. */
async function expectNextPlanProposesRemoval(workspace: Workspace, foreign: string): Promise<void> {
  const quoted = foreign.replace(/\./g, '\\.');
  const refreshOnly = await workspace.planExpecting(2, ['-refresh-only', '-var', 'extra={"198.51.100.2"="new"}']);
  expect(refreshOnly.text).toContain('Objects have changed outside of Terraform');
  expect(refreshOnly.text).toMatch(new RegExp(`\\+ "${quoted}" +=`));
  const next = await workspace.planExpecting(2, ['-var', 'extra={"198.51.100.2"="new"}']);
  expect(next.text).toMatch(new RegExp(`- "${quoted}" += .*-> null`));
  expect(next.actions['svc_blacklist.bl']).toBe('update');
}

describe('a whole list removes only what the plan showed', () => {
  test('saved plan: risk-based blocking between plan and apply is not undone', async () => {
    const workspace = await appliedBlacklist(TENANTS.savedPlan);
    const plan = await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=r.plan', '-var', 'extra={"198.51.100.2"="new"}']);
    expect(plan.stdout).toMatch(/\+ "198\.51\.100\.2" += "new"/);
    expect(plan.stdout).not.toMatch(/- "/);

    await riskBlock(TENANTS.savedPlan, '203.0.113.66', 3);
    expect(await listed(TENANTS.savedPlan, 'blacklist')).toContain('203.0.113.66');

    const applied = await workspace.terraformExpecting(['apply', '-no-color', '-input=false', 'r.plan']);
    expect(await listed(TENANTS.savedPlan, 'blacklist')).toEqual(['198.51.100.1', '198.51.100.2', '203.0.113.66']);
    const output = applied.stdout + applied.stderr;
    expect(output).toContain('Warning: svc_blacklist: 1 entry not in this plan left in place');
    expect(output).toContain('(203.0.113.66)');
    // The audit log blames nobody for a removal that never happened.
    const events = await harness().emulator.client(TENANTS.savedPlan).auditEvents(50);
    expect(events.filter((event) => event.action === 'remove_entry')).toEqual([]);

    await expectNextPlanProposesRemoval(workspace, '203.0.113.66');
  });

  test('saved plan: an entry added out of band between plan and apply stays', async () => {
    const workspace = await appliedBlacklist(TENANTS.outOfBand);
    await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=r.plan', '-var', 'extra={"198.51.100.2"="new"}']);
    await harness().emulator.client(TENANTS.outOfBand).addEntry('blacklist', { ip: '192.0.2.50', description: 'added by the SOC' });
    const applied = await workspace.terraformExpecting(['apply', '-no-color', '-input=false', 'r.plan']);
    expect(applied.stdout + applied.stderr).toContain('(192.0.2.50)');
    expect(await listed(TENANTS.outOfBand, 'blacklist')).toEqual(['192.0.2.50', '198.51.100.1', '198.51.100.2']);
    await expectNextPlanProposesRemoval(workspace, '192.0.2.50');
  });

  test('plain terraform apply: an entry added while the prompt waits stays', async () => {
    const workspace = await appliedBlacklist(TENANTS.prompt);
    const child = track(spawn('terraform', ['apply', '-no-color', '-var', 'extra={"198.51.100.2"="new"}'], {
      cwd: workspace.dir,
      env: { ...workspace.env, TF_INPUT: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    }));
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes('Enter a value:')) {
            child.stdout.off('data', onData);
            resolve();
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        child.once('close', () => reject(new Error(`terraform apply ended before its prompt:\n${output}`)));
      });
      expect(output).toMatch(/\+ "198\.51\.100\.2" += "new"/);
      for (let block = 0; block < 3; block += 1) harness().emulator.emulator.riskBlock(TENANTS.prompt, '203.0.113.77');
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stdin.end('yes\n');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(output).toContain('(203.0.113.77)');
    expect(await listed(TENANTS.prompt, 'blacklist')).toEqual(['198.51.100.1', '198.51.100.2', '203.0.113.77']);
  });
});

test('a per-entry create of an address already on the list is refused at plan, naming the import; the import then takes it over', async () => {
  const tenant = TENANTS.adopt;
  await riskBlock(tenant, '203.0.113.99', 3);
  const before = await harness().emulator.client(tenant).getEntry('blacklist', '203.0.113.99');
  expect(before).not.toBeNull();
  const workspace = harness().createWorkspace('adopt');
  workspace.write(harness().providerBlock(tenant) + resourceBlock('svc_blacklist_entry', 'scanner', { ip: hclString('203.0.113.99'), description: hclString('mine now') }));
  await workspace.init();
  harness().emulator.emulator.resetStats();
  const plan = await workspace.planDetailed();
  expect(plan.code).toBe(1);
  expect(plan.text).toContain('Error: The blacklist already holds 203.0.113.99');
  expect(plan.text).toMatch(/terraform import <address of this resource> adopt\/203\.0\.113\.99/);
  expect(plan.text).toContain('with svc_blacklist_entry.scanner');
  const writes = Object.keys(harness().emulator.emulator.stats().byCommand).filter((command) => /^(new|bulk_new|delete|bulk_delete)_/.test(command));
  expect(writes).toEqual([]);
  expect(await harness().emulator.client(tenant).getEntry('blacklist', '203.0.113.99')).toEqual(before);

  // The import the message names works, and from then on terraform owns the entry knowingly.
  await workspace.importResource('svc_blacklist_entry.scanner', 'adopt/203.0.113.99');
  await workspace.apply();
  expect((await harness().emulator.client(tenant).getEntry('blacklist', '203.0.113.99'))?.description).toBe('mine now');
  // A replacement of the resource's own entry is not mistaken for adopting someone else's.
  const replaced = await workspace.apply(['-replace=svc_blacklist_entry.scanner']);
  expect(replaced.stdout).toContain('1 added, 0 changed, 1 destroyed');
  expect((await harness().emulator.client(tenant).getEntry('blacklist', '203.0.113.99'))?.description).toBe('mine now');
});

test('Ctrl-C during a large whole-list apply: no bulk call starts after terraform stops the provider', async () => {
  const tenant = TENANTS.stop;
  const workspace = harness().createWorkspace('stop');
  const entries = Array.from({ length: 8000 }, (_, index) => `    "10.${Math.floor(index / 250)}.${index % 250}.1" = "bulk"`);
  workspace.write([harness().providerBlock(tenant), 'resource "svc_blocklist" "big" {', '  entries = {', ...entries, '  }', '}', ''].join('\n'));
  await workspace.init();
  await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=big.plan']);
  // Every API request now takes 300 ms, so the 8 chunks of the apply take seconds: a stop lands mid-way.
  harness().emulator.emulator.setFaults({ rate: 0, latencyMs: 300 });
  harness().emulator.emulator.resetStats();
  const child = track(spawn('terraform', ['apply', '-no-color', '-input=false', 'big.plan'], { cwd: workspace.dir, env: workspace.env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Creating...')) resolve();
      });
      child.once('close', () => resolve());
    });
    child.kill('SIGINT');
    const code = await exited;
    expect(code).not.toBe(0);
  } finally {
    child.kill('SIGKILL');
    harness().emulator.emulator.setFaults(undefined);
  }
  const bulkCalls = harness().emulator.emulator.stats().byCommand.bulk_new_blocklist ?? 0;
  // At most the chunk under way when the stop arrived; before the fix all 8 were sent.
  expect(bulkCalls).toBeLessThanOrEqual(1);
  expect((await listed(tenant, 'blocklist')).length).toBeLessThanOrEqual(1000);
});

test('a tenant whose name holds "/" imports by the id its state shows (the "/" written %2F)', async () => {
  const tenant = TENANTS.slashed;
  await harness().emulator.client(tenant).addEntry('whitelist', { ip: '192.0.2.7', description: 'office' });
  await harness().emulator.client(tenant).addEntry('blacklist', { ip: '198.51.100.7', description: 'scanner' });
  const workspace = harness().createWorkspace('slashed');
  workspace.write(
    harness().providerBlock(tenant) +
      resourceBlock('svc_whitelist_entry', 'office', { ip: hclString('192.0.2.7'), description: hclString('office') }) +
      resourceBlock('svc_blacklist', 'all', { entries: '{ "198.51.100.7" = "scanner" }' }),
  );
  await workspace.init();
  await workspace.importResource('svc_whitelist_entry.office', 'team%2Fred/192.0.2.7');
  await workspace.importResource('svc_blacklist.all', 'team%2Fred/blacklist');
  expect(workspace.stateAttributes('svc_whitelist_entry.office')).toMatchObject({ tenant: 'team/red', id: 'team%2Fred/192.0.2.7' });
  expect(workspace.stateAttributes('svc_blacklist.all')).toMatchObject({ tenant: 'team/red', id: 'team%2Fred/blacklist' });
  await workspace.planExpecting(0);
});
