/** The sensor API key in bin/run-svc-sensor.sh: where it comes from; that it reaches the
 *  sensor as a 0600 file in a private directory on a tmpfs (or, opted in, through a 0600 env
 *  file removed at once); that the launcher drops it from its own environment; and that it never
 *  shows up in an argument, the output, a trace or the environment of any process started. */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  collectRun,
  createSandbox,
  flagValues,
  KEY_FILE_IN_CONTAINER,
  LAUNCHER,
  launcherEnvironment,
  LauncherRun,
  realBash,
  removeSandboxes,
  REQUIRED,
  runCall,
  runLauncher,
  startBlockedLauncher,
  StubConfig,
  subcommands,
  TEST_KEY,
} from './harness';
import { track } from '../support/child-processes';

afterAll(removeSandboxes);

function expectKeyNowhereVisible(run: LauncherRun, key: string): void {
  for (const call of run.calls) {
    for (const argument of call) expect(argument).not.toContain(key);
  }
  expect(run.stdout).not.toContain(key);
  expect(run.stderr).not.toContain(key);
  expect(run.runtimeSawKeyInEnvironment).toBe(false);
  // Helper processes too (mktemp, rm, timeout...): a `printf "$key" | tool` or `tool "$key"`
  // would show the key in the process list. The list is not empty, so the check has teeth.
  expect(run.toolCalls.map((call) => call[0])).toContain('mktemp');
  for (const call of run.toolCalls) {
    for (const argument of call) expect(argument).not.toContain(key);
  }
  expect(run.toolsThatSawKey).toEqual([]);
}

/** The key file of a run: its path on the host, from the --volume of the run call. */
function mountedKeyFile(run: LauncherRun): string {
  const volumes = flagValues(runCall(run), '--volume').filter((volume) => volume.endsWith(`:${KEY_FILE_IN_CONTAINER}:ro`));
  expect(volumes).toHaveLength(1);
  return volumes[0].slice(0, -`:${KEY_FILE_IN_CONTAINER}:ro`.length);
}

describe('key delivery file (default): a read-only file on a tmpfs, never the container environment', () => {
  test('the sensor gets the path; the 0600 file holds the key and stays for the running sensor', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' } });
    expect(run.status).toBe(0);
    expectKeyNowhereVisible(run, TEST_KEY);

    const call = runCall(run);
    const keyFile = mountedKeyFile(run);
    expect(keyFile).toMatch(new RegExp(`^${run.sandbox.secretDir}/svc-sensor-shop-web/[A-Za-z0-9]{10}/key$`));
    expect(run.keyFiles).toEqual([{ path: keyFile, mode: '600', contents: TEST_KEY }]);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(TEST_KEY);
    expect((fs.statSync(path.dirname(keyFile)).mode & 0o777).toString(8)).toBe('700');
    expect(flagValues(call, '--env')).toContain(`SVC_SENSOR_API_KEY_FILE=${KEY_FILE_IN_CONTAINER}`);
    expect(flagValues(call, '--env').some((setting) => setting.startsWith('SVC_SENSOR_API_KEY='))).toBe(false);
    expect(flagValues(call, '--env-file')).toEqual([]);
    expect(run.leftoverTempFiles).toEqual([]);
  });

  test('a second run replaces the key directory: only the new sensor\'s stays', () => {
    const sandbox = createSandbox({ sensorState: 'running' });
    const stale = path.join(sandbox.secretDir, 'svc-sensor-shop-web', 'KilledRun1');
    const otherSensor = path.join(sandbox.secretDir, 'svc-sensor-shop-web.2', 'Keep000001');
    for (const directory of [stale, otherSensor]) {
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(path.join(directory, 'key'), 'old-key');
    }
    const result = spawnSync(realBash(), [LAUNCHER, ...REQUIRED], { env: launcherEnvironment(sandbox, { stub: { sensorState: 'running' } }), input: '', encoding: 'utf8' });
    const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
    expect(run.status).toBe(0);
    const keyFile = mountedKeyFile(run);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(otherSensor)).toBe(true);
    expect(run.keyStoreEntries).toEqual(
      ['svc-sensor-shop-web', path.relative(sandbox.secretDir, path.dirname(keyFile)), path.relative(sandbox.secretDir, keyFile), 'svc-sensor-shop-web.2', 'svc-sensor-shop-web.2/Keep000001', 'svc-sensor-shop-web.2/Keep000001/key'].sort(),
    );
    fs.rmSync(sandbox.root, { recursive: true, force: true });
  });

  test('the key directory is removed when the runtime refuses to start the sensor', () => {
    const run = runLauncher(REQUIRED, { stub: { runFails: true } });
    expect(run.status).toBe(17);
    expect(run.keyFiles).toHaveLength(1);
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
    expectKeyNowhereVisible(run, TEST_KEY);
  });

  test('a key with shell metacharacters is written literally, without a line break', () => {
    const key = `k3y with spaces $HOME "quoted" 'single' #hash =eq`;
    const run = runLauncher(REQUIRED, { env: { SVC_SENSOR_API_KEY: key } });
    expect(run.status).toBe(0);
    expect(run.keyFiles[0].contents).toBe(key);
    expectKeyNowhereVisible(run, key);
  });
});

