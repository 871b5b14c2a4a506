/**
 * `npm run synth|diff|deploy|drift|destroy` as a user types them in this repository, on the Node
 * that runs the suite: CI runs this file on every supported line (.ci/run), so it proves that
 * cdktf-cli starts there (its terminal addon loads on that ABI), that terraform gets the svc
 * provider, and that the policy reaches the emulator and leaves it. Its own SVC_CONFIG keeps the
 * state in the scratch directory and --output keeps cdktf.out there too. The app is synthesized
 * twice, by `npm run synth` and by `deploy`'s own synth step; diff and destroy take `--skip-synth`
 * (the same input into the same directory), as help/getting-started's destroy does.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';
import { CONSOLE_USER, startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';

const root = path.join(__dirname, '..', '..');
const TENANT = 'npm-scripts-corp';

let scratch: string;
let outdir: string;
let configFile: string;
let build: TestProviderBuild;
let emulator: AcceptanceEmulator;

interface NpmRun {
  status: number | null;
  output: string;
}

/** `npm run <script> -- <args>` in the repository, with the user's environment minus their CLI config. */
function npmRun(script: string, args: readonly string[]): Promise<NpmRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_CONFIG: configFile,
    SVC_PROVIDER_BUILD_DIR: path.dirname(build.cliConfigFile),
    SVC_API_KEY: emulator.apiKey,
    CHECKPOINT_DISABLE: '1',
    CI: '1',
  };
  // The scripts point terraform at the provider's build when the user has no CLI config.
  delete env.TF_CLI_CONFIG_FILE;
  delete env.TF_VAR_api_key;
  return new Promise((resolve, reject) => {
    const child = track(spawn('npm', ['run', '--silent', script, '--', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}

function expectSuccess(run: NpmRun): void {
  expect({ status: run.status, output: run.status === 0 ? '' : run.output }).toEqual({ status: 0, output: '' });
}

async function whitelistIps(): Promise<string[]> {
  return (await emulator.client(TENANT).listEntries('whitelist')).map((entry) => entry.ip).sort();
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-npm-scripts-'));
  outdir = path.join(scratch, 'out');
  build = buildTestProvider();
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  const shipped = JSON.parse(fs.readFileSync(path.join(root, 'svc.config.json'), 'utf8'));
  configFile = path.join(scratch, 'svc.config.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      aws: shipped.aws,
      controlPlane: shipped.controlPlane,
      stateBackend: { local: { directory: path.join(scratch, 'state') } },
      securityPolicy: {
        baseUrl: emulator.url,
        tenant: TENANT,
        whitelist: { entries: [{ ip: '192.0.2.10', description: 'office' }, { ip: '192.0.2.11', description: 'vpn' }] },
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  await emulator?.stop();
  build?.remove();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test(`on Node ${process.versions.node}: synth, diff, deploy, drift (clean, then drift), destroy`, async () => {
  const synth = await npmRun('synth', ['--output', outdir]);
  expectSuccess(synth);
  expect(fs.existsSync(path.join(outdir, 'stacks', 'security-policy', 'cdk.tf.json'))).toBe(true);

  // --skip-synth where the app was just synthesized into the same directory from the same input:
  // deploy below takes the full path (synth, then the command), as help/getting-started's diff and deploy do.
  const diff = await npmRun('diff', ['security-policy', '--skip-synth', '--output', outdir]);
  expectSuccess(diff);
  expect(diff.output).toMatch(/2 to add, 0 to change, 0 to destroy/);
  expect(await whitelistIps()).toEqual([]);

  expectSuccess(await npmRun('deploy', ['security-policy', '--auto-approve', '--output', outdir]));
  expect(await whitelistIps()).toEqual(['192.0.2.10', '192.0.2.11']);
  expect(fs.existsSync(path.join(scratch, 'state', 'security-policy.tfstate'))).toBe(true);

  const clean = await npmRun('drift', ['--stack', 'security-policy', '--no-synth', '--output', outdir]);
  expect({ status: clean.status, output: clean.status === 0 ? '' : clean.output }).toEqual({ status: 0, output: '' });

  await emulator.consoleClient(TENANT).deleteEntry('whitelist', '192.0.2.11');
  const drifted = await npmRun('drift', ['--stack', 'security-policy', '--no-synth', '--output', outdir]);
  expect(drifted.status).toBe(2);
  expect(drifted.output).toContain('192.0.2.11');
  expect(drifted.output).toContain(CONSOLE_USER);

  expectSuccess(await npmRun('destroy', ['security-policy', '--auto-approve', '--skip-synth', '--output', outdir]));
  expect(await whitelistIps()).toEqual([]);
}, 600_000);
