/**
 * `npm run build`: bundles the svc Terraform provider into one executable file and lays out a
 * terraform filesystem mirror for it, plus a CLI config that installs svc-prevent/svc from that
 * mirror and everything else from its registry:
 *
 *   <out>/terraform-provider-svc                        the bundle (node script, mode 755)
 *   <out>/mirror/registry.terraform.io/svc-prevent/svc/<version>/<os>_<arch>/terraform-provider-svc_v<version>
 *   <out>/terraform.rc                                  use with TF_CLI_CONFIG_FILE=<abs path>
 *
 * The tests call buildProvider() with their own out dir (and a fixture entry), so the CLI here
 * is a thin wrapper around it.
 *
 * Two processes may find the build stale at once (the demo and a synth) and build into the same
 * directory while a third reads it. So every file is written complete in a private staging
 * directory beside the target (`<out>/.staging-<pid>-<random>/`, same filesystem) and renamed
 * into place: a reader sees the old file or the new one, never a half-written one, and a
 * package directory never holds a temporary file (terraform and packageHash hash all of it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BuildFailure, Message } from 'esbuild';

export const PROVIDER_SOURCE = 'registry.terraform.io/svc-prevent/svc';
export const PROVIDER_TYPE = 'svc';
export const EXECUTABLE_NAME = `terraform-provider-${PROVIDER_TYPE}`;
/** One node script runs everywhere node runs, so the mirror offers it for every common platform. */
export const DEFAULT_PLATFORMS: readonly string[] = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64'];

const REPOSITORY = path.resolve(__dirname, '..');
export const DEFAULT_ENTRY = path.join(REPOSITORY, 'src', 'provider', 'main.ts');
export const DEFAULT_OUT_DIR = path.join(REPOSITORY, 'dist');

export interface BuildOptions {
  /** Where the bundle, the mirror and terraform.rc go (created when missing). */
  readonly outDir: string;
  /** @default src/provider/main.ts */
  readonly entry?: string;
  /** @default the version in package.json */
  readonly version?: string;
  /** `<os>_<arch>` directories of the mirror. @default DEFAULT_PLATFORMS */
  readonly platforms?: readonly string[];
  /** Progress lines; the CLI sends them to stderr. @default nothing */
  readonly log?: (line: string) => void;
}

export interface BuildResult {
  readonly version: string;
  /** Absolute path of the bundled executable. */
  readonly executable: string;
  /** Absolute path of the mirror root (the `filesystem_mirror` path). */
  readonly mirrorDir: string;
  /** Absolute paths of the executables inside the mirror, one per platform. */
  readonly mirrorExecutables: readonly string[];
  /** Absolute path of the generated terraform CLI config. */
  readonly cliConfigFile: string;
  readonly bundleBytes: number;
}

export type BuildErrorCode = 'entry_missing' | 'bundle_failed' | 'invalid_version' | 'invalid_platform' | 'cli_usage';

export class BuildError extends Error {
  constructor(
    readonly code: BuildErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BuildError';
  }
}

export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new BuildError('invalid_version', 'package.json has no "version" string; set one (e.g. "0.1.0").');
  return manifest.version;
}

/** Terraform accepts only semantic versions (no leading "v") for providers in a mirror. */
function checkVersion(version: string): void {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new BuildError('invalid_version', `version must be a semantic version such as 0.1.0 (no leading "v"), got "${version}".`);
  }
}

function checkPlatform(platform: string): void {
  if (!/^[a-z0-9]+_[a-z0-9]+$/.test(platform)) {
    throw new BuildError('invalid_platform', `platform must look like <os>_<arch> (e.g. linux_amd64), got "${platform}".`);
  }
}

/** The terraform platform this machine is, e.g. linux_amd64 (for tests that build only what they run). */
export function currentPlatform(): string {
  const architectures: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
  return `${process.platform === 'win32' ? 'windows' : process.platform}_${architectures[process.arch] ?? process.arch}`;
}

function formatMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column + 1}: ` : '';
  return `${where}${message.text}`;
}

function isBuildFailure(error: unknown): error is BuildFailure {
  // Not `instanceof Error`: under jest the error comes from another realm.
  return typeof error === 'object' && error !== null && Array.isArray((error as Partial<BuildFailure>).errors);
}

/** An HCL quoted string: JSON escapes are HCL escapes, and `${`/`%{` must not start a template. */
function hclString(text: string): string {
  return JSON.stringify(text).replace(/[$%]\{/g, (opener) => `${opener[0]}${opener}`);
}

export function cliConfigText(mirrorDir: string): string {
  return [
    '# Generated by `npm run build` (scripts/build-provider.ts); the next build overwrites it.',
    `# Use it with: export TF_CLI_CONFIG_FILE=<absolute path of this file>`,
    'provider_installation {',
    '  filesystem_mirror {',
    `    path    = ${hclString(mirrorDir)}`,
    `    include = [${hclString(PROVIDER_SOURCE)}]`,
    '  }',
    '  direct {',
    `    exclude = [${hclString(PROVIDER_SOURCE)}]`,
    '  }',
    '}',
    '',
  ].join('\n');
}

function bundle(entry: string, outfile: string): void {
  // Loaded here, not at the top: `--help` and the tests' type imports need no esbuild.
  const esbuild = require('esbuild') as typeof import('esbuild');
  // An entry with its own "#!" keeps it (esbuild copies it); a second one would be a syntax error.
  const hasHashbang = fs.readFileSync(entry, 'utf8').startsWith('#!');
  try {
    esbuild.buildSync({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // Not minified: the provider's stack traces stay readable, and measured start-up is the
      // same either way (node parses the bundle lazily).
      minify: false,
      legalComments: 'none',
      logLevel: 'silent',
      ...(hasHashbang ? {} : { banner: { js: '#!/usr/bin/env node' } }),
    });
  } catch (error) {
    if (!isBuildFailure(error)) throw error;
    const messages = error.errors.map((message) => `  ${formatMessage(message)}`).join('\n');
    throw new BuildError('bundle_failed', `esbuild could not bundle ${entry}:\n${messages}`);
  }
}

