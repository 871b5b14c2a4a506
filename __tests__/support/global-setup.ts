/**
 * jest globalSetup: the whole run writes its temporary files into one directory of its own,
 * removed by global-teardown.ts. cdktf's Testing helpers make a /tmp/cdktf.outdir.* per synth
 * (about 250 per run) and never remove them; terraform, the sensor harness and scratch
 * projects add more. Workers and every process a test starts inherit TMPDIR, so os.tmpdir()
 * and mktemp land here too.
 *
 * Both tiers' set-ups start here (jest.config.js), and a run of both calls it twice: the
 * second call keeps the first one's directory.
 *
 * Where: in memory (/dev/shm) when it can take the run (runDirectoryBase), else os.tmpdir().
 * The suite writes and removes a few hundred thousand files (every `npm ci` of a consumer project
 * is 18,000 files and 440 MB): on this ext4 disk one such `npm ci` spent 15 s of CPU in the
 * kernel, on tmpfs 4.5 s (help/testing.md, "Where the time goes").
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const RUN_TMPDIR_ENV = 'SVC_TEST_RUN_TMPDIR';
/** The process that made the run's directory (a jest run inside a test makes its own). */
const RUN_OWNER_ENV = 'SVC_TEST_RUN_OWNER';

export default function globalSetup(): void {
  const existing = process.env[RUN_TMPDIR_ENV];
  if (existing !== undefined && existing !== '' && process.env[RUN_OWNER_ENV] === String(process.pid)) return;
  const runDirectory = fs.mkdtempSync(path.join(runDirectoryBase(), 'svc-test-run-'));
  process.env[RUN_TMPDIR_ENV] = runDirectory;
  process.env[RUN_OWNER_ENV] = String(process.pid);
  process.env.TMPDIR = runDirectory;
}

/** Linux's f_type of a tmpfs (statfs(2)). */
const TMPFS_MAGIC = 0x01021994;
const MEMORY_DIRECTORY = '/dev/shm';
/** The run's files peaked at about 5.5 GiB (three workers: release builds, consumer projects' installs; df every 2 s): room for that twice over, in free memory as well. */
const MEMORY_NEEDED_BYTES = 12 * 1024 ** 3;

/**
 * Where the run's directory goes: TMPDIR when it is set (the user's choice, and how a test runs
 * jest inside jest); else /dev/shm when it is a tmpfs with room, enough free memory, and lets an
 * executable run from it (the provider builds and terraform's plugins run from the run's
 * directory; some systems mount it noexec); else os.tmpdir().
 */
export function runDirectoryBase(): string {
  if ((process.env.TMPDIR ?? '') !== '') return os.tmpdir();
  return memoryCanHoldTheRun() ? MEMORY_DIRECTORY : os.tmpdir();
}

function memoryCanHoldTheRun(): boolean {
  let probe: string | undefined;
  try {
    const volume = fs.statfsSync(MEMORY_DIRECTORY);
    if (volume.type !== TMPFS_MAGIC || volume.bavail * volume.bsize < MEMORY_NEEDED_BYTES || os.freemem() < MEMORY_NEEDED_BYTES) return false;
    probe = fs.mkdtempSync(path.join(MEMORY_DIRECTORY, 'svc-test-probe-'));
    const script = path.join(probe, 'runs');
    fs.writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return spawnSync(script, { stdio: 'ignore' }).status === 0;
  } catch {
    return false; // no /dev/shm (not Linux), not writable: the disk it is
  } finally {
    if (probe !== undefined) fs.rmSync(probe, { recursive: true, force: true });
  }
}
