/**
 * `npm run release`: builds the svc provider as self-contained executables and lays out a
 * release in the goreleaser layout the public Terraform registry reads (help/releasing.md):
 *
 *   release/terraform-provider-svc_<v>_linux_amd64.zip   the executable terraform-provider-svc_v<v>, LICENSE,
 *                                                        THIRD_PARTY_NOTICES (scripts/release/notices.ts)
 *   release/terraform-provider-svc_<v>_linux_arm64.zip
 *   release/terraform-provider-svc_<v>_linux_amd64.sbom.cdx.json  CycloneDX SBOM of each executable
 *   release/svc-prevent-<v>.sbom.cdx.json                CycloneDX SBOM of the npm package
 *   release/terraform-provider-svc_<v>_manifest.json     protocol_versions ["6.0"]
 *   release/svc_<v>_linux_amd64.zip, _linux_arm64.zip    the svc command (src/pipeline/svc-cli.ts): svc, LICENSE,
 *                                                        THIRD_PARTY_NOTICES; svc_<v>_<os>_<arch>.sbom.cdx.json each
 *   release/terraform-<system>-<name>_<v>.tar.gz          each HCL module of terraform/modules (module-archives.ts)
 *   release/terraform-provider-svc_<v>_SHA256SUMS        over the zips, the SBOMs, the module archives and the manifest
 *   release/terraform-provider-svc_<v>_SHA256SUMS.sig    detached binary GPG signature  } with a
 *   release/terraform-provider-svc_<v>_signing-key.asc   the armored public key          } signing key
 *
 * Each executable is a Node.js single executable application (SEA): the pinned Node LTS binary
 * for its architecture (scripts/fetch-node.js, integrity-checked) with the bundled provider
 * injected by postject. The preparation blob is made by the same Node version; the code cache
 * goes only into the blob made by the target's own binary (it is specific to the platform that
 * made it), i.e. linux_amd64 when built on linux x64.
 *
 * Reproducible: the zips carry the commit's time (or SOURCE_DATE_EPOCH), mode 0755 and nothing
 * of the build machine, and V8's random seed is fixed while the code cache is made, so the
 * same commit gives the same SHA256SUMS.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  PROJECT_NAME,
  RELEASE_PLATFORMS,
  LIBRARY_PACKAGE_NAME,
  SVC_COMMAND_NAME,
  executableName,
  executableSbomName,
  isSemanticVersion,
  manifestName,
  manifestText,
  packageSbomName,
  publicKeyName,
  signatureName,
  sumsName,
  svcSbomName,
  svcZipName,
  zipName,
  type ReleasePlatform,
} from './layout';
import { BuildError, packageVersion } from '../../src/provider-identity';
import { BundleError, bundleProvider, bundleServiceWarmUp } from './bundle';
import { generateCertificate } from '../../src/provider/protocol/certificate';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSION } from '../../src/provider/protocol/handshake';
import { MAIN_ASSET, MAIN_CACHE_ASSET, SCHEMA_REPLY_ASSET, SERVICE_ASSET, SERVICE_CACHE_ASSET } from './executable-assets';
import { schemaReplyOf } from './schema-reply';
import { EXECUTABLE_MODE, zipArchive, type ZipEntryInput } from './zip';
import { LICENSE_FILE, NOTICES_FILE, NoticesError, bundledPackages, executableNotices, projectLicense, type Notices } from './notices';
import { SbomError, executableSbom, packageSbom } from './sbom';
import { providerScriptInputs } from '../build-provider';
import { writeModuleArchives, type ModuleArchive } from './module-archives';
import { SvcBundleError, bundleSvcCommand } from './svc-bundle';
import { TIMING_DEPENDENT_FLAGS_OFF, TIMING_DEPENDENT_FLAGS_ON } from './timing-dependent-flags';
import { ElfStripError, withoutSymbols } from './elf-symbols';

const REPOSITORY = path.resolve(__dirname, '..', '..');
export const DEFAULT_RELEASE_DIR = path.join(REPOSITORY, 'release');
/** Fetched Node binaries are kept here between builds (git-ignored). */
export const DEFAULT_CACHE_DIR = path.join(REPOSITORY, 'build', 'release-cache');
/** The fuse postject flips so that node looks for the injected blob (from Node's SEA docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const SEA_RESOURCE = 'NODE_SEA_BLOB';

/** The environment variables that give the signing key (documented in help/releasing.md). */
export const SIGNING_KEY_VARIABLE = 'SVC_RELEASE_GPG_KEY';
export const SIGNING_PASSPHRASE_VARIABLE = 'SVC_RELEASE_GPG_PASSPHRASE';

export type ReleaseErrorCode =
  | 'cli_usage'
  | 'invalid_version'
  | 'bundle_failed'
  | 'node_fetch_failed'
  | 'sea_failed'
  | 'inject_failed'
  | 'signing_key_missing'
  | 'signing_failed'
  | 'notices_failed'
  | 'sbom_failed';

export class ReleaseError extends Error {
  constructor(
    readonly code: ReleaseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ReleaseError';
  }
}

export interface SigningKey {
  /** A fingerprint, key id or user id that gpg finds among its secret keys. */
  readonly key: string;
  readonly passphrase?: string;
}

