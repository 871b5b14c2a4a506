/** The trace path (-p) is mounted into a container that has SYS_ADMIN, so the launcher mounts
 *  the path the kernel reaches, not the text given: '.', '..', repeated slashes and symlinks
 *  are resolved, and a path that resolves outside /sys is refused (exit 18) before any
 *  container is stopped, removed or started. Issue 18: `-p /sys/../` mounted the host's /. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expectedTraceVolumes, traceVolumes, flagValues, removeSandboxes, REQUIRED, runCall, runLauncher, subcommands } from './harness';

const EXIT_TRACE_PATH_OUTSIDE_SYS = 18;

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-trace-path-'));
  fs.symlinkSync('/', path.join(scratch, 'to-root'));
  fs.symlinkSync('/sys/kernel', path.join(scratch, 'to-sys-kernel'));
  fs.symlinkSync('/sys/kernel/..', path.join(scratch, 'to-sys-through-dot-dot'));
  fs.mkdirSync(path.join(scratch, 'real-dir'));
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
  removeSandboxes();
});

/** A sysfs directory whose name has ':' (ACPI and PCI devices have one on most hosts). */
function sysDirectoryWithColon(): string | undefined {
  const name = fs.readdirSync('/sys/devices').find((entry) => entry.includes(':'));
  return name === undefined ? undefined : path.join('/sys/devices', name);
}

test('the test host has the sysfs directories these tests use', () => {
  for (const directory of ['/sys', '/sys/kernel', '/sys/kernel/tracing', '/proc']) {
    expect({ directory, isDirectory: fs.statSync(directory).isDirectory() }).toEqual({ directory, isDirectory: true });
  }
  expect(sysDirectoryWithColon()).toBeDefined();
});

describe('an accepted trace path is mounted, passed and printed in its resolved form', () => {
  const cases: Array<[name: string, given: () => string, resolved: string]> = [
    ['/sys/kernel/../kernel// (dot-dot, repeated and trailing slashes)', () => '/sys/kernel/../kernel//', '/sys/kernel'],
    ['/sys/ (trailing slash)', () => '/sys/', '/sys'],
    ['/sys/. (dot)', () => '/sys/.', '/sys'],
    ['/sys//kernel/./tracing', () => '/sys//kernel/./tracing', '/sys/kernel/tracing'],
    ['a symlink to /sys/kernel', () => path.join(scratch, 'to-sys-kernel'), '/sys/kernel'],
    ['a symlink to /sys/kernel, trailing slash', () => path.join(scratch, 'to-sys-kernel') + '/', '/sys/kernel'],
    ['a symlink to /sys/kernel/..', () => path.join(scratch, 'to-sys-through-dot-dot'), '/sys'],
  ];
  test.each(cases)('%s', (_name, given, resolved) => {
    const run = runLauncher([...REQUIRED, '-p', given()]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(traceVolumes(call)).toEqual(expectedTraceVolumes(resolved));
    expect(flagValues(call, '--env')).toContain(`SVC_TRACE_PATH=${resolved}`);
    expect(run.stdout).toContain(`  trace path:        ${resolved}\n`);
  });
});

describe('a trace path that resolves outside /sys is refused before any container is touched', () => {
  const cases: Array<[name: string, given: () => string, resolved: () => string]> = [
    ['/sys/../', () => '/sys/../', () => '/'],
    ['/sys/kernel/..//../', () => '/sys/kernel/..//../', () => '/'],
    ['/', () => '/', () => '/'],
    ['//', () => '//', () => '/'],
    ['/proc', () => '/proc', () => '/proc'],
    ['/sys/kernel/../../proc', () => '/sys/kernel/../../proc', () => '/proc'],
    ['a symlink to /', () => path.join(scratch, 'to-root'), () => '/'],
    ['a symlink to /, trailing slash', () => path.join(scratch, 'to-root') + '/', () => '/'],
    ['a symlink to /sys/kernel, then ../..', () => path.join(scratch, 'to-sys-kernel') + '/../..', () => '/'],
    ['a plain directory outside /sys', () => path.join(scratch, 'real-dir'), () => path.join(fs.realpathSync(scratch), 'real-dir')],
  ];
  test.each(cases)('%s', (_name, given, resolved) => {
    // A running sensor that must survive the refusal.
    const run = runLauncher([...REQUIRED, '-p', given()], { stub: { sensorState: 'running' } });
    expect(run.stderr).toBe(
      `run-svc-sensor.sh: error: trace path '${given()}' (-p/--trace-path) resolves to '${resolved()}', outside /sys; ` +
        'the sensor only needs kernel tracing under /sys, e.g. /sys or /sys/kernel/tracing\n',
    );
    expect(run.status).toBe(EXIT_TRACE_PATH_OUTSIDE_SYS);
    expect(run.stdout).toBe('');
    expect(subcommands(run)).toEqual(['info', 'info']);
  });

  test('the --trace-path=VALUE form is refused the same way', () => {
    const run = runLauncher([...REQUIRED, '--trace-path=/sys/../'], { stub: { sensorState: 'running' } });
    expect(run.status).toBe(EXIT_TRACE_PATH_OUTSIDE_SYS);
    expect(run.stderr).toContain("trace path '/sys/../' (-p/--trace-path) resolves to '/', outside /sys");
    expect(subcommands(run)).toEqual(['info', 'info']);
  });

  test('a missing or non-directory path is still reported as such (exit 8), wherever it points', () => {
    const missing = runLauncher([...REQUIRED, '-p', '/sys/../no-such-dir']);
    expect(missing.status).toBe(8);
    expect(missing.stderr).toMatch(/trace path '\/sys\/\.\.\/no-such-dir' \(-p\/--trace-path\) does not exist on this host/);
    const file = runLauncher([...REQUIRED, '-p', '/sys/../proc/version']);
    expect(file.status).toBe(8);
    expect(file.stderr).toMatch(/trace path '\/sys\/\.\.\/proc\/version' \(-p\/--trace-path\) is not a directory/);
  });
});

test("a path that resolves to a sysfs name with ':' is refused (exit 2): --volume would split it", () => {
  const target = sysDirectoryWithColon()!;
  const link = path.join(scratch, 'to-colon-dir');
  fs.symlinkSync(target, link);
  const run = runLauncher([...REQUIRED, '-p', link], { stub: { sensorState: 'running' } });
  expect(run.stderr).toBe(
    `run-svc-sensor.sh: error: trace path '${link}' (-p/--trace-path) resolves to '${target}', which has ':' or ','; ` +
      "the runtime's --volume cannot mount that: give a directory whose resolved path has neither, e.g. /sys/kernel/tracing\n",
  );
  expect(run.status).toBe(2);
  expect(subcommands(run)).toEqual(['info', 'info']);
});
