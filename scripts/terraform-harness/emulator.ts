/**
 * The management-API emulator terraform runs against (in-process, on a free loopback port; one
 * per acceptance test file or bench session), its API key, and ManagementClients for
 * out-of-band changes and checks.
 */
import { randomBytes } from 'node:crypto';
import { ManagementClient } from '../../src/api/client';
import { startEmulator, type FaultSettings, type RunningEmulator } from '../../src/emulator/server';

export interface AcceptanceEmulatorOptions {
  /** Tenants to seed; give each scenario its own, so scenarios never see each other's entries. */
  readonly tenants: readonly string[];
  /** @default ['main'] */
  readonly channels?: readonly string[];
  /** Session token lifetime on the emulator clock. @default the emulator's (1800) */
  readonly tokenTtlSeconds?: number;
  readonly faults?: FaultSettings;
}

export interface AcceptanceEmulator {
  readonly emulator: RunningEmulator;
  readonly url: string;
  /** Distinctive, so tests can search files and output for it. */
  readonly apiKey: string;
  /** A client for one tenant (created once, closed by stop()), as terraform's user. */
  client(tenant: string): ManagementClient;
  /** A client as another user, CONSOLE_USER (someone in the web console): the audit log tells the two apart. */
  consoleClient(tenant: string): ManagementClient;
  stop(): Promise<void>;
}

export const TERRAFORM_USER = 'terraform@acceptance.example';
export const CONSOLE_USER = 'soc@acceptance.example';

export async function startAcceptanceEmulator(options: AcceptanceEmulatorOptions): Promise<AcceptanceEmulator> {
  const apiKey = `svc-acceptance-key-${randomBytes(12).toString('hex')}`;
  const consoleKey = `svc-console-key-${randomBytes(12).toString('hex')}`;
  const emulator = await startEmulator({
    seed: {
      tenants: options.tenants.map((name) => ({ name, contact_email: `security@${name}.example` })),
      channels: (options.channels ?? ['main']).map((name) => ({ name })),
      users: [
        { email: TERRAFORM_USER, apiKey, active: true, readOnly: false },
        { email: CONSOLE_USER, apiKey: consoleKey, active: true, readOnly: false },
      ],
    },
    ...(options.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: options.tokenTtlSeconds }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
  const clients = new Map<string, ManagementClient>();
  const clientFor = (tenant: string, key: string): ManagementClient => {
    const id = `${key}\n${tenant}`;
    let client = clients.get(id);
    if (client === undefined) {
      client = new ManagementClient({ baseUrl: emulator.url, apiKey: key, tenant });
      clients.set(id, client);
    }
    return client;
  };
  return {
    emulator,
    url: emulator.url,
    apiKey,
    client: (tenant) => clientFor(tenant, apiKey),
    consoleClient: (tenant) => clientFor(tenant, consoleKey),
    async stop() {
      await Promise.all([...clients.values()].map((client) => client.close()));
      await emulator.close();
    },
  };
}
