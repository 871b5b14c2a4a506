/** A private podman (with runc) for the real-runtime tests of bin/run-svc-sensor.sh: its own
 *  configuration, storage, run state and network definitions under one temporary directory,
 *  a stand-in sensor image imported from Debian's busybox-static, and a cleanup that removes
 *  every container, network and file it made. Requirements it cannot meet are errors that say
 *  what to install, never a skip. */
import { spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { track } from '../support/child-processes';

/** Debian's busybox-static installs here; the dynamically linked `busybox` package too. */
export const BUSYBOX = '/bin/busybox';
export const SENSOR_IMAGE_REPOSITORY = 'localhost/svc-test/sensor-stand-in';
export const SENSOR_IMAGE_TAG = 'busybox';
/** The same stand-in, run as user 1000: it gets no effective capabilities. */
export const NON_ROOT_SENSOR_IMAGE_TAG = 'busybox-non-root';
/** The same stand-in, ignoring SIGTERM: a stop ends in SIGKILL after the grace period. */
export const TERM_IGNORING_SENSOR_IMAGE_TAG = 'busybox-ignores-term';
/** The key the stand-in sensor treats as refused by the platform. */
export const BAD_KEY = 'sk-refused-by-the-platform';
const INSTALL_HINT = 'install them: apt-get install -y podman runc busybox-static';

/** The tools podman starts (netavark calls iptables) live in the sbin directories too. */
const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (tracked, so a timed-out test does not leave it running). */
export function runCommand(command: string, args: readonly string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Whether an ELF executable names a program interpreter (PT_INTERP), i.e. is dynamically linked. */
function isDynamicallyLinked(file: string): boolean {
  const elf = fs.readFileSync(file);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) {
    throw new Error(`${file} is not a 64-bit little-endian ELF executable; ${INSTALL_HINT}`);
  }
  const programHeaderOffset = Number(elf.readBigUInt64LE(0x20));
  const entrySize = elf.readUInt16LE(0x36);
  const entries = elf.readUInt16LE(0x38);
  const PT_INTERP = 3;
  for (let index = 0; index < entries; index++) {
    if (elf.readUInt32LE(programHeaderOffset + index * entrySize) === PT_INTERP) return true;
  }
  return false;
}

/** The stand-in sensor: reports what the launcher gave it and what it sees, then waits for
 *  SIGTERM. As PID 1 without a handler it would ignore SIGTERM and be killed (exit 137) after
 *  the grace period, so an exit status of 0 proves the graceful stop. The key is reported as a
 *  hash only, so the test key never reaches a log. */
const SENSOR_ENTRYPOINT = `#!/bin/sh
BAD_KEY='${BAD_KEY}'
# The image tagged TERM_IGNORING_SENSOR_IMAGE_TAG ignores SIGTERM, as a badly written sensor would.
if [ -n "$STAND_IN_IGNORES_TERM" ]; then trap '' TERM; else trap 'echo "stand-in sensor: SIGTERM, stopping"; exit 0' TERM; fi
echo "args: $*"
busybox env | busybox grep '^SVC_' | busybox grep -v '^SVC_SENSOR_API_KEY=' | busybox sort | busybox sed 's/^/env: /'
if [ -n "$SVC_SENSOR_API_KEY_FILE" ]; then
  key=$(busybox cat "$SVC_SENSOR_API_KEY_FILE") || { echo "stand-in sensor: cannot read the key file"; exit 1; }
else
  key=$SVC_SENSOR_API_KEY
fi
# As a real sensor does on a key the platform refuses: say so and exit (and be restarted).
if [ "$key" = "${BAD_KEY}" ]; then echo "stand-in sensor: authentication failed: invalid sensor key"; exit 1; fi
echo "key-sha256: $(printf '%s' "$key" | busybox sha256sum | busybox cut -d ' ' -f 1)"
echo "key-in-environment: $(if busybox env | busybox grep -q '^SVC_SENSOR_API_KEY='; then echo yes; else echo no; fi)"
echo "netns: $(busybox readlink /proc/self/ns/net)"
echo "uid: $(busybox id -u)"
echo "capabilities: $(busybox grep '^CapEff:' /proc/self/status | busybox cut -f 2)"
busybox grep -E '^[^ ]+ /sys(/[^ ]*)? ' /proc/self/mounts | busybox sed 's/^/mount: /'
busybox ip -o link | busybox sed 's/^/link: /'
# What a sensor that turned hostile could do: each line says ok or refused.
try() { if "$@" >/dev/null 2>&1; then echo ok; else echo refused; fi; }
echo "escape remount-sys-rw: $(try busybox mount -o remount,bind,rw /sys)"
echo "escape umount-cgroup: $(try busybox umount -l /sys/fs/cgroup)"
echo "escape write-root-fs: $(try busybox touch /probe)"
echo "escape write-tmp: $(try busybox touch /tmp/probe)"
echo "escape write-trace-mount: $(try busybox touch "$SVC_TRACE_PATH/probe")"
busybox grep ' - cgroup' /proc/self/mountinfo | busybox awk '{print "cgroup-root: " $4}'
busybox find /sys/fs/cgroup -name release_agent | busybox sed 's/^/release-agent: /'
busybox ip -o -4 addr | busybox sed 's/^/addr: /'
echo ready
while :; do busybox sleep 3600 & wait $!; done
`;

/** The stand-in application: a process that keeps a network namespace alive. */
const APP_ENTRYPOINT = `#!/bin/sh
trap 'exit 0' TERM
echo "netns: $(busybox readlink /proc/self/ns/net)"
echo ready
while :; do busybox sleep 3600 & wait $!; done
`;

/** podman refuses a runroot longer than 50 characters in `podman container cleanup`, which
 *  conmon runs when a container exits (and which applies the restart policy), and says so only
 *  to syslog. Under a deep TMPDIR the run state goes to /run (a tmpfs, where podman keeps it by
 *  default), in a directory of its own. */
const MAX_RUN_ROOT_LENGTH = 50;
function runRootFor(root: string): string {
  const inside = path.join(root, 'run');
  if (inside.length <= MAX_RUN_ROOT_LENGTH) {
    fs.mkdirSync(inside);
    return inside;
  }
  return fs.mkdtempSync('/run/svc-podman-');
}

export class PodmanSandbox {
  readonly root: string;
  /** TMPDIR of the launcher: its private key file must be gone after each run. */
  readonly launcherTmpDir: string;
  /** SVC_SENSOR_SECRET_DIR of the launcher: on /dev/shm (a tmpfs), mode 0700. */
  readonly secretDir: string;
  readonly suffix = crypto.randomBytes(3).toString('hex');
  readonly image = `${SENSOR_IMAGE_REPOSITORY}:${SENSOR_IMAGE_TAG}`;
  private readonly networks: string[] = [];
  private readonly env: Record<string, string>;

  /** podman's run state (sockets, exit files); see runRootFor. */
  private readonly runRoot: string;

  private constructor(root: string) {
    this.root = root;
    this.runRoot = runRootFor(root);
    this.launcherTmpDir = path.join(root, 'launcher-tmp');
    this.secretDir = fs.mkdtempSync('/dev/shm/svc-sensor-keys-');
    const home = path.join(root, 'home');
    const podmanTmpDir = path.join(root, 'tmp');
    for (const dir of [this.launcherTmpDir, home, podmanTmpDir]) fs.mkdirSync(dir);
    // crun fails on hosts with hybrid cgroups and raising rlimits is refused here: runc, cgroupfs,
    // no default ulimits, events in a file (no journald). tmp_dir and network_config_dir keep
    // podman's run state and network definitions in this directory instead of /run and /etc.
    fs.writeFileSync(
      path.join(root, 'containers.conf'),
      [
        '[containers]',
        'default_ulimits = []',
        '',
        '[engine]',
        'runtime = "runc"',
        'cgroup_manager = "cgroupfs"',
        'events_logger = "file"',
        `tmp_dir = "${path.join(root, 'libpod')}"`,
        '',
        '[network]',
        `network_config_dir = "${path.join(root, 'networks')}"`,
        '',
      ].join('\n'),
    );
    // vfs: plain directories, so a crashed run leaves no overlay mount behind that would keep
    // the directory from being removed; the image is 2 MB.
    fs.writeFileSync(
      path.join(root, 'storage.conf'),
      ['[storage]', 'driver = "vfs"', `graphroot = "${path.join(root, 'storage')}"`, `runroot = "${this.runRoot}"`, ''].join('\n'),
    );
    this.env = {
      PATH: [...(process.env.PATH ?? '').split(':').filter((dir) => dir !== ''), ...SYSTEM_PATH].join(':'),
      HOME: home,
      TMPDIR: podmanTmpDir,
      LANG: 'C',
      CONTAINERS_CONF: path.join(root, 'containers.conf'),
      CONTAINERS_STORAGE_CONF: path.join(root, 'storage.conf'),
    };
  }

  /** Checks the requirements, then creates the sandbox and imports the stand-in image. */
  static async create(): Promise<PodmanSandbox> {
    if (process.getuid?.() !== 0) {
      throw new Error('the real-runtime sensor tests run podman as root (bridge networks, network namespaces); run them as root, as CI does');
    }
    if (!fs.existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing; ${INSTALL_HINT}`);
    if (isDynamicallyLinked(BUSYBOX)) {
      throw new Error(`${BUSYBOX} is dynamically linked (Debian's busybox package), so it cannot run alone in an image; ${INSTALL_HINT}`);
    }
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-podman-'));
    const sandbox = new PodmanSandbox(root);
    for (const [tool, args] of [['podman', ['--version']], ['runc', ['--version']]] as const) {
      const result = await runCommand(tool, args, sandbox.env).catch((error: Error) => ({ status: null, stdout: '', stderr: error.message }));
      if (result.status !== 0) throw new Error(`${tool} does not run (${result.stderr.trim()}); ${INSTALL_HINT}`);
    }
    const info = await sandbox.podman(['info', '--format', '{{.Host.OCIRuntime.Name}} {{.Store.GraphDriverName}}']);
    if (info.status !== 0 || info.stdout.trim() !== 'runc vfs') {
      throw new Error(`podman info did not report runc and vfs (exit ${info.status}): ${info.stdout}${info.stderr}`);
    }
    await sandbox.importSensorImage();
    return sandbox;
  }

  /** Lets podman pull from a plain-HTTP registry at host:port (a test's loopback registry),
   *  through a registries.conf of the sandbox's own. */
  allowInsecureRegistry(location: string): void {
    const file = path.join(this.root, 'registries.conf');
    fs.writeFileSync(file, ['[[registry]]', `location = "${location}"`, 'insecure = true', ''].join('\n'));
    this.env.CONTAINERS_REGISTRIES_CONF = file;
  }

  environment(): Record<string, string> {
    return { ...this.env };
  }

  podman(args: readonly string[]): Promise<CommandResult> {
    return runCommand('podman', args, this.env);
  }

  /** podman, failing the test with podman's message unless it succeeds; returns stdout trimmed. */
  async podmanOk(args: readonly string[]): Promise<string> {
    const result = await this.podman(args);
    if (result.status !== 0) throw new Error(`podman ${args.join(' ')} failed (exit ${result.status}): ${result.stderr}`);
    return result.stdout.trim();
  }

  /** A rootfs of busybox, sh and cat (the launcher no longer runs anything in the app container:
   *  the cat stays for the tests' own looks inside). */
  private async importSensorImage(): Promise<void> {
    const rootfs = path.join(this.root, 'rootfs');
    for (const dir of ['bin', 'etc', 'proc', 'sys', 'dev', 'tmp']) fs.mkdirSync(path.join(rootfs, dir), { recursive: true });
    fs.copyFileSync(BUSYBOX, path.join(rootfs, 'bin', 'busybox'));
    fs.chmodSync(path.join(rootfs, 'bin', 'busybox'), 0o755);
    fs.symlinkSync('busybox', path.join(rootfs, 'bin', 'sh'));
    fs.symlinkSync('busybox', path.join(rootfs, 'bin', 'cat'));
    fs.writeFileSync(path.join(rootfs, 'sensor-entrypoint.sh'), SENSOR_ENTRYPOINT, { mode: 0o755 });
    fs.writeFileSync(path.join(rootfs, 'app-entrypoint.sh'), APP_ENTRYPOINT, { mode: 0o755 });
    const tarball = path.join(this.root, 'rootfs.tar');
    const tar = await runCommand('tar', ['-C', rootfs, '--owner=0', '--group=0', '--numeric-owner', '-cf', tarball, '.'], this.env);
    if (tar.status !== 0) throw new Error(`tar of the stand-in rootfs failed: ${tar.stderr}`);
    await this.podmanOk(['import', '--change', 'ENTRYPOINT ["/sensor-entrypoint.sh"]', tarball, this.image]);
    await this.podmanOk(['import', '--change', 'ENTRYPOINT ["/sensor-entrypoint.sh"]', '--change', 'USER 1000', tarball, `${SENSOR_IMAGE_REPOSITORY}:${NON_ROOT_SENSOR_IMAGE_TAG}`]);
    await this.podmanOk(['import', '--change', 'ENTRYPOINT ["/sensor-entrypoint.sh"]', '--change', 'ENV STAND_IN_IGNORES_TERM=1', tarball, `${SENSOR_IMAGE_REPOSITORY}:${TERM_IGNORING_SENSOR_IMAGE_TAG}`]);
  }

  /** Creates a bridge network with a name unique to this run; removed by cleanup. */
  async createNetwork(purpose: string): Promise<string> {
    const name = `svc-test-${purpose}-${this.suffix}`;
    await this.podmanOk(['network', 'create', name]);
    this.networks.push(name);
    return name;
  }

  /** Starts the stand-in application container on the given networks and waits until it runs. */
  async startApp(name: string, networks: readonly string[]): Promise<string> {
    const networkArgs = networks.flatMap((network) => ['--network', network]);
    const id = await this.podmanOk(['run', '--detach', '--name', name, ...networkArgs, '--entrypoint', '/app-entrypoint.sh', this.image]);
    await this.waitForLog(name, 'ready');
    return id;
  }

  /** Waits until a container's log has the line, and returns the log. */
  async waitForLog(container: string, line: string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let log = '';
    while (Date.now() < deadline) {
      const result = await this.podman(['logs', container]);
      log = result.stdout + result.stderr;
      if (log.split('\n').includes(line)) return log;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`container ${container} did not log '${line}' within ${timeoutMs} ms; its log:\n${log}`);
  }

  /** Polls until the check holds; throws naming what did not happen. */
  async waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<true> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }

  /** `podman inspect` of one container, parsed. */
  async inspect(container: string): Promise<ContainerInspection> {
    const [inspection] = JSON.parse(await this.podmanOk(['container', 'inspect', container])) as ContainerInspection[];
    return inspection;
  }

  async containerExists(container: string): Promise<boolean> {
    const result = await this.podman(['container', 'exists', container]);
    if (result.status !== 0 && result.status !== 1) throw new Error(`podman container exists ${container} failed: ${result.stderr}`);
    return result.status === 0;
  }

  /** Removes every container (sensors first: they hold their app's network namespace), the
   *  networks and the directory; throws if podman keeps anything. */
  async cleanup(): Promise<void> {
    const problems: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const ids = (await this.podmanOk(['ps', '--all', '--quiet', '--no-trunc'])).split('\n').filter((id) => id !== '');
      if (ids.length === 0) break;
      const sensors = (await this.podmanOk(['ps', '--all', '--quiet', '--no-trunc', '--filter', 'name=^svc-sensor-'])).split('\n').filter((id) => id !== '');
      await this.podman(['rm', '--force', '--time', '0', ...(sensors.length > 0 ? sensors : ids)]);
    }
    const left = await this.podmanOk(['ps', '--all', '--format', '{{.Names}}']);
    if (left !== '') problems.push(`containers left: ${left}`);
    for (const network of this.networks.splice(0)) {
      const removed = await this.podman(['network', 'rm', '--force', network]);
      if (removed.status !== 0) problems.push(`network ${network} not removed: ${removed.stderr}`);
    }
    if (problems.length === 0) {
      fs.rmSync(this.secretDir, { recursive: true, force: true });
      fs.rmSync(this.runRoot, { recursive: true, force: true });
      fs.rmSync(this.root, { recursive: true, force: true });
    }
    if (problems.length > 0) throw new Error(`podman cleanup incomplete (${this.root} kept for a look): ${problems.join('; ')}`);
  }
}

