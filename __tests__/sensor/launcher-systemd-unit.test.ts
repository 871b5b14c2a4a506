/** --systemd-unit: the sensor as a systemd unit under podman (quadlet from podman 4.4, a plain
 *  .service before). The unit's podman command is the launcher's own (same network, privileges,
 *  mounts, limits, settings), checked against the launcher's `run` in the same sandbox; the key
 *  reaches it as a systemd credential, never in the file; `systemd-analyze verify` checks the
 *  .service. No systemd runs as PID 1 on the test machine, so no unit is started here: the
 *  real-runtime test runs the unit's ExecStart under podman by hand. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KEY_FILE_IN_CONTAINER, removeSandboxes, REQUIRED, runCall, runLauncher, subcommands, type LauncherRun, type StubConfig } from './harness';
import { splitSystemdCommandLine, unitSections } from './systemd-unit';

const workspaces: string[] = [];
afterAll(() => {
  removeSandboxes();
  for (const workspace of workspaces.splice(0)) fs.rmSync(workspace, { recursive: true, force: true });
});

/** A key with the characters systemd and shells treat specially, so a leak would be visible. */
const SENSOR_KEY = 'sk-unit-%n-$HOME-"quoted"';

interface Workspace {
  readonly unitDirectory: string;
  readonly keyFile: string;
}

function workspace(): Workspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-unit-'));
  workspaces.push(root);
  const unitDirectory = path.join(root, 'units');
  fs.mkdirSync(unitDirectory);
  const keyFile = path.join(root, 'sensor-key');
  fs.writeFileSync(keyFile, `${SENSOR_KEY}\n`, { mode: 0o600 });
  return { unitDirectory, keyFile };
}

const PODMAN: StubConfig = { runtimeNames: ['podman'] };

function writeUnit(place: Workspace, args: readonly string[], stub: StubConfig = PODMAN): LauncherRun {
  return runLauncher([...args, '--systemd-unit', place.unitDirectory, '--key-file', place.keyFile], { stub, env: { SVC_SENSOR_API_KEY: undefined } });
}

/** The sensor's arguments of the launcher's own run (everything after the lifecycle options
 *  `run --detach --name N --restart unless-stopped`), with its key file's path replaced and the
 *  --ensure labels (which a unit has no use for) left out. */
function launcherSensorArguments(args: readonly string[], stub: StubConfig = PODMAN): string[] {
  const run = runLauncher(args, { stub });
  expect(run.status).toBe(0);
  const call = runCall(run);
  expect(call.slice(0, 6)).toEqual(['run', '--detach', '--name', 'svc-sensor-shop-web', '--restart', 'unless-stopped']);
  const sensor: string[] = [];
  const rest = call.slice(6);
  for (let index = 0; index < rest.length; index++) {
    if (rest[index] === '--label' && /^svc\.sensor\.(config|key-fingerprint)=/.test(rest[index + 1])) {
      index++;
      continue;
    }
    sensor.push(rest[index].endsWith(`:${KEY_FILE_IN_CONTAINER}:ro`) ? `<key file>:${KEY_FILE_IN_CONTAINER}:ro` : rest[index]);
  }
  return sensor;
}

/** The unit's sensor arguments with its credential path standing for the key file. */
function unitSensorArguments(words: readonly string[]): string[] {
  return words.map((word) => (word === `%d/svc-sensor-api-key:${KEY_FILE_IN_CONTAINER}:ro` ? `<key file>:${KEY_FILE_IN_CONTAINER}:ro` : word));
}

function expectNoKey(run: LauncherRun, unitText: string): void {
  expect(unitText).not.toContain(SENSOR_KEY);
  expect(unitText).not.toContain('sk-unit');
  expect(run.stdout + run.stderr).not.toContain('sk-unit');
  for (const call of run.calls) for (const argument of call) expect(argument).not.toContain('sk-unit');
}

