/**
 * End to end, as a user runs it: the real `cdktf synth` CLI (a scratch project, its own
 * --output and SVC_CONFIG), then the real terraform and our provider against the synthesized
 * security-policy stack and the emulator: apply, out-of-band change through the API, plan shows
 * the drift (exit 2, and npm run drift names it by address), apply repairs it, destroy leaves
 * the API clean. Synth writes the stacks only; the explicit step after it (as npm run synth
 * takes it) prepares them. Terraform runs with an empty CLI config, so it finds the provider only
 * through what that step prepared (the implied local mirror and the lock entry); the API key
 * travels only as TF_VAR_api_key.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCdktfProject, isolatedEnvironment, runCdktf, type CdktfResult } from '../../src/pipeline/cdktf-project';
import { packageHash, prepareSynthesizedStacks } from '../../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from '../../scripts/build-provider';
import { main as npmRunDrift } from '../../scripts/drift-check';
import type { RootCheck } from '../../src/pipeline/drift-roots';
import { CONSOLE_USER, startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { buildOwnTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { filesContaining } from '../provider-acceptance/support/search';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

const root = path.join(__dirname, '..', '..');
const TENANT = 'e2e-corp';
const CANARY_KEY = 'synth-must-never-see-this-key';

let scratch: string;
let build: TestProviderBuild;
let emulator: AcceptanceEmulator;
let projectDir: string;
let outdir: string;
let synth: CdktfResult;
/** What synth alone left in the security-policy stack's directory, before the explicit step. */
let afterSynthAlone: string[];
let prepared: string[];
let workspace: Workspace;

/** The shipped file's AWS part and a small security policy of our own, pointed at the emulator. */
function writeConfig(file: string, baseUrl: string): void {
  const shipped = JSON.parse(fs.readFileSync(path.join(root, 'svc.config.json'), 'utf8'));
  const config = {
    aws: shipped.aws,
    controlPlane: shipped.controlPlane,
    securityPolicy: {
      baseUrl,
      tenant: TENANT,
      ssoBase: 'https://sso.example.com',
      blacklist: { entries: [{ ip: '203.0.113.9', description: 'scanner' }, { ip: '2001:DB8::1' }] },
      blocklist: { entries: [{ ip: '198.51.100.23', description: 'credential stuffing' }] },
      whitelist: { resources: 'whole-list', entries: [{ ip: '192.0.2.0/28', description: 'office' }] },
      tenantSso: { name: TENANT, enabled: false },
      channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' }],
    },
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
}

function stackDir(name: string): string {
  return path.join(outdir, 'stacks', name);
}

interface DriftRun {
  readonly exitCode: number;
  /** svc drift's JSON report (--format json), one root: the security-policy stack. */
  readonly stack: RootCheck;
  /** svc drift's text report of the same check (with options.text). */
  readonly log: string;
  /** What it printed on stderr: progress and notes about the setup. */
  readonly notes: string;
}

/** `npm run drift -- --no-synth --output <outdir> --stack security-policy`, as JSON and as text. */
async function driftCheck(apiKey: string, options: { skipUnreachable?: boolean; env?: Record<string, string>; text?: boolean } = {}): Promise<DriftRun> {
  const run = async (format: 'json' | 'text') => {
    let stdout = '';
    let stderr = '';
    const argv = ['--no-synth', '--output', outdir, '--stack', 'security-policy', '--format', format, ...(options.skipUnreachable === true ? ['--skip-unreachable'] : [])];
    const code = await npmRunDrift(argv, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: isolatedEnvironment({ TF_VAR_api_key: apiKey, ...options.env }),
      workingDirectory: projectDir,
    }, { buildDir: path.dirname(build.cliConfigFile) });
    return { code, stdout, stderr };
  };
  const json = await run('json');
  // The text report too only where a test reads it: each run is a terraform plan.
  const text = options.text === true ? await run('text') : undefined;
  if (text !== undefined) expect(text.code).toBe(json.code);
  return { exitCode: json.code, stack: (JSON.parse(json.stdout) as { roots: RootCheck[] }).roots[0]!, log: text?.stdout ?? '', notes: json.stderr };
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-app-e2e-'));
  // Its own build, not the run's shared one: a test below rewrites the mirror's executable.
  build = buildOwnTestProvider();
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  const configFile = path.join(scratch, 'svc.config.json');
  writeConfig(configFile, emulator.url);
  projectDir = path.join(scratch, 'project');
  createCdktfProject(projectDir);
  outdir = path.join(scratch, 'out');
  synth = await runCdktf(['synth', '--output', outdir], {
    cwd: projectDir,
    env: isolatedEnvironment({
      SVC_CONFIG: configFile,
      SVC_PROVIDER_BUILD_DIR: path.dirname(build.cliConfigFile),
      CHECKPOINT_DISABLE: '1',
      TF_VAR_api_key: CANARY_KEY,
    }),
  });
  afterSynthAlone = fs.existsSync(stackDir('security-policy')) ? fs.readdirSync(stackDir('security-policy')).sort() : [];
  if (synth.code === 0) prepared = prepareSynthesizedStacks(outdir, () => ensureProviderBuilt({ buildDir: path.dirname(build.cliConfigFile) }));
  const emptyCliConfig = path.join(scratch, 'empty.terraform.rc');
  fs.writeFileSync(emptyCliConfig, '');
  workspace = new Workspace({ dir: stackDir('security-policy'), cliConfigFile: emptyCliConfig, trackChild: track, env: { TF_VAR_api_key: emulator.apiKey } });
}, 120_000);