export function buildProvider(options: BuildOptions): BuildResult {
  const log = options.log ?? (() => undefined);
  const entry = path.resolve(options.entry ?? DEFAULT_ENTRY);
  const version = options.version ?? packageVersion();
  const platforms = options.platforms ?? DEFAULT_PLATFORMS;
  checkVersion(version);
  platforms.forEach(checkPlatform);
  if (platforms.length === 0) throw new BuildError('invalid_platform', 'platforms is empty; give at least one, e.g. linux_amd64.');
  if (!fs.existsSync(entry)) {
    throw new BuildError('entry_missing', `the provider's entry point ${entry} does not exist; pass another with the entry option or create it.`);
  }

  const outDir = path.resolve(options.outDir);
  fs.mkdirSync(outDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(outDir, `${STAGING_PREFIX}${process.pid}-`));
  try {
    return buildStaged({ entry, version, platforms, outDir, staging, log });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Names of the private directories a build writes in before renaming into place. */
export const STAGING_PREFIX = '.staging-';

/** Moves a complete file from the staging directory into place (rename(2): atomic on one filesystem). */
function publish(staged: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.renameSync(staged, target);
}

function buildStaged(build: {
  entry: string;
  version: string;
  platforms: readonly string[];
  outDir: string;
  staging: string;
  log: (line: string) => void;
}): BuildResult {
  const { entry, version, platforms, outDir, staging, log } = build;
  const stagedBundle = path.join(staging, EXECUTABLE_NAME);
  log(`bundling ${path.relative(process.cwd(), entry) || entry} with esbuild (node20)`);
  bundle(entry, stagedBundle);
  fs.chmodSync(stagedBundle, 0o755);
  const bundleBytes = fs.statSync(stagedBundle).size;

  const mirrorDir = path.join(outDir, 'mirror');
  const versionDir = path.join(mirrorDir, ...PROVIDER_SOURCE.split('/'), version);
  const mirrorExecutables = platforms.map((platform, index) => {
    const target = path.join(versionDir, platform, `${EXECUTABLE_NAME}_v${version}`);
    // A copy, not a symlink: terraform hashes the package directory's contents.
    const staged = path.join(staging, `package-${index}`);
    fs.copyFileSync(stagedBundle, staged);
    fs.chmodSync(staged, 0o755);
    publish(staged, target);
    log(`wrote ${target}`);
    return target;
  });
  // Platforms left over from an earlier build of this version would be served with the new ones.
  for (const leftover of fs.readdirSync(versionDir).filter((name) => !platforms.includes(name))) {
    fs.rmSync(path.join(versionDir, leftover), { recursive: true, force: true });
  }

  const cliConfigFile = path.join(outDir, 'terraform.rc');
  const stagedConfig = path.join(staging, 'terraform.rc');
  fs.writeFileSync(stagedConfig, cliConfigText(mirrorDir));
  publish(stagedConfig, cliConfigFile);
  log(`wrote ${cliConfigFile}`);

  // Last: ensureProviderBuilt compares the mirror executable's time with the sources, and this
  // one is what a user runs by hand.
  const executable = path.join(outDir, EXECUTABLE_NAME);
  publish(stagedBundle, executable);
  log(`wrote ${executable} (${(bundleBytes / 1024).toFixed(0)} KiB)`);
  return { version, executable, mirrorDir, mirrorExecutables, cliConfigFile, bundleBytes };
}

const USAGE = `Usage: npm run build [-- --out-dir <dir>]

Bundles the svc Terraform provider (src/provider/main.ts) into one executable node script and
lays out a terraform filesystem mirror for ${PROVIDER_SOURCE} at the package.json version:

  <dir>/terraform-provider-svc
  <dir>/mirror/${PROVIDER_SOURCE}/<version>/<os>_<arch>/terraform-provider-svc_v<version>
      for ${DEFAULT_PLATFORMS.join(', ')}
  <dir>/terraform.rc   terraform CLI config: this provider from the mirror, the rest direct

Then: export TF_CLI_CONFIG_FILE=<absolute dir>/terraform.rc && terraform init
The provider needs node (>= 20) on PATH.

Options:
  --out-dir <dir>  where to write (default dist/ in the repository)
  --help, -h       show this help`;

/** Quotes a path for a POSIX shell when it needs it, so the printed line can be pasted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

type CliArguments = { kind: 'help' } | { kind: 'build'; outDir: string };

export function parseCliArguments(argv: readonly string[]): CliArguments {
  let outDir = DEFAULT_OUT_DIR;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return { kind: 'help' };
    if (argument.startsWith('--out-dir=')) {
      outDir = argument.slice('--out-dir='.length);
    } else if (argument === '--out-dir') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new BuildError('cli_usage', '--out-dir needs a directory, e.g. --out-dir dist');
      outDir = value;
      index += 1;
    } else {
      throw new BuildError('cli_usage', `unknown argument "${argument}"; run with --help for the options.`);
    }
    if (outDir === '') throw new BuildError('cli_usage', '--out-dir needs a non-empty directory, e.g. --out-dir dist');
  }
  return { kind: 'build', outDir: path.resolve(outDir) };
}

export function main(argv: readonly string[]): number {
  let parsed: CliArguments;
  try {
    parsed = parseCliArguments(argv);
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`build-provider: ${error.message}\n`);
    return 2;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const result = buildProvider({ outDir: parsed.outDir, log: (line) => process.stderr.write(`build-provider: ${line}\n`) });
    process.stdout.write(
      [
        `svc provider ${result.version} built into ${parsed.outDir}`,
        'Use it from any terraform working directory:',
        `  export TF_CLI_CONFIG_FILE=${shellWord(result.cliConfigFile)}`,
        '  terraform init',
        '',
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`build-provider: ${error.message}\n`);
    return 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