describe('podman before 4.4 (no quadlet): a plain .service', () => {
  test('container mode: written with the launcher\'s own podman arguments, the key as a credential, bound to the app\'s unit', () => {
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const unitFile = path.join(place.unitDirectory, 'svc-sensor-shop-web.service');
    expect(fs.readdirSync(place.unitDirectory)).toEqual(['svc-sensor-shop-web.service']);
    expect(fs.statSync(unitFile).mode & 0o777).toBe(0o644);
    expect(run.stdout).toContain(`Wrote ${unitFile}: the service unit svc-sensor-shop-web.service (podman 4.3.1). The sensor was not started`);
    expect(run.stdout).toContain('systemctl daemon-reload && systemctl enable --now svc-sensor-shop-web.service');
    // Nothing started, stopped or renamed.
    for (const mutating of ['run', 'stop', 'rename', 'rm', 'start']) expect(subcommands(run)).not.toContain(mutating);

    const text = fs.readFileSync(unitFile, 'utf8');
    expectNoKey(run, text);
    const unit = unitSections(text);
    expect(unit.Unit.BindsTo).toEqual(['shop-web.service']);
    expect(unit.Unit.After).toEqual(['shop-web.service']);
    expect(unit.Install.WantedBy).toEqual(['shop-web.service']);
    expect(unit.Service.LoadCredential).toEqual([`svc-sensor-api-key:${place.keyFile}`]);
    expect(unit.Service.Restart).toEqual(['on-failure']);
    expect(unit.Service.Environment).toEqual(['PODMAN_SYSTEMD_UNIT=%n']);

    const execStart = splitSystemdCommandLine(unit.Service.ExecStart[0]);
    const podman = execStart[0];
    expect(path.basename(podman)).toBe('podman');
    expect(execStart.slice(1, 11)).toEqual(['run', '--cidfile=%t/%n.ctr-id', '--cgroups=no-conmon', '--rm', '--sdnotify=conmon', '--replace', '--detach', '--name', 'svc-sensor-shop-web', '--stop-timeout']);
    expect(execStart[11]).toBe('30');
    // No --restart: systemd restarts the unit (Restart=on-failure).
    expect(execStart).not.toContain('--restart');
    expect(unitSensorArguments(execStart.slice(12))).toEqual(launcherSensorArguments(REQUIRED));
    expect(splitSystemdCommandLine(unit.Service.ExecStop[0])).toEqual([podman, 'stop', '--ignore', '-t', '30', '--cidfile=%t/%n.ctr-id']);
  });

  test('--stop-timeout: the container\'s stop timeout, ExecStop= and the unit\'s own stop limit follow the grace period', () => {
    const stopSettings = (args: readonly string[]) => {
      const place = workspace();
      const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web', ...args]);
      expect(run.status).toBe(0);
      const unit = unitSections(fs.readFileSync(path.join(place.unitDirectory, 'svc-sensor-shop-web.service'), 'utf8'));
      const execStart = splitSystemdCommandLine(unit.Service.ExecStart[0]);
      return { stopTimeout: execStart.slice(10, 12), execStop: splitSystemdCommandLine(unit.Service.ExecStop[0]).slice(1, 5), timeoutStopSec: unit.Service.TimeoutStopSec };
    };
    expect(stopSettings([])).toEqual({ stopTimeout: ['--stop-timeout', '30'], execStop: ['stop', '--ignore', '-t', '30'], timeoutStopSec: ['90'] });
    expect(stopSettings(['--stop-timeout', '120'])).toEqual({ stopTimeout: ['--stop-timeout', '120'], execStop: ['stop', '--ignore', '-t', '120'], timeoutStopSec: ['180'] });
  });

  test('host mode without --app-unit: after the network, wanted by multi-user.target', () => {
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '-H']);
    expect(run.status).toBe(0);
    const unit = unitSections(fs.readFileSync(path.join(place.unitDirectory, 'svc-sensor-shop-web.service'), 'utf8'));
    expect(unit.Unit.After).toEqual(['network-online.target']);
    expect(unit.Unit.BindsTo).toBeUndefined();
    expect(unit.Install.WantedBy).toEqual(['multi-user.target']);
    const execStart = splitSystemdCommandLine(unit.Service.ExecStart[0]);
    expect(unitSensorArguments(execStart.slice(12))).toEqual(launcherSensorArguments([...REQUIRED, '-H']));
  });

  test('the app container\'s PODMAN_SYSTEMD_UNIT label names the app\'s unit when --app-unit is not given', () => {
    const place = workspace();
    const run = writeUnit(place, REQUIRED, { ...PODMAN, appUnitLabel: 'container-shop-web.service' });
    expect(run.status).toBe(0);
    const unit = unitSections(fs.readFileSync(path.join(place.unitDirectory, 'svc-sensor-shop-web.service'), 'utf8'));
    expect(unit.Unit.BindsTo).toEqual(['container-shop-web.service']);
  });

  test('values with quotes, %, $ and backslashes reach podman as given (systemd quoting), other settings too', () => {
    const place = workspace();
    const settings = ['-n', 'Acme "100%" $HOME \\ corp', '-d', 'corp.example.com', '-a', 'shop-web', '-l', 'debug', '--memory-limit', '256m', '--cpu-limit', '0.5', '--log-max-size', '0', '-p', '/sys/kernel'];
    const run = writeUnit(place, [...settings, '--app-unit', 'shop-web.service']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const unit = unitSections(fs.readFileSync(path.join(place.unitDirectory, 'svc-sensor-shop-web.service'), 'utf8'));
    const execStart = splitSystemdCommandLine(unit.Service.ExecStart[0]);
    expect(execStart).toContain('SVC_TENANT_ID=Acme "100%" $HOME \\ corp');
    expect(unitSensorArguments(execStart.slice(12))).toEqual(launcherSensorArguments(settings));
  });

  test('systemd-analyze verify accepts the unit (with a stand-in for the app\'s unit next to it)', () => {
    const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (analyze.error) throw new Error(`systemd-analyze is missing (${analyze.error.message}); install it: apt-get install -y systemd`);
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web']);
    expect(run.status).toBe(0);
    fs.writeFileSync(path.join(place.unitDirectory, 'shop-web.service'), '[Unit]\nDescription=stand-in application\n[Service]\nExecStart=/bin/true\n');
    const unitFile = path.join(place.unitDirectory, 'svc-sensor-shop-web.service');
    const verified = spawnSync('systemd-analyze', ['verify', '--man=no', unitFile], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SYSTEMD_UNIT_PATH: `${place.unitDirectory}:`, SYSTEMD_LOG_LEVEL: 'warning' },
    });
    expect({ status: verified.status, output: `${verified.stdout}${verified.stderr}` }).toEqual({ status: 0, output: '' });

    // The check has teeth: a unit with an unknown setting is refused.
    fs.appendFileSync(unitFile, 'NoSuchSetting=1\n');
    const broken = spawnSync('systemd-analyze', ['verify', '--man=no', unitFile], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SYSTEMD_UNIT_PATH: `${place.unitDirectory}:` } });
    expect(`${broken.stdout}${broken.stderr}`).toContain('NoSuchSetting');
  });

  test('--output json: action unit-written and the unit file', () => {
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web', '--output', 'json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expect.objectContaining({ action: 'unit-written', exit_code: 0, unit_file: path.join(place.unitDirectory, 'svc-sensor-shop-web.service'), container_id: null }));
  });

  test('a key file others may read: written, with a warning naming the file and its mode', () => {
    const place = workspace();
    fs.chmodSync(place.keyFile, 0o644);
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`warning: the key file ${place.keyFile} (--key-file) has mode 644: users other than its owner may read the sensor key; chmod 0600 it`);
  });

  test('--dry-run prints the unit and writes nothing', () => {
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web', '--dry-run']);
    expect(run.status).toBe(0);
    expect(fs.readdirSync(place.unitDirectory)).toEqual([]);
    expect(run.stdout).toContain('Dry run: nothing was pulled or written.');
    expect(run.stdout).toContain(`LoadCredential=svc-sensor-api-key:${place.keyFile}`);
    expect(subcommands(run)).not.toContain('pull');
  });
});

