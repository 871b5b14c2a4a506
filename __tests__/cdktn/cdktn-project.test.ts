/**
 * CDK Terrain, as a team on it uses svc-prevent: a project of its own outside the repository
 * (__tests__/cdktn/fixture: cdktn, cdktn-cli, @cdktn/provider-aws, constructs, pinned by a
 * committed package-lock) installs the packed library from its tarball, type-checks its
 * main.ts against cdktn's and svc-prevent's cdktn typings together (a cdktf type reaching it
 * would clash), runs the real `cdktn synth`, then `cdktn deploy security-policy` into the
 * emulator and `cdktn destroy`, checking the lists through the API. cdktn-cli needs Node >=
 * 22.19: on an older node the test fetches the pinned LTS line (scripts/fetch-node.js) and runs
 * npm, tsc and cdktn with it, never skipping.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { packedLibrary } from '../library/support';
import { track } from '../support/child-processes';

jest.setTimeout(15 * 60_000);

const repository = path.resolve(__dirname, '..', '..');
const FIXTURE = path.join(__dirname, 'fixture');
const FIXTURE_FILES = ['package.json', 'package-lock.json', 'cdktf.json', 'tsconfig.json', 'main.ts'];
const TENANT = 'acme-corp';
const CDKTN_CLI_MINIMUM_NODE: readonly [number, number] = [22, 19];
/** The framework packages the lock pins; the install must hold exactly these versions. */
const PINNED = ['cdktn', 'cdktn-cli', '@cdktn/provider-aws', 'constructs', 'typescript'];

interface CommandResult {
  readonly code: number;
  readonly output: string;
}

/** Runs a command in its own process group (tracked, so a timed-out test leaves nothing running). */
function run(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), { group: true });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', (error) => reject(new Error(`${command} could not be started: ${error.message}`)));
    child.once('close', (code, signal) => {
      // cdktn-cli draws a status block with ANSI sequences; a failure's tail should read as text.
      const output = Buffer.concat(chunks).toString('utf8').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
      resolve({ code: code ?? (signal === null ? 1 : 128), output });
    });
  });
}

function tail(result: CommandResult, lines = 40): string {
  return result.output.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Seconds per step, printed once at the end: installs dominate, and CI on 2 cores should see what they cost. */
const timings: string[] = [];

async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await step();
  } finally {
    timings.push(`${label} ${Math.round((Date.now() - started) / 1000)}s`);
  }
}

