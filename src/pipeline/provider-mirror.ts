/**
 * How `cdktf deploy` (and diff, destroy, the drift check, the demo) find the svc provider with no
 * CLI config written by hand. cdktf runs terraform in `<outdir>/stacks/<stack>/`, so after synth
 * the app prepares every stack that requires svc-prevent/svc:
 *
 *   terraform.d/plugins -> <build>/mirror   terraform's implied local mirror (used when the CLI
 *                                           config has no provider_installation block)
 *   .terraform.lock.hcl                     the svc entry set to the build's checksum, so a
 *                                           rebuilt provider (same version, new bytes) passes
 *                                           the next `terraform init`, and cdktf never runs
 *                                           `terraform providers lock`, which asks the public
 *                                           registry (where svc-prevent/svc does not exist)
 *
 * The build is `npm run build`'s output (dist/, or SVC_PROVIDER_BUILD_DIR). Building it is an
 * explicit step of the npm scripts and the demo (ensureProviderBuilt in scripts/build-provider.ts),
 * before cdktf runs, and so is preparing the stacks after synth: the app itself (main.ts) only
 * synthesizes. This module reads a build and prepares stacks; it never builds. With
 * TF_CLI_CONFIG_FILE=<build>/terraform.rc (the npm scripts and the drift check set it when the
 * user has no TF_CLI_CONFIG_FILE of their own) terraform reads the same mirror explicitly.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../package-root';
import { EXECUTABLE_NAME, PROVIDER_SOURCE, currentPlatform, packageVersion } from '../provider-identity';

const REPOSITORY = packageRoot();
export const DEFAULT_PROVIDER_BUILD_DIR = path.join(REPOSITORY, 'dist');
/** Names another build directory (tests use their own, so they never touch dist/). */
export const PROVIDER_BUILD_DIR_ENV = 'SVC_PROVIDER_BUILD_DIR';
/** What the bundle is made of (src/provider/main.ts and its imports); a newer file means a stale build. */
const PROVIDER_SOURCES = ['provider', 'api', 'address.ts'].map((name) => path.join(REPOSITORY, 'src', name));
const LOCK_FILE = '.terraform.lock.hcl';
const IMPLIED_MIRROR = path.join('terraform.d', 'plugins');

/** A filesystem mirror of the svc provider that terraform can install it from, and the checksum to lock. */
export interface ProviderMirror {
  /** The build directory (bundle, mirror/, terraform.rc); for a mirror not built here, the directory holding it. */
  readonly buildDir: string;
  /** The filesystem mirror root. */
  readonly mirrorDir: string;
  /**
   * terraform.rc that installs svc-prevent/svc from mirrorDir and the rest from their registries.
   * Absent for a mirror not built here (the packaged one, a team's): terraform then finds svc
   * through the implied mirror link in each stack.
   */
  readonly cliConfigFile?: string;
  /** The provider version in the mirror that is used. */
  readonly version: string;
  /** `h1:` checksum of this platform's package, as terraform records it in the lock file. */
  readonly hash: string;
  /** True when this call (re)built the provider. */
  readonly built: boolean;
}

/**
 * The svc provider cannot be found where it was looked for (no mirror, no such version, not built
 * for this platform, or no synthesized app in `outdir`); the message names the directory and what to do.
 */
export class ProviderMirrorError extends Error {
  /** Always `provider_mirror`. */
  readonly code = 'provider_mirror';
  /** Thrown by prepareStacksForSvcProvider and filesystemMirror. */
  constructor(message: string) {
    super(message);
    this.name = 'ProviderMirrorError';
  }
}

export function providerBuildDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[PROVIDER_BUILD_DIR_ENV];
  return configured === undefined || configured === '' ? DEFAULT_PROVIDER_BUILD_DIR : path.resolve(configured);
}

function packageDirectory(mirrorDir: string, version: string): string {
  return path.join(mirrorDir, ...PROVIDER_SOURCE.split('/'), version, currentPlatform());
}

function newestModification(file: string): number {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(file).map((name) => newestModification(path.join(file, name))));
}

/**
 * terraform's `h1:` package checksum (Go's dirhash Hash1): SHA-256 over the sorted lines
 * "<sha256 hex of the file>  <relative path>\n" of every file in the package directory.
 */
export function packageHash(directory: string): string {
  const files: string[] = [];
  const visit = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(directory, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) visit(child);
      else files.push(child);
    }
  };
  visit('');
  const summary = createHash('sha256');
  for (const file of files.sort()) {
    const digest = createHash('sha256').update(fs.readFileSync(path.join(directory, file))).digest('hex');
    summary.update(`${digest}  ${file}\n`);
  }
  return `h1:${summary.digest('base64')}`;
}

