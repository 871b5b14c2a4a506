/**
 * The emulator (a separate process with --state-file) is killed with SIGKILL in the middle of
 * a terraform apply, just after the first bulk chunk of a whole list landed, and restarted on
 * the same port with the same state file. Terraform must report the failure clearly (the base
 * URL and the connection problem, no stack trace, no secret); afterwards nothing is lost:
 * - applying the same configuration again converges (API equals config, state equals API): the
 *   per-entry creates that landed unrecorded (reply lost) are adopted, each with a warning;
 * - reverting the configuration instead leaves no orphan: the entries that landed during the
 *   failed update of an additive list are removed, because the failed update recorded them.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ManagementClient } from '../../src/api/client';
import type { ListEntry, ListName } from '../../src/api/types';
import { startEmulatorProcess, type EmulatorProcess } from '../../src/emulator/child-process';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import type { TerraformResult, Workspace } from '../../scripts/terraform-harness/workspace';
import { byIp, printFigures, useFaultHarness } from './support';

jest.setTimeout(120_000);

const harness = useFaultHarness();
const TENANT = 'restart';
const apiKey = `svc-restart-key-${randomBytes(12).toString('hex')}`;
/** Three bulk chunks of at most 1,000. */
const BULK_COUNT = 2500;

interface RestartableEmulator {
  readonly url: string;
  current(): EmulatorProcess;
  /** SIGKILL, as soon as the emulator's request log shows a finished `command`. */
  killAfter(command: string): Promise<void>;
  restart(): Promise<void>;
  entries(list: ListName): Promise<ListEntry[]>;
  stop(): Promise<void>;
}

async function startRestartable(name: string): Promise<RestartableEmulator> {
  const dir = fs.mkdtempSync(path.join(harness().root, `${name}-emulator-`));
  const seedFile = path.join(dir, 'seed.json');
  fs.writeFileSync(
    seedFile,
    JSON.stringify({ tenants: [{ name: TENANT }], users: [{ email: 'terraform@restart.example', apiKey, active: true, readOnly: false }] }),
  );
  // Latency keeps the next bulk chunk waiting on the server while the test kills it.
  const flags = ['--config', seedFile, '--state-file', path.join(dir, 'state.json'), '--faults', 'rate=0,latency=50'];
  let killOn: { command: string; done: () => void } | undefined;
  const start = (port?: number) =>
    startEmulatorProcess({
      args: [...flags, ...(port === undefined ? [] : ['--port', String(port)])],
      onStderr: (text) => {
        if (killOn !== undefined && text.includes(` ${killOn.command} Ok -> 200`)) {
          const { done } = killOn;
          killOn = undefined;
          void running.kill().then(done);
        }
      },
    });
  let running = await start();
  const url = running.url;
  const client = () => new ManagementClient({ baseUrl: url, apiKey, tenant: TENANT, retry: { baseDelayMs: 5, maxDelayMs: 50 } });
  return {
    url,
    current: () => running,
    killAfter: (command) => new Promise<void>((resolve) => (killOn = { command, done: resolve })),
    async restart() {
      running = await start(running.port);
    },
    async entries(list) {
      const reader = client();
      try {
        return await reader.listEntries(list);
      } finally {
        await reader.close();
      }
    },
    stop: () => running.stop(),
  };
}

function hclMap(entries: Readonly<Record<string, string>>): string {
  return ['{', ...Object.entries(entries).map(([ip, description]) => `    ${hclString(ip)} = ${hclString(description)}`), '  }'].join('\n');
}

function bulkEntries(prefix: number, count: number, description: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`10.${prefix}.${Math.floor(index / 250)}.${(index % 250) + 1}`, description]));
}

function configuration(url: string, body: string): string {
  // Few retries, so terraform gives up while the emulator is down.
  return providerBlock({ baseUrl: url, tenant: TENANT, extra: { max_retries: '1' } }) + body;
}

/** What terraform printed about the failure: clear, and free of stack traces and secrets. */
function expectClearFailure(result: TerraformResult, url: string): void {
  const output = `${result.stdout}\n${result.stderr}`;
  // Terraform wraps diagnostics at 78 columns.
  const flowing = output.replace(/\s+/g, ' ');
  expect(result.code).toBe(1);
  expect(flowing).toContain('Error: Could not reach the svc management API');
  expect(flowing).toContain(`${url}/svc_api/v2/lists failed`);
  expect(flowing).toMatch(/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET/);
  expect(flowing).toContain('Check base_url (or SVC_BASE_URL)');
  // No stack frames (`    at fn (file.js:1:2)`), no internal-error wording, no secret.
  expect(output).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
  expect(output).not.toContain('Internal error in the svc provider');
  expect(output).not.toContain(apiKey);
  expect(result.providerLog).not.toContain(apiKey);
}

async function applyUntilKilled(workspace: Workspace, emulator: RestartableEmulator, command: string): Promise<TerraformResult> {
  const killed = emulator.killAfter(command);
  const result = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
  await killed;
  return result;
}

