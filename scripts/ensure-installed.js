#!/usr/bin/env node
/**
 * The README's two commands (`npm run demo`, `npm test`) start here, so a fresh clone needs no
 * other step: when node_modules is missing, or older than package-lock.json (a pull changed the
 * lock), this says so in one line on stderr and runs `npm ci` before the command's own work.
 * Plain JavaScript: it runs before anything of node_modules (TypeScript, jest) is known to exist.
 * .ci/run keeps its explicit `npm ci`; after it this finds nothing to do.
 *
 * "Older" compares the lock npm writes into node_modules at every install
 * (node_modules/.package-lock.json) with package-lock.json; a tree without that file (installed
 * by an old npm, or half-removed) counts as missing.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const REPOSITORY = path.resolve(__dirname, '..');

/** The modification time in milliseconds, or undefined when the path does not exist. */
function modifiedAt(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Why `npm ci` must run first, or undefined when the installed tree is current.
 * @param {{ lock: number | undefined, installed: number | undefined }} times package-lock.json's
 *   and node_modules/.package-lock.json's modification times (undefined: absent)
 */
function installReason(times) {
  if (times.lock === undefined) return undefined; // no lock to install from: npm ci would only fail
  if (times.installed === undefined) return 'node_modules is missing';
  if (times.installed < times.lock) return 'node_modules is older than package-lock.json';
  return undefined;
}

function installTimes(root) {
  return {
    lock: modifiedAt(path.join(root, 'package-lock.json')),
    installed: modifiedAt(path.join(root, 'node_modules', '.package-lock.json')),
  };
}

/** Runs `npm ci` in `root` when needed; returns npm's exit status (0 when nothing was needed). */
function ensureInstalled(root = REPOSITORY) {
  const reason = installReason(installTimes(root));
  if (reason === undefined) return 0;
  process.stderr.write(`${reason}: running npm ci first\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.error !== undefined) {
    process.stderr.write(`npm ci could not be started: ${result.error.message}\n`);
    return 1;
  }
  return result.status ?? 1;
}

module.exports = { installReason, ensureInstalled };

if (require.main === module) process.exitCode = ensureInstalled();
