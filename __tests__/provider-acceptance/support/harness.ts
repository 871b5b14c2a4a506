/**
 * One acceptance test file's fixtures: the provider built once into a temporary directory, an
 * emulator, and terraform workspaces (each with its own directory and environment). Call
 * useAcceptanceHarness() at the top of a test file; it registers beforeAll/afterAll.
 *
 *   const harness = useAcceptanceHarness({ tenants: ['entries'] });
 *   const workspace = harness().createWorkspace('entries');
 *   workspace.write(harness().providerBlock('entries') + resourceBlock(...));
 *   await workspace.init();
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAcceptanceEmulator, type AcceptanceEmulator, type AcceptanceEmulatorOptions } from '../../../scripts/terraform-harness/emulator';
import { providerBlock, type ProviderBlockOptions } from '../../../scripts/terraform-harness/hcl';
import { buildTestProvider, type TestProviderBuild } from '../../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../../scripts/terraform-harness/workspace';
import { track } from '../../support/child-processes';

export interface Harness {
  readonly build: TestProviderBuild;
  readonly emulator: AcceptanceEmulator;
  /**
   * A workspace whose provider reaches this harness's emulator (API key in SVC_API_KEY).
   * `env` adds variables; an undefined value leaves that variable out (e.g. SVC_API_KEY).
   */
  createWorkspace(name: string, env?: Readonly<Record<string, string | undefined>>): Workspace;
  /** `terraform { required_providers }` + `provider "svc"` for this emulator and a tenant. */
  providerBlock(tenant: string, options?: Omit<ProviderBlockOptions, 'baseUrl' | 'tenant'>): string;
  /** Another emulator (e.g. with a short token lifetime), stopped with the harness. */
  startEmulator(options: AcceptanceEmulatorOptions): Promise<AcceptanceEmulator>;
}

export function useAcceptanceHarness(options: AcceptanceEmulatorOptions): () => Harness {
  let harness: Harness | undefined;
  const workspaces: Workspace[] = [];
  const extraEmulators: AcceptanceEmulator[] = [];
  let root: string | undefined;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-acceptance-'));
    const build = buildTestProvider();
    const emulator = await startAcceptanceEmulator(options);
    const workspaceRoot = root;
    harness = {
      build,
      emulator,
      createWorkspace(name, env = {}) {
        const workspace = new Workspace({
          dir: fs.mkdtempSync(path.join(workspaceRoot, `${name}-`)),
          cliConfigFile: build.cliConfigFile,
          trackChild: track,
          env: { SVC_API_KEY: emulator.apiKey, ...env },
        });
        workspaces.push(workspace);
        return workspace;
      },
      providerBlock(tenant, blockOptions = {}) {
        return providerBlock({ baseUrl: emulator.url, tenant, ...blockOptions });
      },
      async startEmulator(emulatorOptions) {
        const extra = await startAcceptanceEmulator(emulatorOptions);
        extraEmulators.push(extra);
        return extra;
      },
    };
  }, 60_000);

  afterAll(async () => {
    for (const workspace of workspaces) workspace.killRunning();
    await Promise.all(extraEmulators.map((emulator) => emulator.stop()));
    await harness?.emulator.stop();
    harness?.build.remove();
    if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
  });

  return () => {
    if (harness === undefined) throw new Error('the acceptance harness is not set up: call useAcceptanceHarness() at the top level of the test file');
    return harness;
  };
}