describe('an unsafe key directory: exit 20 before the running sensor is touched', () => {
  const cases: Array<[name: string, prepare: (secretDir: string) => string, message: RegExp]> = [
    ['not on a tmpfs', (secretDir) => path.join(path.dirname(LAUNCHER), '..', 'node_modules', '.svc-sensor-test-keys-not-tmpfs'), /is on '[^']+', not a tmpfs, so the key would reach a disk/],
    ['open to others (mode 755)', (secretDir) => (fs.chmodSync(secretDir, 0o755), secretDir), /must be a directory \(not a symlink\) owned by this user \(uid 0\) with mode 700; it is owner '0', mode '755'/],
    ['a symlink', (secretDir) => {
      const link = `${secretDir}-link`;
      fs.symlinkSync(secretDir, link);
      return link;
    }, /must be a directory \(not a symlink\)/],
    ['relative', () => 'keys', /SVC_SENSOR_SECRET_DIR='keys' is not an absolute path/],
  ];
  test.each(cases)('%s', (_name, prepare, message) => {
    const sandbox = createSandbox({ sensorState: 'running' });
    const directory = prepare(sandbox.secretDir);
    try {
      const env = { ...launcherEnvironment(sandbox, { stub: { sensorState: 'running' } }), SVC_SENSOR_SECRET_DIR: directory };
      const result = spawnSync(realBash(), [LAUNCHER, ...REQUIRED], { env, input: '', encoding: 'utf8' });
      const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
      expect(run.stderr).toMatch(message);
      expect(run.status).toBe(20);
      expect(subcommands(run)).not.toContain('stop');
      expect(subcommands(run)).not.toContain('run');
    } finally {
      if (directory !== sandbox.secretDir && directory.startsWith('/')) fs.rmSync(directory, { recursive: true, force: true });
      fs.rmSync(sandbox.root, { recursive: true, force: true });
    }
  });
});