/** What a build directory holds: a current build, none, or one older than the provider's sources. */
export type ProviderBuildState =
  | { readonly state: 'current' | 'stale'; readonly mirror: ProviderMirror }
  | { readonly state: 'missing' };

/**
 * Reads the build in `buildDir` (default providerBuildDir()) without building: `stale` when a
 * file of src/provider, src/api or src/address.ts is newer than the mirror's executable.
 */
export function providerBuildState(buildDir: string = providerBuildDir()): ProviderBuildState {
  const version = packageVersion();
  const mirrorDir = path.join(buildDir, 'mirror');
  const cliConfigFile = path.join(buildDir, 'terraform.rc');
  const executable = path.join(packageDirectory(mirrorDir, version), `${EXECUTABLE_NAME}_v${version}`);
  if (!fs.existsSync(executable) || !fs.existsSync(cliConfigFile)) return { state: 'missing' };
  const stale = fs.statSync(executable).mtimeMs < Math.max(...PROVIDER_SOURCES.map(newestModification));
  const mirror = { buildDir, mirrorDir, cliConfigFile, version, hash: packageHash(packageDirectory(mirrorDir, version)), built: false };
  return { state: stale ? 'stale' : 'current', mirror };
}

/**
 * The current build in `buildDir`, or a ProviderMirrorError that says to build it (for callers
 * that prepare stacks after a build step of their own, and must not build themselves).
 */
export function builtProviderMirror(buildDir: string = providerBuildDir()): ProviderMirror {
  const build = providerBuildState(buildDir);
  if (build.state === 'current') return build.mirror;
  const what = build.state === 'missing' ? `is not built in ${buildDir}` : `in ${buildDir} is older than its sources`;
  const buildCommand = buildDir === DEFAULT_PROVIDER_BUILD_DIR ? 'npm run build' : `npm run build -- --out-dir ${buildDir}`;
  throw new ProviderMirrorError(`the svc provider ${what}; run \`${buildCommand}\` (npm run synth|diff|deploy|destroy and npm run demo build it first)`);
}

/** The CLI config terraform runs with, and a note when it keeps terraform from finding the svc provider. */
export interface TerraformCliConfig {
  /** The value for TF_CLI_CONFIG_FILE; undefined: leave it unset (terraform's own default files and the implied mirror). */
  readonly file: string | undefined;
  /** True when it is the user's own TF_CLI_CONFIG_FILE, kept as it is. */
  readonly usersOwn: boolean;
  /** For stderr: how to add the svc mirror to the user's provider_installation block. */
  readonly note?: string;
}

