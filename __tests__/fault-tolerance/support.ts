/**
 * Fixtures of the fault-tolerance tests, on top of the acceptance support: the provider built
 * once per test file, emulators whose issued session tokens are collected (for the secret
 * checks), terraform workspaces, and the figures each test prints.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManagementClient } from '../../src/api/client';
import type { ListEntry, ListName } from '../../src/api/types';
import { startEmulator, type EmulatorStats, type FaultSettings, type RunningEmulator } from '../../src/emulator/server';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

export interface FaultEmulator {
  readonly emulator: RunningEmulator;
  readonly url: string;
  readonly apiKey: string;
  /** Every session token this emulator issued so far. */
  readonly issuedTokens: readonly string[];
  /** Entries of a list as the API holds them (through a client of its own, outside the stats' interest). */
  entries(tenant: string, list: ListName): Promise<ListEntry[]>;
}

export interface FaultEmulatorOptions {
  readonly tenants: readonly string[];
  readonly tokenTtlSeconds?: number;
  readonly faults?: FaultSettings;
}

export interface FaultHarness {
  readonly build: TestProviderBuild;
  /** A temporary directory removed after the file. */
  readonly root: string;
  startEmulator(options: FaultEmulatorOptions): Promise<FaultEmulator>;
  /** A workspace with SVC_API_KEY set; `env` adds variables (undefined removes one). */
  createWorkspace(name: string, apiKey: string, env?: Readonly<Record<string, string | undefined>>): Workspace;
}

/** Registers beforeAll/afterAll for one test file; returns an accessor for its fixtures. */
export function useFaultHarness(): () => FaultHarness {
  let harness: FaultHarness | undefined;
  const workspaces: Workspace[] = [];
  const emulators: RunningEmulator[] = [];
  const clients: ManagementClient[] = [];

  beforeAll(() => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-fault-tolerance-'));
    const build = buildTestProvider();
    harness = {
      build,
      root,
      async startEmulator(options) {
        const apiKey = `svc-fault-key-${randomBytes(12).toString('hex')}`;
        const issuedTokens: string[] = [];
        const emulator = await startEmulator({
          seed: {
            tenants: options.tenants.map((name) => ({ name })),
            channels: [{ name: 'main' }],
            users: [{ email: 'terraform@faults.example', apiKey, active: true, readOnly: false }],
          },
          onTokenIssued: (token) => issuedTokens.push(token),
          ...(options.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: options.tokenTtlSeconds }),
          ...(options.faults === undefined ? {} : { faults: options.faults }),
        });
        emulators.push(emulator);
        const byTenant = new Map<string, ManagementClient>();
        return {
          emulator,
          url: emulator.url,
          apiKey,
          issuedTokens,
          async entries(tenant, list) {
            let client = byTenant.get(tenant);
            if (client === undefined) {
              client = new ManagementClient({ baseUrl: emulator.url, apiKey, tenant, retry: { maxAttempts: 20, baseDelayMs: 5, maxDelayMs: 50 } });
              byTenant.set(tenant, client);
              clients.push(client);
            }
            return await client.listEntries(list);
          },
        };
      },
      createWorkspace(name, apiKey, env = {}) {
        const workspace = new Workspace({
          dir: fs.mkdtempSync(path.join(root, `${name}-`)),
          cliConfigFile: build.cliConfigFile,
          trackChild: track,
          env: { SVC_API_KEY: apiKey, ...env },
        });
        workspaces.push(workspace);
        return workspace;
      },
    };
  }, 60_000);

  afterAll(async () => {
    for (const workspace of workspaces) workspace.killRunning();
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(emulators.map((emulator) => emulator.close()));
    harness?.build.remove();
    if (harness !== undefined) fs.rmSync(harness.root, { recursive: true, force: true });
  });

  return () => {
    if (harness === undefined) throw new Error('the fault harness is not set up: call useFaultHarness() at the top level of the test file');
    return harness;
  };
}

/** Requests the emulator answered with an injected fault, all kinds. */
export function faultsInjected(stats: EmulatorStats): number {
  return Object.values(stats.faults).reduce((sum, count) => sum + count, 0);
}

/** Retries the provider's clients made, counted from their debug lines in the provider log. */
export function providerRetries(providerLog: string): number {
  return (providerLog.match(/svc client \[[^\]]*\] retry /g) ?? []).length;
}

/** Prints one test's figures on stdout, one line, so a run shows them next to the test names. */
export function printFigures(test: string, figures: Readonly<Record<string, number | string>>): void {
  const text = Object.entries(figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  process.stdout.write(`[fault-tolerance] ${test}: ${text}\n`);
}

/** ip -> description of API entries, sorted by ip, for comparisons with a configuration. */
export function byIp(entries: readonly ListEntry[]): Record<string, string> {
  return Object.fromEntries(
    entries.map((entry) => [entry.ip, entry.description ?? ''] as const).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
  );
}
