/** jest globalTeardown: removes the run's temporary directory (see global-setup.ts). */
import * as fs from 'node:fs';
import { RUN_TMPDIR_ENV } from './global-setup';

export default function globalTeardown(): void {
  const runDirectory = process.env[RUN_TMPDIR_ENV];
  if (runDirectory === undefined || runDirectory === '') return;
  // Files a test made read-only (mode 0400 key files) go too: rmSync removes them as their owner.
  fs.rmSync(runDirectory, { recursive: true, force: true });
}
