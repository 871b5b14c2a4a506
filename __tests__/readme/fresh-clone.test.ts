/**
 * From a fresh clone the README's two commands set themselves up: `npm run demo` and `npm test`
 * both start with scripts/ensure-installed.js, which runs `npm ci` when node_modules is missing
 * or older than package-lock.json. The decision is table-tested; the script itself runs for
 * real on a copy of it inside a tiny project (one local dependency, so npm ci works offline).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const root = path.join(__dirname, '..', '..');
const SCRIPT = path.join(root, 'scripts', 'ensure-installed.js');
// Plain JavaScript on purpose (it runs before node_modules exists), so it is required, not imported.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { installReason } = require(SCRIPT) as { installReason(times: { lock: number | undefined; installed: number | undefined }): string | undefined };
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('installReason', () => {
  test.each([
    { name: 'no node_modules', lock: 1000, installed: undefined, reason: 'node_modules is missing' },
    { name: 'installed before the lock changed', lock: 2000, installed: 1000, reason: 'node_modules is older than package-lock.json' },
    { name: 'installed after the lock', lock: 1000, installed: 2000, reason: undefined },
    { name: 'installed in the same instant', lock: 1000, installed: 1000, reason: undefined },
    { name: 'no package-lock.json (nothing npm ci could install)', lock: undefined, installed: undefined, reason: undefined },
  ])('$name', ({ lock, installed, reason }) => {
    expect(installReason({ lock, installed })).toBe(reason);
  });
});

test('the README commands start with the install check, and .ci/run keeps its explicit npm ci', () => {
  expect(packageJson.scripts.test).toMatch(/^node scripts\/ensure-installed\.js && /);
  expect(packageJson.scripts.demo).toMatch(/^node scripts\/ensure-installed\.js && /);
  expect(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm ci --no-audit --no-fund$/m);
});

describe('scripts/ensure-installed.js in a project', () => {
  let project: string;

  beforeAll(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ensure-installed-'));
    fs.mkdirSync(path.join(project, 'scripts'));
    fs.copyFileSync(SCRIPT, path.join(project, 'scripts', 'ensure-installed.js'));
    fs.mkdirSync(path.join(project, 'tiny'));
    fs.writeFileSync(path.join(project, 'tiny', 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0' }));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh-clone', version: '1.0.0', private: true, dependencies: { tiny: 'file:tiny' } }));
    fs.writeFileSync(
      path.join(project, 'package-lock.json'),
      JSON.stringify({
        name: 'fresh-clone',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'fresh-clone', version: '1.0.0', dependencies: { tiny: 'file:tiny' } },
          'node_modules/tiny': { resolved: 'tiny', link: true },
          tiny: { version: '1.0.0' },
        },
      }),
    );
  });

  afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

  async function ensure() {
    // Offline: the only dependency is a local directory, and a test never reaches the network.
    const env = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
    return runCommand(process.execPath, [path.join(project, 'scripts', 'ensure-installed.js')], { cwd: project, env, timeoutMs: STEP_BUDGET_MS.offlineNpmCi });
  }

  test('with no node_modules it says so in one line and runs npm ci', async () => {
    const result = await ensure();
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: 'node_modules is missing: running npm ci first\n' });
    expect(fs.realpathSync(path.join(project, 'node_modules', 'tiny'))).toBe(fs.realpathSync(path.join(project, 'tiny')));
  }, testTimeoutFor(STEP_BUDGET_MS.offlineNpmCi));

  test('right after, it does nothing and prints nothing', async () => {
    const result = await ensure();
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  }, testTimeoutFor(STEP_BUDGET_MS.offlineNpmCi));

  test('after the lock changes, it installs again', async () => {
    const installedLock = path.join(project, 'node_modules', '.package-lock.json');
    const earlier = new Date(Date.now() - 3_600_000);
    fs.utimesSync(installedLock, earlier, earlier);
    const result = await ensure();
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: 'node_modules is older than package-lock.json: running npm ci first\n' });
    expect(fs.statSync(installedLock).mtimeMs).toBeGreaterThanOrEqual(fs.statSync(path.join(project, 'package-lock.json')).mtimeMs);
  }, testTimeoutFor(STEP_BUDGET_MS.offlineNpmCi));
});
