/** scripts/demo-client.ts (npm run demo:client): the management-API client's tour against the emulator. */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { runCommand } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const root = path.join(__dirname, '..', '..');
const runTs = path.join(root, 'bin', 'run-ts.js');

test('runs every step of the client tour against the emulator and cleans up', async () => {
  // Its own process group: on a time-out the emulator it started goes too.
  const result = await runCommand(process.execPath, [runTs, 'scripts/demo-client.ts'], { cwd: root, timeoutMs: STEP_BUDGET_MS.clientDemo });
  expect(result.stderr).not.toMatch(/demo:client failed/);
  expect(result.status).toBe(0);
  const output = result.stdout;
  expect(output).toMatch(/svc-emulator listening on http:\/\/127\.0\.0\.1:\d+/);
  expect(output).toContain('chunk 3/3: 2500/2500 entries');
  expect(output).toMatch(/validation_failed: .*10\.0\.0\.1\/24/);
  expect(output).toMatch(/\[5\] Blocklist[\s\S]*blocklist: 0 entries/);
  expect(output).toContain('block 3: 192.0.2.66 is now on the blacklist (blocks: 3)');
  expect(output).toContain('Lists/new_entry');
  expect(output).toMatch(/blacklist: removed 2502/);
  expect(output).toContain('Done:');
}, testTimeoutFor(STEP_BUDGET_MS.clientDemo));

test('--help describes it without starting anything', () => {
  const result = spawnSync(process.execPath, [runTs, 'scripts/demo-client.ts', '--help'], { cwd: root, encoding: 'utf8' });
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/^Usage: npm run demo:client/);
  expect(result.stdout).not.toContain('listening');
});