describe('key delivery env (opt-in): a 0600 env file, removed at once, and a warning', () => {
  test('reaches the runtime only through the env file', () => {
    const run = runLauncher([...REQUIRED, '--key-delivery', 'env'], { stub: { sensorState: 'running' } });
    expect(run.status).toBe(0);
    expectKeyNowhereVisible(run, TEST_KEY);
    expect(run.stderr).toBe('run-svc-sensor.sh: warning: --key-delivery env: the key becomes part of the container configuration, which every user allowed to run docker inspect can read\n');
    const call = runCall(run);
    const envFilePaths = flagValues(call, '--env-file');
    expect(envFilePaths).toHaveLength(1);
    expect(envFilePaths[0].startsWith(run.sandbox.tmpDir + '/')).toBe(true);
    expect(run.envFiles).toEqual([{ path: envFilePaths[0], mode: '600', contents: `SVC_SENSOR_API_KEY=${TEST_KEY}\n` }]);
    expect(run.keyFiles).toEqual([]);
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
    expect(run.leftoverTempFiles).toEqual([]);
  });

  test('the env file is removed when the runtime refuses to start the sensor', () => {
    const run = runLauncher([...REQUIRED, '--key-delivery=env'], { stub: { runFails: true } });
    expect(run.status).toBe(17);
    expect(run.envFiles).toHaveLength(1);
    expect(run.leftoverTempFiles).toEqual([]);
    expectKeyNowhereVisible(run, TEST_KEY);
  });

  test('an env file that cannot be created leaves the running sensor alone', () => {
    const run = runLauncher([...REQUIRED, '--key-delivery=env'], { stub: { sensorState: 'running' }, env: { TMPDIR: '/nonexistent/svc-sensor-tmp' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot create the private key file in '\/nonexistent\/svc-sensor-tmp' \(TMPDIR\); set TMPDIR to a writable directory/);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
    expectKeyNowhereVisible(run, TEST_KEY);
  });

  test('--key-delivery other than file or env: exit 2', () => {
    const run = runLauncher([...REQUIRED, '--key-delivery=secret']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/invalid value 'secret' for --key-delivery: use file \(the default/);
    expect(run.calls).toEqual([]);
  });
});

describe('--key-file', () => {
  test('the whole file, less one final line break, wins over the environment', () => {
    const sandbox = createSandbox();
    const file = path.join(sandbox.root, 'sensor-key');
    fs.writeFileSync(file, 'sk-from-the-file\n', { mode: 0o600 });
    const env = { ...launcherEnvironment(sandbox, {}), SVC_SENSOR_API_KEY: 'sk-from-the-environment' };
    const result = spawnSync(realBash(), [LAUNCHER, ...REQUIRED, '--key-file', file], { env, input: '', encoding: 'utf8' });
    const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
    expect(run.status).toBe(0);
    expect(run.keyFiles[0].contents).toBe('sk-from-the-file');
    expectKeyNowhereVisible(run, 'sk-from-the-file');
    fs.rmSync(sandbox.root, { recursive: true, force: true });
  });

  test('a missing file: exit 2 naming it', () => {
    const run = runLauncher([...REQUIRED, '--key-file=/nonexistent/sensor-key']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/invalid value '\/nonexistent\/sensor-key' for --key-file: no such file/);
  });

  test('a file of two lines: exit 14, the key not shown', () => {
    const sandbox = createSandbox();
    const file = path.join(sandbox.root, 'sensor-key');
    fs.writeFileSync(file, 'first-line\nsecond-line\n');
    const result = spawnSync(realBash(), [LAUNCHER, ...REQUIRED, '--key-file', file], { env: launcherEnvironment(sandbox, {}), input: '', encoding: 'utf8' });
    expect(result.status).toBe(14);
    expect(result.stderr).toMatch(/contains a line break/);
    expect(result.stderr + result.stdout).not.toContain('first-line');
    fs.rmSync(sandbox.root, { recursive: true, force: true });
  });
});

describe('the launcher itself', () => {
  test('under bash -x (a support trace) the key is in no line of the trace', () => {
    for (const delivery of ['file', 'env']) {
      const sandbox = createSandbox();
      const result = spawnSync(realBash(), ['-x', LAUNCHER, ...REQUIRED, '--key-delivery', delivery], { env: launcherEnvironment(sandbox, {}), input: '', encoding: 'utf8' });
      const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
      expect(run.status).toBe(0);
      // It is a trace, of both starts (the second after the key left the environment)...
      expect(run.stderr).toMatch(/^\+ main /m);
      expect(run.stderr.match(/^\+ set -euo pipefail$/gm)).toHaveLength(2);
      expect(run.stderr).toMatch(/^\+ +runtime=docker$/m);
      // ...that names the key's variables but never shows the key.
      expect(run.stderr).toContain('pause_tracing');
      expect(run.stderr).not.toContain(TEST_KEY);
      expectKeyNowhereVisible(run, TEST_KEY);
      fs.rmSync(sandbox.root, { recursive: true, force: true });
    }
  });

  test('drops the key from its own environment (/proc/<pid>/environ) by starting again', async () => {
    const launcher = startBlockedLauncher(REQUIRED, { stub: { blockIn: 'info' } });
    await launcher.blocked();
    const environ = fs.readFileSync(`/proc/${launcher.child.pid}/environ`, 'utf8').split('\0');
    const cmdline = fs.readFileSync(`/proc/${launcher.child.pid}/cmdline`, 'utf8');
    launcher.release();
    const run = await launcher.finished;
    expect(run.status).toBe(0);
    // The same process (pid), the script again, no key; the key still reached the sensor.
    expect(cmdline).toContain('run-svc-sensor.sh');
    // The marker that says where the key went (a file descriptor number) stays.
    expect(environ.filter((entry) => entry.startsWith('SVC_SENSOR_')).map((entry) => entry.split('=')[0]).sort()).toEqual([
      'SVC_SENSOR_HEALTH_WAIT',
      'SVC_SENSOR_IMAGE_REPOSITORY',
      'SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY',
      'SVC_SENSOR_INTERNAL_KEY_FD',
      'SVC_SENSOR_PROC_DIR',
      'SVC_SENSOR_SECRET_DIR',
      'SVC_SENSOR_SELINUX_DIR',
    ]);
    expect(environ.join('\n')).not.toContain(TEST_KEY);
    expect(run.keyFiles[0].contents).toBe(TEST_KEY);
  });
});

describe('key missing or unusable: exit 14 before anything is touched', () => {
  const cases: Array<[name: string, key: string | undefined, message: RegExp]> = [
    ['unset, stdin not a terminal', undefined, /no sensor API key: give --key-file, set SVC_SENSOR_API_KEY, or run from a terminal/],
    ['empty, stdin not a terminal', '', /no sensor API key: give --key-file, set SVC_SENSOR_API_KEY/],
    ['contains a line break', 'first-line\nSVC_LOG_LEVEL=trace', /contains a line break or another control character/],
  ];
  test.each(cases)('%s', (_name, key, message) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' }, env: { SVC_SENSOR_API_KEY: key } });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(14);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
    expect(run.leftoverTempFiles).toEqual([]);
    // Only the (empty) directory of the sensor name, which the run locked.
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
    if (key) {
      expect(run.stderr).not.toContain('first-line');
      expect(run.stdout).not.toContain('first-line');
    }
  });
});

describe('the management API key given as the sensor key: exit 14, naming both settings and neither key', () => {
  const MANAGEMENT_KEY = 'mk-live-0a1b2c3d4e5f';

  /** A sandbox file holding a key, as a user's key file would. */
  function keyFile(name: string, contents: string): { path: string; remove(): void } {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-key-'));
    const file = path.join(directory, name);
    fs.writeFileSync(file, contents, { mode: 0o600 });
    return { path: file, remove: () => fs.rmSync(directory, { recursive: true, force: true }) };
  }

  function expectRefused(run: LauncherRun, message: string): void {
    expect(run.stderr).toContain(message);
    expect(run.status).toBe(14);
    for (const mutating of ['rename', 'stop', 'rm', 'run', 'start']) expect(subcommands(run)).not.toContain(mutating);
    expect(run.stdout + run.stderr).not.toContain(MANAGEMENT_KEY);
    // No process the launcher started had the management key in its arguments.
    for (const call of [...run.calls, ...run.toolCalls]) for (const argument of call) expect(argument).not.toContain(MANAGEMENT_KEY);
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
  }

  test.each([['SVC_API_KEY'], ['TF_VAR_api_key']])('the sensor key from SVC_SENSOR_API_KEY equals %s', (variable) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' }, env: { SVC_SENSOR_API_KEY: MANAGEMENT_KEY, [variable]: MANAGEMENT_KEY } });
    expectRefused(run, `the sensor API key (from SVC_SENSOR_API_KEY) is the management API key (the one in ${variable}): a sensor authenticates with a sensor API key, a different key type`);
  });

  test('the sensor key from --key-file equals the key in --management-key-file (which may end in a line break)', () => {
    const sensorKey = keyFile('sensor-key', `${MANAGEMENT_KEY}\n`);
    const managementKey = keyFile('management-key', `${MANAGEMENT_KEY}\n`);
    try {
      const run = runLauncher([...REQUIRED, '--key-file', sensorKey.path, '--management-key-file', managementKey.path], { stub: { sensorState: 'running' }, env: { SVC_SENSOR_API_KEY: undefined } });
      expectRefused(run, `the sensor API key (from --key-file ${sensorKey.path}) is the management API key (the one in --management-key-file ${managementKey.path})`);
    } finally {
      sensorKey.remove();
      managementKey.remove();
    }
  });

  test('a different management key anywhere: the sensor starts, and no runtime call gets SVC_API_KEY', () => {
    const managementKey = keyFile('management-key', 'mk-other-key');
    try {
      const run = runLauncher([...REQUIRED, '--management-key-file', managementKey.path], { env: { SVC_API_KEY: MANAGEMENT_KEY, TF_VAR_api_key: MANAGEMENT_KEY } });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(subcommands(run)).toContain('run');
      expect(fs.existsSync(path.join(run.sandbox.recordDir, 'runtime-saw-management-key'))).toBe(false);
    } finally {
      managementKey.remove();
    }
  });

  test('--management-key-file naming no file: exit 2 before anything is asked', () => {
    const run = runLauncher([...REQUIRED, '--management-key-file', '/nonexistent/management-key']);
    expect(run.stderr).toContain("invalid value '/nonexistent/management-key' for --management-key-file: no such file");
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });
});

/** Runs the launcher on a pseudo-terminal (util-linux `script`), typing `typed` once the
 *  prompt has appeared. The terminal merges stdout and stderr into `output`. */
function runOnTerminal(typed: string, stub: StubConfig = {}, thenShowTerminalSettings = false): Promise<LauncherRun & { output: string }> {
  const sandbox = createSandbox(stub);
  const env = launcherEnvironment(sandbox, { env: { SVC_SENSOR_API_KEY: undefined } });
  const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
  let command = [realBash(), LAUNCHER, ...REQUIRED].map(quote).join(' ');
  if (thenShowTerminalSettings) {
    // After the launcher, on the same terminal: `stty -a` shows whether echo is back on.
    const stty = spawnSync('/bin/sh', ['-c', 'command -v stty'], { encoding: 'utf8' }).stdout.trim();
    command += `; status=$?; echo TERMINAL-SETTINGS; ${quote(stty)} -a; exit "$status"`;
  }
  const scriptPath = spawnSync('/bin/sh', ['-c', 'command -v script'], { encoding: 'utf8' }).stdout.trim();
  if (!scriptPath) throw new Error('this test needs util-linux script (Debian package bsdutils) to get a terminal');

  return new Promise((resolve, reject) => {
    const child = track(spawn(scriptPath, ['-q', '-e', '-c', command, '/dev/null'], { env: { ...env, SHELL: realBash() } }));
    let output = '';
    let typedYet = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!typedYet && output.includes('Sensor API key (input hidden): ')) {
        typedYet = true;
        child.stdin.write(typed);
        // Ctrl-C is pressed again until the launcher exits, as a user would: bash's `read` can
        // miss a trapped SIGINT that lands just before it blocks in read(2) (seen under load).
        if (typed === '\x03') {
          // The terminal may be gone between the launcher's exit and 'close': that write fails quietly.
          child.stdin.on('error', () => undefined);
          const again = setInterval(() => child.stdin.write(typed), 500);
          child.once('close', () => clearInterval(again));
        }
      }
    });
    child.on('error', reject);
    child.on('close', (status) => {
      child.stdin.destroy();
      const run = collectRun(sandbox, status, output, '');
      resolve({ ...run, output });
    });
  });
}