describe('podman 4.4 and later: a quadlet .container', () => {
  test('the same podman arguments in PodmanArgs, the image in Image=, the key as a credential', () => {
    const place = workspace();
    const stub = { ...PODMAN, podmanVersion: '4.9.3' };
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web'], stub);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const unitFile = path.join(place.unitDirectory, 'svc-sensor-shop-web.container');
    expect(fs.readdirSync(place.unitDirectory)).toEqual(['svc-sensor-shop-web.container']);
    expect(run.stdout).toContain('systemctl daemon-reload && systemctl start svc-sensor-shop-web.service');
    const text = fs.readFileSync(unitFile, 'utf8');
    expectNoKey(run, text);
    const unit = unitSections(text);
    expect(unit.Container.ContainerName).toEqual(['svc-sensor-shop-web']);
    expect(unit.Unit.BindsTo).toEqual(['shop-web.service']);
    expect(unit.Install.WantedBy).toEqual(['shop-web.service']);
    expect(unit.Service.LoadCredential).toEqual([`svc-sensor-api-key:${place.keyFile}`]);
    expect(unit.Service.ExecStart).toBeUndefined();
    const podmanArgs = splitSystemdCommandLine(unit.Container.PodmanArgs[0]);
    expect(podmanArgs.slice(0, 2)).toEqual(['--stop-timeout', '30']);
    const launcher = launcherSensorArguments(REQUIRED, stub);
    expect([...unitSensorArguments(podmanArgs.slice(2)), unit.Container.Image[0]]).toEqual(launcher);
  });
});

