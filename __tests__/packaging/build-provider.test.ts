/**
 * scripts/build-provider.ts against a fixture entry point: the bundle runs, the filesystem
 * mirror has terraform's unpacked layout, and the real terraform CLI installs from it with the
 * generated CLI config (terraform init does not start the provider, so a fixture is enough).
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { DEFAULT_PLATFORMS, buildProvider, cliConfigText, parseCliArguments, type BuildResult } from '../../scripts/build-provider';
import { esbuildFailure } from '../../scripts/esbuild-failure';
import { BuildError, packageVersion } from '../../src/provider-identity';
import { packageHash } from '../../src/pipeline/provider-mirror';

const run = promisify(execFile);
const REPOSITORY = path.resolve(__dirname, '..', '..');
const FIXTURE_ENTRY = path.join(__dirname, 'fixtures', 'hello-entry.ts');

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-provider-'));
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

function freshDir(name: string): string {
  return fs.mkdtempSync(path.join(scratch, `${name}-`));
}

describe('buildProvider with a fixture entry', () => {
  let outDir: string;
  let result: BuildResult;
  const progress: string[] = [];

  beforeAll(() => {
    outDir = freshDir('out');
    result = buildProvider({ outDir, entry: FIXTURE_ENTRY, log: (line) => progress.push(line) });
  });

  it('writes one executable node script that runs the bundled entry', () => {
    expect(result.executable).toBe(path.join(outDir, 'terraform-provider-svc'));
    expect(fs.statSync(result.executable).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(result.executable, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    // Run as a program (through the "#!" line), from elsewhere: nothing is loaded from the repository.
    const output = execFileSync(result.executable, ['2001:DB8::1/128'], { cwd: os.tmpdir(), encoding: 'utf8' });
    expect(output).toBe('hello from the bundle: 2001:db8::1\n');
    expect(result.bundleBytes).toBe(fs.statSync(result.executable).size);
  });

  it('lays out the unpacked mirror at the package version for every default platform, as copies', () => {
    const version = packageVersion();
    expect(result.version).toBe(version);
    expect(result.mirrorDir).toBe(path.join(outDir, 'mirror'));
    const expected = DEFAULT_PLATFORMS.map((platform) =>
      path.join(outDir, 'mirror', 'registry.terraform.io', 'svc-prevent', 'svc', version, platform, `terraform-provider-svc_v${version}`),
    );
    expect(result.mirrorExecutables).toEqual(expected);
    const bundle = fs.readFileSync(result.executable);
    for (const file of expected) {
      const stat = fs.lstatSync(file);
      expect({ file, symlink: stat.isSymbolicLink(), mode: stat.mode & 0o777 }).toEqual({ file, symlink: false, mode: 0o755 });
      expect(fs.readFileSync(file).equals(bundle)).toBe(true);
    }
  });

  it('writes a CLI config: this provider from the mirror, everything else direct', () => {
    expect(result.cliConfigFile).toBe(path.join(outDir, 'terraform.rc'));
    const text = fs.readFileSync(result.cliConfigFile, 'utf8');
    expect(text).toContain(`path    = ${JSON.stringify(result.mirrorDir)}`);
    expect(text).toMatch(/filesystem_mirror \{[^}]*include = \["registry\.terraform\.io\/svc-prevent\/svc"\]/);
    expect(text).toMatch(/direct \{\s*exclude = \["registry\.terraform\.io\/svc-prevent\/svc"\]\s*\}/);
  });

  it('reports what it wrote as progress lines', () => {
    expect(progress).toEqual(expect.arrayContaining([expect.stringContaining(`wrote ${result.executable}`), expect.stringContaining(`wrote ${result.cliConfigFile}`)]));
    expect(progress.filter((line) => line.includes(`terraform-provider-svc_v${result.version}`))).toHaveLength(DEFAULT_PLATFORMS.length);
  });

  it('is what terraform init installs with the generated CLI config', async () => {
    const workspace = freshDir('workspace');
    fs.writeFileSync(
      path.join(workspace, 'main.tf'),
      'terraform {\n  required_providers {\n    svc = { source = "svc-prevent/svc" }\n  }\n}\n',
    );
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TF_CLI_CONFIG_FILE: result.cliConfigFile, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
    const { stdout } = await run('terraform', ['init', '-no-color', '-input=false'], { cwd: workspace, env });
    expect(stdout).toContain(`Installing svc-prevent/svc v${result.version}`);
    const lock = fs.readFileSync(path.join(workspace, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toContain(`provider "registry.terraform.io/svc-prevent/svc"`);
    expect(lock).toContain(`version = "${result.version}"`);
  });
});

describe('buildProvider options and errors', () => {
  it('takes a version and platforms, and drops platforms an earlier build of that version left', () => {
    const outDir = freshDir('options');
    buildProvider({ outDir, entry: FIXTURE_ENTRY, version: '1.2.3-rc.1', platforms: ['linux_amd64', 'freebsd_amd64'] });
    const result = buildProvider({ outDir, entry: FIXTURE_ENTRY, version: '1.2.3-rc.1', platforms: ['linux_arm64'] });
    const versionDir = path.join(result.mirrorDir, 'registry.terraform.io', 'svc-prevent', 'svc', '1.2.3-rc.1');
    expect(fs.readdirSync(versionDir)).toEqual(['linux_arm64']);
    expect(fs.readdirSync(path.join(versionDir, 'linux_arm64'))).toEqual(['terraform-provider-svc_v1.2.3-rc.1']);
  });

  it('keeps an entry point that has its own "#!" line runnable (one "#!" line only)', () => {
    const outDir = freshDir('hashbang');
    const entry = path.join(outDir, 'entry.js');
    fs.writeFileSync(entry, '#!/usr/bin/env node\nconsole.log("own hashbang");\n');
    const result = buildProvider({ outDir: path.join(outDir, 'out'), entry, platforms: ['linux_amd64'] });
    const lines = fs.readFileSync(result.executable, 'utf8').split('\n');
    expect(lines.filter((line) => line.startsWith('#!'))).toEqual(['#!/usr/bin/env node']);
    expect(execFileSync(result.executable, { encoding: 'utf8' })).toBe('own hashbang\n');
  });

  it('writes an HCL-safe mirror path (quotes, backslashes and template openers escaped)', () => {
    const text = cliConfigText('/tmp/a "b"\\c/${x}/%{y}');
    expect(text).toContain('path    = "/tmp/a \\"b\\"\\\\c/$${x}/%%{y}"');
  });

  const failures: ReadonlyArray<{ name: string; options: (dir: string) => Parameters<typeof buildProvider>[0]; code: string; message: RegExp }> = [
    {
      name: 'a missing entry point',
      options: (dir) => ({ outDir: dir, entry: path.join(dir, 'nowhere.ts') }),
      code: 'entry_missing',
      message: /entry point .*nowhere\.ts does not exist/,
    },
    {
      name: 'an entry point esbuild cannot bundle',
      options: (dir) => {
        const entry = path.join(dir, 'broken.ts');
        fs.writeFileSync(entry, "import { gone } from './no-such-module';\nconsole.log(gone);\n");
        return { outDir: dir, entry };
      },
      code: 'bundle_failed',
      message: /esbuild could not bundle .*broken\.ts:\n {2}.*broken\.ts:1:\d+: Could not resolve "\.\/no-such-module"/,
    },
    {
      name: 'an entry point with a syntax error',
      options: (dir) => {
        const entry = path.join(dir, 'syntax.ts');
        fs.writeFileSync(entry, 'const fine = 1;\nconst broken = ;\n');
        return { outDir: dir, entry };
      },
      code: 'bundle_failed',
      message: /esbuild could not bundle .*syntax\.ts:\n {2}.*syntax\.ts:2:16: Unexpected ";"/,
    },
    {
      name: 'a version with a leading v',
      options: (dir) => ({ outDir: dir, entry: FIXTURE_ENTRY, version: 'v1.0.0' }),
      code: 'invalid_version',
      message: /semantic version .* got "v1\.0\.0"/,
    },
    {
      name: 'a platform that is not <os>_<arch>',
      options: (dir) => ({ outDir: dir, entry: FIXTURE_ENTRY, platforms: ['linux-amd64'] }),
      code: 'invalid_platform',
      message: /<os>_<arch> .* got "linux-amd64"/,
    },
  ];

  it.each(failures)('refuses $name with a BuildError that says what to fix', ({ options, code, message }) => {
    const dir = freshDir('failure');
    let caught: unknown;
    try {
      buildProvider(options(dir));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BuildError);
    expect((caught as BuildError).code).toBe(code);
    expect((caught as BuildError).message).toMatch(message);
    expect(fs.existsSync(path.join(dir, 'terraform.rc'))).toBe(false);
  });
});

describe("esbuildFailure: esbuild's failure as the caller's error (the provider build's and the release's bundles)", () => {
  class CallersError extends Error {}

  it("turns build()'s rejection (the release's bundles) into the caller's error naming what was bundled and each error's file, line and column", async () => {
    const entry = path.join(freshDir('syntax'), 'warm-up.ts');
    fs.writeFileSync(entry, 'export const fine = 1;\nexport const broken = (;\n');
    const failure: unknown = await esbuild.build({ entryPoints: [entry], bundle: true, write: false, logLevel: 'silent' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const made = esbuildFailure("the service's warm-up", failure, (message) => new CallersError(message));
    expect(made).toBeInstanceOf(CallersError);
    expect((made as CallersError).message).toMatch(/^esbuild could not bundle the service's warm-up:\n {2}.*warm-up\.ts:2:24: Unexpected ";"$/);
  });

  it('returns any other error as it is', () => {
    const other = new Error('ENOSPC');
    expect(esbuildFailure('the svc command', other, (message) => new CallersError(message))).toBe(other);
  });
});

describe('the build-provider command line', () => {
  it.each([
    { name: 'no arguments: dist/ in the repository', argv: [], expected: { kind: 'build', outDir: path.join(REPOSITORY, 'dist') } },
    { name: '--out-dir <dir>, relative to the working directory', argv: ['--out-dir', 'out'], expected: { kind: 'build', outDir: path.resolve('out') } },
    { name: '--out-dir=<dir>', argv: ['--out-dir=/tmp/x'], expected: { kind: 'build', outDir: '/tmp/x' } },
    { name: '--help', argv: ['--out-dir', 'x', '--help'], expected: { kind: 'help' } },
    { name: '-h', argv: ['-h'], expected: { kind: 'help' } },
  ])('parses $name', ({ argv, expected }) => {
    expect(parseCliArguments(argv)).toEqual(expected);
  });

  it.each([
    { name: 'an unknown argument', argv: ['--outdir', 'x'], message: 'unknown argument "--outdir"' },
    { name: '--out-dir without a value', argv: ['--out-dir'], message: '--out-dir needs a directory' },
    { name: '--out-dir followed by a flag', argv: ['--out-dir', '--help'], message: '--out-dir needs a directory' },
    { name: 'an empty --out-dir=', argv: ['--out-dir='], message: '--out-dir needs a non-empty directory' },
  ])('refuses $name', ({ argv, message }) => {
    expect(() => parseCliArguments(argv)).toThrow(message);
  });

  it('builds the real provider through npm run build -- --out-dir, and prints how to use it', async () => {
    const outDir = freshDir('cli');
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'build', '--', '--out-dir', outDir], { cwd: REPOSITORY });
    const cliConfigFile = path.join(outDir, 'terraform.rc');
    expect(stdout).toContain(`export TF_CLI_CONFIG_FILE=${cliConfigFile}`);
    expect(stderr).toContain(`build-provider: wrote ${cliConfigFile}`);
    // The bundle stands alone: run from elsewhere, not by terraform, it explains itself and exits 1.
    const direct = await run(path.join(outDir, 'terraform-provider-svc'), [], { cwd: os.tmpdir(), env: { PATH: process.env.PATH } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/terraform/);
  });

  it('prints its help through npm run build', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'build', '--', '--help'], { cwd: REPOSITORY });
    expect(stdout).toContain('Usage: npm run build [-- --out-dir <dir>]');
    expect(stdout).toContain('TF_CLI_CONFIG_FILE');
  });
});

describe('concurrent builds into one directory (the demo and a synth finding the build stale at once)', () => {
  /** Runs buildProvider in its own node process (the build is synchronous: one process cannot overlap two). */
  function buildInChild(outDir: string): Promise<void> {
    const code = [
      `require(${JSON.stringify(path.join(REPOSITORY, 'bin', 'launch.js'))}).registerCheckoutTypeScript();`,
      `require(${JSON.stringify(path.join(REPOSITORY, 'scripts', 'build-provider.ts'))}).buildProvider({ outDir: process.argv[1] });`,
    ].join('\n');
    return run(process.execPath, ['-e', code, outDir], { cwd: REPOSITORY }).then(() => undefined);
  }

  it('a reader sees the old or the new build, complete, never a half-written file, a missing one or a wrong hash', async () => {
    const outDir = freshDir('concurrent');
    const first = buildProvider({ outDir, platforms: DEFAULT_PLATFORMS });
    const bundle = fs.readFileSync(first.executable);
    const cliConfig = fs.readFileSync(first.cliConfigFile, 'utf8');
    const packageDirs = first.mirrorExecutables.map((file) => path.dirname(file));
    const hash = packageHash(packageDirs[0]);

    let done = false;
    const builds = Promise.all([buildInChild(outDir), buildInChild(outDir)]).finally(() => {
      done = true;
    });
    const problems = new Set<string>();
    let reads = 0;
    // Reads between turns of the event loop until both builds have exited (and once more after).
    for (let last = false; !last; ) {
      last = done;
      reads += 1;
      const check = (what: string, ok: () => boolean) => {
        let fine: boolean;
        try {
          fine = ok();
        } catch (error) {
          // A file or directory missing at that moment (ENOENT) is a problem to report; anything else is a bug here.
          if ((error as NodeJS.ErrnoException).code === undefined) throw error;
          fine = false;
        }
        if (!fine) problems.add(what);
      };
      check('the bundle incomplete or missing', () => fs.readFileSync(first.executable).equals(bundle));
      check('terraform.rc incomplete or missing', () => fs.readFileSync(first.cliConfigFile, 'utf8') === cliConfig);
      for (const [index, dir] of packageDirs.entries()) {
        check(`package ${index}: not exactly its executable`, () => JSON.stringify(fs.readdirSync(dir)) === JSON.stringify([path.basename(first.mirrorExecutables[index])]));
        check(`package ${index}: executable incomplete`, () => fs.readFileSync(first.mirrorExecutables[index]).equals(bundle));
      }
      check('package 0: another hash', () => packageHash(packageDirs[0]) === hash);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await builds;
    expect({ problems: [...problems], readWhileBuilding: reads > 3 }).toEqual({ problems: [], readWhileBuilding: true });
    // Nothing of the staging directories is left.
    expect(fs.readdirSync(outDir).sort()).toEqual(['mirror', 'terraform-provider-svc', 'terraform.rc']);
  }, 60_000);
});
