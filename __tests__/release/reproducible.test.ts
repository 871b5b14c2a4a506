/**
 * The same commit gives the same release (issue 13): two builds into two directories, with the
 * code cache, give byte-identical SHA256SUMS (zips with their notices, SBOMs, manifest). Its own
 * file, so jest can run it beside release.test.ts; each build rewrites ~120 MB twice with
 * postject, so this file takes minutes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildRelease } from '../../scripts/release/build';

const BUILD_TIMEOUT_MS = 10 * 60_000;
let scratch: string;

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reproducible-'));
});

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

test(
  'two builds of this commit give the same SHA256SUMS, zips, SBOMs and manifest byte for byte',
  async () => {
    const first = await buildRelease({ outDir: path.join(scratch, 'first'), env: { ...process.env, SOURCE_DATE_EPOCH: '' } });
    const second = await buildRelease({ outDir: path.join(scratch, 'second'), env: { ...process.env, SOURCE_DATE_EPOCH: '' } });
    const sums = fs.readFileSync(first.sums, 'utf8');
    // The provider's two zips and their SBOMs, the npm package's SBOM, the manifest, svc's two zips and
    // their SBOMs, and one archive per HCL module.
    expect(sums.split('\n').filter(Boolean)).toHaveLength(6 + 2 * first.commands.length + first.modules.length);
    expect(first.commands).toHaveLength(2);
    expect(first.modules).toHaveLength(2);
    expect(fs.readFileSync(second.sums, 'utf8')).toBe(sums);
    expect(first.platforms.find((platform) => platform.arch === 'amd64')?.codeCache).toBe(true);
  },
  2 * BUILD_TIMEOUT_MS,
);