/** The parts of `podman container inspect` the tests read. */
export interface ContainerInspection {
  readonly Id: string;
  readonly Image: string;
  readonly Name: string;
  readonly RestartCount: number;
  readonly State: { readonly Status: string; readonly Running: boolean; readonly StartedAt: string };
  readonly Config: { readonly Labels: Record<string, string> | null; readonly Image: string };
  readonly ImageName: string;
  readonly HostConfig: {
    readonly NetworkMode: string;
    readonly RestartPolicy: { readonly Name: string };
    readonly ReadonlyRootfs: boolean;
    readonly SecurityOpt: readonly string[] | null;
    readonly Memory: number;
    readonly NanoCpus: number;
    readonly PidsLimit: number;
  };
  readonly Mounts: ReadonlyArray<{ readonly Source: string; readonly Destination: string; readonly RW: boolean }>;
  readonly NetworkSettings: {
    readonly Networks?: Record<string, { readonly IPAddress: string; readonly MacAddress: string }>;
  };
}

/** What the stand-in sensor reported in its log. */
export interface SensorReport {
  readonly env: Record<string, string>;
  readonly keySha256: string;
  /** Whether SVC_SENSOR_API_KEY was in the sensor's environment. */
  readonly keyInEnvironment: boolean;
  readonly netns: string;
  readonly uid: string;
  readonly capabilities: bigint;
  /** Mount point at or under /sys -> its options, the last mount on it (the one seen). */
  readonly mounts: Record<string, string>;
  /** Each escape attempt ('remount-sys-rw', 'umount-cgroup', ...) -> 'ok' or 'refused'. */
  readonly escapes: Record<string, string>;
  /** Root (within its hierarchy) of every cgroup mount the sensor sees. */
  readonly cgroupRoots: string[];
  /** release_agent files the sensor can see (the cgroup v1 host escape). */
  readonly releaseAgents: string[];
  /** Interface name (without @peer) -> MAC address. */
  readonly links: Record<string, string>;
  /** Interface name -> IPv4 addresses without prefix length. */
  readonly addresses: Record<string, string[]>;
}

