/** bin/run-svc-sensor.sh against a real container runtime: Debian's podman with runc, a private
 *  storage and configuration (podman-sandbox.ts), a stand-in sensor image built from
 *  busybox-static and real application containers. Outcomes are read back from podman (inspect,
 *  logs, events) and from what the stand-in sensor reports about the namespace it runs in, not
 *  from the launcher's own output. Missing podman, runc or busybox-static fails every test with
 *  what to install. The stub-runtime tests cover docker-only paths and failures. */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { LAUNCHER, realBash, TEST_KEY } from './harness';
import { BAD_KEY, NON_ROOT_SENSOR_IMAGE_TAG, parseSensorLog, PodmanSandbox, runCommand, SENSOR_IMAGE_REPOSITORY, SENSOR_IMAGE_TAG, TERM_IGNORING_SENSOR_IMAGE_TAG, type CommandResult } from './podman-sandbox';
import { LoopbackRegistry } from './loopback-registry';
import { splitSystemdCommandLine, unitSections } from './systemd-unit';

const LAUNCHER_VERSION = '1.0.0';
/** The launcher's default grace period (--stop-timeout), which the replacement test sees used. */
const DEFAULT_STOP_GRACE_SECONDS = 30;
/** The grace period given to a sensor that ignores SIGTERM: waiting out the default proves nothing more. */
const SHORT_STOP_GRACE_SECONDS = 2;
/** --health-wait of the run that must catch the stand-in exiting on a bad key (it exits within a second). */
const BAD_KEY_HEALTH_WAIT_SECONDS = 3;
/** Capability bits (linux/capability.h) the launcher grants on kernels >= 5.8 (all others dropped). */
const GRANTED_CAPABILITIES = { NET_ADMIN: 12, NET_RAW: 13, PERFMON: 38, BPF: 39 };
/** The filesystems the launcher may mount, read-only, when they exist under the trace path. */
const TRACE_MOUNT_CANDIDATES = ['/sys/kernel/tracing', '/sys/kernel/debug/tracing', '/sys/kernel/btf', '/sys/fs/bpf'];

// Each podman call costs a second or more on a loaded 2-core machine.
jest.setTimeout(120_000);

let sandbox: PodmanSandbox;
let frontNetwork: string;
let backNetwork: string;

beforeAll(async () => {
  sandbox = await PodmanSandbox.create();
  frontNetwork = await sandbox.createNetwork('front');
  backNetwork = await sandbox.createNetwork('back');
}, 120_000);

afterAll(async () => {
  await sandbox?.cleanup();
}, 60_000);

/** Runs the real launcher with podman as the runtime and the stand-in image. The launcher's
 *  health wait is 0 (one look at the new sensor) unless a test needs it: each test reads the
 *  sensor's own report, which it writes only once it runs with its key, and the test of a sensor
 *  that fails on its key gives BAD_KEY_HEALTH_WAIT_SECONDS. */
function launch(args: readonly string[], options: { key?: string; tag?: string; image?: readonly string[]; healthWaitSeconds?: number } = {}): Promise<CommandResult> {
  const env = {
    ...sandbox.environment(),
    TMPDIR: sandbox.launcherTmpDir,
    SVC_SENSOR_SECRET_DIR: sandbox.secretDir,
    SVC_CONTAINER_RUNTIME: 'podman',
    SVC_SENSOR_API_KEY: options.key ?? TEST_KEY,
    SVC_SENSOR_HEALTH_WAIT: String(options.healthWaitSeconds ?? 0),
  };
  const image = options.image ?? ['-i', SENSOR_IMAGE_REPOSITORY, '-t', options.tag ?? SENSOR_IMAGE_TAG];
  return runCommand(realBash(), [LAUNCHER, ...args, ...image], env);
}

