/**
 * The management-API emulator an acceptance test file runs terraform against (in-process, on
 * a free loopback port), its API key, and ManagementClients for out-of-band changes and checks.
 */
import { randomBytes } from 'node:crypto';
import { ManagementClient } from '../../../src/api';
import { startEmulator, type FaultSettings, type RunningEmulator } from '../../../src/emulator/server';

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
  /** A client for one tenant (created once, closed by stop()). */
  client(tenant: string): ManagementClient;
  stop(): Promise<void>;
}

export async function startAcceptanceEmulator(options: AcceptanceEmulatorOptions): Promise<AcceptanceEmulator> {
  const apiKey = `svc-acceptance-key-${randomBytes(12).toString('hex')}`;
  const emulator = await startEmulator({
    seed: {
      tenants: options.tenants.map((name) => ({ name, contact_email: `security@${name}.example` })),
      channels: (options.channels ?? ['main']).map((name) => ({ name })),
      users: [{ email: 'terraform@acceptance.example', apiKey, active: true, readOnly: false }],
    },
    ...(options.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: options.tokenTtlSeconds }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
  const clients = new Map<string, ManagementClient>();
  return {
    emulator,
    url: emulator.url,
    apiKey,
    client(tenant) {
      let client = clients.get(tenant);
      if (client === undefined) {
        client = new ManagementClient({ baseUrl: emulator.url, apiKey, tenant });
        clients.set(tenant, client);
      }
      return client;
    },
    async stop() {
      await Promise.all([...clients.values()].map((client) => client.close()));
      await emulator.close();
    },
  };
}
