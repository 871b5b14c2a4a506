#!/usr/bin/env node
/**
 * cdktf-cli loads @cdktf/node-pty-prebuilt-multiarch, whose prebuilt binaries stop at Node 22
 * (ABI 127): on Node 24 and 26 `npx cdktf` crashed with "was compiled against a different
 * Node.js version". This builds the addon from source for the running Node, against the headers
 * that ship beside its binary (the npm registry's node-linux-* packages and Debian's nodejs
 * both have them), and stores it as the prebuild for that ABI, so each runtime finds its own and
 * switching between Node lines needs no rebuild. Nothing happens when a prebuild exists.
 * It replaces the package's own install script, which package.json's allowScripts denies: that
 * script tries a download from GitHub, then builds against npm's nodedir (Node 20's headers on
 * these machines) into build/, which the loader would try for every Node line.
 *
 * Runs from `npm ci` (the prepare script) and in .ci/run for each Node line; by hand:
 * `node scripts/native-addons.js` after switching Node. Plain JavaScript: it runs before
 * anything else is known to work. Exit 1 with the reason when the build fails.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PACKAGE = '@cdktf/node-pty-prebuilt-multiarch';

/** Where the addon's loader looks first for this runtime (its prebuild-file-path.js rule). */
function prebuildFile(packageDir) {
  const musl = os.platform() === 'linux' && fs.existsSync('/etc/alpine-release') ? '.musl' : '';
  return path.join(packageDir, 'prebuilds', `${os.platform()}-${os.arch()}`, `node.abi${process.versions.modules}${musl}.node`);
}

/** Node's headers beside the running binary (<prefix>/include/node), else none. */
function headersDir() {
  const prefix = path.resolve(process.execPath, '..', '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/** npm's own node-gyp: npm names it for lifecycle scripts, else it sits inside npm. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  const npmCli = process.env.npm_execpath;
  if (npmCli) candidates.push(path.join(path.dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  const npmOnPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (npmOnPath) candidates.push(path.join(path.dirname(fs.realpathSync(npmOnPath)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((candidate) => candidate && fs.existsSync(candidate));
}

/** Loads the addon in a child process: a wrong ABI must not crash this one. */
function loads(file) {
  const probe = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', file], { encoding: 'utf8' });
  return probe.status === 0;
}

function ensurePty(root, log) {
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve(`${PACKAGE}/package.json`, { paths: [root] }));
  } catch {
    return { status: 'absent' };
  }
  const target = prebuildFile(packageDir);
  if (fs.existsSync(target) && loads(target)) return { status: 'present', file: target };

  const gyp = nodeGyp();
  if (gyp === undefined) throw new Error(`cannot build ${PACKAGE} for Node ${process.version}: npm's node-gyp was not found (is npm installed beside node?)`);
  const nodedir = headersDir();
  log(`native addons: building ${PACKAGE} for Node ${process.version} (ABI ${process.versions.modules}); its prebuilds stop at Node 22`);
  // A copy beside the package (so its build finds nan in node_modules): the package's own
  // build/ stays as shipped, for the runtimes its prebuilds serve.
  const work = fs.mkdtempSync(path.join(path.dirname(packageDir), '.svc-node-pty-build-'));
  try {
    for (const entry of ['binding.gyp', 'src', 'deps', 'package.json', 'scripts']) {
      if (fs.existsSync(path.join(packageDir, entry))) fs.cpSync(path.join(packageDir, entry), path.join(work, entry), { recursive: true });
    }
    const args = [gyp, 'rebuild', ...(nodedir === undefined ? [] : [`--nodedir=${nodedir}`])];
    const build = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', env: { ...process.env, npm_config_nodedir: nodedir ?? '' } });
    const built = path.join(work, 'build', 'Release', 'pty.node');
    if (build.status !== 0 || !fs.existsSync(built)) {
      const tail = `${build.stdout}\n${build.stderr}`.trim().split('\n').slice(-15).join('\n');
      throw new Error(
        `building ${PACKAGE} for Node ${process.version} failed (node-gyp exit ${build.status})` +
          (nodedir === undefined ? `; no Node headers beside ${process.execPath} (<prefix>/include/node), so node-gyp tried to download them` : '') +
          `; it needs python3, make and g++. Its last output:\n${tail}`,
      );
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(built, target);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  if (!loads(target)) throw new Error(`${target} was built but does not load in Node ${process.version}`);
  return { status: 'built', file: target };
}

module.exports = { ensurePty, prebuildFile };

if (require.main === module) {
  try {
    const result = ensurePty(path.resolve(__dirname, '..'), (line) => process.stderr.write(`${line}\n`));
    if (result.status === 'built') process.stderr.write(`native addons: ${result.file} built\n`);
  } catch (error) {
    process.stderr.write(`native addons: ${error.message}\n`);
    process.exitCode = 1;
  }
}
