/**
 * `npm run build:library` (and `npm pack`, through prepack): compiles the library other teams
 * install into lib/, which is git-ignored and rebuilt from nothing each time:
 *
 *   lib/modules/, lib/src/                 CommonJS, .d.ts, source maps with the sources inlined
 *                                          (tsconfig.library.json: the entry points of
 *                                          package.json's exports and bin, and what they import)
 *   lib/provider/mirror/                   the svc provider bundle as a terraform filesystem
 *                                          mirror, for every platform of DEFAULT_PLATFORMS
 *                                          (prepareStacksForSvcProvider and svc-drift use it)
 *   lib/cdktn/                             the same JavaScript and types for CDK Terrain: every
 *                                          `cdktf` module specifier reads `cdktn`, every
 *                                          `@cdktf/provider-aws` reads `@cdktn/provider-aws`
 *   THIRD_PARTY_NOTICES                    (git-ignored) the licences of the npm packages bundled
 *                                          into the provider script (scripts/release/notices.ts);
 *                                          the tarball carries it beside LICENSE
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BuildError } from '../src/provider-identity';
import { buildProvider } from './build-provider';
import { NOTICES_FILE, NoticesError, bundleNotices } from './release/notices';
import { PackedManifestError, restoreDevelopmentManifest, writePackedManifest } from './packed-manifest';

const REPOSITORY = path.resolve(__dirname, '..');
export const LIBRARY_DIR = path.join(REPOSITORY, 'lib');
/** Written at the root, where npm and a reader look for it beside LICENSE. */
export const LIBRARY_NOTICES = path.join(REPOSITORY, NOTICES_FILE);
const TSCONFIG = path.join(REPOSITORY, 'tsconfig.library.json');
/**
 * The compiled trees the CDK Terrain flavour copies (lib/provider is shared, not copied). No
 * scripts/: the library never imports the repository's tooling (src/provider-identity.ts holds
 * what the provider build and the library share).
 */
const COMPILED_TREES = ['modules', 'src'];

/** The module specifiers the CDK Terrain flavour renames: the package, or the package and a subpath. */
const CDKTF_SPECIFIER = /(["'])(cdktf|@cdktf\/provider-aws)((?:\/[^"'\n]*)?)\1/g;

/** One compiled file's text for CDK Terrain: `require("cdktf")` -> `require("cdktn")`, and in .d.ts `from 'cdktf'`, `import("cdktf")`. */
export function cdktnFlavour(text: string): string {
  return text.replace(CDKTF_SPECIFIER, (_match, quote: string, name: string, subpath: string) => `${quote}${name === 'cdktf' ? 'cdktn' : '@cdktn/provider-aws'}${subpath}${quote}`);
}

function copyCdktnFlavour(from: string, to: string): number {
  let rewritten = 0;
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      rewritten += copyCdktnFlavour(source, target);
    } else if (entry.name.endsWith('.js') || entry.name.endsWith('.d.ts')) {
      const text = fs.readFileSync(source, 'utf8');
      const flavoured = cdktnFlavour(text);
      if (flavoured !== text) rewritten += 1;
      fs.writeFileSync(target, flavoured);
    } else {
      // Source maps: the renames keep every length, so the mappings still hold.
      fs.copyFileSync(source, target);
    }
  }
  return rewritten;
}

export class LibraryBuildError extends Error {
  readonly code = 'library_build_failed';
  constructor(message: string) {
    super(message);
    this.name = 'LibraryBuildError';
  }
}

export function buildLibrary(log: (line: string) => void = () => undefined): void {
  fs.rmSync(LIBRARY_DIR, { recursive: true, force: true });
  fs.rmSync(LIBRARY_NOTICES, { force: true });
  log(`compiling ${path.relative(REPOSITORY, TSCONFIG)} into lib/`);
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', TSCONFIG], { cwd: REPOSITORY, encoding: 'utf8' });
  if (tsc.status !== 0) throw new LibraryBuildError(`tsc -p tsconfig.library.json failed (exit ${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);

  const providerDir = path.join(LIBRARY_DIR, 'provider');
  const provider = buildProvider({ outDir: providerDir, log: (line) => log(`provider: ${line}`) });
  // Only the mirror ships: the top-level copy duplicates it, and terraform.rc names this machine's path.
  fs.rmSync(provider.executable);
  fs.rmSync(provider.cliConfigFile);
  try {
    const notices = bundleNotices(`the svc-prevent npm package (its provider script, lib/provider/mirror/)`, provider.bundledInputs);
    fs.writeFileSync(LIBRARY_NOTICES, notices.text);
    log(`wrote ${NOTICES_FILE} (${notices.packages.map((found) => `${found.name} ${found.version}`).join(', ')})`);
  } catch (error) {
    if (error instanceof NoticesError) throw new LibraryBuildError(error.message);
    throw error;
  }

  let rewritten = 0;
  for (const tree of COMPILED_TREES) rewritten += copyCdktnFlavour(path.join(LIBRARY_DIR, tree), path.join(LIBRARY_DIR, 'cdktn', tree));
  log(`wrote lib/cdktn/ (CDK Terrain flavour: ${rewritten} files with cdktf module specifiers renamed)`);
}

const USAGE = `Usage: npm run build:library [-- --pack | --restore-manifest]

Compiles the library into lib/ (removed first): CommonJS with .d.ts and source maps for the
entry points of package.json's exports and bin, the svc provider as a filesystem mirror in
lib/provider/mirror, the CDK Terrain flavour in lib/cdktn/, and THIRD_PARTY_NOTICES for the
packages bundled into the provider.

  --pack              (npm's prepack) build, then write the consumer's package.json in place of
                      the development one, which waits in build/package.development.json
  --restore-manifest  (npm's postpack) put the development package.json back`;

export function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [mode, ...rest] = argv;
  if (rest.length > 0 || (mode !== undefined && mode !== '--pack' && mode !== '--restore-manifest')) {
    process.stderr.write(`build-library: unknown argument "${rest[0] ?? mode}"; run with --help\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`build-library: ${line}\n`);
  try {
    if (mode === '--restore-manifest') {
      if (restoreDevelopmentManifest()) log('restored the development package.json');
      return 0;
    }
    // A pack that died before its postpack left the consumer's manifest in place: the build reads the development one.
    if (restoreDevelopmentManifest()) log('restored the development package.json a failed pack left aside');
    buildLibrary(log);
    if (mode === '--pack') {
      writePackedManifest();
      log('wrote the consumer package.json for npm to pack (postpack restores the development one)');
    }
    return 0;
  } catch (error) {
    if (!(error instanceof LibraryBuildError || error instanceof BuildError || error instanceof PackedManifestError)) throw error;
    process.stderr.write(`build-library: ${error.message}\n`);
    return 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
