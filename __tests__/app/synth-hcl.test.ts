/**
 * `cdktf synth --hcl`, CDKTF's way out to plain Terraform, on this repository's app: the step
 * after synth (npm run synth's) prepares the HCL stack like the JSON one (mirror link, lock
 * entry), and the HCL plans against
 * the emulator with the real terraform, without deprecation warnings from our constructs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCdktfProject, isolatedEnvironment, runCdktf, type CdktfResult } from '../../src/pipeline/cdktf-project';
import { prepareSynthesizedStacks } from '../../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from '../../scripts/build-provider';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

const root = path.join(__dirname, '..', '..');
const TENANT = 'acme-corp';

let scratch: string;
let build: TestProviderBuild;
let emulator: AcceptanceEmulator;
let outdir: string;
let synth: CdktfResult;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-synth-hcl-'));
  build = buildTestProvider();
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  // The shipped configuration and entry files, pointed at the emulator.
  fs.cpSync(path.join(root, 'policy'), path.join(scratch, 'policy'), { recursive: true });
  const config = JSON.parse(fs.readFileSync(path.join(root, 'svc.config.json'), 'utf8'));
  config.securityPolicy.baseUrl = emulator.url;
  config.securityPolicy.tenant = TENANT;
  fs.writeFileSync(path.join(scratch, 'svc.config.json'), JSON.stringify(config, null, 2));
  const projectDir = path.join(scratch, 'project');
  createCdktfProject(projectDir);
  outdir = path.join(scratch, 'out');
  synth = await runCdktf(['synth', '--hcl', '--output', outdir], {
    cwd: projectDir,
    env: isolatedEnvironment({
      SVC_CONFIG: path.join(scratch, 'svc.config.json'),
      SVC_PROVIDER_BUILD_DIR: path.dirname(build.cliConfigFile),
      CHECKPOINT_DISABLE: '1',
      CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
    }),
  });
  if (synth.code === 0) prepareSynthesizedStacks(outdir, () => ensureProviderBuilt({ buildDir: path.dirname(build.cliConfigFile) }));
}, 180_000);

afterAll(async () => {
  await emulator?.stop();
  build?.remove();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test('cdktf synth --hcl exits 0, and the step after it prepares the security-policy stack for terraform', () => {
  expect({ code: synth.code, output: synth.code === 0 ? '' : synth.output }).toEqual({ code: 0, output: '' });
  const stackDir = path.join(outdir, 'stacks', 'security-policy');
  expect(fs.existsSync(path.join(stackDir, 'cdk.tf'))).toBe(true);
  expect(fs.existsSync(path.join(stackDir, 'cdk.tf.json'))).toBe(false);
  expect(fs.readlinkSync(path.join(stackDir, 'terraform.d', 'plugins'))).toBe(build.mirrorDir);
  expect(fs.readFileSync(path.join(stackDir, '.terraform.lock.hcl'), 'utf8')).toContain('provider "registry.terraform.io/svc-prevent/svc"');
  expect(fs.readFileSync(path.join(stackDir, 'cdk.tf'), 'utf8')).not.toMatch(/provider\s*=\s*"svc"/);
});

test('the HCL validates and plans against the emulator with no warnings', async () => {
  const emptyCliConfig = path.join(scratch, 'empty.terraform.rc');
  fs.writeFileSync(emptyCliConfig, '');
  const workspace = new Workspace({ dir: path.join(outdir, 'stacks', 'security-policy'), cliConfigFile: emptyCliConfig, trackChild: track, env: { TF_VAR_api_key: emulator.apiKey } });
  try {
    await workspace.init();
    const validate = await workspace.validate();
    expect(validate.stdout + validate.stderr).not.toMatch(/Warning/);
    const plan = await workspace.planExpecting(2);
    expect(plan.stdout + plan.stderr).not.toMatch(/Warning|Quoted references are deprecated/);
    expect(plan.actions['svc_whitelist.whitelist']).toBe('create');
    expect(plan.actions['svc_blacklist_entry.blacklist_203_0_113_9']).toBe('create');
  } finally {
    workspace.killRunning();
  }
}, 180_000);
