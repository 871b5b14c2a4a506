/**
 * The release built once per jest run and shared read-only by the files that need one
 * (release.test.ts, reproducible.test.ts, pipeline/pipeline-run.test.ts), as packedLibrary()
 * shares the packed library: each full build bundles, makes the V8 code caches and has postject
 * rewrite a ~120 MB Node binary per executable, about half a minute of one core on a quiet
 * machine (help/testing.md). A file that changes a release works on a copy of `release.outDir`.
 *
 * It is `npm run release` as a release pipeline runs it: every platform, the code caches, the
 * zips dated by the HEAD commit (SOURCE_DATE_EPOCH left out), signed by buildRelease itself with
 * a throwaway key, whose keyring is removed (agent stopped) once the build has signed: what
 * checks a signature needs is the exported public key the release carries.
 *
 * Built lazily by the first file that asks, in the run's temporary directory (os.tmpdir(), see
 * global-setup.ts, removed after the run), by madeOnce: the others wait for its result, a failed
 * build is recorded, so every file reports that failure instead of building again, and a lock
 * whose owner died is taken over.
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildRelease, type ReleaseResult } from '../../../scripts/release/build';
import { madeOnce } from '../../support/made-once';
import { makeTestKeyring } from './gpg';

export interface SharedRelease {
  readonly release: ReleaseResult;
  /** The HEAD commit it was built at (its zips carry that commit's time). */
  readonly commit: string;
  /** The fingerprint of the throwaway key that signed it (terraform reports its last 16 digits). */
  readonly fingerprint: string;
  /** The build's progress lines (its `log`). */
  readonly progress: readonly string[];
}

const REPOSITORY = path.resolve(__dirname, '..', '..', '..');

/** The repository's HEAD commit: a release is of one commit, and dated by it. */
export function headCommit(): string {
  const git = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPOSITORY, encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git rev-parse HEAD failed in ${REPOSITORY}: ${git.stderr}`);
  return git.stdout.trim();
}

async function build(directory: string): Promise<SharedRelease> {
  const keyring = makeTestKeyring();
  try {
    const fingerprint = keyring.generateKey('svc shared release');
    const commit = headCommit();
    const progress: string[] = [];
    const started = Date.now();
    const release = await buildRelease({
      outDir: path.join(directory, 'release'),
      signing: { key: fingerprint },
      env: { ...keyring.env, SOURCE_DATE_EPOCH: '' },
      log: (line) => progress.push(line),
    });
    progress.push(`build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { release, commit, fingerprint, progress };
  } finally {
    keyring.dispose();
  }
}

/** The run's release (see the header); the first caller builds it, the others wait. */
export function sharedRelease(): Promise<SharedRelease> {
  return madeOnce({
    directory: path.join(os.tmpdir(), 'svc-prevent-release'),
    resultName: 'release.json',
    what: "the run's shared release build",
    recordFailure: true,
    make: build,
  });
}
