/**
 * Bundles the released executable's scripts with esbuild (executable-assets.ts says why these):
 *
 *   loader   scripts/release/executable-loader.ts: the SEA's main script, runs main
 *   main     scripts/release/executable-entry.ts: --version, the gRPC server, the handshake
 *   service  src/provider/service.ts: the provider, its resources, the API client, undici
 *
 * A module both need (today src/api/redaction.ts, whose secret registry must be one) is bundled
 * once, in main; the service bundle requires it as `svc-shared:<path>` and the entry hands it
 * main's instance. Built in three passes: main's module list, the service bundle (which records
 * the modules it takes from main), then main exporting exactly those. Paths in both bundles are
 * relative to the repository, so the output does not depend on where the checkout is. A fourth
 * script, run by the build only, makes the service's code cache (bundleServiceWarmUp).
 */
import * as path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { esbuildFailure } from '../esbuild-failure';
import { SHARED_MODULE_PREFIX, wrapScriptSource } from './executable-assets';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const LOADER_ENTRY = 'scripts/release/executable-loader.ts';
const MAIN_ENTRY = 'scripts/release/executable-entry.ts';
const SERVICE_ENTRY = 'src/provider/service.ts';
const SERVICE_WARM_UP = 'scripts/release/service-warm-up.ts';

export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

export interface ProviderBundles {
  /** The SEA's main script (CommonJS): runs main. */
  readonly loader: string;
  /** The main script wrapped as a function (wrapScriptSource), a SEA asset. */
  readonly main: string;
  /** The service bundle wrapped the same way, a SEA asset. */
  readonly service: string;
  /** Repository paths of the modules main shares with the service bundle. */
  readonly shared: readonly string[];
  /** Every file in the three scripts, relative to the repository (esbuild's metafile inputs): what THIRD_PARTY_NOTICES and the SBOM cover. */
  readonly inputs: readonly string[];
}

/** esbuild's failure as a BundleError naming what was bundled and each error's place; anything else as it is. */
function bundleFailure(what: string, error: unknown): unknown {
  return esbuildFailure(what, error, (message) => new BundleError(message));
}

/**
 * How every script of the release is bundled: the provider executable's, the build's warm-up, the
 * `svc` command's (svc-bundle.ts), and the bench's protocol floor, made like the provider.
 */
export const RELEASE_BUNDLE_OPTIONS: BuildOptions = {
  absWorkingDir: REPOSITORY,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  // Not minified: stack traces stay readable, and with the service out of the main script
  // minifying bought nothing measurable (help/performance-history.md, "The provider loads at
  // terraform's first call").
  minify: false,
  legalComments: 'none',
  logLevel: 'silent',
  write: false,
};

/** The one output file of a build with `write: false`. */
export function bundledText(result: { outputFiles?: { text: string }[] }): string {
  return (result.outputFiles ?? [])[0]?.text ?? '';
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}

/** Resolves every import of the service bundle; one that lands on a module of main becomes an external `svc-shared:` id. */
function takeFromMain(mainModules: ReadonlySet<string>, taken: Set<string>): Plugin {
  const RESOLVING = Symbol('resolving');
  return {
    name: 'svc-take-from-main',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === RESOLVING || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, importer: args.importer, kind: args.kind, pluginData: RESOLVING });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        const module = toPosix(path.relative(REPOSITORY, resolved.path));
        if (!mainModules.has(module)) return undefined;
        taken.add(module);
        return { path: `${SHARED_MODULE_PREFIX}${module}`, external: true };
      });
    },
  };
}

export async function bundleProvider(version: string): Promise<ProviderBundles> {
  const esbuild = require('esbuild') as typeof import('esbuild');
  const common: BuildOptions = { ...RELEASE_BUNDLE_OPTIONS, define: { SVC_PROVIDER_VERSION: JSON.stringify(version) } };
  try {
    const probe = await esbuild.build({ ...common, entryPoints: [MAIN_ENTRY], outfile: 'main.js', metafile: true });
    const mainModules = new Set(Object.keys(probe.metafile?.inputs ?? {}));
    const taken = new Set<string>();
    const service = await esbuild.build({ ...common, metafile: true, entryPoints: [SERVICE_ENTRY], outfile: 'service.js', plugins: [takeFromMain(mainModules, taken)] });
    const shared = [...taken].sort();
    // The entry runs first (its console guard before anything prints); the shared modules are
    // already loaded by then, and the assignments run before any call can come in.
    const contents = [
      `import { sharedModules } from ${JSON.stringify(`./${MAIN_ENTRY}`)};`,
      ...shared.map((module, index) => `import * as shared${index} from ${JSON.stringify(`./${module}`)};`),
      ...shared.map((module, index) => `sharedModules[${JSON.stringify(module)}] = shared${index};`),
      '',
    ].join('\n');
    const main = await esbuild.build({ ...common, metafile: true, stdin: { contents, resolveDir: REPOSITORY, sourcefile: 'executable-main.js', loader: 'js' }, outfile: 'main.js' });
    const loader = await esbuild.build({ ...common, metafile: true, entryPoints: [LOADER_ENTRY], outfile: 'loader.js' });
    const inputs = new Set([loader, main, service].flatMap((result) => Object.keys(result.metafile?.inputs ?? {})));
    inputs.delete('<stdin>');
    return { loader: bundledText(loader), main: wrapScriptSource(bundledText(main)), service: wrapScriptSource(bundledText(service)), shared, inputs: [...inputs].sort() };
  } catch (error) {
    throw bundleFailure('the provider', error);
  }
}

/**
 * The script that makes the service bundle's code cache (service-warm-up.ts), with its own copies
 * of the modules the service takes from the main script (`shared`, repository paths). Run by the
 * build only; it ships nothing, so its inputs are not in the notices.
 */
export async function bundleServiceWarmUp(shared: readonly string[]): Promise<string> {
  const esbuild = require('esbuild') as typeof import('esbuild');
  const contents = [
    `import { runWarmUp } from ${JSON.stringify(`./${SERVICE_WARM_UP}`)};`,
    ...shared.map((module, index) => `import * as shared${index} from ${JSON.stringify(`./${module}`)};`),
    `runWarmUp({ ${shared.map((module, index) => `${JSON.stringify(module)}: shared${index}`).join(', ')} });`,
    '',
  ].join('\n');
  try {
    return bundledText(
      await esbuild.build({
        ...RELEASE_BUNDLE_OPTIONS,
        stdin: { contents, resolveDir: REPOSITORY, sourcefile: 'service-warm-up-main.js', loader: 'js' },
        outfile: 'service-warm-up.js',
      }),
    );
  } catch (error) {
    throw bundleFailure("the service's warm-up", error);
  }
}