describe('key typed on a terminal', () => {
  test('is asked for without echo and used', async () => {
    const key = 'typed-key-4f3e2d1c';
    const run = await runOnTerminal(`${key}\n`);
    expect(run.status).toBe(0);
    expect(run.output).toContain('Sensor API key (input hidden): ');
    expect(run.output).toMatch(/container id: +0f1e2d3c/);
    expect(run.output).not.toContain(key);
    expect(run.keyFiles).toHaveLength(1);
    expect(run.keyFiles[0].mode).toBe('600');
    expect(run.keyFiles[0].contents).toBe(key);
    expect(run.leftoverTempFiles).toEqual([]);
    for (const call of run.calls) for (const argument of call) expect(argument).not.toContain(key);
    for (const call of run.toolCalls) for (const argument of call) expect(argument).not.toContain(key);
  });

  test('Ctrl-C at the prompt exits 130 and leaves the terminal echoing', async () => {
    const run = await runOnTerminal('\x03', { sensorState: 'running' }, true);
    expect(run.status).toBe(130);
    const settings = run.output.slice(run.output.indexOf('TERMINAL-SETTINGS'));
    expect(settings).toMatch(/(^|\s)echo(\s|$)/m);
    expect(settings).not.toMatch(/(^|\s)-echo(\s|$)/m);
    expect(subcommands(run)).not.toContain('stop');
    expect(run.leftoverTempFiles).toEqual([]);
  });

  test('an empty answer fails with exit 14', async () => {
    const run = await runOnTerminal('\n', { sensorState: 'running' });
    expect(run.status).toBe(14);
    expect(run.output).toMatch(/the sensor API key is empty/);
    expect(subcommands(run)).not.toContain('stop');
  });
});