/** A `provider_installation {` block outside comments. */
function hasProviderInstallation(configText: string): boolean {
  const code = configText
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*(#|\/\/)/.test(line))
    .join('\n');
  return /(^|\n)\s*provider_installation\s*\{/.test(code);
}

/**
 * The user's TF_CLI_CONFIG_FILE when set (their credentials helpers, network mirrors and plugin
 * cache stay in effect; terraform finds svc through the implied mirror link of each stack),
 * else the build's terraform.rc. A provider_installation block of their own turns the implied
 * mirror off: then a note says what to add, unless the file names the mirror already.
 */
export function terraformCliConfig(mirror: ProviderMirror, env: NodeJS.ProcessEnv = process.env): TerraformCliConfig {
  const own = env.TF_CLI_CONFIG_FILE;
  if (own === undefined || own === '') return { file: mirror.cliConfigFile, usersOwn: false };
  const block = mirror.cliConfigFile === undefined ? `a filesystem_mirror block for ${mirror.mirrorDir}` : `the filesystem_mirror block of ${mirror.cliConfigFile}`;
  // A file terraform cannot open is terraform's to report (it warns and goes on without it).
  const text = fs.existsSync(own) && fs.statSync(own).isFile() ? fs.readFileSync(own, 'utf8') : '';
  if (!hasProviderInstallation(text) || text.includes(mirror.mirrorDir)) return { file: own, usersOwn: true };
  const note = [
    `svc provider: your TF_CLI_CONFIG_FILE (${own}) has a provider_installation block, so terraform ignores the svc mirror linked into each stack and cannot install ${PROVIDER_SOURCE}.`,
    `Add ${block} to that provider_installation block, and exclude ${PROVIDER_SOURCE} from its direct block:`,
    '  filesystem_mirror {',
    `    path    = "${mirror.mirrorDir}"`,
    `    include = ["${PROVIDER_SOURCE}"]`,
    '  }',
    mirror.cliConfigFile === undefined ? 'or unset TF_CLI_CONFIG_FILE.' : `or unset TF_CLI_CONFIG_FILE to use ${mirror.cliConfigFile}.`,
  ].join('\n');
  return { file: own, usersOwn: true, note };
}

/** The svc entry of a lock file, as terraform writes it. */
function lockBlock(mirror: ProviderMirror, constraint: string | undefined): string {
  return [
    `provider "${PROVIDER_SOURCE}" {`,
    `  version     = "${mirror.version}"`,
    ...(constraint === undefined ? [] : [`  constraints = "${constraint}"`]),
    '  hashes = [',
    `    "${mirror.hash}",`,
    '  ]',
    '}',
    '',
  ].join('\n');
}

const LOCK_HEADER = '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n';
const SVC_LOCK_BLOCK = new RegExp(`^provider "${PROVIDER_SOURCE.replace(/[./]/g, (character) => `\\${character}`)}" \\{\\n[\\s\\S]*?^\\}\\n?`, 'm');

/**
 * Sets the svc entry of `<stackDir>/.terraform.lock.hcl` to this build (other providers' entries
 * stay as they are). Returns whether the file changed.
 */
export function lockSvcProvider(stackDir: string, mirror: ProviderMirror, constraint: string | undefined): boolean {
  const file = path.join(stackDir, LOCK_FILE);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const block = lockBlock(mirror, constraint);
  const existing = SVC_LOCK_BLOCK.exec(current)?.[0];
  if (existing !== undefined && existing.trimEnd() === block.trimEnd()) return false;
  const next =
    existing !== undefined
      ? current.replace(SVC_LOCK_BLOCK, block)
      : `${current === '' ? LOCK_HEADER : current.trimEnd() + '\n'}\n${block}`;
  fs.writeFileSync(file, next);
  return true;
}

/** `<stackDir>/terraform.d/plugins` -> the mirror (replacing a link to another build). */
export function linkImpliedMirror(stackDir: string, mirrorDir: string): void {
  const link = path.join(stackDir, IMPLIED_MIRROR);
  const existing = fs.lstatSync(link, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) {
    if (fs.readlinkSync(link) === mirrorDir) return;
    fs.unlinkSync(link);
  } else if (existing !== undefined) {
    throw new ProviderMirrorError(`${link} exists and is not a link to the svc provider's mirror; remove it (the app links it to ${mirrorDir})`);
  }
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(mirrorDir, link, 'dir');
}

/** The version constraint a synthesized stack puts on svc-prevent/svc, or null when it does not use it. */
export function svcRequirement(stackJson: unknown): { constraint: string | undefined } | null {
  const required = (stackJson as { terraform?: { required_providers?: Record<string, { source?: string; version?: string }> } }).terraform?.required_providers ?? {};
  for (const requirement of Object.values(required)) {
    const source = requirement.source ?? '';
    if (source === PROVIDER_SOURCE || `registry.terraform.io/${source}` === PROVIDER_SOURCE) return { constraint: requirement.version };
  }
  return null;
}

/**
 * The same for a stack as cdktf wrote it: cdk.tf.json, or cdk.tf after `cdktf synth --hcl`
 * (CDKTF's way out to plain Terraform). cdktf renders required_providers entries as
 * `svc = { version = "..." source = "svc-prevent/svc" }`, which is read without an HCL parser.
 */
export function stackSvcRequirement(stackFile: string): { constraint: string | undefined } | null {
  const text = fs.readFileSync(stackFile, 'utf8');
  if (stackFile.endsWith('.json')) return svcRequirement(JSON.parse(text));
  for (const block of text.matchAll(/\{[^{}]*\bsource\s*=\s*"([^"]*)"[^{}]*\}/g)) {
    const source = block[1];
    if (source !== PROVIDER_SOURCE && `registry.terraform.io/${source}` !== PROVIDER_SOURCE) continue;
    const version = /\bversion\s*=\s*"([^"]*)"/.exec(block[0]);
    return { constraint: version?.[1] };
  }
  return null;
}

/**
 * A literal setting (`base_url`, `tenant`) of the stack's first svc provider block, JSON or HCL;
 * undefined when unset or a reference (`${var.x}`, `var.x`), which only terraform can resolve.
 */