/** Fails with the command's last output when it did not exit 0. */
async function succeed(label: string, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CommandResult> {
  const result = await timed(label, () => run(command, args, options));
  if (result.code !== 0) throw new Error(`${label} exited with code ${result.code}; its last output:\n${tail(result)}`);
  return result;
}

function satisfiesCdktnCli(version: string): boolean {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  return major > CDKTN_CLI_MINIMUM_NODE[0] || (major === CDKTN_CLI_MINIMUM_NODE[0] && minor >= CDKTN_CLI_MINIMUM_NODE[1]);
}

/** The bin directory of a node cdktn-cli runs on: this one, or the pinned LTS line fetched from the npm registry. */
function nodeForCdktn(scratch: string): string {
  if (satisfiesCdktnCli(process.version)) return path.dirname(process.execPath);
  const fetched = spawnSync(process.execPath, [path.join(repository, 'scripts', 'fetch-node.js'), 'lts', path.join(scratch, 'node')], { encoding: 'utf8' });
  if (fetched.status !== 0) throw new Error(`Node ${process.version} is older than cdktn-cli's ${CDKTN_CLI_MINIMUM_NODE.join('.')}, and fetching the LTS line failed: ${fetched.stderr.trim()}`);
  return fetched.stdout.trim();
}

/**
 * The library packed once per run and shared with the library tests (packedLibrary(): `npm
 * pack` of this repository, its prepack building lib/, as a user packs it), instead of a build
 * and pack of its own: the same tarball, and a minute less per run.
 */
async function packLibrary(): Promise<string> {
  return (await timed('npm pack (shared with the library tests)', () => packedLibrary())).tarball;
}

/** The module specifiers a compiled .js or .d.ts file imports or requires. */
function importedModules(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(["'])([^"']+)\1/gm)].map((match) => match[2]!);
  return [...new Set(specifiers)];
}

function filesUnder(directory: string, suffix: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function stackJson(stack: string): { resource?: Record<string, Record<string, unknown>>; data?: Record<string, Record<string, unknown>>; terraform: { required_providers: Record<string, { source: string; version?: string }> } } {
  return JSON.parse(fs.readFileSync(path.join(projectDir, 'cdktf.out', 'stacks', stack, 'cdk.tf.json'), 'utf8'));
}

let scratch: string;
let projectDir: string;
let nodeBin: string;
let baseEnv: NodeJS.ProcessEnv;
let emulator: AcceptanceEmulator | undefined;
let synth: CommandResult;

function cdktn(args: readonly string[], extra: Record<string, string> = {}): Promise<CommandResult> {
  return timed(`cdktn ${args[0]}`, () => run(path.join(nodeBin, 'node'), [path.join(projectDir, 'node_modules', 'cdktn-cli', 'bundle', 'bin', 'cdktn.js'), ...args], { cwd: projectDir, env: { ...baseEnv, ...extra } }));
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cdktn-project-'));
  nodeBin = await timed('node for cdktn-cli', async () => nodeForCdktn(scratch));
  const emptyCliConfig = path.join(scratch, 'empty.terraform.rc');
  fs.writeFileSync(emptyCliConfig, '');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_|CDKTF_|npm_)/i.test(name)));
  baseEnv = {
    ...inherited,
    // npm, tsc, cdktn and the `node main.js` cdktn starts all run on this node.
    PATH: `${nodeBin}${path.delimiter}${process.env.PATH ?? ''}`,
    CHECKPOINT_DISABLE: '1',
    CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
    CDKTF_HOME: path.join(scratch, 'cdktf-home'),
    TF_CLI_CONFIG_FILE: emptyCliConfig,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  // Packed with this repository's own node (the build needs nothing newer).
  const tarball = await packLibrary();

  projectDir = path.join(scratch, 'project');
  fs.mkdirSync(projectDir);
  for (const file of FIXTURE_FILES) fs.copyFileSync(path.join(FIXTURE, file), path.join(projectDir, file));
  // Exactly the locked framework (npm ci fails on a lock out of step), then the library beside it.
  await succeed('npm ci', 'npm', ['ci', '--prefer-offline'], { cwd: projectDir, env: baseEnv });
  await succeed('npm install <tarball>', 'npm', ['install', '--prefer-offline', '--no-save', tarball], { cwd: projectDir, env: baseEnv });
  await succeed('tsc', path.join(nodeBin, 'node'), [path.join(projectDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', projectDir], { cwd: projectDir, env: baseEnv });
  synth = await cdktn(['synth']);
}, 12 * 60_000);

afterAll(async () => {
  if (timings.length > 0) process.stderr.write(`cdktn project test, node ${nodeBin}: ${timings.join(', ')}\n`);
  await emulator?.stop();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test('the project runs on a node cdktn-cli supports and holds the pinned framework versions, no cdktf and one constructs', () => {
  const version = spawnSync(path.join(nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
  expect(satisfiesCdktnCli(version)).toBe(true);
  const lock = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  const installed = (name: string, under = projectDir) => {
    const file = path.join(under, 'node_modules', name, 'package.json');
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version : null;
  };
  expect(Object.fromEntries(PINNED.map((name) => [name, installed(name)]))).toEqual(Object.fromEntries(PINNED.map((name) => [name, lock.packages[`node_modules/${name}`]!.version])));
  const library = path.join(projectDir, 'node_modules', 'svc-prevent');
  // svc-prevent brings no framework of its own: a second constructs or a cdktf would split the construct tree.
  expect({ cdktf: installed('cdktf'), providerAws: installed('@cdktf/provider-aws'), nestedConstructs: installed('constructs', library), nestedCdktn: installed('cdktn', library) }).toEqual({
    cdktf: null,
    providerAws: null,
    nestedConstructs: null,
    nestedCdktn: null,
  });
});

test('the cdktn build imports only cdktn and @cdktn/provider-aws, the cdktf build only cdktf and @cdktf/provider-aws', () => {
  const lib = path.join(projectDir, 'node_modules', 'svc-prevent', 'lib');
  const cdktnBuild = path.join(lib, 'cdktn');
  const cdktnFiles = [...filesUnder(cdktnBuild, '.d.ts'), ...filesUnder(cdktnBuild, '.js')];
  const cdktfFiles = [...filesUnder(lib, '.d.ts'), ...filesUnder(lib, '.js')].filter((file) => !file.startsWith(cdktnBuild + path.sep));
  const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const framework = (files: string[]) => new Set(files.flatMap(importedModules).map(packageName).filter((name) => /^(cdktf|cdktn)$|^@(cdktf|cdktn)\//.test(name)));
  expect(cdktnFiles.length).toBeGreaterThan(20);
  expect([...framework(cdktnFiles)].sort()).toEqual(['@cdktn/provider-aws', 'cdktn']);
  expect([...framework(cdktfFiles)].sort()).toEqual(['@cdktf/provider-aws', 'cdktf']);
});

test('the cdktf build imported into the cdktn project does not compile: its declarations need cdktf, which the project lacks', async () => {
  fs.writeFileSync(
    path.join(projectDir, 'mixed.ts'),
    ["import { App, TerraformStack } from 'cdktn';", "import { SecurityPolicy } from 'svc-prevent/security-policy';", "new SecurityPolicy(new TerraformStack(new App(), 'stack'), 'policy', {});", ''].join('\n'),
  );
  fs.writeFileSync(path.join(projectDir, 'tsconfig.mixed.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, files: ['mixed.ts'] }));
  const result = await run(path.join(nodeBin, 'node'), [path.join(projectDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.mixed.json'], { cwd: projectDir, env: baseEnv });
  expect(result.code).not.toBe(0);
  expect(result.output).toMatch(/node_modules\/svc-prevent\/lib\/modules\/security-policy\/[\w/-]+\.d\.ts\(\d+,\d+\): error TS2307: Cannot find module 'cdktf'/);
});

test('cdktn synth writes the stacks with the terraform names the cdktf build gives, and prepares security-policy for terraform', () => {
  expect({ code: synth.code, tail: synth.code === 0 ? '' : tail(synth) }).toEqual({ code: 0, tail: '' });
  const policy = stackJson('security-policy');
  expect(policy.terraform.required_providers.svc?.source).toMatch(/svc-prevent\/svc$/);
  expect(Object.keys(policy.resource?.svc_blacklist_entry ?? {}).sort()).toEqual(['blacklist_2001_db8__1', 'blacklist_203_0_113_9']);
  expect(Object.keys(policy.resource?.svc_blocklist_entry ?? {})).toEqual(['blocklist_198_51_100_23']);
  expect(Object.keys(policy.resource?.svc_whitelist ?? {})).toEqual(['whitelist']);
  // The provider packaged with svc-prevent: the implied mirror link and the lock entry.
  const stackDir = path.join(projectDir, 'cdktf.out', 'stacks', 'security-policy');
  expect(fs.realpathSync(path.join(stackDir, 'terraform.d', 'plugins'))).toBe(fs.realpathSync(path.join(projectDir, 'node_modules', 'svc-prevent', 'lib', 'provider', 'mirror')));
  expect(fs.readFileSync(path.join(stackDir, '.terraform.lock.hcl'), 'utf8')).toMatch(/provider "registry\.terraform\.io\/svc-prevent\/svc" \{[\s\S]*h1:/);

  // @cdktn/provider-aws 25 renders the AWS resources the constructs declare.
  const controlPlane = stackJson('control-plane');
  expect(controlPlane.terraform.required_providers.aws?.source).toBe('hashicorp/aws');
  expect(Object.keys(controlPlane.resource ?? {})).toEqual(expect.arrayContaining(['aws_lb', 'aws_launch_template', 'aws_autoscaling_group', 'aws_secretsmanager_secret_version']));
  const secretVersion = Object.values(controlPlane.resource!.aws_secretsmanager_secret_version!)[0] as Record<string, unknown>;
  // The write-only argument cdktn checks against targetVersions (cdktf.json: terraform >=1.11.0).
  expect(secretVersion.secret_string_wo).toMatch(/^\$\{var\.[\w-]+\}$/);
  const egress = stackJson('egress-policy');
  expect(Object.keys(egress.data?.aws_nat_gateway ?? {})).toEqual(['control_plane_egress_nat_0123456789abcdef0']);
  expect(JSON.stringify(egress.resource?.svc_whitelist)).toContain('data.aws_nat_gateway.control_plane_egress_nat_0123456789abcdef0.public_ip');
});

test('cdktn deploy security-policy puts the entries into the service, svc-drift sees a change made behind it, cdktn destroy takes them out', async () => {
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  const env = { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.apiKey };
  const client = emulator.client(TENANT);
  const ips = async (list: 'blacklist' | 'blocklist' | 'whitelist') => (await client.listEntries(list)).map((entry) => entry.ip).sort();

  const deploy = await cdktn(['deploy', 'security-policy', '--auto-approve'], env);
  expect({ code: deploy.code, tail: deploy.code === 0 ? '' : tail(deploy) }).toEqual({ code: 0, tail: '' });
  expect({ blacklist: await ips('blacklist'), blocklist: await ips('blocklist'), whitelist: await ips('whitelist') }).toEqual({
    blacklist: ['2001:db8::1', '203.0.113.9'],
    blocklist: ['198.51.100.23'],
    whitelist: ['192.0.2.0/28'],
  });
  // State where cdktf keeps it (the fork changed no path), and no API key in it.
  const state = fs.readFileSync(path.join(projectDir, 'terraform.security-policy.tfstate'), 'utf8');
  expect(state).toContain('svc_blacklist_entry');
  expect(state).not.toContain(emulator.apiKey);

  // svc-drift plans what cdktn synthesized, as it does for cdktf: clean, then drift after a change behind terraform's back.
  const drift = () => timed('svc-drift', () => run(path.join(nodeBin, 'node'), [path.join(projectDir, 'node_modules', 'svc-prevent', 'bin', 'svc-drift.js'), '--outdir', 'cdktf.out', 'security-policy'], { cwd: projectDir, env: { ...baseEnv, ...env } }));
  const clean = await drift();
  expect({ code: clean.code, tail: clean.code === 0 ? '' : tail(clean) }).toEqual({ code: 0, tail: '' });
  await emulator.consoleClient(TENANT).deleteEntry('blocklist', '198.51.100.23');
  const drifted = await drift();
  expect(drifted.code).toBe(2);
  expect(drifted.output).toContain('svc_blocklist_entry.blocklist_198_51_100_23');

  // --skip-synth: the stacks deploy synthesized, from the same input (help/getting-started destroys the same way).
  const destroy = await cdktn(['destroy', 'security-policy', '--auto-approve', '--skip-synth'], env);
  expect({ code: destroy.code, tail: destroy.code === 0 ? '' : tail(destroy) }).toEqual({ code: 0, tail: '' });
  expect({ blacklist: await ips('blacklist'), blocklist: await ips('blocklist'), whitelist: await ips('whitelist') }).toEqual({ blacklist: [], blocklist: [], whitelist: [] });
});

test('without targetVersions in cdktf.json, cdktn refuses the ControlPlane: its write-only secret argument needs terraform 1.11', async () => {
  // main.js run directly, as the CLI would but without cdktf.json's context: cdktn's default targets.
  const result = await run(path.join(nodeBin, 'node'), ['main.js'], { cwd: projectDir, env: { ...baseEnv, CDKTF_OUTDIR: path.join(scratch, 'default-targets.out') } });
  expect(result.code).not.toBe(0);
  expect(result.output).toContain('[control-plane/control-plane/api-key-secret-version] write-only attributes requires terraform >=1.11.0, but the project targets terraform >=1.5.7');
});
