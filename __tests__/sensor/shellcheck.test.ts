/** bin/run-svc-sensor.sh (and the test stubs) must pass shellcheck, as CI requires. A missing
 *  shellcheck is a failure, not a skip: install it with `apt-get install -y shellcheck`. */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { LAUNCHER } from './harness';

const STUBS = ['container-runtime', 'nproc', 'uname'].map((name) => path.join(__dirname, 'stubs', name));

/** The launcher also passes the optional checks (masked return values, default cases...),
 *  except SC2250, braces around every variable: a house style this codebase does not use. */
const LAUNCHER_CHECKS = ['--enable=all', '--exclude=SC2250'];

function shellcheck(files: readonly string[], checks: readonly string[] = []): { status: number | null; output: string; error?: Error } {
  const result = spawnSync('shellcheck', ['--shell=bash', '--external-sources', ...checks, ...files], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

test('shellcheck is installed', () => {
  const result = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' });
  if (result.error) throw new Error(`shellcheck is not installed (${result.error.message}); install it: apt-get install -y shellcheck`);
  expect(result.status).toBe(0);
});

test.each([
  ['bin/run-svc-sensor.sh', [LAUNCHER], []],
  ['bin/run-svc-sensor.sh, optional checks included', [LAUNCHER], LAUNCHER_CHECKS],
  ['the test stubs', STUBS, []],
])('shellcheck finds nothing in %s', (_name, files, checks) => {
  const result = shellcheck(files, checks);
  expect(result.error).toBeUndefined();
  expect(result.output).toBe('');
  expect(result.status).toBe(0);
});
