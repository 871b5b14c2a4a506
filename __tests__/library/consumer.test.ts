/**
 * svc-prevent as another team uses it: `npm pack` of this repository, installed offline into
 * scratch cdktf projects outside the repository (support.ts says how the peers get there).
 *
 * - the tarball holds the compiled library, its types, the bins and the provider, and nothing
 *   of the repository (tests, fixtures, TypeScript sources, scratch files);
 * - a plain JavaScript project (the program of help/own-cdktf-project.md) synthesizes
 *   SvcProvider + SecurityPolicy (entries from a file relative to the project) + ControlPlane
 *   and prepares the stacks with the provider packaged in the library; the real cdktf CLI's
 *   first `cdktf diff` plans it; terraform deploys the policy to the emulator with an empty CLI
 *   config (no registry); `svc-drift` says 0, then 2 after a change through the emulator's
 *   API; destroy;
 * - a TypeScript project type-checks against the packed .d.ts, and a wrong prop fails tsc;
 * - a project with only cdktf and constructs (no @cdktf/provider-aws) uses the security policy.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isolatedEnvironment, runCdktf } from '../../src/pipeline/cdktf-project';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { codeBlocks } from '../help/support/markdown';
import { track } from '../support/child-processes';
import { REPOSITORY, createConsumerProject, described, packedLibrary, run, type CommandResult, type PackedLibrary } from './support';

const TENANT = 'acme-corp';
const PAGE = 'own-cdktf-project.md';
const TSC = path.join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc');

let scratch: string;
let library: PackedLibrary;
let emulator: AcceptanceEmulator;
let project: string;
let emptyCliConfig: string;

/** The program of help/own-cdktf-project.md, as the page shows it (tenant acme-corp, the URL from SVC_BASE_URL). */
function pageProgram(): string {
  const block = codeBlocks(PAGE).find((candidate) => candidate.language === 'js');
  if (block === undefined) throw new Error(`help/${PAGE} has no js block`);
  return block.code;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-library-'));
  library = await packedLibrary();
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  project = path.join(scratch, 'team-project');
  await createConsumerProject(project, library, { linkedPeers: ['cdktf', 'constructs', '@cdktf/provider-aws'] });
  emptyCliConfig = path.join(scratch, 'empty.terraform.rc');
  fs.writeFileSync(emptyCliConfig, '');
}, 600_000);