export function svcProviderSetting(stackFile: string, name: string): string | undefined {
  const text = fs.readFileSync(stackFile, 'utf8');
  let value: unknown;
  if (stackFile.endsWith('.json')) {
    const blocks = (JSON.parse(text) as { provider?: { svc?: unknown } }).provider?.svc;
    value = ((Array.isArray(blocks) ? blocks[0] : blocks) as Record<string, unknown> | undefined)?.[name];
  } else {
    const block = /\bprovider\s+"svc"\s*\{([^{}]*)\}/.exec(text)?.[1] ?? '';
    value = new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(block)?.[1];
  }
  return typeof value === 'string' && value !== '' && !value.includes('${') ? value : undefined;
}

export interface SynthesizedStack {
  readonly name: string;
  /** Absolute: where cdktf runs terraform for this stack. */
  readonly workingDirectory: string;
  /** Absolute path of cdk.tf.json (cdk.tf after `cdktf synth --hcl`). */
  readonly file: string;
}

/** The stacks of a synthesized app, from `<outdir>/manifest.json`. */
export function synthesizedStacks(outdir: string): SynthesizedStack[] {
  const manifestFile = path.join(outdir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    throw new ProviderMirrorError(`${manifestFile} does not exist; synthesize first (npx cdktf synth --output ${outdir})`);
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
    stacks: Record<string, { name: string; workingDirectory: string; synthesizedStackPath: string }>;
  };
  return Object.values(manifest.stacks).map((stack) => ({
    name: stack.name,
    workingDirectory: path.resolve(outdir, stack.workingDirectory),
    file: path.resolve(outdir, stack.synthesizedStackPath),
  }));
}

/** cdktf's own default when CDKTF_DISABLE_PLUGIN_CACHE_ENV is not set: one cache per user. */
export function cdktfDefaultPluginCache(home: string): string {
  return path.join(home, '.terraform.d', 'plugin-cache');
}

/**
 * A note for stderr when the app runs under a bare `cdktf` that turned on its shared plugin cache:
 * terraform then links every checkout's svc provider through one cache entry per version, so a
 * stack can end up running another checkout's build (and break when that checkout is deleted).
 * `npm run synth|diff|deploy|destroy` set CDKTF_DISABLE_PLUGIN_CACHE_ENV=1 and never see this.
 */
export function sharedPluginCacheNote(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const cache = env.TF_PLUGIN_CACHE_DIR;
  const disabled = env.CDKTF_DISABLE_PLUGIN_CACHE_ENV === '1' || env.CDKTF_DISABLE_PLUGIN_CACHE_ENV === 'true';
  if (cache === undefined || disabled || path.resolve(cache) !== cdktfDefaultPluginCache(home)) return undefined;
  return (
    `note: cdktf set TF_PLUGIN_CACHE_DIR=${cache}, a cache every checkout on this machine shares; terraform may then run ` +
    'another checkout\'s build of svc-prevent/svc. Use npm run synth|diff|deploy|destroy, or export CDKTF_DISABLE_PLUGIN_CACHE_ENV=1 before npx cdktf.'
  );
}

/**
 * Set by the npm scripts and the demo for the app they run: they prepare the stacks after synth
 * themselves, so the app's note about unprepared stacks is for a bare `npx cdktf` only.
 */
export const STACKS_PREPARED_AFTER_SYNTH_ENV = 'SVC_STACKS_PREPARED_AFTER_SYNTH';

/** Whether a stack directory can install svc without a CLI config: its implied mirror link and its lock entry. */
function isPrepared(stackDir: string): boolean {
  const lockFile = path.join(stackDir, LOCK_FILE);
  const link = path.join(stackDir, IMPLIED_MIRROR);
  return fs.existsSync(link) && fs.existsSync(lockFile) && SVC_LOCK_BLOCK.test(fs.readFileSync(lockFile, 'utf8'));
}

/**
 * For stderr after a bare `npx cdktf synth|diff|deploy` (the app only synthesizes, it never
 * builds nor links): the stacks that require svc-prevent/svc from this repository's build and
 * are not prepared for terraform, and the command that prepares them. Reads files, writes none.
 */
export function unpreparedStacksNote(outdir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env[STACKS_PREPARED_AFTER_SYNTH_ENV] === '1') return undefined;
  const unprepared = synthesizedStacks(outdir)
    .filter((stack) => stackSvcRequirement(stack.file) !== null && !isPrepared(stack.workingDirectory))
    .map((stack) => stack.name);
  if (unprepared.length === 0) return undefined;
  return (
    `note: ${unprepared.join(', ')} ${unprepared.length === 1 ? 'uses' : 'use'} ${PROVIDER_SOURCE}, which no registry serves, and the app only synthesizes: ` +
    'terraform cannot install it there yet. Run npm run synth|diff|deploy|destroy instead of npx cdktf: they build the provider (npm run build) and link each stack to it.'
  );
}

