/** The sensor API key in bin/run-svc-sensor.sh: where it comes from, that it reaches the
 *  runtime only through a 0600 env file that is removed afterwards, and that it never shows up
 *  in an argument, in the output or in the runtime client's environment. */
import { spawn, spawnSync } from 'child_process';
import {
  collectRun,
  createSandbox,
  flagValues,
  LAUNCHER,
  launcherEnvironment,
  LauncherRun,
  realBash,
  removeSandboxes,
  REQUIRED,
  runCall,
  runLauncher,
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

describe('key from SVC_SENSOR_API_KEY', () => {
  test('reaches the sensor only through a 0600 env file, removed afterwards', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' } });
    expect(run.status).toBe(0);
    expectKeyNowhereVisible(run, TEST_KEY);

    const call = runCall(run);
    const envFilePaths = flagValues(call, '--env-file');
    expect(envFilePaths).toHaveLength(1);
    expect(envFilePaths[0].startsWith(run.sandbox.tmpDir + '/')).toBe(true);
    expect(run.envFiles).toEqual([{ path: envFilePaths[0], mode: '600', contents: `SVC_SENSOR_API_KEY=${TEST_KEY}\n` }]);
    expect(flagValues(call, '--env').some((setting) => setting.startsWith('SVC_SENSOR_API_KEY'))).toBe(false);
    expect(run.leftoverTempFiles).toEqual([]);
  });

  test('the env file is removed when the runtime refuses to start the sensor', () => {
    const run = runLauncher(REQUIRED, { stub: { runFails: true } });
    expect(run.status).toBe(17);
    expect(run.envFiles).toHaveLength(1);
    expect(run.leftoverTempFiles).toEqual([]);
    expectKeyNowhereVisible(run, TEST_KEY);
  });

  test('a key file that cannot be created leaves the running sensor alone', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' }, env: { TMPDIR: '/nonexistent/svc-sensor-tmp' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot create the private key file in '\/nonexistent\/svc-sensor-tmp' \(TMPDIR\); set TMPDIR to a writable directory/);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('rm');
    expect(subcommands(run)).not.toContain('run');
    expectKeyNowhereVisible(run, TEST_KEY);
  });

  test('a key with shell and env-file metacharacters is passed literally', () => {
    const key = `k3y with spaces $HOME "quoted" 'single' #hash =eq`;
    const run = runLauncher(REQUIRED, { env: { SVC_SENSOR_API_KEY: key } });
    expect(run.status).toBe(0);
    expect(run.envFiles[0].contents).toBe(`SVC_SENSOR_API_KEY=${key}\n`);
    expectKeyNowhereVisible(run, key);
  });
});

describe('key missing or unusable: exit 14 before anything is touched', () => {
  const cases: Array<[name: string, key: string | undefined, message: RegExp]> = [
    ['unset, stdin not a terminal', undefined, /no sensor API key: set SVC_SENSOR_API_KEY, or run from a terminal/],
    ['empty, stdin not a terminal', '', /no sensor API key: set SVC_SENSOR_API_KEY/],
    ['contains a line break', 'first-line\nSVC_LOG_LEVEL=trace', /contains a line break or another control character/],
  ];
  test.each(cases)('%s', (_name, key, message) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' }, env: { SVC_SENSOR_API_KEY: key } });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(14);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
    expect(run.leftoverTempFiles).toEqual([]);
    if (key) {
      expect(run.stderr).not.toContain('first-line');
      expect(run.stdout).not.toContain('first-line');
    }
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
    expect(run.envFiles).toHaveLength(1);
    expect(run.envFiles[0].mode).toBe('600');
    expect(run.envFiles[0].contents).toBe(`SVC_SENSOR_API_KEY=${key}\n`);
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