afterAll(async () => {
  await emulator?.stop();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the tarball', () => {
  test('holds the compiled library, its types and maps, the bins and the provider mirror, and nothing else', () => {
    const unexpected = library.files.filter(
      (file) =>
        !(
          (file.startsWith('lib/') && /\.(js|d\.ts|js\.map)$/.test(file)) ||
          /^lib\/provider\/mirror\/registry\.terraform\.io\/svc-prevent\/svc\/[^/]+\/[a-z0-9]+_[a-z0-9]+\/terraform-provider-svc_v[^/]+$/.test(file) ||
          ['package.json', 'README.md', 'LICENSE', 'THIRD_PARTY_NOTICES', 'bin/launch.js', 'bin/svc.js', 'bin/svc-emulator.js', 'bin/svc-drift.js', 'bin/svc-deployment-policy.js', 'bin/svc-moved-blocks.js'].includes(file)
        ),
    );
    expect(unexpected).toEqual([]);
    expect(library.files.filter((file) => /(^|\/)(__tests__|fixtures?|cdktf\.out|\.gen|dist)\//.test(file) || /\.test\./.test(file))).toEqual([]);
    expect(library.files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  test('every exports and bin target is in it, in both flavours', () => {
    const targets: string[] = [];
    for (const target of Object.values(library.manifest.exports as Record<string, string | Record<string, string>>)) {
      targets.push(...(typeof target === 'string' ? [target] : Object.values(target)));
    }
    targets.push(...Object.values(library.manifest.bin as Record<string, string>));
    expect(targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !library.files.includes(target))).toEqual([]);
    expect(Object.keys(library.manifest.exports)).toEqual(expect.arrayContaining(['./cdktn', './cdktn/security-policy', './cdktn/provider']));
  });

  test('the CDK Terrain flavour names cdktn and @cdktn/provider-aws, never cdktf', () => {
    const installed = path.join(project, 'node_modules', 'svc-prevent', 'lib', 'cdktn');
    const controlPlane = fs.readFileSync(path.join(installed, 'modules', 'control-plane', 'control-plane.js'), 'utf8');
    expect(controlPlane).toContain('require("cdktn")');
    expect(controlPlane).toContain('require("@cdktn/provider-aws/lib/');
    const bindings = fs.readFileSync(path.join(installed, 'modules', 'svc-provider', 'provider.d.ts'), 'utf8');
    expect(bindings).toMatch(/from 'cdktn'|from "cdktn"/);
    const leftovers = library.files
      .filter((file) => file.startsWith('lib/cdktn/') && /\.(js|d\.ts)$/.test(file))
      .filter((file) => /(["'])(cdktf|@cdktf\/provider-aws)(\/[^"']*)?\1/.test(fs.readFileSync(path.join(project, 'node_modules', 'svc-prevent', file), 'utf8')));
    expect(leftovers).toEqual([]);
  });
});

describe('a JavaScript cdktf project of another team', () => {
  let workspace: Workspace;
  const stackDir = () => path.join(project, 'cdktf.out', 'stacks', 'policy');
  const drift = (): Promise<CommandResult> =>
    run(path.join(project, 'node_modules', '.bin', 'svc'), ['drift', 'cdktf.out', '--stack', 'policy'], {
      cwd: project,
      env: isolatedEnvironment({ SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.apiKey, TF_CLI_CONFIG_FILE: emptyCliConfig }),
    });

  beforeAll(() => {
    fs.mkdirSync(path.join(project, 'policy'), { recursive: true });
    fs.writeFileSync(path.join(project, 'policy', 'blacklist.yaml'), 'entries:\n  - ip: 203.0.113.9\n    description: scanner\n  - ip: 2001:db8::1\n');
    fs.writeFileSync(path.join(project, 'main.js'), pageProgram());
    const cdktfJson = { language: 'javascript', app: 'node main.js', projectId: 'team-project', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} };
    fs.writeFileSync(path.join(project, 'cdktf.json'), JSON.stringify(cdktfJson, null, 2));
    workspace = new Workspace({ dir: stackDir(), cliConfigFile: emptyCliConfig, trackChild: track, env: { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.apiKey } });
  });
  afterAll(() => workspace?.killRunning());

  test('synthesizes SvcProvider + SecurityPolicy + ControlPlane and prepares the svc stack with the packaged provider', async () => {
    const synth = await run(process.execPath, ['main.js'], { cwd: project, env: isolatedEnvironment({}) });
    expect({ code: synth.code, prepared: synth.stdout.trim() }).toEqual({ code: 0, prepared: 'prepared: policy' });
    const stack = JSON.parse(fs.readFileSync(path.join(stackDir(), 'cdk.tf.json'), 'utf8'));
    expect(Object.keys(stack.resource.svc_blacklist_entry)).toHaveLength(2);
    expect(fs.existsSync(path.join(project, 'cdktf.out', 'stacks', 'control-plane', 'cdk.tf.json'))).toBe(true);
    const packagedMirror = fs.realpathSync(path.join(project, 'node_modules', 'svc-prevent', 'lib', 'provider', 'mirror'));
    expect(fs.readlinkSync(path.join(stackDir(), 'terraform.d', 'plugins'))).toBe(packagedMirror);
  }, 120_000);

  test('the first cdktf diff plans the policy: no "Could not retrieve providers for locking"', async () => {
    const diff = await runCdktf(['diff', 'policy', '--no-color'], {
      cwd: project,
      env: isolatedEnvironment({ SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.apiKey, TF_CLI_CONFIG_FILE: emptyCliConfig, CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1' }),
    });
    expect({ code: diff.code, output: diff.code === 0 ? '' : diff.output }).toEqual({ code: 0, output: '' });
    expect(diff.output).not.toContain('Could not retrieve providers for locking');
    expect(diff.output).not.toContain('checkpoint-api.hashicorp.com');
    expect(diff.output).toMatch(/Plan: 3 to add, 0 to change, 0 to destroy/);
  }, 180_000);

  test('terraform deploys the policy to the emulator, finding the provider with an empty CLI config', async () => {
    await workspace.init();
    await workspace.apply();
    const ips = (await emulator.client(TENANT).listEntries('blacklist')).map((entry) => entry.ip).sort();
    expect(ips).toEqual(['2001:db8::1', '203.0.113.9']);
  }, 180_000);

  test('svc drift: exit 0 while nothing changed, 2 after a change through the API, naming the resource', async () => {
    const clean = await drift();
    expect({ code: clean.code, said: clean.code === 0 ? '' : described(clean) }).toEqual({ code: 0, said: '' });
    expect(clean.stdout).toContain('no drift, nothing to change');

    await emulator.consoleClient(TENANT).deleteEntry('blacklist', '203.0.113.9');
    const drifted = await drift();
    expect({ code: drifted.code, said: drifted.code === 2 ? '' : described(drifted) }).toEqual({ code: 2, said: '' });
    expect(drifted.stdout).toContain('DRIFT');
    expect(drifted.stdout).toContain('svc_blacklist_entry.');
    expect(`${drifted.stdout}${drifted.stderr}`).not.toContain(emulator.apiKey);
  }, 180_000);

  test('terraform destroy leaves the tenant without the entries', async () => {
    await workspace.destroy();
    expect(await emulator.client(TENANT).listEntries('blacklist')).toEqual([]);
    expect(await emulator.client(TENANT).listEntries('blocklist')).toEqual([]);
  }, 180_000);

  test('deep imports of internal modules are refused by the exports map', async () => {
    const attempt = await run(process.execPath, ['-e', "require('svc-prevent/lib/modules/security-policy/entries')"], { cwd: project });
    expect(attempt.code).not.toBe(0);
    expect(attempt.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  test.each([
    ['svc', 'Usage: svc <command>'],
    ['svc-drift', 'Usage: svc-drift'],
    ['svc-emulator', 'Usage: svc-emulator'],
    ['svc-deployment-policy', 'Usage: svc-deployment-policy'],
    ['svc-moved-blocks', 'Usage: svc-moved-blocks'],
  ])('%s --help runs the compiled command', async (command, usage) => {
    const help = await run(path.join(project, 'node_modules', '.bin', command), ['--help'], { cwd: project, env: isolatedEnvironment({}) });
    expect({ code: help.code, usage: help.stdout.startsWith(usage) }).toEqual({ code: 0, usage: true });
  });
});

describe('a TypeScript cdktf project of another team', () => {
  const source = (blacklistKey: string) => `import { App, TerraformStack } from 'cdktf';
import { SvcProvider } from 'svc-prevent/provider';
import { SecurityPolicy } from 'svc-prevent/security-policy';
import { ManagementClient } from 'svc-prevent/client';
import { ControlPlane } from 'svc-prevent';

const app = new App();
const stack = new TerraformStack(app, 'policy');
const provider = new SvcProvider(stack, 'svc', { tenant: 'acme' });
new SecurityPolicy(stack, 'security-policy', { provider, ${blacklistKey}: { entries: [{ ip: '203.0.113.9' }] } });
export const kinds: [typeof ManagementClient, typeof ControlPlane] = [ManagementClient, ControlPlane];
app.synth();
`;

  async function typeCheck(dir: string, moduleResolution: 'node10' | 'node16', blacklistKey: string): Promise<CommandResult> {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'main.ts'), source(blacklistKey));
    // cdktf init's tsconfig (whose module CommonJS means node10 resolution), and node16 resolution.
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: 'ES2018',
      lib: ['es2018'],
      module: moduleResolution === 'node16' ? 'Node16' : 'CommonJS',
      moduleResolution,
      types: ['node'],
      typeRoots: [path.join(REPOSITORY, 'node_modules', '@types')],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }, null, 2));
    return run(process.execPath, [TSC, '-p', dir], { cwd: dir });
  }

  test.each(['node10', 'node16'] as const)('type-checks against the packed .d.ts (moduleResolution %s)', async (moduleResolution) => {
    // Inside the project, so its node_modules (the installed tarball) is what tsc resolves.
    const result = await typeCheck(path.join(project, `ts-${moduleResolution}`), moduleResolution, 'blacklist');
    expect({ code: result.code, said: result.code === 0 ? '' : described(result) }).toEqual({ code: 0, said: '' });
  }, 120_000);

  test('a wrong prop is a compile error naming it', async () => {
    const result = await typeCheck(path.join(project, 'ts-wrong'), 'node10', 'blaklist');
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/error TS2561: Object literal may only specify known properties, but 'blaklist' does not exist in type 'SecurityPolicyProps'\. Did you mean to write 'blacklist'\?/);
  }, 120_000);
});

describe('a project with cdktf and constructs but without @cdktf/provider-aws', () => {
  let securityOnly: string;
  beforeAll(async () => {
    securityOnly = path.join(scratch, 'security-only');
    await createConsumerProject(securityOnly, library, { npmPeers: ['cdktf', 'constructs'] });
  }, 300_000);

  test('npm installed the peers it needs and not the optional AWS bindings', () => {
    const installed = (name: string) => fs.existsSync(path.join(securityOnly, 'node_modules', name, 'package.json'));
    expect({ cdktf: installed('cdktf'), constructs: installed('constructs'), aws: installed('@cdktf/provider-aws') }).toEqual({ cdktf: true, constructs: true, aws: false });
  });

  test('synthesizes a security policy from svc-prevent/security-policy and svc-prevent/provider', async () => {
    fs.writeFileSync(
      path.join(securityOnly, 'main.js'),
      `const { App, TerraformStack } = require('cdktf');
const { SvcProvider, prepareStacksForSvcProvider } = require('svc-prevent/provider');
const { SecurityPolicy } = require('svc-prevent/security-policy');
const app = new App();
const stack = new TerraformStack(app, 'policy');
new SecurityPolicy(stack, 'security-policy', { provider: new SvcProvider(stack, 'svc', { tenant: 'acme' }), whitelist: { entries: [{ ip: '192.0.2.0/28' }] } });
app.synth();
console.log('prepared: ' + prepareStacksForSvcProvider(app.outdir).join(','));
`,
    );
    const synth = await run(process.execPath, ['main.js'], { cwd: securityOnly, env: isolatedEnvironment({}) });
    expect({ code: synth.code, out: synth.stdout.trim(), err: synth.code === 0 ? '' : synth.stderr }).toEqual({ code: 0, out: 'prepared: policy', err: '' });
  }, 60_000);

  test('the AWS entry points say which package is missing', async () => {
    const attempt = await run(process.execPath, ['-e', "require('svc-prevent/control-plane')"], { cwd: securityOnly });
    expect(attempt.code).not.toBe(0);
    expect(attempt.stderr).toContain("Cannot find module '@cdktf/provider-aws/lib/");
  });
});
