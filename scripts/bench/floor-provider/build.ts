/**
 * Makes the floor provider (provider.ts, main.ts) into an executable the way the release makes
 * the svc provider's: bundled by esbuild for the release's Node line, then a Node single
 * executable application of the release's pinned Node binary with the release's node options
 * and V8 code cache (makeSingleExecutable, scripts/release/build.ts), laid out in a terraform
 * filesystem mirror of its own.
 *
 * One difference, in the floor's disfavour: the release's main script carries a code cache made
 * after running it to the handshake line, the floor the cache node makes by compiling it
 * (makeSingleExecutable's); help/performance.md measured that difference at about 5 ms per
 * process start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeSingleExecutable } from '../../release/build';
import { RELEASE_BUNDLE_OPTIONS } from '../../release/bundle';
import { FLOOR_PROVIDER_SOURCE, FLOOR_PROVIDER_TYPE } from './provider';

const ENTRY = path.join(__dirname, 'main.ts');
/** The version its mirror holds (terraform wants a semantic version; nothing else reads it). */
export const FLOOR_PROVIDER_VERSION = '0.0.1';

export interface FloorProviderBuild {
  /** The executable inside the mirror. */
  readonly executable: string;
  /** The mirror root (a `filesystem_mirror` path). */
  readonly mirrorDir: string;
  readonly bundleBytes: number;
}

/** Builds the floor with `node` (the release's pinned binary) into `workDir` for `platform` (e.g. linux_amd64). */
export function buildFloorProvider(node: string, workDir: string, platform: string): FloorProviderBuild {
  const esbuild = require('esbuild') as typeof import('esbuild');
  const bundle = path.join(workDir, 'floor-provider.js');
  // The release's bundle settings for its main script: CommonJS for node24, not minified.
  esbuild.buildSync({ ...RELEASE_BUNDLE_OPTIONS, entryPoints: [ENTRY], outfile: bundle, write: true });
  const mirrorDir = path.join(workDir, 'mirror');
  const executable = path.join(mirrorDir, ...FLOOR_PROVIDER_SOURCE.split('/'), FLOOR_PROVIDER_VERSION, platform, `terraform-provider-${FLOOR_PROVIDER_TYPE}_v${FLOOR_PROVIDER_VERSION}`);
  const made = path.join(workDir, 'terraform-provider-floor');
  makeSingleExecutable(node, bundle, made);
  fs.mkdirSync(path.dirname(executable), { recursive: true });
  // Made outside the mirror: terraform hashes everything in a package directory.
  fs.renameSync(made, executable);
  return { executable, mirrorDir, bundleBytes: fs.statSync(bundle).size };
}
