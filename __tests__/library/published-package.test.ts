/**
 * The npm package as a registry and a consumer see it (scripts/packed-manifest.ts): the packed
 * package.json holds what a consumer needs and no development script (no `prepare`), with the
 * registry page's links; `npm publish --dry-run` of the tarball warns about nothing; a consumer
 * install lists no install script of svc-prevent; LICENSE and THIRD_PARTY_NOTICES travel with it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PACKED_FIELDS, PackedManifestError, packedManifest } from '../../scripts/packed-manifest';
import { REPOSITORY, described, packedLibrary, run, writeConsumerManifests, type PackedLibrary } from './support';

let scratch: string;
let library: PackedLibrary;
let packed: Record<string, any>;

/** One file of the tarball, read with tar. */
function fromTarball(tarball: string, file: string): string {
  const result = spawnSync('tar', ['-xOzf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`tar could not read ${file} from ${tarball}: ${result.stderr}`);
  return result.stdout;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-published-'));
  library = await packedLibrary();
  packed = JSON.parse(fromTarball(library.tarball, 'package.json'));
}, 600_000);

afterAll(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the packed package.json', () => {
  test('holds only what a consumer needs: no scripts, devDependencies, private flag or allowScripts', () => {
    expect(Object.keys(packed).filter((field) => !PACKED_FIELDS.includes(field))).toEqual([]);
    for (const absent of ['scripts', 'devDependencies', 'private', 'allowScripts']) expect(packed).not.toHaveProperty(absent);
  });

  test('has the registry page\'s links, keywords and engines, the same exports and dependencies as the repository\'s', () => {
    const development = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
    expect(packed.repository).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/) });
    expect(packed.homepage).toMatch(/^https:\/\//);
    expect(packed.bugs.url).toMatch(/^https:\/\/.+\/issues$/);
    expect(packed.keywords).toEqual(expect.arrayContaining(['terraform', 'cdktf']));
    expect(packed.engines.node).toBe(development.engines.node);
    for (const field of ['name', 'version', 'license', 'exports', 'bin', 'dependencies', 'peerDependencies']) expect(packed[field]).toEqual(development[field]);
  });

  test('the repository keeps its development manifest: pack restored it, prepare still runs on npm ci', () => {
    const development = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
    expect(development.scripts.prepare).toBe('node scripts/native-addons.js');
    expect(development.scripts.prepack).toContain('scripts/build-library.ts --pack');
    expect(development.scripts.postpack).toContain('scripts/build-library.ts --restore-manifest');
  });

  test('a development manifest missing a field the registry needs is refused, naming it', () => {
    const development = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
    const { bugs: _bugs, repository: _repository, ...incomplete } = development;
    expect(() => packedManifest(incomplete)).toThrow(PackedManifestError);
    expect(() => packedManifest(incomplete)).toThrow('package.json has no repository, bugs;');
  });
});

test('the tarball carries LICENSE and the THIRD_PARTY_NOTICES of the provider script it bundles', () => {
  expect(library.files).toEqual(expect.arrayContaining(['LICENSE', 'THIRD_PARTY_NOTICES']));
  expect(fromTarball(library.tarball, 'LICENSE')).toBe(fs.readFileSync(path.join(REPOSITORY, 'LICENSE'), 'utf8'));
  const notices = fromTarball(library.tarball, 'THIRD_PARTY_NOTICES');
  expect(notices).toMatch(/^  undici \d+\.\d+\.\d+ \(MIT\)$/m);
  expect(notices).toMatch(/^  ipaddr\.js \d+\.\d+\.\d+ \(MIT\)$/m);
  expect(notices).not.toContain('Node.js');
});

test('npm publish --dry-run of the tarball reports no warning', async () => {
  // A registry on a closed loopback port with a token: npm neither asks for a login nor reaches
  // out; its look-ups of the package there fail at once (no retries) and are not warnings.
  const userConfig = path.join(scratch, 'publish.npmrc');
  fs.writeFileSync(userConfig, 'registry=http://127.0.0.1:9/\n//127.0.0.1:9/:_authToken=dry-run-only\n');
  const result = await run('npm', ['publish', '--dry-run', library.tarball], {
    cwd: scratch,
    env: { ...process.env, npm_config_userconfig: userConfig, npm_config_update_notifier: 'false', npm_config_fetch_retries: '0' },
  });
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('svc-prevent@');
  expect(`${result.stdout}${result.stderr}`.split('\n').filter((line) => /^npm (warn|WARN|error)/.test(line))).toEqual([]);
}, 120_000);

describe('a consumer install', () => {
  /** Installs `tarball` into a fresh project the way `npm install <tarball>` resolves it, and returns npm's output. */
  async function install(name: string, tarball: PackedLibrary): Promise<string> {
    const dir = path.join(scratch, name);
    // The consumer project's manifests, not installed: the install below is the one that counts.
    writeConsumerManifests(dir, tarball, { npmPeers: ['cdktf', 'constructs'] });
    // npm judges install scripts when it resolves the package itself, not from a lock entry.
    const lockFile = path.join(dir, 'package-lock.json');
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    delete lock.packages['node_modules/svc-prevent'];
    fs.writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    // --legacy-peer-deps: the optional CDK Terrain peers are not in npm's cache, and npm ci of the lock took the same liberty.
    const result = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps'], { cwd: dir, env });
    if (result.code !== 0) throw new Error(described(result));
    const listed = await run('npm', ['install-scripts', 'ls'], { cwd: dir, env });
    return `${result.stdout}${result.stderr}${listed.stdout}${listed.stderr}`;
  }

  test('lists no install script of svc-prevent (the same package with a prepare script would be listed)', async () => {
    const output = await install('consumer', library);
    expect(output).not.toMatch(/svc-prevent@[^ ]+ \(/);
    expect(output).toContain('No packages with unreviewed install scripts.');

    // The control: the tarball as it was packed before, with the repository's prepare script.
    const variant = path.join(scratch, 'with-prepare');
    fs.mkdirSync(variant);
    expect(spawnSync('tar', ['-xzf', library.tarball, '-C', variant]).status).toBe(0);
    const manifestFile = path.join(variant, 'package', 'package.json');
    fs.writeFileSync(manifestFile, JSON.stringify({ ...packed, scripts: { prepare: 'node scripts/native-addons.js' } }, null, 2));
    const variantTarball = path.join(scratch, 'svc-prevent-with-prepare.tgz');
    expect(spawnSync('tar', ['-czf', variantTarball, '-C', variant, 'package']).status).toBe(0);
    const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(variantTarball)).digest('base64')}`;
    const variantOutput = await install('consumer-of-prepare', { ...library, tarball: variantTarball, integrity });
    expect(variantOutput).toMatch(/svc-prevent@[^ ]+ \(prepare: node scripts\/native-addons\.js\)/);
  }, 300_000);
});