/** Fails with the launcher's messages when it did not exit with the expected status. */
function expectStatus(result: CommandResult, status: number): void {
  expect({ status: result.status, stderr: result.stderr }).toEqual(expect.objectContaining({ status }));
  // The key reached the sensor (checked by hash below) but never the launcher's output.
  expect(result.stdout + result.stderr).not.toContain(TEST_KEY);
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

function netnsOf(log: string): string {
  const line = log.split('\n').find((candidate) => candidate.startsWith('netns: '));
  if (!line) throw new Error(`no netns line in the log:\n${log}`);
  return line.slice('netns: '.length);
}

/** The IPv4 default route with the lowest metric, read from the host's /proc/net/route. */
function hostDefaultRouteInterface(): string {
  const routes = fs
    .readFileSync('/proc/net/route', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 8 && fields[0] !== '*' && fields[1] === '00000000' && fields[7] === '00000000')
    .sort((left, right) => Number(left[6]) - Number(right[6]));
  if (routes.length === 0) throw new Error('this host has no IPv4 default route, which the host-mode test needs to know the expected interface');
  return routes[0][0];
}

/** The capability bounding set of this process (and so of podman, which it starts). */
function hostBoundingCapabilities(): bigint {
  const line = fs.readFileSync('/proc/self/status', 'utf8').split('\n').find((candidate) => candidate.startsWith('CapBnd:'));
  if (!line) throw new Error('no CapBnd line in /proc/self/status');
  return BigInt(`0x${line.split(/\s+/)[1]}`);
}

function capabilitySet(bits: readonly number[]): bigint {
  return bits.reduce((set, bit) => set | (1n << BigInt(bit)), 0n);
}

/** The candidates this host has at or under a trace path: what the launcher must mount. */
function expectedTraceMounts(tracePath: string): string[] {
  return TRACE_MOUNT_CANDIDATES.filter((candidate) => candidate.startsWith(`${tracePath}/`) && fs.existsSync(candidate));
}

/** What the stand-in found it could not do: no way back to the host from inside the sensor. */
function expectConfined(report: ReturnType<typeof parseSensorLog>): void {
  expect(report.escapes).toEqual({
    'remount-sys-rw': 'refused',
    'umount-cgroup': 'refused',
    'write-root-fs': 'refused',
    'write-tmp': 'ok',
    'write-trace-mount': 'refused',
  });
  // Every cgroup mount is the container's own subtree, never a hierarchy's root.
  expect(report.cgroupRoots.length).toBeGreaterThan(0);
  for (const root of report.cgroupRoots) expect(root).not.toBe('/');
  expect(report.releaseAgents).toEqual([]);
  // The mounts at or under /sys are the container's own read-only sysfs and what the launcher
  // mounted, all read-only; /sys/fs/cgroup itself is podman's private tmpfs that holds the
  // (read-only) cgroup mounts.
  expect(Object.keys(report.mounts)).toContain('/sys/fs/cgroup/memory');
  for (const [mountPoint, options] of Object.entries(report.mounts)) {
    if (mountPoint === '/sys/fs/cgroup') continue;
    expect({ mountPoint, readOnly: options.split(',').includes('ro') }).toEqual({ mountPoint, readOnly: true });
  }
}

async function runningSensor(name: string) {
  const inspection = await sandbox.inspect(name);
  expect(inspection.State.Status).toBe('running');
  const report = parseSensorLog(await sandbox.waitForLog(name, 'ready'));
  return { inspection, report };
}

describe('run-svc-sensor.sh with podman and runc', () => {
  test('container mode: the sensor runs in the application container network namespace with the settings', async () => {
    const app = `shop-${sandbox.suffix}`;
    const appId = await sandbox.startApp(app, [frontNetwork]);
    const appNetns = netnsOf(await sandbox.waitForLog(app, 'ready'));

    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-s', 'ProdEU', '-l', 'debug']);
    expectStatus(result, 0);

    const { inspection, report } = await runningSensor(`svc-sensor-${app}`);
    expect(inspection.HostConfig.NetworkMode).toBe(`container:${appId}`);
    expect(report.netns).toBe(appNetns);
    expect(inspection.HostConfig.RestartPolicy.Name).toBe('unless-stopped');
    expect(inspection.Config.Labels).toEqual(expect.objectContaining({ 'svc.sensor.launcher-version': LAUNCHER_VERSION }));
    // The tracing and BPF filesystems, read-only at the same place; never all of sysfs.
    const traceMounts = expectedTraceMounts('/sys');
    expect(traceMounts.length).toBeGreaterThan(0);
    const binds = inspection.Mounts.filter((mount) => mount.Destination.startsWith('/sys'));
    expect(inspection.Mounts.map((mount) => mount.Destination).sort()).toEqual([...traceMounts, '/run/secrets/svc-sensor-api-key'].sort());
    expect(binds.map((mount) => [mount.Source, mount.Destination, mount.RW]).sort()).toEqual(traceMounts.map((mount) => [mount, mount, false]).sort());
    for (const mount of traceMounts) expect(report.mounts[mount]?.split(',')).toContain('ro');
    expect(inspection.HostConfig.ReadonlyRootfs).toBe(true);
    expect(inspection.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(inspection.HostConfig.Memory).toBe(512 * 1024 * 1024);
    expect(inspection.HostConfig.NanoCpus).toBe(1_000_000_000);
    expect(inspection.HostConfig.PidsLimit).toBe(256);
    expectConfined(report);
    expect(inspection.ImageName).toBe(sandbox.image);
    expect(report.env).toEqual({
      SVC_ANALYZER_ADDRESS: 'analyzer.prodeu.corp.example.com:50051',
      SVC_ANALYZER_TLS: 'true',
      SVC_INTERFACE: 'eth0',
      SVC_LOG_LEVEL: 'debug',
      SVC_SENSOR_API_KEY_FILE: '/run/secrets/svc-sensor-api-key',
      SVC_SENSOR_MODE: 'container',
      SVC_TENANT_ID: 'acme',
      SVC_TRACE_PATH: '/sys',
    });
    // The key reached the sensor as a file, and nowhere podman shows a container's settings.
    expect(report.keySha256).toBe(sha256(TEST_KEY));
    expect(report.keyInEnvironment).toBe(false);
    const inspectOutput = await sandbox.podmanOk(['container', 'inspect', `svc-sensor-${app}`]);
    expect(inspectOutput).toContain('/run/secrets/svc-sensor-api-key');
    expect(inspectOutput).not.toContain(TEST_KEY);
    const keyMount = inspection.Mounts.find((mount) => mount.Destination === '/run/secrets/svc-sensor-api-key');
    expect(keyMount).toEqual(expect.objectContaining({ RW: false }));
    expect(keyMount!.Source.startsWith(`${sandbox.secretDir}/svc-sensor-${app}/`)).toBe(true);
    // Exactly BPF, PERFMON, NET_ADMIN and NET_RAW are effective (this kernel is >= 5.8), and
    // nothing of the runtime's default set.
    const granted = capabilitySet(Object.values(GRANTED_CAPABILITIES));
    if ((hostBoundingCapabilities() & granted) !== granted) throw new Error('this host\'s capability bounding set lacks one of BPF, PERFMON, NET_ADMIN, NET_RAW');
    expect(report.capabilities.toString(16)).toBe(granted.toString(16));
    // The interface it was told to watch carries the app's address on its network.
    const appAddress = (await sandbox.inspect(app)).NetworkSettings.Networks?.[frontNetwork]?.IPAddress;
    expect(appAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(report.addresses.eth0).toEqual([appAddress]);
    expect(result.stdout).toContain(`container id:      ${inspection.Id}`);
    // podman read the private key file before the launcher removed it.
    expect(fs.readdirSync(sandbox.launcherTmpDir)).toEqual([]);
  });

  test('interfaces are read from the host side: no exec in the app container; an app on the host network gets the default-route interface', async () => {
    const app = `hostnet-${sandbox.suffix}`;
    await sandbox.startApp(app, ['host']);
    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]);
    expectStatus(result, 0);
    expect(result.stdout).toContain(`Container ${app} uses the host network`);
    const { report } = await runningSensor(`svc-sensor-${app}`);
    expect(report.env.SVC_INTERFACE).toBe(hostDefaultRouteInterface());
    expect(report.netns).toBe(fs.readlinkSync('/proc/self/ns/net'));

    const bridged = `noexec-${sandbox.suffix}`;
    await sandbox.startApp(bridged, [frontNetwork]);
    expectStatus(await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', bridged]), 0);
    expect((await runningSensor(`svc-sensor-${bridged}`)).report.env.SVC_INTERFACE).toBe('eth0');
    // podman records every exec session as an event: the launcher started none in either app.
    for (const name of [app, bridged]) {
      expect(await sandbox.podmanOk(['events', '--stream=false', '--filter', `container=${name}`, '--filter', 'event=exec', '--format', '{{.Status}}'])).toBe('');
    }
  });

  test('replacement: a running sensor gets SIGTERM, exits 0 and is removed; a stopped one is removed without a stop', async () => {
    const app = `cart-${sandbox.suffix}`;
    const sensor = `svc-sensor-${app}`;
    await sandbox.startApp(app, [frontNetwork]);
    expectStatus(await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-l', 'debug']), 0);
    // Its SIGTERM handler is installed once it logged 'ready'.
    const { inspection: first } = await runningSensor(sensor);

    const replacing = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-l', 'warn']);
    expectStatus(replacing, 0);
    // Without --stop-timeout: the default grace period (the stub-runtime tests see it given as `stop -t 30`).
    expect(replacing.stdout).toContain(`Stopping the running sensor ${sensor} (grace period ${DEFAULT_STOP_GRACE_SECONDS} s; kept as ${sensor}.previous`);
    expect(await sandbox.containerExists(first.Id)).toBe(false);
    // Without its handler the stand-in (PID 1) would ignore SIGTERM and die of SIGKILL (137)
    // after the grace period; exit 0 is the graceful stop.
    const events = (await sandbox.podmanOk(['events', '--stream=false', '--filter', `container=${first.Id}`, '--format', '{{.Status}} {{.ContainerExitCode}}'])).split('\n');
    expect(events.filter((event) => event.startsWith('died') || event.startsWith('remove'))).toEqual(['died 0', 'remove 0']);
    const { inspection: second, report } = await runningSensor(sensor);
    expect(second.Id).not.toBe(first.Id);
    expect(report.env.SVC_LOG_LEVEL).toBe('warn');
    expect(await sandbox.podmanOk(['ps', '--all', '--filter', `name=^${sensor}$`, '--format', '{{.ID}}'])).toMatch(/^\w+$/);

    // Stopped by hand: podman calls that state 'exited'.
    await sandbox.podmanOk(['stop', sensor]);
    expect((await sandbox.inspect(sensor)).State.Status).toBe('exited');
    const afterStop = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]);
    expectStatus(afterStop, 0);
    expect(afterStop.stdout).not.toContain('Stopping the running sensor');
    expect(afterStop.stdout).toContain(`Removing the previous sensor container (as ${sensor}.previous)`);
    expect(await sandbox.containerExists(second.Id)).toBe(false);
    expect((await runningSensor(sensor)).inspection.Id).not.toBe(second.Id);
  });

  test('a previous sensor that ignores SIGTERM is killed after the grace period (--stop-timeout), and the launcher warns', async () => {
    const instance = `deaf-${sandbox.suffix}`;
    const sensor = `svc-sensor-${instance}`;
    expectStatus(await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H'], { tag: TERM_IGNORING_SENSOR_IMAGE_TAG }), 0);
    const { inspection: deaf } = await runningSensor(sensor);

    const replacing = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H', '--stop-timeout', String(SHORT_STOP_GRACE_SECONDS)]);
    expectStatus(replacing, 0);
    expect(replacing.stdout).toContain(`Stopping the running sensor ${sensor} (grace period ${SHORT_STOP_GRACE_SECONDS} s;`);
    expect(replacing.stderr).toContain(`warning: the previous sensor ${sensor} did not stop on SIGTERM within the ${SHORT_STOP_GRACE_SECONDS} s grace period and was killed (SIGKILL, exit code 137)`);
    // podman's own record: the old container died of SIGKILL.
    const events = (await sandbox.podmanOk(['events', '--stream=false', '--filter', `container=${deaf.Id}`, '--format', '{{.Status}} {{.ContainerExitCode}}'])).split('\n');
    expect(events.filter((event) => event.startsWith('died'))).toEqual(['died 137']);
    expect((await runningSensor(sensor)).inspection.Id).not.toBe(deaf.Id);

    // A sensor that stops on SIGTERM: no warning.
    const graceful = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H']);
    expectStatus(graceful, 0);
    expect(graceful.stderr).not.toContain('did not stop on SIGTERM');
  });

  test('host mode: the sensor runs in the host network namespace on the default-route interface', async () => {
    const instance = `web-${sandbox.suffix}`;
    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H', '-p', '/sys/kernel/../kernel']);
    expectStatus(result, 0);

    const { inspection, report } = await runningSensor(`svc-sensor-${instance}`);
    expect(inspection.HostConfig.NetworkMode).toBe('host');
    expect(report.netns).toBe(fs.readlinkSync('/proc/self/ns/net'));
    const expectedInterface = hostDefaultRouteInterface();
    expect(report.env.SVC_INTERFACE).toBe(expectedInterface);
    expect(report.env.SVC_SENSOR_MODE).toBe('host');
    expect(Object.keys(report.links)).toContain(expectedInterface);
    // The resolved trace path, mounted read-only at the same place.
    expect(report.env.SVC_TRACE_PATH).toBe('/sys/kernel');
    const traceMounts = expectedTraceMounts('/sys/kernel');
    expect(traceMounts.length).toBeGreaterThan(0);
    for (const mount of traceMounts) {
      expect(inspection.Mounts).toContainEqual(expect.objectContaining({ Source: mount, Destination: mount, RW: false }));
      expect(report.mounts[mount]?.split(',')).toContain('ro');
    }
    expect(inspection.Mounts.map((mount) => mount.Source)).not.toContain('/sys/fs/bpf');
    // On the host network too (where podman bind-mounts the host's sysfs), no way out.
    expectConfined(report);

    // --restart unless-stopped: a sensor that exits on its own comes back.
    // The exec session may die with the container before it reports: exit 137, or podman 4.3
    // failing to find the session's exit event ("exec died event for session ... not found",
    // seen once in a CI run). Either way the restart below is what shows the sensor was killed.
    const killed = await sandbox.podman(['exec', `svc-sensor-${instance}`, 'busybox', 'kill', '-TERM', '1']);
    const diedWithContainer = killed.status === 137 || /exec died event for session \w+ \(container \w+\) not found/.test(killed.stderr);
    expect({ status: killed.status === 0 || diedWithContainer, stderr: killed.stderr }).toEqual(expect.objectContaining({ status: true }));
    const restarted = await sandbox.waitFor(`svc-sensor-${instance} to be restarted`, async () => {
      const now = await sandbox.inspect(`svc-sensor-${instance}`);
      return now.RestartCount >= 1 && now.State.Status === 'running';
    });
    expect(restarted).toBe(true);
  });

  test('two networks on the app container: the launcher stops and names both; -N eth1 picks one', async () => {
    const app = `multi-${sandbox.suffix}`;
    const sensor = `svc-sensor-${app}`;
    await sandbox.startApp(app, [frontNetwork, backNetwork]);
    const appInspection = await sandbox.inspect(app);
    expect(Object.keys(appInspection.NetworkSettings.Networks ?? {}).sort()).toEqual([backNetwork, frontNetwork].sort());

    const refused = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]);
    expectStatus(refused, 11);
    // In the kernel's order (podman attaches the networks in either order).
    const listed = /Container \S+ has several network interfaces:\n((?:  \S+\n)+)/.exec(refused.stderr)?.[1];
    expect(listed?.trim().split(/\s+/).sort()).toEqual(['eth0', 'eth1']);
    expect(await sandbox.containerExists(sensor)).toBe(false);

    const chosen = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-N', 'eth1']);
    expectStatus(chosen, 0);
    const { report } = await runningSensor(sensor);
    expect(report.env.SVC_INTERFACE).toBe('eth1');
    expect(report.netns).toBe(netnsOf(await sandbox.waitForLog(app, 'ready')));
    // eth1 in the sensor's namespace is the app's attachment to one of its two networks: same
    // MAC address, same IP address as podman assigned there.
    const attachments = Object.entries(appInspection.NetworkSettings.Networks ?? {});
    const attachment = attachments.find(([, settings]) => settings.MacAddress === report.links.eth1);
    expect(attachment).toBeDefined();
    expect(report.addresses.eth1).toEqual([attachment![1].IPAddress]);
  });

  test('a new sensor that fails on its key: exit 21 with its log; the previous sensor runs again, unchanged', async () => {
    const app = `pay-${sandbox.suffix}`;
    const sensor = `svc-sensor-${app}`;
    await sandbox.startApp(app, [frontNetwork]);
    expectStatus(await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]), 0);
    const { inspection: good } = await runningSensor(sensor);

    const failed = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-l', 'debug'], { key: BAD_KEY, healthWaitSeconds: BAD_KEY_HEALTH_WAIT_SECONDS });
    expect(failed.stdout + failed.stderr).not.toContain(BAD_KEY);
    expect(failed.stderr).toMatch(new RegExp(`the new sensor '${sensor}' did not stay up: after \\d+ s it is '\\w+' with \\d+ restart`));
    expect(failed.stderr).toContain('  | stand-in sensor: authentication failed: invalid sensor key');
    expect(failed.stderr).toContain(`the previous sensor ${sensor} was started again`);
    expect(failed.status).toBe(21);
    // The same container as before, under its name, running with its settings; nothing else left.
    const restored = await sandbox.inspect(sensor);
    expect(restored.Id).toBe(good.Id);
    expect(restored.State.Status).toBe('running');
    expect(await sandbox.containerExists(`${sensor}.previous`)).toBe(false);
    expect(await sandbox.podmanOk(['ps', '--all', '--filter', `name=^${sensor}`, '--format', '{{.Names}}'])).toBe(sensor);
    // Its key file is still there for it (a restart re-mounts it); the failed run's is gone.
    expect(fs.readdirSync(`${sandbox.secretDir}/${sensor}`)).toHaveLength(1);
  });

  test('a non-root sensor image (USER 1000): the key file is handed to that user, and the capabilities are checked', async () => {
    const instance = `nonroot-${sandbox.suffix}`;
    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H'], { tag: NON_ROOT_SENSOR_IMAGE_TAG });
    const granted = capabilitySet(Object.values(GRANTED_CAPABILITIES));
    const log = await sandbox.waitForLog(`svc-sensor-${instance}`, 'ready').catch(() => '');
    const report = parseSensorLog(log);
    // podman puts the added capabilities in the ambient set of a non-root user: the sensor has
    // them, reads its key, and the launcher's check passes. (Docker gives a non-root user none:
    // exit 22, covered with the stub runtime.)
    expectStatus(result, 0);
    expect(report.uid).toBe('1000');
    expect(report.keySha256).toBe(sha256(TEST_KEY));
    expect(report.capabilities.toString(16)).toBe(granted.toString(16));
    const keyMount = (await sandbox.inspect(`svc-sensor-${instance}`)).Mounts.find((mount) => mount.Destination === '/run/secrets/svc-sensor-api-key');
    const stat = fs.statSync(keyMount!.Source);
    expect({ uid: stat.uid, mode: (stat.mode & 0o777).toString(8) }).toEqual({ uid: 1000, mode: '600' });
  });

  test('by digest, with --pull never: podman runs exactly that image, and the launcher prints its ID', async () => {
    const instance = `digest-${sandbox.suffix}`;
    const digest = await sandbox.podmanOk(['image', 'inspect', '--format', '{{.Digest}}', sandbox.image]);
    const imageId = await sandbox.podmanOk(['image', 'inspect', '--format', '{{.Id}}', sandbox.image]);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', instance, '-H', '--pull', 'never'], { image: ['-t', digest, '-i', SENSOR_IMAGE_REPOSITORY] });
    expectStatus(result, 0);
    const inspection = await sandbox.inspect(`svc-sensor-${instance}`);
    expect(inspection.ImageName).toBe(`${SENSOR_IMAGE_REPOSITORY}@${digest}`);
    expect(inspection.Image).toBe(imageId);
    expect(result.stdout).toContain(`image id:          ${imageId}`);
    // A digest nobody has: never pulled, exit 15.
    const unknown = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', `${instance}-x`, '-H', '--pull', 'never'], { image: ['-i', `${SENSOR_IMAGE_REPOSITORY}@sha256:${'0'.repeat(64)}`] });
    expectStatus(unknown, 15);
  });

  test('--ensure: an identical run leaves the sensor alone (unchanged); another key, setting or plain run replaces it', async () => {
    const app = `ensure-${sandbox.suffix}`;
    const sensor = `svc-sensor-${app}`;
    await sandbox.startApp(app, [frontNetwork]);
    const args = ['-n', 'acme', '-d', 'corp.example.com', '-a', app, '--ensure', '--output', 'json'];
    const resultOf = (result: CommandResult): Record<string, unknown> => JSON.parse(result.stdout) as Record<string, unknown>;

    const first = await launch(args);
    expectStatus(first, 0);
    const { inspection } = await runningSensor(sensor);
    expect(resultOf(first)).toEqual(expect.objectContaining({ action: 'started', container_id: inspection.Id, image_id: inspection.Image, interface: 'eth0', capabilities: ['BPF', 'PERFMON', 'NET_ADMIN', 'NET_RAW'] }));
    // The key's label is salted: not the key, not its plain hash.
    const keyLabel = inspection.Config.Labels?.['svc.sensor.key-fingerprint'] ?? '';
    expect(keyLabel).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
    const [salt, hash] = keyLabel.split(':');
    expect(hash).toBe(sha256(salt + TEST_KEY));
    expect(hash).not.toBe(sha256(TEST_KEY));
    expect(inspection.Config.Labels?.['svc.sensor.config']).toMatch(/^[0-9a-f]{64}$/);

    const again = await launch(args);
    expectStatus(again, 0);
    expect(resultOf(again)).toEqual(expect.objectContaining({ action: 'unchanged', container_id: inspection.Id }));
    expect(again.stderr).toContain('left as it is (--ensure)');
    const afterAgain = await sandbox.inspect(sensor);
    expect({ id: afterAgain.Id, status: afterAgain.State.Status, started: afterAgain.State.StartedAt }).toEqual({ id: inspection.Id, status: 'running', started: inspection.State.StartedAt });
    // One key directory: the unchanged run wrote none and removed none.
    expect(fs.readdirSync(`${sandbox.secretDir}/${sensor}`)).toHaveLength(1);

    const otherKey = await launch(args, { key: 'sk-test-another-key-1234' });
    expectStatus(otherKey, 0);
    expect(otherKey.stdout).not.toContain('sk-test-another-key-1234');
    expect(resultOf(otherKey).action).toBe('replaced');
    const afterKey = await runningSensor(sensor);
    expect(afterKey.inspection.Id).not.toBe(inspection.Id);
    expect(afterKey.report.keySha256).toBe(sha256('sk-test-another-key-1234'));

    const otherLevel = await launch([...args, '-l', 'debug'], { key: 'sk-test-another-key-1234' });
    expectStatus(otherLevel, 0);
    expect(resultOf(otherLevel).action).toBe('replaced');
    const afterLevel = await runningSensor(sensor);
    expect(afterLevel.report.env.SVC_LOG_LEVEL).toBe('debug');

    // Without --ensure, the spec's behaviour: replaced even when nothing changed.
    const plain = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '-l', 'debug', '--output', 'json'], { key: 'sk-test-another-key-1234' });
    expectStatus(plain, 0);
    expect(resultOf(plain).action).toBe('replaced');
    expect((await sandbox.inspect(sensor)).Id).not.toBe(afterLevel.inspection.Id);
  });

  test('--systemd-unit: the .service\'s own podman commands, run by hand (no systemd as PID 1 here), start the same confined sensor as the launcher, with the key from the credentials directory', async () => {
    const app = `unit-${sandbox.suffix}`;
    const appId = await sandbox.startApp(app, [frontNetwork]);
    const sensor = `svc-sensor-${app}`;
    const unitName = `${sensor}.service`;
    const unitDirectory = path.join(sandbox.root, 'units');
    fs.mkdirSync(unitDirectory);
    const keyFile = path.join(sandbox.root, 'unit-sensor-key');
    fs.writeFileSync(keyFile, `${TEST_KEY}\n`, { mode: 0o600 });

    // The launcher's own sensor first, to compare with.
    expectStatus(await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]), 0);
    const byLauncher = await runningSensor(sensor);

    const written = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app, '--systemd-unit', unitDirectory, '--key-file', keyFile, '--app-unit', 'shop.service']);
    expectStatus(written, 0);
    expect(written.stdout).toContain(`the service unit ${unitName} (podman 4.`);
    expect(written.stdout).toContain(`The unit replaces the sensor container ${sensor} that runs now when it starts (podman run --replace).`);
    const unit = unitSections(fs.readFileSync(path.join(unitDirectory, unitName), 'utf8'));

    // What systemd would do: copy the credential into the unit's credentials directory (%d) and
    // expand %t (its runtime directory) and %n (the unit's name).
    const credentials = fs.mkdtempSync('/dev/shm/svc-unit-credentials-');
    const runtimeDirectory = fs.mkdtempSync(path.join(sandbox.root, 'unit-run-'));
    try {
      const [credential] = unit.Service.LoadCredential;
      fs.copyFileSync(credential.slice(credential.indexOf(':') + 1), path.join(credentials, credential.slice(0, credential.indexOf(':'))));
      fs.chmodSync(path.join(credentials, 'svc-sensor-api-key'), 0o400);
      const specifiers: Record<string, string> = { t: runtimeDirectory, n: unitName, d: credentials };
      const command = (setting: string): string[] => splitSystemdCommandLine(setting).map((word) => word.replace(/%([tnd])/g, (_match, letter: string) => specifiers[letter]));
      const [podman, ...startArguments] = command(unit.Service.ExecStart[0]);
      const started = await runCommand(podman, startArguments, sandbox.environment());
      expect({ status: started.status, stderr: started.stderr }).toEqual({ status: 0, stderr: '' });

      const byUnit = await runningSensor(sensor);
      expect(byUnit.inspection.Id).not.toBe(byLauncher.inspection.Id);
      // The same sensor: network, capabilities, mounts, confinement, limits, settings.
      expect(byUnit.inspection.HostConfig.NetworkMode).toBe(`container:${appId}`);
      expect(byUnit.report.netns).toBe(byLauncher.report.netns);
      expect(byUnit.report.capabilities.toString(16)).toBe(byLauncher.report.capabilities.toString(16));
      expect(byUnit.report.capabilities.toString(16)).toBe(capabilitySet(Object.values(GRANTED_CAPABILITIES)).toString(16));
      const mounts = (inspection: typeof byUnit.inspection) => inspection.Mounts.map((mount) => [mount.Destination, mount.RW]).sort();
      expect(mounts(byUnit.inspection)).toEqual(mounts(byLauncher.inspection));
      for (const field of ['ReadonlyRootfs', 'SecurityOpt', 'Memory', 'NanoCpus', 'PidsLimit'] as const) {
        expect({ field, value: byUnit.inspection.HostConfig[field] }).toEqual({ field, value: byLauncher.inspection.HostConfig[field] });
      }
      expectConfined(byUnit.report);
      expect(byUnit.report.env).toEqual(byLauncher.report.env);
      // The key came from the credentials directory, and is in no setting podman shows.
      expect(byUnit.inspection.Mounts.find((mount) => mount.Destination === '/run/secrets/svc-sensor-api-key')?.Source).toBe(path.join(credentials, 'svc-sensor-api-key'));
      expect(byUnit.report.keySha256).toBe(sha256(TEST_KEY));
      expect(byUnit.report.keyInEnvironment).toBe(false);
      expect(await sandbox.podmanOk(['container', 'inspect', sensor])).not.toContain(TEST_KEY);
      // systemd restarts it, not podman.
      expect(byUnit.inspection.HostConfig.RestartPolicy.Name).not.toBe('unless-stopped');

      // ExecStop, then ExecStopPost: the sensor stops gracefully and is gone.
      for (const setting of [unit.Service.ExecStop[0], unit.Service.ExecStopPost[0]]) {
        const [stopper, ...stopArguments] = command(setting);
        const stopped = await runCommand(stopper, stopArguments, sandbox.environment());
        expect({ setting, status: stopped.status }).toEqual({ setting, status: 0 });
      }
      expect(await sandbox.containerExists(sensor)).toBe(false);
    } finally {
      fs.rmSync(credentials, { recursive: true, force: true });
    }
  });

  test('--signature-policy: a policy that rejects the image fails the run (exit 15) before the running sensor is stopped; one that accepts it replaces the sensor', async () => {
    // The stand-in image, served by a registry on loopback, so that podman really pulls it.
    const layout = path.join(sandbox.root, 'oci-layout');
    await sandbox.podmanOk(['push', sandbox.image, `oci:${layout}:signed`]);
    const registry = await LoopbackRegistry.start(layout, 'svc-test/sensor-signed');
    sandbox.allowInsecureRegistry(registry.location);
    const policies = path.join(sandbox.root, 'policies');
    fs.mkdirSync(policies);
    const rejecting = path.join(policies, 'reject.json');
    const accepting = path.join(policies, 'accept.json');
    // Everything from this registry rejected (as an image without the required signature would be).
    fs.writeFileSync(rejecting, JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }], transports: { docker: { [registry.location]: [{ type: 'reject' }] } } }));
    fs.writeFileSync(accepting, JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));
    try {
      const app = `signed-${sandbox.suffix}`;
      await sandbox.startApp(app, [frontNetwork]);
      const sensor = `svc-sensor-${app}`;
      const args = ['-n', 'acme', '-d', 'corp.example.com', '-a', app];
      expectStatus(await launch(args), 0);
      const before = await runningSensor(sensor);
      const fromRegistry = ['-i', `${registry.location}/svc-test/sensor-signed`, '-t', 'signed'];

      const rejected = await launch([...args, '--signature-policy', rejecting], { image: fromRegistry });
      expectStatus(rejected, 15);
      expect(rejected.stderr).toContain(`podman refused it under the signature policy '${rejecting}' (--signature-policy)`);
      expect(rejected.stderr).toMatch(/rejected by policy/);
      // The running sensor was never stopped: same container, same start, still running.
      const after = await sandbox.inspect(sensor);
      expect({ id: after.Id, startedAt: after.State.StartedAt, status: after.State.Status }).toEqual({ id: before.inspection.Id, startedAt: before.inspection.State.StartedAt, status: 'running' });
      const images = await sandbox.podmanOk(['images', '--format', '{{.Repository}}']);
      expect(images).not.toContain(`${registry.location}/svc-test/sensor-signed`);

      // The same pull under a policy that accepts it: the registry works, so the refusal above was the policy's.
      const accepted = await launch([...args, '--signature-policy', accepting], { image: fromRegistry });
      expectStatus(accepted, 0);
      expect(accepted.stdout).toContain(`verified against the signature policy ${accepting}`);
      const replaced = await runningSensor(sensor);
      expect(replaced.inspection.Id).not.toBe(before.inspection.Id);
      expect(replaced.inspection.ImageName).toBe(`${registry.location}/svc-test/sensor-signed:signed`);
    } finally {
      await registry.close();
    }
  });

  test.each([
    ['does not exist', 9, /no container named '(\S+)' \(-a\/--app-name\) exists/],
    ['was created, never started', 10, /application container '(\S+)' \(-a\/--app-name\) is 'created', not running; start it first \(podman start \1\)/],
  ] as const)('an application container that %s: exit %d, no sensor', async (state, status, message) => {
    const app = `idle-${status}-${sandbox.suffix}`;
    if (state !== 'does not exist') await sandbox.podmanOk(['create', '--name', app, '--entrypoint', '/app-entrypoint.sh', sandbox.image]);
    const result = await launch(['-n', 'acme', '-d', 'corp.example.com', '-a', app]);
    expectStatus(result, status);
    expect(result.stderr).toMatch(message);
    expect(await sandbox.containerExists(`svc-sensor-${app}`)).toBe(false);
  });
});