describe('refusals', () => {
  test('docker: exit 2 naming --systemd-unit, before anything else is asked', () => {
    const place = workspace();
    const run = writeUnit(place, [...REQUIRED, '--app-unit', 'shop-web'], { runtimeNames: ['docker'] });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--systemd-unit needs podman, and the runtime is 'docker'");
    expect(fs.readdirSync(place.unitDirectory)).toEqual([]);
    // Right after the runtime answers: nothing else was asked.
    expect(subcommands(run)).toEqual(['info']);
  });

  test('container mode without --app-unit and without the label: exit 2 naming --app-unit', () => {
    const place = workspace();
    const run = writeUnit(place, REQUIRED);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("container 'shop-web' has no PODMAN_SYSTEMD_UNIT label (no podman or quadlet unit started it); give the unit with --app-unit UNIT");
    expect(fs.readdirSync(place.unitDirectory)).toEqual([]);
  });

  test('a label that is no plain unit name is not written into a unit', () => {
    const place = workspace();
    const run = writeUnit(place, REQUIRED, { ...PODMAN, appUnitLabel: 'x.service\nExecStartPre=/bin/evil' });
    expect(run.status).toBe(2);
    expect(fs.readdirSync(place.unitDirectory)).toEqual([]);
  });

  test.each([
    ['no --key-file', (place: Workspace) => [...REQUIRED, '--systemd-unit', place.unitDirectory], /--systemd-unit needs --key-file FILE: systemd loads the sensor key from that file at every start/],
    ['a relative --key-file', (place: Workspace) => [...REQUIRED, '--systemd-unit', place.unitDirectory, '--key-file', path.relative(process.cwd(), place.keyFile)], /for --key-file with --systemd-unit: systemd loads it by this path, so give it absolute/],
    ['--key-delivery env', (place: Workspace) => [...REQUIRED, '--systemd-unit', place.unitDirectory, '--key-file', place.keyFile, '--key-delivery', 'env'], /--systemd-unit and --key-delivery env cannot be combined/],
    ['--ensure', (place: Workspace) => [...REQUIRED, '--systemd-unit', place.unitDirectory, '--key-file', place.keyFile, '--ensure'], /--systemd-unit and --ensure cannot be combined/],
    ['a missing directory', (place: Workspace) => [...REQUIRED, '--systemd-unit', `${place.unitDirectory}/none`, '--key-file', place.keyFile], /invalid value '.*\/none' for --systemd-unit: give an existing directory/],
    ['--app-unit without --systemd-unit', () => [...REQUIRED, '--app-unit', 'shop-web'], /--app-unit 'shop-web' is only used with --systemd-unit DIR/],
    ['an --app-unit with a space', (place: Workspace) => [...REQUIRED, '--systemd-unit', place.unitDirectory, '--key-file', place.keyFile, '--app-unit', 'shop web'], /invalid value 'shop web.service' for --app-unit/],
  ])('%s: exit 2 before the runtime is called', (_name, args, message) => {
    const place = workspace();
    const run = runLauncher(args(place), { stub: PODMAN });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });
});