/**
 * Prepares every synthesized stack that requires svc-prevent/svc (implied mirror link and lock
 * entry). `mirror` is called only when one does, so AWS-only apps never build the provider.
 * Returns the names of the prepared stacks.
 */
export function prepareSynthesizedStacks(outdir: string, mirror: () => ProviderMirror): string[] {
  const prepared: string[] = [];
  let resolved: ProviderMirror | undefined;
  for (const stack of synthesizedStacks(outdir)) {
    const requirement = stackSvcRequirement(stack.file);
    if (requirement === null) continue;
    resolved ??= mirror();
    linkImpliedMirror(stack.workingDirectory, resolved.mirrorDir);
    lockSvcProvider(stack.workingDirectory, resolved, requirement.constraint);
    prepared.push(stack.name);
  }
  return prepared;
}

/** Where `npm pack` (scripts/build-library.ts) puts the provider that ships inside the package. */
export function packagedMirrorDir(): string {
  return path.join(packageRoot(), 'lib', 'provider', 'mirror');
}

/**
 * A filesystem mirror of svc-prevent/svc in terraform's unpacked layout
 * (`<mirrorDir>/registry.terraform.io/svc-prevent/svc/<version>/<os>_<arch>/terraform-provider-svc_v<version>`):
 * the one packaged with this library, or one a team names (e.g. released executables unpacked
 * into a shared directory). `version` defaults to the newest in the mirror.
 */
export function filesystemMirror(mirrorDir: string, version?: string): ProviderMirror {
  const absolute = path.resolve(mirrorDir);
  const versionsDir = path.join(absolute, ...PROVIDER_SOURCE.split('/'));
  const versions = fs.existsSync(versionsDir) ? fs.readdirSync(versionsDir).filter((name) => /^\d+\.\d+\.\d+/.test(name)) : [];
  if (versions.length === 0) {
    throw new ProviderMirrorError(
      `${absolute} holds no svc provider: expected ${path.join(versionsDir, '<version>', currentPlatform())}/${EXECUTABLE_NAME}_v<version>` +
        (absolute === packagedMirrorDir() ? ' (the package was packed without `npm run build:library`; pack it again)' : ''),
    );
  }
  const chosen = version ?? versions.sort(compareSemanticVersions).at(-1)!;
  if (!versions.includes(chosen)) throw new ProviderMirrorError(`${versionsDir} has no version ${chosen} of the svc provider; it has ${versions.join(', ')}`);
  const platformDir = packageDirectory(absolute, chosen);
  if (!fs.existsSync(path.join(platformDir, `${EXECUTABLE_NAME}_v${chosen}`))) {
    const platforms = fs.readdirSync(path.join(versionsDir, chosen));
    throw new ProviderMirrorError(`the svc provider ${chosen} in ${absolute} is not built for ${currentPlatform()} (it has ${platforms.join(', ') || 'no platform'})`);
  }
  return { buildDir: path.dirname(absolute), mirrorDir: absolute, version: chosen, hash: packageHash(platformDir), built: false };
}

function compareSemanticVersions(left: string, right: string): number {
  const parts = (version: string) => version.replace(/-.*$/, '').split('.').map((part) => Number.parseInt(part, 10));
  const [a, b] = [parts(left), parts(right)];
  for (let index = 0; index < 3; index += 1) if (a[index] !== b[index]) return a[index]! - b[index]!;
  return left.includes('-') === right.includes('-') ? left.localeCompare(right) : left.includes('-') ? -1 : 1;
}

/** Where prepareStacksForSvcProvider takes the provider from. */
export interface PrepareStacksOptions {
  /**
   * A filesystem mirror of svc-prevent/svc the team names, in terraform's unpacked layout.
   * @default the provider packaged with this library
   */
  readonly mirrorDir?: string;
  /** The provider version to lock. @default the newest in the mirror */
  readonly version?: string;
}

/**
 * Makes a synthesized cdktf app (`app.outdir` after `app.synth()`, or the directory `cdktf synth`
 * wrote) find the svc provider with no registry: each stack that requires svc-prevent/svc gets
 * `terraform.d/plugins` linked to the mirror and its lock entry set to the mirror's checksum, so
 * `cdktf diff|deploy` skips `terraform providers lock` (which asks the public registry) and
 * `terraform init` installs svc from the mirror. Returns the names of the stacks prepared.
 */
export function prepareStacksForSvcProvider(outdir: string, options: PrepareStacksOptions = {}): string[] {
  return prepareSynthesizedStacks(path.resolve(outdir), () => filesystemMirror(options.mirrorDir ?? packagedMirrorDir(), options.version));
}
