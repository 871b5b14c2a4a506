/**
 * The same commit gives the same release (issue 13): two independent builds of this commit give
 * byte-identical SHA256SUMS (zips with their notices, SBOMs, module archives, manifest). One is
 * the run's shared release (support/shared-release.ts: `buildRelease`, signed); the other is
 * made here, fresh, by the command help/releasing.md gives for both checks, `npm run release --
 * --sign` with SVC_RELEASE_GPG_KEY naming a throwaway key, so the command a release pipeline
 * runs is run here whole too. Each build rewrites ~120 MB per executable with postject, so this
 * file takes a minute or more.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSums, publicKeyName, signatureName, sumsName } from '../../scripts/release/layout';
import { runCommand, type CommandRun } from '../support/run-command';
import { makeTestKeyring, type TestKeyring } from './support/gpg';
import { headCommit, sharedRelease, type SharedRelease } from './support/shared-release';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const VERSION = '0.1.0';
/** One build of every platform with the code caches: a minute or two on a busy machine. */
const BUILD_TIMEOUT_MS = 10 * 60_000;

let scratch: string;
let keyring: TestKeyring;
let fingerprint: string;
let freshDir: string;
let fresh: CommandRun;
/** HEAD before and after the fresh build. */
let commits: { before: string; after: string };
let shared: SharedRelease;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reproducible-'));
  keyring = makeTestKeyring();
  fingerprint = keyring.generateKey('svc reproducible test');
  freshDir = path.join(scratch, 'fresh');
  // The fresh build first: while it runs, another worker may be building the shared one.
  // SOURCE_DATE_EPOCH left out: both builds date the zips by the HEAD commit.
  const env: NodeJS.ProcessEnv = { ...process.env, GNUPGHOME: keyring.home, SVC_RELEASE_GPG_KEY: fingerprint, SVC_RELEASE_GPG_PASSPHRASE: '' };
  delete env.SOURCE_DATE_EPOCH;
  const before = headCommit();
  fresh = await runCommand('npm', ['run', '--silent', 'release', '--', '--sign', '--out-dir', freshDir], { cwd: REPOSITORY, env, timeoutMs: BUILD_TIMEOUT_MS });
  commits = { before, after: headCommit() };
  shared = await sharedRelease();
}, 2 * BUILD_TIMEOUT_MS);

afterAll(() => {
  keyring?.dispose();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test('npm run release -- --sign builds and signs, and says so', () => {
  expect({ status: fresh.status, timedOut: fresh.timedOut, stderr: fresh.status === 0 ? '' : fresh.stderr }).toEqual({ status: 0, timedOut: false, stderr: '' });
  expect(fresh.stdout).toBe(`svc provider ${VERSION} released into ${freshDir} (signed)\n`);
  expect(fresh.stderr).toMatch(/linux_amd64: injecting the provider .* with code caches/);
  const verifier = makeTestKeyring();
  try {
    expect(spawnSync('gpg', ['--batch', '--import', path.join(freshDir, publicKeyName(VERSION))], { env: verifier.env }).status).toBe(0);
    const verify = spawnSync('gpg', ['--batch', '--verify', path.join(freshDir, signatureName(VERSION)), path.join(freshDir, sumsName(VERSION))], { env: verifier.env, encoding: 'utf8' });
    expect(verify.stderr).toContain('Good signature');
    expect(verify.stderr).toContain(fingerprint);
    expect(verify.status).toBe(0);
  } finally {
    verifier.dispose();
  }
});

test('it gives the same SHA256SUMS, zips, SBOMs, module archives and manifest byte for byte as the run\'s other build of this commit', () => {
  // A commit made while the suite runs moves HEAD: the builds would be of two commits, dated differently.
  expect({ freshBuildStarted: commits.before, freshBuildEnded: commits.after }).toEqual({ freshBuildStarted: shared.commit, freshBuildEnded: shared.commit });
  const sums = fs.readFileSync(shared.release.sums, 'utf8');
  // The provider's two zips and their SBOMs, the npm package's SBOM, the manifest, svc's two zips and
  // their SBOMs, and one archive per HCL module.
  expect(sums.split('\n').filter(Boolean)).toHaveLength(6 + 2 * shared.release.commands.length + shared.release.modules.length);
  expect(shared.release.commands).toHaveLength(2);
  expect(shared.release.modules).toHaveLength(2);
  expect(shared.release.platforms.find((platform) => platform.arch === 'amd64')?.codeCache).toBe(true);
  expect(fs.readFileSync(path.join(freshDir, sumsName(VERSION)), 'utf8')).toBe(sums);
  // The files themselves, not only the SHA256SUMS each build wrote of its own.
  for (const name of parseSums(sums).keys()) {
    expect({ name, same: fs.readFileSync(path.join(freshDir, name)).equals(fs.readFileSync(path.join(shared.release.outDir, name))) }).toEqual({ name, same: true });
  }
  // Two builds, not one directory read twice.
  expect(path.resolve(freshDir)).not.toBe(path.resolve(shared.release.outDir));
});