export interface ReleaseOptions {
  /** @default release/ in the repository */
  readonly outDir?: string;
  /** @default the version in package.json */
  readonly version?: string;
  /** Where fetched Node binaries are kept. @default build/release-cache */
  readonly cacheDir?: string;
  /** Sign the SHA256SUMS when given. */
  readonly signing?: SigningKey;
  /** Only these `<os>_<arch>` (the bench builds the one it runs). @default every RELEASE_PLATFORMS */
  readonly platforms?: readonly string[];
  /** Put the V8 code caches into the blob where they can go (the target's own binary makes them). @default true */
  readonly codeCache?: boolean;
  /** Seconds since the epoch for the zip entries. @default SOURCE_DATE_EPOCH, else the HEAD commit's time */
  readonly sourceDateEpoch?: number;
  /** Also leave each executable unzipped in `<executablesDir>/<os>_<arch>/` (the bench runs them). */
  readonly executablesDir?: string;
  /** GNUPGHOME and the like for gpg. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
}

export interface ReleasedPlatform {
  readonly os: string;
  readonly arch: string;
  readonly zip: string;
  readonly zipBytes: number;
  /** The CycloneDX SBOM of the executable. */
  readonly sbom: string;
  readonly executableBytes: number;
  readonly codeCache: boolean;
  /** The Node binary the executable is a copy of (in the cache directory), e.g. to compare against its own start. */
  readonly node: string;
}

export interface ReleasedCommand {
  readonly os: string;
  readonly arch: string;
  /** svc, LICENSE and THIRD_PARTY_NOTICES, as the provider's zips. */
  readonly zip: string;
  /** Its CycloneDX SBOM (svc_<v>_<os>_<arch>.sbom.cdx.json). */
  readonly sbom: string;
  readonly executableBytes: number;
  readonly codeCache: boolean;
}

export interface ReleaseResult {
  readonly version: string;
  readonly outDir: string;
  readonly platforms: readonly ReleasedPlatform[];
  /** The svc command's executables, one zip per platform (svc_<v>_<os>_<arch>.zip), in the SHA256SUMS. */
  readonly commands: readonly ReleasedCommand[];
  /** The HCL modules of terraform/modules, one archive each (module-archives.ts), in the SHA256SUMS. */
  readonly modules: readonly ModuleArchive[];
  readonly manifest: string;
  /** The CycloneDX SBOM of the npm package (svc-prevent-<version>.sbom.cdx.json). */
  readonly packageSbom: string;
  readonly sums: string;
  /** Present when signed. */
  readonly signature?: string;
  readonly publicKey?: string;
  /** `<os>_<arch>` -> the unzipped executable, when executablesDir was given. */
  readonly executables: Readonly<Record<string, string>>;
}

/** The signing key from SVC_RELEASE_GPG_KEY (and SVC_RELEASE_GPG_PASSPHRASE), or undefined. */
export function signingKeyFromEnv(env: NodeJS.ProcessEnv): SigningKey | undefined {
  const key = env[SIGNING_KEY_VARIABLE]?.trim();
  if (key === undefined || key === '') return undefined;
  const passphrase = env[SIGNING_PASSPHRASE_VARIABLE];
  return { key, ...(passphrase === undefined || passphrase === '' ? {} : { passphrase }) };
}

function sourceDateEpoch(env: NodeJS.ProcessEnv): number {
  const given = env.SOURCE_DATE_EPOCH;
  if (given !== undefined && given !== '') {
    if (!/^\d+$/.test(given)) throw new ReleaseError('cli_usage', `SOURCE_DATE_EPOCH must be whole seconds since 1970, got "${given}".`);
    return Number(given);
  }
  const git = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: REPOSITORY, encoding: 'utf8' });
  const seconds = Number((git.stdout ?? '').trim());
  if (git.status === 0 && Number.isInteger(seconds) && seconds > 0) return seconds;
  throw new ReleaseError('cli_usage', 'no git commit to date the zip entries by; set SOURCE_DATE_EPOCH (seconds since 1970).');
}

/** The pinned LTS binary for an architecture, fetched (or found in the cache) by scripts/fetch-node.js. */
export function fetchNode(arch: 'x64' | 'arm64', cacheDir: string): string {
  const directory = path.join(cacheDir, `node-linux-${arch}`);
  const fetch = spawnSync(process.execPath, [path.join(REPOSITORY, 'scripts', 'fetch-node.js'), '--arch', arch, 'lts', directory], { encoding: 'utf8' });
  if (fetch.status !== 0) {
    throw new ReleaseError('node_fetch_failed', `could not fetch the Node LTS binary for linux ${arch} (scripts/fetch-node.js exit ${fetch.status}): ${(fetch.stderr ?? '').trim() || fetch.error?.message}`);
  }
  return path.join(fetch.stdout.trim(), 'node');
}