export function parseSensorLog(log: string): SensorReport {
  const env: Record<string, string> = {};
  const links: Record<string, string> = {};
  const addresses: Record<string, string[]> = {};
  const mounts: Record<string, string> = {};
  const escapes: Record<string, string> = {};
  const cgroupRoots: string[] = [];
  const releaseAgents: string[] = [];
  let keySha256 = '';
  let keyInEnvironment = true;
  let netns = '';
  let uid = '';
  let capabilities = -1n;
  for (const line of log.split('\n')) {
    const [kind, ...rest] = line.split(': ');
    const value = rest.join(': ');
    if (kind === 'env') {
      const equals = value.indexOf('=');
      env[value.slice(0, equals)] = value.slice(equals + 1);
    } else if (kind === 'key-sha256') keySha256 = value;
    else if (kind === 'key-in-environment') keyInEnvironment = value !== 'no';
    else if (kind === 'netns') netns = value;
    else if (kind === 'uid') uid = value;
    else if (kind === 'capabilities') capabilities = BigInt(`0x${value}`);
    else if (kind.startsWith('escape ')) escapes[kind.slice('escape '.length)] = value;
    else if (kind === 'cgroup-root') cgroupRoots.push(value);
    else if (kind === 'release-agent') releaseAgents.push(value);
    else if (kind === 'mount') {
      // "sysfs /sys/kernel sysfs ro,nosuid,nodev,noexec,relatime 0 0"
      const [, mountPoint, , options] = value.split(' ');
      mounts[mountPoint] = options;
    } else if (kind === 'link') {
      // "2: eth0@if7: <BROADCAST,...> mtu 1500 ... link/ether 7e:14:29:bd:b7:ca brd ..."
      const match = /^\d+: ([^:@\s]+)(?:@[^:\s]+)?: .*link\/\w+ ([0-9a-f:]+)/.exec(value);
      if (match) links[match[1]] = match[2];
    } else if (kind === 'addr') {
      // "2: eth0    inet 10.89.1.3/24 brd ..."
      const match = /^\d+: (\S+)\s+inet ([0-9.]+)\//.exec(value);
      if (match) (addresses[match[1]] ??= []).push(match[2]);
    }
  }
  return { env, keySha256, keyInEnvironment, netns, uid, capabilities, mounts, escapes, cgroupRoots, releaseAgents, links, addresses };
}