afterAll(async () => {
  workspace?.killRunning();
  await emulator?.stop();
  build?.remove();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test('cdktf synth writes the three stacks, no API key anywhere, and the step after it prepares security-policy for terraform', () => {
  expect({ code: synth.code, output: synth.code === 0 ? '' : synth.output }).toEqual({ code: 0, output: '' });
  // Synth alone: the stack, no mirror link, no lock file; and the app says why terraform cannot install svc yet.
  expect(afterSynthAlone).toEqual(['cdk.tf.json']);
  expect(synth.output).toMatch(/note: security-policy uses registry\.terraform\.io\/svc-prevent\/svc, which no registry serves/);
  expect(prepared).toEqual(['security-policy']);
  for (const name of ['control-plane', 'deployment-policy', 'security-policy']) {
    expect(fs.existsSync(path.join(stackDir(name), 'cdk.tf.json'))).toBe(true);
  }
  expect(filesContaining(outdir, CANARY_KEY)).toEqual([]);
  // The state goes to the project directory cdktf ran in, not the repository.
  const stack = JSON.parse(fs.readFileSync(path.join(stackDir('security-policy'), 'cdk.tf.json'), 'utf8'));
  expect(stack.terraform.backend.local.path).toBe(path.join(projectDir, 'terraform.security-policy.tfstate'));
  expect(fs.readlinkSync(path.join(stackDir('security-policy'), 'terraform.d', 'plugins'))).toBe(build.mirrorDir);
  const lock = fs.readFileSync(path.join(stackDir('security-policy'), '.terraform.lock.hcl'), 'utf8');
  expect(lock).toContain(`"${packageHash(path.dirname(build.mirrorExecutables[0]))}"`);
  // AWS-only stacks are left alone.
  expect(fs.existsSync(path.join(stackDir('control-plane'), 'terraform.d'))).toBe(false);
});

async function ips(list: 'blacklist' | 'blocklist' | 'whitelist'): Promise<string[]> {
  return (await emulator.client(TENANT).listEntries(list)).map((entry) => entry.ip).sort();
}

// The tests below run in order on one terraform working directory: apply, drift, repair, then
// the drift check's failure, a rebuilt provider, and destroy.

test('terraform applies the synthesized stack; out-of-band changes are drift, reported by address; apply repairs', async () => {
  const client = emulator.client(TENANT);

  await workspace.init();
  await workspace.apply();
  expect(await ips('blacklist')).toEqual(['2001:db8::1', '203.0.113.9']);
  expect(await ips('blocklist')).toEqual(['198.51.100.23']);
  expect(await ips('whitelist')).toEqual(['192.0.2.0/28']);
  const main = (await client.listChannels()).find((channel) => channel.name === 'main');
  expect(main?.sso).toMatchObject({ enabled: true, saml_metadata_url: 'https://idp.example.com/metadata' });
  expect(filesContaining(projectDir, emulator.apiKey)).toEqual([]);
  expect(filesContaining(stackDir('security-policy'), emulator.apiKey)).toEqual([]);
  await workspace.planExpecting(0);

  // Someone changes the policy in the console.
  const inConsole = emulator.consoleClient(TENANT);
  await inConsole.deleteEntry('blocklist', '198.51.100.23');
  await inConsole.setChannelSso('main', { enabled: false, required: false, saml_metadata_url: 'https://idp.example.com/metadata' });
  await inConsole.addEntry('whitelist', { ip: '192.0.2.200', description: 'added in the console' });

  const plan = await workspace.planExpecting(2);
  expect(plan.actions).toEqual({
    'svc_blocklist_entry.blocklist_198_51_100_23': 'create',
    'svc_channel_sso.channel_main': 'update',
    'svc_whitelist.whitelist': 'update',
  });

  const drift = await driftCheck(emulator.apiKey, { text: true });
  expect(drift.exitCode).toBe(2);
  expect(drift.stack).toMatchObject({
    status: 'drift',
    driftedAddresses: ['svc_blocklist_entry.blocklist_198_51_100_23', 'svc_channel_sso.channel_main', 'svc_whitelist.whitelist'],
  });
  expect(drift.log).toContain('security-policy (cdktf stack): DRIFT: 3 resources changed outside terraform (the plan puts them back)');
  // Each drifted resource with the attributes that differ, as for any provider's resources (an AWS stack's too).
  expect(drift.log).toMatch(/drifted \(the plan puts them back\):\n {4}svc_blocklist_entry\.blocklist_198_51_100_23 {2}deleted outside terraform\n {4}svc_channel_sso\.channel_main {2}changed outside terraform\n {8}enabled: true -> false\n/);
  expect(drift.log).toMatch(/changed outside terraform:[\s\S]*- 198\.51\.100\.23 .*\(svc_blocklist_entry\.blocklist_198_51_100_23\)/);
  expect(drift.log).toMatch(/changed outside terraform:[\s\S]*\+ 192\.0\.2\.200 {2}"added in the console" {2}\(svc_whitelist\.whitelist\)/);
  expect(drift.log).toContain('svc drift: 1 root: 0 clean, 1 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 2');
  expect(`${drift.log}${drift.notes}`).not.toContain(emulator.apiKey);
  // Who did it, from the audit log: the console's user, not terraform's.
  const when = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ';
  expect(drift.stack.attributions?.map((attribution) => attribution.text)).toEqual([
    expect.stringMatching(new RegExp(`^198\\.51\\.100\\.23 deleted outside terraform from the blocklist: Lists/remove_entry by ${CONSOLE_USER} at ${when}$`)),
    expect.stringMatching(new RegExp(`^SSO of channel main changed outside terraform: Sites/update_site by ${CONSOLE_USER} at ${when}$`)),
    expect.stringMatching(new RegExp(`^192\\.0\\.2\\.200 added outside terraform to the whitelist: Lists/new_entry by ${CONSOLE_USER} at ${when}$`)),
  ]);
  expect(drift.log).toContain('who changed it (audit log):');

  await workspace.apply();
  expect(await ips('blocklist')).toEqual(['198.51.100.23']);
  expect(await ips('whitelist')).toEqual(['192.0.2.0/28']);
  // The drift check's plan is clean again (its exit 0 is plan -detailed-exitcode's).
  expect((await driftCheck(emulator.apiKey)).exitCode).toBe(0);

  // A blocklist entry that ends on its own leaves no audit event: the check says so, and does
  // not blame the earlier removal (terraform's re-add came after it).
  emulator.emulator.advanceClock(31 * 60);
  const expired = await driftCheck(emulator.apiKey);
  expect(expired.exitCode).toBe(2);
  expect(expired.stack.attributions?.map((attribution) => attribution.text)).toEqual([
    expect.stringMatching(/^198\.51\.100\.23 deleted outside terraform from the blocklist: no matching audit event in the tenant's last \d+ events; blocklist entries also end on their own/),
  ]);
  await workspace.apply();
  expect((await driftCheck(emulator.apiKey)).exitCode).toBe(0);
}, 120_000);

test('a wrong key fails the drift check with terraform\'s first error line, also with --skip-unreachable (it is a refusal, not an unreachable stack)', async () => {
  const failed = await driftCheck('not-the-key', { text: true });
  expect(failed.exitCode).toBe(1);
  expect(failed.stack).toMatchObject({ status: 'error', error: expect.stringMatching(/^terraform plan: Error: Login to the svc management API failed/) });
  expect(failed.stack.unreachable).toBeUndefined();
  expect(failed.log).toContain('ERROR (cannot be planned)');

  const notSkipped = await driftCheck('not-the-key', { skipUnreachable: true, text: true });
  expect(notSkipped.stack.status).toBe('error');
  expect(notSkipped.exitCode).toBe(1);
  expect(notSkipped.log).toContain('ERROR (cannot be planned): terraform plan: Error: Login to the svc management API failed');
}, 60_000);

test('npm run drift keeps the user\'s TF_CLI_CONFIG_FILE: svc comes through the stack\'s mirror link; a provider_installation block of theirs gets the note', async () => {
  const userConfig = path.join(scratch, 'user.tfrc');
  fs.writeFileSync(userConfig, `plugin_cache_dir = "${path.join(scratch, 'no-such-cache')}"\n`);
  const kept = await driftCheck(emulator.apiKey, { env: { TF_CLI_CONFIG_FILE: userConfig } });
  expect(kept.exitCode).toBe(0);
  expect(kept.notes).not.toMatch(/provider_installation|filesystem_mirror/);

  // Only registry installation: terraform must look svc-prevent/svc up (a fresh data directory) and fails.
  fs.writeFileSync(userConfig, 'provider_installation {\n  direct {}\n}\n');
  const hidden = await driftCheck(emulator.apiKey, { env: { TF_CLI_CONFIG_FILE: userConfig, TF_DATA_DIR: path.join(scratch, 'fresh-data-dir') } });
  expect(hidden.exitCode).toBe(1);
  expect(hidden.stack.error).toMatch(/^terraform init: Error: /);
  expect(hidden.notes).toContain(`your TF_CLI_CONFIG_FILE (${userConfig}) has a provider_installation block`);
  expect(hidden.notes).toContain(`path    = "${build.mirrorDir}"`);
}, 60_000);

test('a rebuilt provider (same version, new bytes) passes the next init once the app prepares the stack again', async () => {
  const [packageExecutable] = build.mirrorExecutables;
  fs.appendFileSync(packageExecutable, '\n// rebuilt\n');
  const stale = await workspace.terraform(['init', '-input=false', '-no-color']);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toMatch(/doesn't match any of the\s+checksums previously recorded/);

  prepareSynthesizedStacks(outdir, () => ensureProviderBuilt({ buildDir: path.dirname(build.cliConfigFile) }));
  await workspace.terraformExpecting(['init', '-input=false', '-no-color']);
  await workspace.planExpecting(0);
}, 60_000);

test('destroy leaves the API clean', async () => {
  await workspace.destroy();
  for (const list of ['blacklist', 'blocklist', 'whitelist'] as const) expect(await ips(list)).toEqual([]);
  const main = (await emulator.client(TENANT).listChannels()).find((channel) => channel.name === 'main');
  expect(main?.sso?.enabled ?? false).toBe(false);
  const state = JSON.parse(fs.readFileSync(path.join(projectDir, 'terraform.security-policy.tfstate'), 'utf8'));
  expect(state.resources).toEqual([]);
}, 60_000);
