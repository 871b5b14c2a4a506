/**
 * jest globalSetup: the whole run writes its temporary files into one directory of its own,
 * removed by global-teardown.ts. cdktf's Testing helpers make a /tmp/cdktf.outdir.* per synth
 * (about 250 per run) and never remove them; terraform, the sensor harness and scratch
 * projects add more. Workers and every process a test starts inherit TMPDIR, so os.tmpdir()
 * and mktemp land here too.
 *
 * Both tiers' set-ups start here (jest.config.js), and a run of both calls it twice: the
 * second call keeps the first one's directory.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const RUN_TMPDIR_ENV = 'SVC_TEST_RUN_TMPDIR';
/** The process that made the run's directory (a jest run inside a test makes its own). */
const RUN_OWNER_ENV = 'SVC_TEST_RUN_OWNER';

export default function globalSetup(): void {
  const existing = process.env[RUN_TMPDIR_ENV];
  if (existing !== undefined && existing !== '' && process.env[RUN_OWNER_ENV] === String(process.pid)) return;
  const runDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-run-'));
  process.env[RUN_TMPDIR_ENV] = runDirectory;
  process.env[RUN_OWNER_ENV] = String(process.pid);
  process.env.TMPDIR = runDirectory;
}
