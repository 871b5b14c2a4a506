/**
 * Bundles the `svc` command (scripts/release/svc-executable-entry.ts over src/pipeline/svc-cli.ts)
 * into one self-contained CommonJS script with esbuild, for its single executable in the release.
 * Paths in the bundle are relative to the repository, so the output does not depend on where the
 * checkout is. One script, no assets: the command starts once per pipeline step, so the split
 * the provider needs for its start (bundle.ts) buys nothing here.
 */
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { esbuildFailure } from '../esbuild-failure';
import { RELEASE_BUNDLE_OPTIONS, bundledText } from './bundle';

const REPOSITORY = path.resolve(__dirname, '..', '..');
export const SVC_ENTRY = 'scripts/release/svc-executable-entry.ts';

export class SvcBundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SvcBundleError';
  }
}

/** The executable has no package.json: src/package-root.ts is replaced by svc-package-root.ts, which answers without one. */
const PACKAGE_ROOT = path.join(REPOSITORY, 'src', 'package-root.ts');
const packageRootWithoutPackage: Plugin = {
  name: 'svc-package-root',
  setup(build) {
    build.onResolve({ filter: /package-root$/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, importer: args.importer, kind: args.kind, pluginData: 'resolving' });
      return resolved.path === PACKAGE_ROOT ? { path: path.join(REPOSITORY, 'scripts', 'release', 'svc-package-root.ts') } : undefined;
    });
  },
};

/** The bundled script, and every file in it relative to the repository (esbuild's metafile inputs): what THIRD_PARTY_NOTICES and the SBOM cover. */
export interface SvcBundle {
  readonly script: string;
  readonly inputs: readonly string[];
}

export async function bundleSvcCommand(version: string): Promise<SvcBundle> {
  const esbuild = require('esbuild') as typeof import('esbuild');
  try {
    const result = await esbuild.build({
      ...RELEASE_BUNDLE_OPTIONS,
      entryPoints: [SVC_ENTRY],
      outfile: 'svc.js',
      metafile: true,
      define: { SVC_PROVIDER_VERSION: JSON.stringify(version) },
      plugins: [packageRootWithoutPackage],
    });
    return { script: bundledText(result), inputs: Object.keys(result.metafile?.inputs ?? {}).sort() };
  } catch (error) {
    throw esbuildFailure('the svc command', error, (message) => new SvcBundleError(message));
  }
}
