/**
 * After a jest run nothing of ours is left in the temporary directory: the global setup gives
 * the run its own directory and the teardown removes it. Checked by running jest itself on two
 * files that leave the most behind (cdktf's Testing.synth, the sensor launcher's sandboxes) with
 * TMPDIR pointed at an empty directory of this test.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const root = path.resolve(__dirname, '..', '..');

let temporary: string;
beforeAll(() => {
  // In the real temporary directory, not the run's, so this run's own teardown is not what empties it.
  temporary = fs.mkdtempSync(path.join(process.env.SVC_TEST_RUN_TMPDIR ? path.dirname(process.env.SVC_TEST_RUN_TMPDIR) : os.tmpdir(), 'svc-hygiene-'));
});
afterAll(() => fs.rmSync(temporary, { recursive: true, force: true }));

test('a jest run of synth and sensor tests leaves only jest\'s own cache in TMPDIR', async () => {
  const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const files = ['__tests__/security-policy/construct.test.ts', '__tests__/sensor/launcher-modes.test.ts'];
  // Its own process group: on a time-out the nested run's processes (sandboxes, emulators) go too.
  const { stdout, stderr } = await runCommand(process.execPath, [jest, '--runInBand', '--json', ...files], {
    cwd: root,
    env: { ...process.env, TMPDIR: temporary, SVC_TEST_RUN_TMPDIR: '' },
    timeoutMs: STEP_BUDGET_MS.nestedJestRun,
  });
  const result = JSON.parse(stdout) as { numPassedTests: number; numFailedTests: number };
  expect({ failed: result.numFailedTests, stderr: result.numFailedTests === 0 ? '' : stderr }).toEqual({ failed: 0, stderr: '' });
  expect(result.numPassedTests).toBeGreaterThan(50);
  // jest_<n> is jest's transform cache, which it places in TMPDIR before any setup runs.
  expect(fs.readdirSync(temporary).filter((name) => !/^jest_/.test(name))).toEqual([]);
}, testTimeoutFor(STEP_BUDGET_MS.nestedJestRun));