test('killed during an apply of per-entry resources and a whole list: the failure is clear, the same apply then converges', async () => {
  const emulator = await startRestartable('same-config');
  try {
    const workspace = harness().createWorkspace('restart-same', apiKey);
    const singles = Object.fromEntries(Array.from({ length: 60 }, (_unused, index) => [`192.0.2.${index + 1}`, `single ${index}`]));
    const whole = bulkEntries(20, BULK_COUNT, 'bulk');
    workspace.write(
      configuration(
        emulator.url,
        [
          `locals {\n  singles = ${hclMap(singles)}\n}`,
          'resource "svc_blacklist_entry" "single" {',
          '  for_each    = local.singles',
          '  ip          = each.key',
          '  description = each.value',
          '}',
          `resource "svc_whitelist" "all" {\n  entries = ${hclMap(whole)}\n}`,
          '',
        ].join('\n'),
      ),
    );
    await workspace.init();

    const failed = await applyUntilKilled(workspace, emulator, 'bulk_new_whitelist');
    expectClearFailure(failed, emulator.url);
    const landedBeforeRestart = { whitelist: -1, blacklist: -1 };
    await emulator.restart();
    landedBeforeRestart.whitelist = (await emulator.entries('whitelist')).length;
    landedBeforeRestart.blacklist = (await emulator.entries('blacklist')).length;
    const inStateAfterFailure = workspace.stateJson().resources.reduce((sum, resource) => sum + resource.instances.length, 0);
    const recordedSingles = new Set(
      (workspace.stateJson().resources.find((resource) => resource.type === 'svc_blacklist_entry')?.instances ?? []).map(({ attributes }) => String(attributes.ip)),
    );
    const landedUnrecorded = (await emulator.entries('blacklist')).map((entry) => entry.ip).filter((ip) => !recordedSingles.has(ip));

    // A per-entry create whose reply the kill lost landed without terraform recording it, exactly as
    // configured; the next apply adopts each such entry with a warning naming it (an entry with
    // another description would be refused, naming the import), and converges.
    const again = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
    const named = [...`${again.stdout}\n${again.stderr}`.matchAll(/Warning: svc_blacklist_entry: adopts existing entry (\S+)/g)].map((match) => match[1]);
    expect(named.sort()).toEqual([...landedUnrecorded].sort());
    expect(again.code).toBe(0);
    await workspace.planExpecting(0);
    const whitelist = await emulator.entries('whitelist');
    const blacklist = await emulator.entries('blacklist');
    const lost =
      Object.keys(whole).filter((ip) => byIp(whitelist)[ip] !== 'bulk').length + Object.entries(singles).filter(([ip, text]) => byIp(blacklist)[ip] !== text).length;
    printFigures('emulator killed mid-apply, same config applied again', {
      entries: Object.keys(singles).length + BULK_COUNT,
      whitelist_landed_before_kill: landedBeforeRestart.whitelist,
      blacklist_landed_before_kill: landedBeforeRestart.blacklist,
      landed_unrecorded_then_imported: landedUnrecorded.length,
      instances_in_state_after_failure: inStateAfterFailure,
      lost,
    });
    expect(landedBeforeRestart.whitelist).toBeGreaterThanOrEqual(1000);
    expect(landedBeforeRestart.whitelist).toBeLessThan(BULK_COUNT);
    expect({ whitelist: byIp(whitelist), blacklist: byIp(blacklist) }).toEqual({ whitelist: sorted(whole), blacklist: sorted(singles) });
    expect(workspace.stateAttributes('svc_whitelist.all').entries).toEqual(byIp(whitelist));
    const singlesInState = workspace.stateJson().resources.find((resource) => resource.type === 'svc_blacklist_entry')?.instances ?? [];
    expect(Object.fromEntries(singlesInState.map(({ attributes }) => [attributes.ip, attributes.description]))).toEqual(byIp(blacklist));
    expect(lost).toBe(0);
  } finally {
    await emulator.stop();
  }
});

test('killed during an update of an additive whole list, then the configuration reverted: nothing landed is left behind', async () => {
  const emulator = await startRestartable('reverted');
  try {
    const workspace = harness().createWorkspace('restart-reverted', apiKey);
    const before = bulkEntries(30, 100, 'before');
    const added = bulkEntries(31, BULK_COUNT, 'added');
    const listBlock = (entries: Record<string, string>) => `resource "svc_blocklist" "ours" {\n  mode    = "additive"\n  entries = ${hclMap(entries)}\n}\n`;
    workspace.write(configuration(emulator.url, listBlock(before)));
    await workspace.init();
    await workspace.apply();

    workspace.write(configuration(emulator.url, listBlock({ ...before, ...added })));
    const failed = await applyUntilKilled(workspace, emulator, 'bulk_new_blocklist');
    expectClearFailure(failed, emulator.url);
    await emulator.restart();
    const landed = (await emulator.entries('blocklist')).length - Object.keys(before).length;

    // The change is given up: back to the first configuration.
    workspace.write(configuration(emulator.url, listBlock(before)));
    await workspace.apply();
    await workspace.planExpecting(0);
    const listed = byIp(await emulator.entries('blocklist'));
    const orphans = Object.keys(listed).filter((ip) => !(ip in before)).length;
    const lost = Object.keys(before).filter((ip) => listed[ip] !== 'before').length;
    printFigures('emulator killed mid-update of an additive list, config reverted', {
      entries: Object.keys(before).length + BULK_COUNT,
      landed_before_kill: landed,
      orphans,
      lost,
    });
    expect({ landedOneChunkAtLeast: landed >= 1000, orphans, lost }).toEqual({ landedOneChunkAtLeast: true, orphans: 0, lost: 0 });
    expect(listed).toEqual(sorted(before));
    expect(workspace.stateAttributes('svc_blocklist.ours').entries).toEqual(before);
  } finally {
    await emulator.stop();
  }
});

function sorted(entries: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}
