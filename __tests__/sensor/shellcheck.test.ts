/** bin/run-svc-sensor.sh (and the test stubs) must pass shellcheck, as CI requires. A missing
 *  shellcheck is a failure, not a skip: install it with `apt-get install -y shellcheck`. */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { LAUNCHER } from './harness';

const STUBS = ['container-runtime', 'nproc', 'uname'].map((name) => path.join(__dirname, 'stubs', name));

function shellcheck(files: readonly string[]): { status: number | null; output: string; error?: Error } {
  const result = spawnSync('shellcheck', ['--shell=bash', '--external-sources', ...files], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

test('shellcheck is installed', () => {
  const result = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' });
  if (result.error) throw new Error(`shellcheck is not installed (${result.error.message}); install it: apt-get install -y shellcheck`);
  expect(result.status).toBe(0);
});

test.each([
  ['bin/run-svc-sensor.sh', [LAUNCHER]],
  ['the test stubs', STUBS],
])('shellcheck finds nothing in %s', (_name, files) => {
  const result = shellcheck(files);
  expect(result.error).toBeUndefined();
  expect(result.output).toBe('');
  expect(result.status).toBe(0);
});
