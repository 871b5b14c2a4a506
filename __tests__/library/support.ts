/**
 * For the library tests: `npm pack` of this repository (as a user packs it: prepack builds lib/),
 * scratch consumer projects outside the repository that install the tarball offline, and a
 * command runner whose children are tracked.
 *
 * How a consumer gets its packages without the network: npm's cache holds every tarball of this
 * repository's lock (npm ci put them there) but not the registry's package lists, so a consumer
 * is given a package-lock.json whose entries (resolved URL and integrity) are copied from ours,
 * and `npm ci --offline` installs from the cache. Peers a project takes from npm that way are
 * real installs; a project that also needs @cdktf/provider-aws (374 MB unpacked, too slow to
 * extract on every run) links cdktf, constructs and @cdktf/provider-aws from this repository's
 * node_modules instead: one consistent set, so the AWS bindings and the library share one cdktf.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';
import { madeOnce } from '../support/made-once';
import { copyRepository } from '../support/repository-copy';

export const REPOSITORY = path.resolve(__dirname, '..', '..');

export interface CommandResult {
  readonly command: string;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({
        command: [command, ...args].join(' '),
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/** For a failed expectation: the command and its output. */
export function described(result: CommandResult): string {
  return `${result.command} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

export interface PackedLibrary {
  readonly tarball: string;
  readonly integrity: string;
  /** Paths inside the package, as `npm pack --json` lists them. */
  readonly files: readonly string[];
  readonly manifest: Record<string, any>;
}

/**
 * `npm pack` (prepack runs `npm run build:library`) into `destination`, in a copy of the
 * repository (support/repository-copy.ts): while npm packs, package.json is the consumer's
 * manifest, without scripts, and lib/ is rebuilt, so a pack in the repository itself broke an
 * `npm run ...` that a test running beside it started there.
 */
export async function packLibrary(destination: string): Promise<PackedLibrary> {
  const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pack-checkout-'));
  try {
    copyRepository(checkout);
    const result = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: checkout });
    if (result.code !== 0) throw new Error(described(result));
    const [packed] = JSON.parse(result.stdout) as Array<{ filename: string; integrity: string; files: Array<{ path: string }> }>;
    return {
      tarball: path.join(destination, packed!.filename),
      integrity: packed!.integrity,
      files: packed!.files.map((file) => file.path),
      manifest: JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')),
    };
  } finally {
    fs.rmSync(checkout, { recursive: true, force: true });
  }
}

/**
 * Where packedLibrary() keeps the tarball for longer than one jest run: .ci/run sets it, so its
 * main suite packs once and the smoke runs on the other Node lines install that tarball. While
 * `npm pack` runs, package.json is the packed manifest (no scripts), so a pack in one smoke run
 * would break `npm run ...` in another running beside it.
 */
export const PACKED_LIBRARY_DIR_ENV = 'SVC_TEST_PACKED_LIBRARY_DIR';

/**
 * The library packed once per jest run (os.tmpdir() is the run's own directory), or once for
 * several runs (PACKED_LIBRARY_DIR_ENV), and shared by every test file that installs it: `npm
 * pack` rebuilds lib/ in the repository, so two packs at once would remove each other's output.
 * The first caller packs (madeOnce, ../support/made-once.ts); the others wait for its result.
 */
export function packedLibrary(): Promise<PackedLibrary> {
  const shared = process.env[PACKED_LIBRARY_DIR_ENV];
  return madeOnce({
    directory: shared !== undefined && shared !== '' ? path.resolve(shared) : path.join(os.tmpdir(), 'svc-prevent-pack'),
    resultName: 'packed.json',
    what: 'npm pack of the library',
    // A failed pack is tried again by the next file, as before.
    recordFailure: false,
    make: packLibrary,
  });
}

type LockEntry = Record<string, unknown> & {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** Our lock's entries for `names` and what they depend on (nested and bundled entries too), as a consumer's. */
function lockEntries(names: readonly string[]): Record<string, LockEntry> {
  const ours = (JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const entries: Record<string, LockEntry> = {};
  const asConsumers = (entry: LockEntry): LockEntry => Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'dev' && key !== 'peer' && key !== 'devOptional'));
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const key = `node_modules/${name}`;
    if (entries[key] !== undefined) continue;
    const entry = ours[key];
    if (entry === undefined) throw new Error(`package-lock.json has no ${key}`);
    entries[key] = asConsumers(entry);
    // Dependencies nested under it (bundled ones included) came with it; the rest are hoisted,
    // and so are the dependencies of the nested ones that are not nested themselves.
    const nestedUnder = Object.entries(ours).filter(([nested]) => nested.startsWith(`${key}/node_modules/`));
    for (const [nested, nestedEntry] of nestedUnder) entries[nested] = asConsumers(nestedEntry);
    if (entry.inBundle === true) continue;
    const isNested = (dependency: string) => ours[`${key}/node_modules/${dependency}`] !== undefined;
    // npm ci wants optional dependencies in the lock too (it skips those for another platform),
    // and the required peers (cdktf-cli's ink wants react).
    const requiredPeers = (of: LockEntry) => Object.keys(of.peerDependencies ?? {}).filter((peer) => of.peerDependenciesMeta?.[peer]?.optional !== true);
    const needs = (of: LockEntry) => [...Object.keys(of.dependencies ?? {}), ...Object.keys(of.optionalDependencies ?? {}), ...requiredPeers(of)].filter((dependency) => !isNested(dependency));
    queue.push(...needs(entry));
    for (const [, nestedEntry] of nestedUnder) if (nestedEntry.inBundle !== true) queue.push(...needs(nestedEntry));
  }
  return entries;
}

export interface ConsumerOptions {
  /** Peers installed by npm (from the cache), e.g. ['cdktf', 'constructs']. */
  readonly npmPeers?: readonly string[];
  /** Peers linked from this repository's node_modules instead (see the header). */
  readonly linkedPeers?: readonly string[];
}

/**
 * A cdktf project in `dir` (outside the repository) with svc-prevent installed from the tarball
 * by `npm ci --offline`, like a team's project after `npm install ./svc-prevent-<version>.tgz`.
 */
export async function createConsumerProject(dir: string, library: PackedLibrary, options: ConsumerOptions = {}): Promise<CommandResult> {
  writeConsumerManifests(dir, library, options);
  // --legacy-peer-deps when peers are linked: npm leaves them to us instead of wanting them in the lock.
  const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', ...(options.linkedPeers?.length ? ['--legacy-peer-deps'] : [])], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (install.code !== 0) throw new Error(described(install));
  for (const name of options.linkedPeers ?? []) {
    const link = path.join(dir, 'node_modules', name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(fs.realpathSync(path.join(REPOSITORY, 'node_modules', name)), link, 'dir');
  }
  return install;
}

/**
 * The package.json and package-lock.json of createConsumerProject's project, written in `dir`
 * without installing them (for tests whose own steps run `npm ci`). The tarball's `file:` path is
 * relative to `dir`.
 */
export function writeConsumerManifests(dir: string, library: PackedLibrary, options: ConsumerOptions = {}): void {
  fs.mkdirSync(dir, { recursive: true });
  const npmPeers = options.npmPeers ?? [];
  const ourVersions = library.manifest.devDependencies as Record<string, string>;
  const tarballSpec = `file:${path.relative(dir, library.tarball)}`;
  const dependencies: Record<string, string> = { 'svc-prevent': tarballSpec, ...Object.fromEntries(npmPeers.map((name) => [name, ourVersions[name]!])) };
  const manifest = { name: 'consumer', version: '1.0.0', private: true, dependencies };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const library_ = library.manifest;
  const lock = {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies },
      'node_modules/svc-prevent': {
        version: library_.version,
        resolved: tarballSpec,
        integrity: library.integrity,
        license: library_.license,
        dependencies: library_.dependencies,
        bin: library_.bin,
        engines: library_.engines,
        peerDependencies: library_.peerDependencies,
        peerDependenciesMeta: library_.peerDependenciesMeta,
      },
      ...lockEntries([...Object.keys(library_.dependencies as Record<string, string>), ...npmPeers]),
    },
  };
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
}