function run(code: ReleaseErrorCode, command: string, args: readonly string[], what: string, options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL', ...options });
  if (result.error !== undefined) throw new ReleaseError(code, `${what}: could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) throw new ReleaseError(code, `${what} failed (exit ${result.status}):\n${`${result.stdout}${result.stderr}`.trim()}`);
  return result.stdout;
}

/**
 * Node options the executable always starts with (the SEA config's `execArgv`; NODE_OPTIONS
 * still adds to them). V8's young generation starts at 1 MiB per semi-space, and the start to
 * the handshake line allocates between 1 and 2 MiB (loading http2 and tls, the certificate):
 * one scavenge of about 5 ms landed before the line on every start. A 4 MiB floor (twice what
 * the start needs) leaves it out; 8 and 16 MiB were no faster (help/performance-history.md,
 * "What this round took off the start"). The code caches are made with the same options: some
 * Node lines (20) count this flag in the hash V8 checks a cache against.
 *
 * `--liftoff-only` (src/provider/main.ts sets the same for the node script): undici parses HTTP
 * with llhttp compiled to WebAssembly, and V8 compiled it a second time with its optimising
 * compiler on a background thread once it had run; process.exit waits for that compile, so
 * terraform waited 50 to 220 ms (on a loaded machine up to 500) for the exit of every provider
 * process that had called the API, and the compile took CPU from the plan meanwhile. The
 * baseline code parses the provider's few replies as well (help/performance.md).
 */
export const EXECUTABLE_NODE_OPTIONS: readonly string[] = ['--min-semi-space-size=4', '--liftoff-only'];

/** How long the service's warm-up (service-warm-up.ts) may take. */
const SERVICE_CACHE_TIMEOUT_MS = 60_000;

/**
 * V8's code cache of the service bundle, made after running it through the plan and apply of
 * one list entry against an emulator on a loopback port (service-warm-up.ts says why and what),
 * by the target's own binary with the same fixed random seed as the blob's and the executable's
 * node options, in an environment of nothing (no log level or setting changes the path).
 */
function makeServiceCache(node: string, servicePath: string, warmUpPath: string, cachePath: string): void {
  const what = `making the service bundle's code cache with ${node} (running it through the plan of one entry)`;
  run('sea_failed', node, ['--random-seed=1', ...EXECUTABLE_NODE_OPTIONS, warmUpPath, servicePath, cachePath, SERVICE_ASSET], what, { env: {}, timeout: SERVICE_CACHE_TIMEOUT_MS });
  if (!fs.existsSync(cachePath)) throw new ReleaseError('sea_failed', `${what}: the warm-up exited without writing the cache`);
}

/** How long the main script may take to reach its handshake line while its code cache is made. */
const MAIN_CACHE_TIMEOUT_MS = 60_000;

/**
 * V8's code cache of the main script, made after running it to the handshake line: node's own
 * `useCodeCache` holds only what compiling a script compiles (its top level), and the functions
 * the start calls then compiled at every start (about 5 ms, help/performance.md). The target's
 * own binary runs the script as terraform starts it (magic cookie, a throwaway client
 * certificate, its socket in the build's private temporary directory, no other environment, so
 * no log level or setting changes the path), with the fixed seed and the executable's options;
 * the moment the script writes its handshake line to fd 1, the cache is written and the process
 * exits (the provider removes its socket directory on exit). The same commit gives the same cache:
 * the V8 flags whose effects depend on timing are off while the script runs and on again before
 * the cache is written, as in the service's warm-up (timing-dependent-flags.ts says why).
 */
function makeMainCache(node: string, mainPath: string, cachePath: string, socketParent: string): void {
  const script = [
    'const [source, output, name] = process.argv.splice(1, 3);',
    "const fs = require('node:fs'); const { Script } = require('node:vm'); const { setFlagsFromString } = require('node:v8');",
    `setFlagsFromString(${JSON.stringify(TIMING_DEPENDENT_FLAGS_OFF)});`,
    "const script = new Script(fs.readFileSync(source, 'utf8'), { filename: name });",
    `const writeSync = (fd, ...rest) => { const written = fs.writeSync(fd, ...rest); if (fd === 1) { setFlagsFromString(${JSON.stringify(TIMING_DEPENDENT_FLAGS_ON)}); fs.writeFileSync(output, script.createCachedData()); process.exit(0); } return written; };`,
    "const hooked = { ...fs, writeSync }; const module = { exports: {} };",
    "script.runInThisContext()(module.exports, (id) => (id === 'node:fs' || id === 'fs' ? hooked : require(id)), module);",
  ].join('\n');
  const env = {
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: String(PLUGIN_PROTOCOL_VERSION),
    PLUGIN_CLIENT_CERT: generateCertificate().certificatePem,
    PLUGIN_UNIX_SOCKET_DIR: socketParent,
  };
  const what = `making the main script's code cache with ${node} (running it to its handshake line)`;
  run('sea_failed', node, ['--random-seed=1', ...EXECUTABLE_NODE_OPTIONS, '-e', script, mainPath, cachePath, MAIN_ASSET], what, { env, timeout: MAIN_CACHE_TIMEOUT_MS });
  if (!fs.existsSync(cachePath)) throw new ReleaseError('sea_failed', `${what}: the script exited without printing its handshake line`);
}

export interface SeaConfigFiles {
  /** Paths relative to the directory the config is in. */
  readonly loader: string;
  readonly output: string;
  readonly main: string;
  readonly mainCache: string;
  readonly service: string;
  readonly serviceCache: string;
  readonly schemaReply: string;
}

/** What every executable this project makes is told: the provider's and the bench's floor alike. */
function executableConfig(main: string, output: string, codeCache: boolean): object {
  return {
    main,
    output,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    // A V8 startup snapshot would replace node's own, which carries the code cache of node's
    // built-in modules; http2 and tls cannot go into one, so they would compile from source at
    // every start: slower (measured, help/performance.md).
    useSnapshot: false,
    execArgv: [...EXECUTABLE_NODE_OPTIONS],
  };
}

/** The `--experimental-sea-config` document for one executable. */
export function seaConfig(files: SeaConfigFiles, codeCache: boolean): object {
  return {
    ...executableConfig(files.loader, files.output, codeCache),
    assets: {
      [MAIN_ASSET]: files.main,
      [MAIN_CACHE_ASSET]: files.mainCache,
      [SERVICE_ASSET]: files.service,
      [SERVICE_CACHE_ASSET]: files.serviceCache,
      [SCHEMA_REPLY_ASSET]: files.schemaReply,
    },
  };
}

/** Makes the preparation blob with `node --experimental-sea-config` of the given binary. */
function makeBlob(node: string, files: Omit<SeaConfigFiles, 'output'>, blobPath: string, codeCache: boolean): void {
  // Names relative to the (temporary, randomly named) directory: the blob records the main
  // script's name, and an absolute one would differ on every build.
  const directory = path.dirname(blobPath);
  const relative = (file: string) => path.relative(directory, file);
  const config = seaConfig(
    {
      loader: relative(files.loader),
      output: path.basename(blobPath),
      main: relative(files.main),
      mainCache: relative(files.mainCache),
      service: relative(files.service),
      serviceCache: relative(files.serviceCache),
      schemaReply: relative(files.schemaReply),
    },
    codeCache,
  );
  writeBlob(node, config, blobPath);
}

/** Runs `node --experimental-sea-config` on `config` (whose paths are relative to the blob's directory). */
function writeBlob(node: string, config: object, blobPath: string): void {
  const configPath = `${blobPath}.json`;
  fs.writeFileSync(configPath, JSON.stringify(config));
  // A fixed random seed makes the code cache the same on every build; V8 leaves that flag out of
  // the flag hash it checks, so the executable still accepts the cache.
  run('sea_failed', node, ['--random-seed=1', ...EXECUTABLE_NODE_OPTIONS, '--experimental-sea-config', configPath], `making the SEA blob with ${node}`, { cwd: path.dirname(blobPath) });
}

/**
 * A copy of `node` without its symbols and debug information (elf-symbols.ts says why), with the
 * blob injected by postject.
 */
function injectIntoCopy(node: string, blobPath: string, executable: string): void {
  try {
    fs.writeFileSync(executable, withoutSymbols(fs.readFileSync(node)));
  } catch (error) {
    if (error instanceof ElfStripError) throw new ReleaseError('inject_failed', `removing the symbols of ${node}: ${error.message}`);
    throw error;
  }
  const cli = require.resolve('postject/dist/cli.js');
  run('inject_failed', process.execPath, [cli, executable, SEA_RESOURCE, blobPath, '--sentinel-fuse', SEA_FUSE], `injecting the blob into ${executable} with postject`);
  fs.chmodSync(executable, 0o755);
}

/**
 * A single executable of `node` running one self-contained CommonJS script, made as the
 * provider's is (node's code cache of the script, the same node options) but with no assets:
 * the bench's bare HTTP/2 server, the floor the provider's start is compared with.
 */
export function makeSingleExecutable(node: string, script: string, executable: string): void {
  const work = fs.mkdtempSync(path.join(path.dirname(executable), '.sea-'));
  try {
    const main = path.join(work, 'main.js');
    fs.copyFileSync(script, main);
    const blobPath = path.join(work, 'main.blob');
    writeBlob(node, executableConfig('main.js', 'main.blob', true), blobPath);
    injectIntoCopy(node, blobPath, executable);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The `svc` command (src/pipeline/svc-cli.ts) as a single executable per platform, made as the
 * provider's are (the pinned Node of the target, the same node options; the code cache only from
 * the target's own binary, i.e. the build machine's architecture), zipped as
 * svc_<version>_<os>_<arch>.zip holding `svc` (mode 0755), LICENSE and THIRD_PARTY_NOTICES, with an SBOM
 * beside it.
 */
async function buildSvcCommand(build: {
  version: string;
  targets: readonly ReleasePlatform[];
  nodes: ReadonlyMap<string, string>;
  hostArch: string | undefined;
  blobMaker: string;
  codeCache: boolean;
  work: string;
  outDir: string;
  modified: number;
  log: (line: string) => void;
}): Promise<ReleasedCommand[]> {
  const { version, work, outDir, log } = build;
  const { script, inputs } = await bundleSvcCommand(version).catch((error: unknown) => {
    throw error instanceof SvcBundleError ? new ReleaseError('bundle_failed', error.message) : error;
  });
  const directory = path.join(work, 'svc-command');
  fs.mkdirSync(directory);
  fs.writeFileSync(path.join(directory, 'svc.js'), script);
  log(`svc command: bundled src/pipeline/svc-cli.ts (${kibibytes(script.length)})`);
  for (const stale of fs.readdirSync(outDir).filter((name) => name.startsWith(`${SVC_COMMAND_NAME}_`) && name.endsWith('.zip'))) fs.rmSync(path.join(outDir, stale), { force: true });
  const released: ReleasedCommand[] = [];
  for (const platform of build.targets) {
    const name = `${platform.os}_${platform.arch}`;
    const node = build.nodes.get(platform.nodeArch) as string;
    const withCache = build.codeCache && platform.nodeArch === build.hostArch;
    const blobPath = path.join(directory, `${name}.blob`);
    writeBlob(withCache ? node : build.blobMaker, executableConfig('svc.js', path.basename(blobPath), withCache), blobPath);
    const executable = path.join(directory, name, SVC_COMMAND_NAME);
    fs.mkdirSync(path.dirname(executable));
    injectIntoCopy(node, blobPath, executable);
    const data = fs.readFileSync(executable);
    const notices = noticesFor(`${SVC_COMMAND_NAME} (${name})`, inputs, node);
    const zip = path.join(outDir, svcZipName(version, platform.os, platform.arch));
    fs.writeFileSync(zip, zipArchive(executableArchiveEntries(SVC_COMMAND_NAME, data, notices), build.modified));
    log(`${name}: wrote ${path.basename(zip)} (${megabytes(fs.statSync(zip).size)}; svc ${withCache ? 'with' : 'without'} code cache)`);
    const sbom = path.join(outDir, svcSbomName(version, platform.os, platform.arch));
    writeExecutableSbom(sbom, { executable: SVC_COMMAND_NAME, version, platform, data, notices, modified: build.modified });
    released.push({ os: platform.os, arch: platform.arch, zip, sbom, executableBytes: data.length, codeCache: withCache });
  }
  return released;
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** gpg finds the secret key, or a clear error before anything is built. */
function checkSigningKey(signing: SigningKey, env: NodeJS.ProcessEnv): void {
  const list = spawnSync('gpg', ['--batch', '--with-colons', '--list-secret-keys', signing.key], { encoding: 'utf8', env });
  if (list.error !== undefined) throw new ReleaseError('signing_failed', `${SIGNING_KEY_VARIABLE} is set but gpg could not be run (${list.error.message}); install gpg (Debian package gpg).`);
  if (list.status !== 0 || !list.stdout.includes('\nsec:') && !list.stdout.startsWith('sec:')) {
    throw new ReleaseError(
      'signing_key_missing',
      `${SIGNING_KEY_VARIABLE}="${signing.key}" names no secret key in gpg's keyring${env.GNUPGHOME ? ` (GNUPGHOME=${env.GNUPGHOME})` : ''}; import it (gpg --import) or set GNUPGHOME to the keyring that has it.`,
    );
  }
}

function sign(sums: string, signing: SigningKey, env: NodeJS.ProcessEnv): string {
  const signature = `${sums}.sig`;
  // The passphrase goes through stdin, never the command line.
  const passphraseArgs = signing.passphrase === undefined ? [] : ['--pinentry-mode', 'loopback', '--passphrase-fd', '0'];
  run('signing_failed', 'gpg', ['--batch', '--yes', ...passphraseArgs, '--local-user', signing.key, '--detach-sign', '--output', signature, sums], `signing ${path.basename(sums)} with gpg`, {
    env,
    ...(signing.passphrase === undefined ? {} : { input: `${signing.passphrase}\n` }),
  });
  return signature;
}

/** What buildRelease and buildProviderExecutables settle from their options before building anything. */
interface ReleaseSettings {
  readonly version: string;
  readonly outDir: string;
  readonly cacheDir: string;
  readonly codeCache: boolean;
  readonly modified: number;
  readonly targets: readonly ReleasePlatform[];
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

function releaseSettings(options: ReleaseOptions): ReleaseSettings {
  const started = Date.now();
  const log = (line: string) => (options.log ?? (() => undefined))(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
  const env = options.env ?? process.env;
  const version = options.version ?? packageVersion(REPOSITORY);
  if (!isSemanticVersion(version)) throw new ReleaseError('invalid_version', `version must be a semantic version such as 0.1.0 (no leading "v"), got "${version}".`);
  const known = RELEASE_PLATFORMS.map((platform) => `${platform.os}_${platform.arch}`);
  for (const asked of options.platforms ?? []) {
    if (!known.includes(asked)) throw new ReleaseError('cli_usage', `platform must be one of ${known.join(', ')}, got "${asked}".`);
  }
  return {
    version,
    outDir: path.resolve(options.outDir ?? DEFAULT_RELEASE_DIR),
    cacheDir: path.resolve(options.cacheDir ?? DEFAULT_CACHE_DIR),
    codeCache: options.codeCache ?? true,
    modified: options.sourceDateEpoch ?? sourceDateEpoch(env),
    targets: RELEASE_PLATFORMS.filter((platform) => options.platforms === undefined || options.platforms.includes(`${platform.os}_${platform.arch}`)),
    env,
    log,
  };
}

/** The provider's executables, zips and SBOMs, built in `work`; what the rest of a release needs from that. */
interface ProviderPlatforms {
  readonly nodes: ReadonlyMap<string, string>;
  readonly hostArch: 'x64' | 'arm64' | undefined;
  readonly blobMaker: string;
  readonly platforms: readonly ReleasedPlatform[];
  readonly executables: Readonly<Record<string, string>>;
}

async function buildProviderPlatforms(settings: ReleaseSettings, work: string, executablesDir: string | undefined): Promise<ProviderPlatforms> {
  const { version, outDir, cacheDir, codeCache, modified, targets, log } = settings;
  fs.mkdirSync(cacheDir, { recursive: true });
  log(`bundling ${version}: the loader (scripts/release/executable-loader.ts), the main script (scripts/release/executable-entry.ts) and the service (src/provider/service.ts), CommonJS, every dependency inside`);
  const bundles = await bundleProvider(version).catch((error: unknown) => {
    throw error instanceof BundleError ? new ReleaseError('bundle_failed', error.message) : error;
  });
  const bundle = { loader: path.join(work, 'loader.js'), main: path.join(work, MAIN_ASSET), service: path.join(work, SERVICE_ASSET), schemaReply: path.join(work, SCHEMA_REPLY_ASSET) };
  fs.writeFileSync(bundle.loader, bundles.loader);
  fs.writeFileSync(bundle.main, bundles.main);
  fs.writeFileSync(bundle.service, bundles.service);
  const schemaReply = await schemaReplyOf(bundles.service);
  fs.writeFileSync(bundle.schemaReply, schemaReply);
  // The binary that can run here makes every blob; only its own platform's blob gets the code cache.
  const hostArch = process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined;
  const cachedArch = codeCache ? hostArch : undefined;
  // Only run to make the service's code cache and ships nothing: with no cache made (--no-code-cache, or
  // no target this binary can run) it is not bundled (20 to 40 ms of esbuild).
  let serviceWarmUp: string | undefined;
  if (targets.some((platform) => platform.nodeArch === cachedArch)) {
    serviceWarmUp = path.join(work, 'service-warm-up.js');
    fs.writeFileSync(serviceWarmUp, await bundleServiceWarmUp(bundles.shared).catch((error: unknown) => {
      throw error instanceof BundleError ? new ReleaseError('bundle_failed', error.message) : error;
    }));
  }
  log(`main script ${kibibytes(bundles.main.length)}, service ${kibibytes(bundles.service.length)} (sharing ${bundles.shared.join(', ') || 'nothing'}), GetProviderSchema's reply ${kibibytes(schemaReply.length)}`);

  const nodes = new Map<string, string>();
  for (const platform of targets) {
    log(`Node LTS for linux ${platform.nodeArch}: scripts/fetch-node.js --arch ${platform.nodeArch} (npm registry, pinned integrity; cached in ${path.relative(REPOSITORY, cacheDir) || cacheDir})`);
    nodes.set(platform.nodeArch, fetchNode(platform.nodeArch, cacheDir));
  }
  if (hostArch !== undefined && !nodes.has(hostArch)) nodes.set(hostArch, fetchNode(hostArch, cacheDir));
  const blobMaker = hostArch === undefined || process.platform !== 'linux' ? undefined : nodes.get(hostArch);
  if (blobMaker === undefined) throw new ReleaseError('sea_failed', `the release is built on linux x64 or arm64 (the blob must be made by the pinned Node binary), not ${process.platform} ${process.arch}.`);

  fs.mkdirSync(outDir, { recursive: true });
  const ours = (name: string) => name.startsWith(`${PROJECT_NAME}_`) || (name.startsWith(`${LIBRARY_PACKAGE_NAME}-`) && name.endsWith('.sbom.cdx.json'));
  for (const stale of fs.readdirSync(outDir).filter(ours)) fs.rmSync(path.join(outDir, stale), { force: true });

  const platforms: ReleasedPlatform[] = [];
  const executables: Record<string, string> = {};
  for (const platform of targets) {
    const released = buildPlatform({ platform, version, work, bundle, serviceWarmUp: platform.nodeArch === cachedArch ? serviceWarmUp : undefined, bundledInputs: bundles.inputs, blobMaker, node: nodes.get(platform.nodeArch) as string, outDir, modified, log });
    platforms.push(released.platform);
    if (executablesDir !== undefined) {
      const kept = path.join(path.resolve(executablesDir), `${platform.os}_${platform.arch}`, executableName(version));
      fs.mkdirSync(path.dirname(kept), { recursive: true });
      fs.copyFileSync(released.executable, kept);
      fs.chmodSync(kept, 0o755);
      executables[`${platform.os}_${platform.arch}`] = kept;
    }
  }
  return { nodes, hostArch, blobMaker, platforms, executables };
}

export interface ProviderExecutables {
  readonly version: string;
  readonly outDir: string;
  readonly platforms: readonly ReleasedPlatform[];
  /** `<os>_<arch>` -> the unzipped executable, when executablesDir was given. */
  readonly executables: Readonly<Record<string, string>>;
}

/**
 * Only the provider's part of a release: its executables, zips and SBOMs, byte for byte as
 * buildRelease makes them (the same steps), without the svc command, the module archives, the
 * package SBOM, the manifest, the SHA256SUMS or a signature. The bench measures the executable
 * and needs nothing else.
 */
export async function buildProviderExecutables(options: Omit<ReleaseOptions, 'signing'> = {}): Promise<ProviderExecutables> {
  const settings = releaseSettings(options);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-release-'));
  try {
    const built = await buildProviderPlatforms(settings, work, options.executablesDir);
    return { version: settings.version, outDir: settings.outDir, platforms: built.platforms, executables: built.executables };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export async function buildRelease(options: ReleaseOptions = {}): Promise<ReleaseResult> {
  const settings = releaseSettings(options);
  const { version, outDir, codeCache, modified, targets, env, log } = settings;
  if (options.signing !== undefined) checkSigningKey(options.signing, env);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-release-'));
  try {
    const { nodes, hostArch, blobMaker, platforms, executables } = await buildProviderPlatforms(settings, work, options.executablesDir);

    const commands = await buildSvcCommand({ version, targets, nodes, hostArch, blobMaker, codeCache, work, outDir, modified, log });
    const modules = writeModuleArchives({ version, outDir, modifiedSeconds: modified });
    log(`module archives: ${modules.map((module) => path.basename(module.file)).join(', ')}`);

    const manifest = path.join(outDir, manifestName(version));
    fs.writeFileSync(manifest, manifestText());
    const sums = path.join(outDir, sumsName(version));
    const librarySbom = path.join(outDir, packageSbomName(version));
    fs.writeFileSync(librarySbom, sbomStep(() => packageSbom({ sourceDateEpoch: modified, bundled: bundledPackages(providerScriptInputs()) })));
    log(`wrote ${path.basename(librarySbom)} (npm sbom of the package's dependencies and the provider script's bundled packages)`);
    const summed = [
      ...platforms.flatMap((platform) => [platform.zip, platform.sbom]),
      ...commands.flatMap((command) => [command.zip, command.sbom]),
      ...modules.map((module) => module.file),
      librarySbom,
      manifest,
    ].sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
    fs.writeFileSync(sums, summed.map((file) => `${sha256(file)}  ${path.basename(file)}\n`).join(''));
    log(`wrote ${path.basename(manifest)} and ${path.basename(sums)}`);

    let signature: string | undefined;
    let publicKey: string | undefined;
    if (options.signing !== undefined) {
      signature = sign(sums, options.signing, env);
      publicKey = path.join(outDir, publicKeyName(version));
      fs.writeFileSync(publicKey, run('signing_failed', 'gpg', ['--batch', '--armor', '--export', options.signing.key], 'exporting the public signing key', { env }));
      log(`signed: ${path.basename(signature)} (key ${options.signing.key}); public key in ${path.basename(publicKey)}`);
    } else {
      log(`not signed: set ${SIGNING_KEY_VARIABLE} to sign (a registry needs ${path.basename(signatureName(version))})`);
    }
    return { version, outDir, platforms, commands, modules, manifest, packageSbom: librarySbom, sums, executables, ...(signature === undefined ? {} : { signature, publicKey }) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function buildPlatform(build: {
  platform: ReleasePlatform;
  version: string;
  work: string;
  bundle: { loader: string; main: string; service: string; schemaReply: string };
  /** The bundled service-warm-up.ts, which makes the service's code cache; undefined: this platform's executable gets no code caches. */
  serviceWarmUp: string | undefined;
  /** esbuild's inputs of the three scripts, for the notices. */
  bundledInputs: readonly string[];
  blobMaker: string;
  node: string;
  outDir: string;
  modified: number;
  log: (line: string) => void;
}): { platform: ReleasedPlatform; executable: string } {
  const { platform, version, work, bundle, serviceWarmUp, node, outDir, modified, log } = build;
  const name = `${platform.os}_${platform.arch}`;
  const blobPath = path.join(work, `${name}.blob`);
  // With the code cache the blob and both scripts' caches must come from the target's own
  // binary; without, any binary of the same version, and the cache assets are empty.
  const mainCache = path.join(work, `${name}.${MAIN_CACHE_ASSET}`);
  const serviceCache = path.join(work, `${name}.${SERVICE_CACHE_ASSET}`);
  const withCache = serviceWarmUp !== undefined;
  if (withCache) {
    makeMainCache(node, bundle.main, mainCache, work);
    makeServiceCache(node, bundle.service, serviceWarmUp, serviceCache);
  } else {
    fs.writeFileSync(mainCache, '');
    fs.writeFileSync(serviceCache, '');
  }
  makeBlob(withCache ? node : build.blobMaker, { ...bundle, mainCache, serviceCache }, blobPath, withCache);
  const executable = path.join(work, name, executableName(version));
  fs.mkdirSync(path.dirname(executable));
  log(`${name}: injecting the provider (${(fs.statSync(blobPath).size / 1024).toFixed(0)} KiB blob, ${withCache ? 'with' : 'without'} code caches) into node ${path.basename(path.dirname(path.dirname(path.dirname(node))))}`);
  injectIntoCopy(node, blobPath, executable);
  const data = fs.readFileSync(executable);
  const notices = noticesFor(`${executableName(version)} (${name})`, build.bundledInputs, node);
  const zip = path.join(outDir, zipName(version, platform.os, platform.arch));
  fs.writeFileSync(zip, zipArchive(executableArchiveEntries(path.basename(executable), data, notices), modified));
  const zipBytes = fs.statSync(zip).size;
  log(`${name}: wrote ${path.basename(zip)} (${megabytes(zipBytes)}; executable ${megabytes(data.length)})`);
  const sbom = path.join(outDir, executableSbomName(version, platform.os, platform.arch));
  writeExecutableSbom(sbom, { executable: path.basename(executable), version, platform, data, notices, modified });
  log(`${name}: wrote ${path.basename(sbom)}`);
  return { platform: { os: platform.os, arch: platform.arch, zip, zipBytes, sbom, executableBytes: data.length, codeCache: withCache, node }, executable };
}

/** The CycloneDX SBOM of one executable (the provider's or svc's): itself, its Node, what its notices list. */
function writeExecutableSbom(
  file: string,
  made: { executable: string; version: string; platform: ReleasePlatform; data: Buffer; notices: Notices; modified: number },
): void {
  const text = sbomStep(() =>
    executableSbom({
      executable: made.executable,
      version: made.version,
      platform: `${made.platform.os}_${made.platform.arch}`,
      nodeArch: made.platform.nodeArch,
      executableSha256: createHash('sha256').update(made.data).digest('hex'),
      packages: made.notices.packages,
      node: made.notices.node!,
      sourceDateEpoch: made.modified,
    }),
  );
  fs.writeFileSync(file, text);
}

function sbomStep(make: () => string): string {
  try {
    return make();
  } catch (error) {
    if (error instanceof SbomError || error instanceof NoticesError || error instanceof BuildError) throw new ReleaseError('sbom_failed', error.message);
    throw error;
  }
}

function noticesFor(subject: string, inputs: readonly string[], nodeBinary: string): Notices {
  try {
    return executableNotices({ subject, inputs, nodeBinary });
  } catch (error) {
    if (error instanceof NoticesError) throw new ReleaseError('notices_failed', error.message);
    throw error;
  }
}

/**
 * What a release zip holds: the executable first (mode 0755), then this project's LICENSE and
 * the executable's THIRD_PARTY_NOTICES. Terraform runs the `terraform-provider-<type>` file and
 * ignores the others. For any executable this project ships (the svc pipeline tool too).
 */
export function executableArchiveEntries(executableFile: string, executable: Buffer, notices: Notices): ZipEntryInput[] {
  return [
    { name: executableFile, data: executable, mode: EXECUTABLE_MODE },
    { name: LICENSE_FILE, data: projectLicense() },
    { name: NOTICES_FILE, data: Buffer.from(notices.text, 'utf8') },
  ];
}

function kibibytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export const USAGE = `Usage: npm run release [-- options]

Builds the svc provider as self-contained executables (Node.js single executable applications,
no node needed where they run) and writes a release in the layout the Terraform registry reads:

  <dir>/terraform-provider-svc_<version>_linux_amd64.zip, _linux_arm64.zip
  <dir>/terraform-provider-svc_<version>_linux_amd64.sbom.cdx.json, _linux_arm64.sbom.cdx.json
  <dir>/svc-prevent-<version>.sbom.cdx.json                   the npm package's SBOM
  <dir>/terraform-provider-svc_<version>_manifest.json
  <dir>/svc_<version>_linux_amd64.zip, _linux_arm64.zip        the svc command: svc, LICENSE, THIRD_PARTY_NOTICES
  <dir>/svc_<version>_linux_amd64.sbom.cdx.json, _linux_arm64.sbom.cdx.json
  <dir>/terraform-<system>-<name>_<version>.tar.gz             each HCL module of terraform/modules
  <dir>/terraform-provider-svc_<version>_SHA256SUMS            over the zips, SBOMs, module archives, manifest
  <dir>/terraform-provider-svc_<version>_SHA256SUMS.sig        when signed
  <dir>/terraform-provider-svc_<version>_signing-key.asc       when signed

The version is package.json's. Signing: set ${SIGNING_KEY_VARIABLE} to the fingerprint of a secret
key in gpg's keyring (GNUPGHOME picks the keyring) and, if the key has one,
${SIGNING_PASSPHRASE_VARIABLE}. Zip times come from SOURCE_DATE_EPOCH or the HEAD commit.

Options:
  --out-dir <dir>    where to write (default release/ in the repository)
  --cache-dir <dir>  where fetched Node binaries are kept (default build/release-cache)
  --sign             fail unless ${SIGNING_KEY_VARIABLE} is set (for release pipelines)
  --no-code-cache    leave the V8 code caches out (to measure what they buy)
  --help, -h         show this help`;

interface CliArguments {
  readonly help: boolean;
  readonly outDir?: string;
  readonly cacheDir?: string;
  readonly requireSigning: boolean;
  readonly codeCache: boolean;
}

export function parseReleaseArguments(argv: readonly string[]): CliArguments {
  let parsed: CliArguments = { help: false, requireSigning: false, codeCache: true };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
    const value = (): string => {
      const given = inline ?? argv[(index += 1)];
      if (given === undefined || given === '' || given.startsWith('--')) throw new ReleaseError('cli_usage', `${flag} needs a directory, e.g. ${flag} release`);
      return given;
    };
    if (flag === '--help' || flag === '-h') return { ...parsed, help: true };
    else if (flag === '--out-dir') parsed = { ...parsed, outDir: path.resolve(value()) };
    else if (flag === '--cache-dir') parsed = { ...parsed, cacheDir: path.resolve(value()) };
    else if (flag === '--sign') parsed = { ...parsed, requireSigning: true };
    else if (flag === '--no-code-cache') parsed = { ...parsed, codeCache: false };
    else throw new ReleaseError('cli_usage', `unknown argument "${argument}"; run with --help for the options.`);
  }
  return parsed;
}

export async function main(argv: readonly string[]): Promise<number> {
  const log = (line: string) => process.stderr.write(`release: ${line}\n`);
  try {
    const parsed = parseReleaseArguments(argv);
    if (parsed.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const signing = signingKeyFromEnv(process.env);
    if (parsed.requireSigning && signing === undefined) {
      throw new ReleaseError('signing_key_missing', `--sign was given but ${SIGNING_KEY_VARIABLE} is not set; set it to the fingerprint of the release key in gpg's keyring.`);
    }
    const started = Date.now();
    const result = await buildRelease({
      ...(parsed.outDir === undefined ? {} : { outDir: parsed.outDir }),
      ...(parsed.cacheDir === undefined ? {} : { cacheDir: parsed.cacheDir }),
      ...(signing === undefined ? {} : { signing }),
      codeCache: parsed.codeCache,
      log,
    });
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`svc provider ${result.version} released into ${result.outDir}${result.signature === undefined ? ' (not signed)' : ' (signed)'}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    process.stderr.write(`release: ${error.message}\n`);
    return error.code === 'cli_usage' ? 2 : 1;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
