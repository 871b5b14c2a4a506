/**
 * cdktf-cli's terminal addon (@cdktf/node-pty-prebuilt-multiarch) in the cdktf pipeline jobs'
 * `npm ci`: its install script is `node scripts/check-prebuild.js || prebuild-install || node
 * scripts/install.js`, that is the prebuild the package ships for this Node, else prebuild-install
 * (a download, looked up first in the npm cache's `_prebuilds`), else node-gyp. On Node 24 and
 * later nothing is shipped or downloadable, so every job compiled it. A run keeps the first job's
 * build in the npm cache its jobs restore, as prebuild-install's cache entry: later jobs' install
 * script takes it there, and only the first job compiles. addonSource tells which way a job's
 * `npm ci` went.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ADDON = path.join('@cdktf', 'node-pty-prebuilt-multiarch');
/** What node-gyp leaves beside the addon (its configure step's output); prebuild-install writes only build/Release/pty.node. */
const NODE_GYP_CONFIGURATION = path.join('build', 'config.gypi');
const BUILT_ADDON = path.join('build', 'Release', 'pty.node');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prebuildFile } = require('../../../scripts/native-addons.js') as { prebuildFile(packageDir: string): string };

/**
 * Where the jobs' prebuild-install looks for a download: a closed port on loopback (9, discard),
 * so the compiling job's attempt fails at once, here and on a machine with network, instead of
 * asking github.com. The cache entry's name is made from this URL, so keepCompiledAddon names it
 * with the same setting.
 */
export const LOOPBACK_BINARY_HOST: Readonly<Record<string, string>> = { npm_config_cdktf_node_pty_prebuilt_multiarch_binary_host: 'http://127.0.0.1:9' };

/** How a checkout's `npm ci` got the addon for the running Node; undefined when it has none (npm ci failed before). */
export type AddonSource = 'shipped prebuild' | 'compiled' | 'npm cache';

export function addonSource(checkout: string): AddonSource | undefined {
  const packageDir = path.join(checkout, 'node_modules', ADDON);
  if (fs.existsSync(prebuildFile(packageDir))) return 'shipped prebuild';
  if (!fs.existsSync(path.join(packageDir, BUILT_ADDON))) return undefined;
  if (fs.existsSync(path.join(packageDir, NODE_GYP_CONFIGURATION))) return 'compiled';
  return 'npm cache';
}

/**
 * An npm cache directory for the jobs in `directory`: the packages (`_cacache`) are `machineCache`'s,
 * linked (the jobs install offline from it); the rest, `_prebuilds` and npm's logs, are the run's own.
 */
export function runnerNpmCache(directory: string, machineCache: string): string {
  fs.mkdirSync(path.join(directory, '_prebuilds'), { recursive: true });
  fs.symlinkSync(path.join(machineCache, '_cacache'), path.join(directory, '_cacache'), 'dir');
  return directory;
}

/**
 * The addon `checkout`'s `npm ci` compiled, kept in `npmCache` where the package's prebuild-install
 * looks before it downloads: the file name is prebuild-install's own (its rc and util modules, run
 * in the package, name the download and its cache entry), the archive holds build/Release/pty.node
 * as a downloaded prebuild does. Returns the entry.
 */
export function keepCompiledAddon(checkout: string, npmCache: string): string {
  const packageDir = path.join(checkout, 'node_modules', ADDON);
  const nameEntry = [
    "const pkg = require('./package.json');",
    "const util = require('prebuild-install/util');",
    "const rc = require('prebuild-install/rc')(pkg);",
    'process.stdout.write(util.cachedPrebuild(util.getDownloadUrl({ ...rc, pkg })));',
  ].join(' ');
  const named = spawnSync(process.execPath, ['-e', nameEntry], {
    cwd: packageDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: npmCache, npm_config_cache: npmCache, ...LOOPBACK_BINARY_HOST },
  });
  if (named.status !== 0) throw new Error(`prebuild-install did not name its cache entry for ${packageDir}: ${named.stderr}`);
  const entry = named.stdout;
  if (path.dirname(entry) !== path.join(npmCache, '_prebuilds')) throw new Error(`prebuild-install's cache entry ${entry} is not in ${npmCache}/_prebuilds`);
  const packed = spawnSync('tar', ['-czf', entry, '-C', packageDir, BUILT_ADDON], { encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`tar of ${path.join(packageDir, BUILT_ADDON)} failed: ${packed.stderr}`);
  return entry;
}
