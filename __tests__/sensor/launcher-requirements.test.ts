/** Host requirements of bin/run-svc-sensor.sh (Linux, a container runtime that answers,
 *  2 cores, 300 MB, the trace path) and the choice of runtime. Every failure has its own exit
 *  code and happens before any container is stopped, removed or started. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { flagValues, removeSandboxes, REQUIRED, runCall, runLauncher, StubConfig, subcommands } from './harness';

// Trace paths must resolve under /sys, so the trace path cases use sysfs itself.
const MISSING_UNDER_SYS = '/sys/no-such-dir';
const FILE_UNDER_SYS = '/sys/kernel/uevent_seqnum';
const DIRECTORY_UNDER_SYS = '/sys/kernel';

afterAll(removeSandboxes);

test('the test host has the sysfs entries the trace path cases use', () => {
  expect(fs.existsSync(MISSING_UNDER_SYS)).toBe(false);
  expect(fs.statSync(FILE_UNDER_SYS).isFile()).toBe(true);
  expect(fs.statSync(DIRECTORY_UNDER_SYS).isDirectory()).toBe(true);
});

describe('requirement failures', () => {
  const MIN_MEMORY_KB = 300 * 1024;
  const cases: Array<[
    name: string,
    stub: StubConfig,
    extraArgs: () => string[],
    status: number,
    message: RegExp,
    callsBefore: string[],
  ]> = [
    ['not Linux', { operatingSystem: 'Darwin' }, () => [], 3, /runs on Linux only, and this host reports 'Darwin' \(uname -s\)/, []],
    ['no container runtime', { runtimeNames: [] }, () => [], 4, /no container runtime found: install docker or podman/, []],
    ['runtime does not answer', { infoFails: true }, () => [], 5, /'docker info' failed \(exit 1\): Cannot connect to the daemon\. Is it running\?; start the docker service/, ['info']],
    ['one core', { cores: '1' }, () => [], 6, /at least 2 cores and this one has '1' \(nproc\)/, ['info', 'info']],
    ['core count unreadable', { cores: 'many' }, () => [], 6, /at least 2 cores and this one has 'many'/, ['info', 'info']],
    ['memory just under 300 MB', { memTotalKb: MIN_MEMORY_KB - 1 }, () => [], 7, /at least 300 MB of memory and this one has 299 MB \(MemTotal 307199 kB\)/, ['info', 'info']],
    ['memory unreadable', { memTotalKb: null }, () => [], 7, /cannot read MemTotal from .*\/meminfo/, ['info', 'info']],
    ['trace path missing', {}, () => ['-p', MISSING_UNDER_SYS], 8, /trace path '\/sys\/no-such-dir' \(-p\/--trace-path\) does not exist on this host/, ['info', 'info']],
    ['trace path is a file', {}, () => ['--trace-path=' + FILE_UNDER_SYS], 8, /trace path '\/sys\/kernel\/uevent_seqnum' \(-p\/--trace-path\) is not a directory/, ['info', 'info']],
  ];
  test.each(cases)('%s', (_name, stub, extraArgs, status, message, callsBefore) => {
    // A running sensor that must survive every failed check.
    const run = runLauncher([...REQUIRED, ...extraArgs()], { stub: { sensorState: 'running', ...stub } });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(status);
    expect(run.stdout).toBe('');
    expect(subcommands(run)).toEqual(callsBefore);
  });

  test('exactly 2 cores and 300 MB are enough', () => {
    const run = runLauncher(REQUIRED, { stub: { cores: '2', memTotalKb: MIN_MEMORY_KB } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  test.each([
    ['OMP_NUM_THREADS=1', { OMP_NUM_THREADS: '1' }],
    ['OMP_THREAD_LIMIT=1', { OMP_THREAD_LIMIT: '1' }],
  ])('the host cores are counted, not the %s an OpenMP user set for their own programs', (_name, env) => {
    const run = runLauncher(REQUIRED, { stub: { cores: '4' }, env });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/resources: +4 cores/);
  });

  test('an existing trace path given with -p is accepted', () => {
    const run = runLauncher([...REQUIRED, '-p', DIRECTORY_UNDER_SYS]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/trace path: +\/sys\/kernel\n/);
  });
});

describe('container runtime choice', () => {
  const cases: Array<[name: string, installed: string[], env: Record<string, string>, used: string]> = [
    ['docker by default', ['docker'], {}, 'docker'],
    ['docker when both are installed', ['docker', 'podman'], {}, 'docker'],
    ['podman when docker is absent', ['podman'], {}, 'podman'],
    ['SVC_CONTAINER_RUNTIME picks podman over docker', ['docker', 'podman'], { SVC_CONTAINER_RUNTIME: 'podman' }, 'podman'],
    ['SVC_CONTAINER_RUNTIME names another runtime', ['nerdctl'], { SVC_CONTAINER_RUNTIME: 'nerdctl' }, 'nerdctl'],
  ];
  test.each(cases)('%s', (_name, runtimeNames, env, used) => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames, sensorState: 'running' }, env });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(new Set(run.runtimeNamesCalled)).toEqual(new Set([used]));
    expect(run.stdout).toContain(`container runtime: ${used} (Stub version 99.1.0)`);
    expect(run.stdout).toContain(`follow it with: ${used} logs -f svc-sensor-shop-web`);
  });

  test('SVC_CONTAINER_RUNTIME naming a missing command fails with exit 4', () => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker'] }, env: { SVC_CONTAINER_RUNTIME: 'nerdctl' } });
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(/SVC_CONTAINER_RUNTIME='nerdctl' is not a command on PATH/);
    expect(run.calls).toEqual([]);
  });

  test.each([['docker'], ['podman']])('%s: a missing app container is exit 9, a missing sensor is nothing to replace', (runtimeName) => {
    const missingApp = runLauncher(REQUIRED, { stub: { runtimeNames: [runtimeName], appState: 'missing' } });
    expect(missingApp.status).toBe(9);
    expect(missingApp.stderr).toMatch(new RegExp(`no container named 'shop-web' \\(-a/--app-name\\) exists \\('${runtimeName} container inspect' found none\\)`));
    const noSensor = runLauncher(REQUIRED, { stub: { runtimeNames: [runtimeName], sensorState: 'missing' } });
    expect(noSensor.stderr).toBe('');
    expect(noSensor.status).toBe(0);
    expect(subcommands(noSensor).slice(-4)).toEqual(['container inspect', 'run', 'container inspect', 'container inspect']);
  });

  test.each([
    ['a shell builtin', { SVC_CONTAINER_RUNTIME: 'printf' }],
    ['an exported shell function', { SVC_CONTAINER_RUNTIME: 'podman', 'BASH_FUNC_podman%%': '() {  echo fake;\n}' }],
  ])('SVC_CONTAINER_RUNTIME naming %s, not an executable on PATH, fails with exit 4', (_name, env) => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker'] }, env });
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(new RegExp(`SVC_CONTAINER_RUNTIME='${env.SVC_CONTAINER_RUNTIME}' is not a command on PATH`));
    expect(run.calls).toEqual([]);
  });

  test('an exported shell function named like the runtime does not shadow the executable', () => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker'] }, env: { 'BASH_FUNC_docker%%': '() {  echo fake;\n}' } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(subcommands(run)).toEqual(['info', 'info', 'container inspect', '--version', 'image inspect', 'image inspect', 'container inspect', 'container inspect', 'run', 'container inspect', 'container inspect']);
  });

  test('docker without an answering daemon: podman, when it answers, with a warning', () => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker', 'podman'], infoFailsFor: ['docker'] } });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("warning: docker does not answer (docker info: exit 1); using podman, which does (set SVC_CONTAINER_RUNTIME to choose)");
    // docker was asked once; every call after that went to podman, the sensor included.
    expect(run.runtimeNamesCalled[0]).toBe('docker');
    expect(run.runtimeNamesCalled.slice(1).every((name) => name === 'podman')).toBe(true);
    expect(subcommands(run)).toContain('run');
    expect(run.stdout).toMatch(/container runtime: podman/);
  });

  test('docker and podman both silent: exit 5 names docker; SVC_CONTAINER_RUNTIME=docker never falls back', () => {
    const both = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker', 'podman'], infoFailsFor: ['docker', 'podman'] } });
    expect(both.status).toBe(5);
    expect(both.stderr).toMatch(/'docker info' failed \(exit 1\)/);
    const chosen = runLauncher(REQUIRED, { stub: { runtimeNames: ['docker', 'podman'], infoFailsFor: ['docker'] }, env: { SVC_CONTAINER_RUNTIME: 'docker' } });
    expect(chosen.status).toBe(5);
    expect(chosen.runtimeNamesCalled).toEqual(['docker']);
  });

  test.each([
    ['one core', { cores: '1' }, /warning: the sensor host should have at least 2 cores and this one has '1' \(nproc\); starting anyway \(--allow-small-host\)/],
    ['299 MB', { memTotalKb: 299 * 1024 }, /warning: the sensor host should have at least 300 MB of memory and this one has 299 MB; starting anyway \(--allow-small-host\)/],
  ])('--allow-small-host: %s starts the sensor with a warning', (_name, stub, warning) => {
    const run = runLauncher([...REQUIRED, '--allow-small-host'], { stub });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(warning);
    expect(subcommands(run)).toContain('run');
    // Without it, the recommendation is a requirement.
    expect([6, 7]).toContain(runLauncher(REQUIRED, { stub }).status);
  });

  test('a rootless docker daemon (DOCKER_HOST under /run/user): exit 24 before anything else is asked', () => {
    const run = runLauncher(REQUIRED, { env: { DOCKER_HOST: 'unix:///run/user/1000/docker.sock' } });
    expect(run.status).toBe(24);
    expect(run.stderr).toContain('DOCKER_HOST=unix:///run/user/1000/docker.sock is a rootless docker daemon: a rootless runtime cannot grant the sensor CAP_BPF and CAP_PERFMON');
    expect(subcommands(run)).toEqual(['info']);
    expect(runLauncher(REQUIRED, { env: { DOCKER_HOST: 'unix:///var/run/docker.sock' } }).status).toBe(0);
  });

  test('a docker context pointing at a rootless daemon (no DOCKER_HOST): exit 24, from the daemon\'s security options', () => {
    const rootless = { securityOptions: 'name=seccomp,profile=builtin name=rootless name=cgroupns' };
    const run = runLauncher(REQUIRED, { stub: rootless, env: { DOCKER_CONTEXT: 'rootless' } });
    expect(run.status).toBe(24);
    expect(run.stderr).toContain('the docker daemon reached through DOCKER_CONTEXT=rootless is rootless (docker info lists the security option name=rootless): a rootless runtime cannot grant the sensor CAP_BPF and CAP_PERFMON');
    expect(run.calls.slice(0, 2)).toEqual([['info'], ['info', '--format', '{{range .SecurityOptions}}{{.}} {{end}}']]);
    expect(subcommands(run)).toEqual(['info', 'info']);
    // The context chosen with `docker context use` (no variable): the message says where to look.
    expect(runLauncher(REQUIRED, { stub: rootless }).stderr).toContain('reached through the current docker context (docker context show) is rootless');
    // A rootful daemon's options: the sensor starts.
    expect(runLauncher(REQUIRED, { stub: { securityOptions: 'name=seccomp,profile=builtin name=cgroupns' } }).status).toBe(0);
  });

  test.each([
    ['1', true],
    ['0', false],
  ])('SELinux enforce=%s: label separation disabled for the sensor: %s', (enforce, disabled) => {
    const selinux = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-selinux-'));
    try {
      fs.writeFileSync(path.join(selinux, 'enforce'), enforce);
      const run = runLauncher(REQUIRED, { env: { SVC_SENSOR_SELINUX_DIR: selinux } });
      expect(run.status).toBe(0);
      const securityOptions = flagValues(runCall(run), '--security-opt');
      expect(securityOptions.includes('label=disable')).toBe(disabled);
      expect(securityOptions).toContain('no-new-privileges');
      expect(run.stderr.includes('SELinux enforces: the sensor runs with --security-opt label=disable')).toBe(disabled);
      // The key file's volume is not relabelled (no :z/:Z) either way.
      expect(flagValues(runCall(run), '--volume').filter((volume) => /:[zZ]$|,[zZ]$/.test(volume))).toEqual([]);
    } finally {
      fs.rmSync(selinux, { recursive: true, force: true });
    }
  });

  test('a failing podman is reported by its name', () => {
    const run = runLauncher(REQUIRED, { stub: { runtimeNames: ['podman'], infoFails: true } });
    expect(run.status).toBe(5);
    expect(run.stderr).toMatch(/'podman info' failed/);
  });
});
