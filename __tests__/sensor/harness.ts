/** Runs bin/run-svc-sensor.sh in a sandbox: PATH holds only stub executables (the container
 *  runtime, nproc, uname) and links to the few real tools the launcher needs, so no real
 *  container runtime or host fact can leak into a test. The stub runtime records every call. */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { track } from '../support/child-processes';

export const LAUNCHER = path.resolve(__dirname, '../../bin/run-svc-sensor.sh');

/** Real tools the launcher and the stubs (in ./stubs) use; anything else must be stubbed. */
const REAL_TOOLS = ['bash', 'cat', 'mktemp', 'mkdir', 'rm', 'timeout', 'stat', 'base64', 'sleep', 'sed', 'chown', 'flock', 'sha256sum', 'head', 'chmod', 'mv'];

/** Tools reached through a recording shim: every process the launcher starts, except bash. */
const RECORDED_TOOLS = REAL_TOOLS.filter((tool) => tool !== 'bash');

/** Docker's and podman's `.State.Status` values the tests use ('missing': no such container). */
export type ContainerState =
  | 'running'
  | 'exited'
  | 'paused'
  | 'created'
  | 'restarting'
  | 'dead'
  | 'stopping'
  | 'stopped'
  | 'configured'
  | 'initialized'
  | 'missing';

export interface StubConfig {
  /** Names the stub runtime is installed under on PATH (default docker); empty for none. */
  readonly runtimeNames?: readonly string[];
  readonly appState?: ContainerState;
  readonly sensorState?: ContainerState;
  /** Non-loopback interfaces of the app container, in <proc>/<its pid 4240>/net/dev. */
  readonly containerInterfaces?: readonly string[];
  /** The app container's <proc>/4240/net/dev is missing (a remote daemon, another PID namespace). */
  readonly appNetDevMissing?: boolean;
  /** `.HostConfig.NetworkMode` of the app container (default bridge). */
  readonly appNetworkMode?: string;
  readonly infoFails?: boolean;
  /** The runtime names (docker, podman) whose `info` fails; the others answer. */
  readonly infoFailsFor?: readonly string[];
  readonly imageIsLocal?: boolean;
  readonly pullFails?: boolean;
  readonly stopFails?: boolean;
  readonly rmFails?: boolean;
  readonly runFails?: boolean;
  /** `start` (of the previous sensor, on rollback) fails. */
  readonly startFails?: boolean;
  /** The container `run` created: its state, restart count and health status as inspected. */
  readonly newSensorState?: string;
  readonly newSensorRestarts?: number;
  readonly newSensorHealth?: string;
  /** A svc-sensor-<app>.previous left by an interrupted run (default missing), and its svc.sensor.name label. */
  readonly previousState?: ContainerState;
  readonly previousLabel?: string;
  /** USER of the image, as `image inspect --format {{.Config.User}}` says (default none). */
  readonly imageUser?: string;
  /** CapEff of the new sensor's process (pid 4242) as hex; default every capability. */
  readonly sensorCapEff?: string;
  readonly cores?: string;
  readonly operatingSystem?: string;
  /** What `uname -r` says (default 6.1.0-stub). */
  readonly kernelRelease?: string;
  readonly memTotalKb?: number | null;
  /** Contents of <proc>/net/route; the default has eth0 as default route. */
  readonly routeTable?: string | null;
  readonly ipv6RouteTable?: string | null;
  /** Non-loopback host interfaces in <proc>/net/dev. */
  readonly hostInterfaces?: readonly string[];
  /** What `docker info --format {{range .SecurityOptions}}...` lists (default seccomp and cgroupns;
   *  a rootless daemon adds name=rootless). */
  readonly securityOptions?: string;
  /** What `podman version --format {{.Client.Version}}` says (default 4.3.1, before quadlet). */
  readonly podmanVersion?: string;
  /** The app container's PODMAN_SYSTEMD_UNIT label (default none). */
  readonly appUnitLabel?: string;
  /** The runtime subcommand (info, stop, run...) whose first call blocks until released or signalled. */
  readonly blockIn?: string;
}

export interface LauncherRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** One entry per runtime call, its arguments in order. */
  readonly calls: string[][];
  /** The name the runtime was called by, one per call. */
  readonly runtimeNamesCalled: string[];
  /** What the stub saw of each --env-file while `run` executed. */
  readonly envFiles: Array<{ path: string; mode: string; contents: string }>;
  /** What the stub saw of each key file mounted at /run/secrets/svc-sensor-api-key. */
  readonly keyFiles: Array<{ path: string; mode: string; contents: string }>;
  /** Files and directories under the sandbox's key directory (SVC_SENSOR_SECRET_DIR) after the run. */
  readonly keyStoreEntries: string[];
  /** True when SVC_SENSOR_API_KEY was in the environment of any runtime call. */
  readonly runtimeSawKeyInEnvironment: boolean;
  /** Every helper tool started (mktemp, rm, timeout, cat...): its name, then its arguments. */
  readonly toolCalls: string[][];
  /** Names of the helper tools that had SVC_SENSOR_API_KEY in their environment. */
  readonly toolsThatSawKey: string[];
  /** Files left in the launcher's TMPDIR after it exited. */
  readonly leftoverTempFiles: string[];
  readonly sandbox: Sandbox;
}

export interface Sandbox {
  readonly root: string;
  readonly binDir: string;
  readonly procDir: string;
  readonly tmpDir: string;
  readonly recordDir: string;
  /** SVC_SENSOR_SECRET_DIR: a directory on /dev/shm (a tmpfs), as the launcher demands. */
  readonly secretDir: string;
  readonly path: string;
}

export const DEFAULT_ROUTE_TABLE = [
  'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
  'eth1\t00000000\t0101A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0',
  'eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
  'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
].join('\n');

const STUBS_DIR = path.join(__dirname, 'stubs');
/** A tmpfs on every Linux host. */
const SHARED_MEMORY = '/dev/shm';
const secretDirs: string[] = [];

/** Every file and directory under a directory, relative, sorted. */
function listTree(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return (fs.readdirSync(directory, { recursive: true }) as string[]).sort();
}

let realToolPaths: Map<string, string> | undefined;

function resolveRealTools(): Map<string, string> {
  if (realToolPaths) return realToolPaths;
  const found = new Map<string, string>();
  for (const tool of REAL_TOOLS) {
    const result = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
    const resolved = result.stdout.trim();
    if (result.status !== 0 || !resolved.startsWith('/')) throw new Error(`test host lacks ${tool}`);
    found.set(tool, resolved);
  }
  realToolPaths = found;
  return found;
}

/** The real bash, to start the launcher with. */
export function realBash(): string {
  return resolveRealTools().get('bash')!;
}

function deviceTable(interfaces: readonly string[]): string {
  const header = 'Inter-|   Receive |  Transmit\n face |bytes    packets|bytes    packets\n';
  return header + ['lo', ...interfaces].map((name) => `${name.padStart(6)}: 1 1 0 0 0 0 0 0 1 1\n`).join('');
}

export function createSandbox(config: StubConfig = {}): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-test-'));
  const binDir = path.join(root, 'bin');
  const toolsDir = path.join(root, 'tools');
  const procDir = path.join(root, 'proc');
  const tmpDir = path.join(root, 'tmp');
  const recordDir = path.join(root, 'record');
  const secretDir = fs.mkdtempSync(path.join(SHARED_MEMORY, 'svc-sensor-test-'));
  secretDirs.push(secretDir);
  for (const dir of [binDir, toolsDir, path.join(procDir, 'net'), tmpDir, recordDir]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  const bash = realBash();
  for (const [tool, target] of resolveRealTools()) {
    if (!RECORDED_TOOLS.includes(tool)) {
      fs.symlinkSync(target, path.join(toolsDir, tool));
      continue;
    }
    // A shim that records the argument vector (what a process listing shows) and whether the
    // key was in the environment, then runs the real tool.
    const shim = [
      `#!${bash}`,
      `{ printf '%s' ${tool}; printf '\\t%s' "$@"; printf '\\n'; } >>'${recordDir}/tools.log'`,
      `[[ -z \${SVC_SENSOR_API_KEY+set} ]] || printf '%s\\n' ${tool} >>'${recordDir}/tools-saw-key.log'`,
      `exec '${target}' "$@"`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(toolsDir, tool), shim, { mode: 0o755 });
  }

  for (const runtimeName of config.runtimeNames ?? ['docker']) {
    fs.symlinkSync(path.join(STUBS_DIR, 'container-runtime'), path.join(binDir, runtimeName));
  }
  fs.symlinkSync(path.join(STUBS_DIR, 'nproc'), path.join(binDir, 'nproc'));
  fs.symlinkSync(path.join(STUBS_DIR, 'uname'), path.join(binDir, 'uname'));

  const memTotalKb = config.memTotalKb === undefined ? 4_000_000 : config.memTotalKb;
  if (memTotalKb !== null) {
    fs.writeFileSync(path.join(procDir, 'meminfo'), `MemTotal:       ${memTotalKb} kB\nMemFree:         1000 kB\n`);
  }
  const routeTable = config.routeTable === undefined ? DEFAULT_ROUTE_TABLE : config.routeTable;
  if (routeTable !== null) fs.writeFileSync(path.join(procDir, 'net', 'route'), routeTable + '\n');
  if (config.ipv6RouteTable != null) {
    fs.writeFileSync(path.join(procDir, 'net', 'ipv6_route'), config.ipv6RouteTable + '\n');
  }
  fs.writeFileSync(path.join(procDir, 'net', 'dev'), deviceTable(config.hostInterfaces ?? ['eth0', 'eth1']));
  // The app container's process (pid 4240): its network namespace's device table.
  if (!config.appNetDevMissing) {
    fs.mkdirSync(path.join(procDir, '4240', 'net'), { recursive: true });
    fs.writeFileSync(path.join(procDir, '4240', 'net', 'dev'), deviceTable(config.containerInterfaces ?? ['eth0']));
  }
  // The new sensor's process, as the stub's inspect names it (pid 4242).
  fs.mkdirSync(path.join(procDir, '4242'));
  fs.writeFileSync(path.join(procDir, '4242', 'status'), `Name:\tsensor\nCapInh:\t0000000000000000\nCapEff:\t${config.sensorCapEff ?? '000001ffffffffff'}\n`);

  return { root, binDir, procDir, tmpDir, recordDir, secretDir, path: `${binDir}:${toolsDir}` };
}

export interface RunOptions {
  readonly stub?: StubConfig;
  /** Extra environment for the launcher; SVC_SENSOR_API_KEY defaults to TEST_KEY. */
  readonly env?: Record<string, string | undefined>;
}

export const TEST_KEY = 'sk-test-9f8e7d6c5b4a';

/** The repositories the sandbox's host names in SVC_SENSOR_IMAGE_REPOSITORY and
 *  SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY (reserved .example names: nothing is ever pulled). */
export const SITE_IMAGE_REPOSITORY = 'registry.svc.example/svc/runtime-sensor';
export const SITE_INTERNAL_IMAGE_REPOSITORY = 'registry.internal.svc.example/svc/runtime-sensor';

function readLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.length > 0);
}

/** The stub's environment for a configuration: what each fake answer should be. */
export function stubEnvironment(sandbox: Sandbox, stub: StubConfig): Record<string, string> {
  const yes = (flag: boolean | undefined): string => (flag ? 'yes' : 'no');
  return {
    STUB_RECORD_DIR: sandbox.recordDir,
    STUB_APP_STATE: stub.appState ?? 'running',
    STUB_SENSOR_STATE: stub.sensorState ?? 'missing',
    STUB_APP_NETWORK_MODE: stub.appNetworkMode ?? 'bridge',
    STUB_INFO_FAILS: yes(stub.infoFails),
    STUB_INFO_FAILS_FOR: (stub.infoFailsFor ?? []).join(' '),
    STUB_IMAGE_LOCAL: stub.imageIsLocal === false ? 'no' : 'yes',
    STUB_PULL_FAILS: yes(stub.pullFails),
    STUB_STOP_FAILS: yes(stub.stopFails),
    STUB_RM_FAILS: yes(stub.rmFails),
    STUB_RUN_FAILS: yes(stub.runFails),
    STUB_START_FAILS: yes(stub.startFails),
    STUB_NEW_SENSOR_STATE: stub.newSensorState ?? 'running',
    STUB_NEW_SENSOR_RESTARTS: String(stub.newSensorRestarts ?? 0),
    STUB_NEW_SENSOR_HEALTH: stub.newSensorHealth ?? '',
    STUB_PREVIOUS_STATE: stub.previousState ?? 'missing',
    STUB_IMAGE_USER: stub.imageUser ?? '',
    ...(stub.previousLabel === undefined ? {} : { STUB_PREVIOUS_LABEL: stub.previousLabel }),
    STUB_CORES: stub.cores ?? '4',
    STUB_OS: stub.operatingSystem ?? 'Linux',
    STUB_KERNEL: stub.kernelRelease ?? '6.1.0-stub',
    ...(stub.securityOptions === undefined ? {} : { STUB_SECURITY_OPTIONS: stub.securityOptions }),
    ...(stub.podmanVersion === undefined ? {} : { STUB_PODMAN_VERSION: stub.podmanVersion }),
    ...(stub.appUnitLabel === undefined ? {} : { STUB_APP_UNIT_LABEL: stub.appUnitLabel }),
    STUB_BLOCK_IN: stub.blockIn ?? '',
    STUB_BLOCK_FIFO: path.join(sandbox.root, 'block.fifo'),
  };
}

/** The launcher's environment: hermetic PATH, sandbox TMPDIR and proc seam, the stub's answers. */
export function launcherEnvironment(sandbox: Sandbox, options: RunOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: sandbox.path,
    HOME: sandbox.root,
    TMPDIR: sandbox.tmpDir,
    LANG: 'C',
    SVC_SENSOR_PROC_DIR: sandbox.procDir,
    // No selinuxfs there: the test host's SELinux state stays out of the tests.
    SVC_SENSOR_SELINUX_DIR: path.join(sandbox.root, 'selinux'),
    SVC_SENSOR_SECRET_DIR: sandbox.secretDir,
    // The stub's sensor is there at once; tests of the wait set their own.
    SVC_SENSOR_HEALTH_WAIT: '0',
    SVC_SENSOR_API_KEY: TEST_KEY,
    // The host's site default of -i/--image-repo (the vendor's repository is a required
    // setting); tests of the refusal unset these.
    SVC_SENSOR_IMAGE_REPOSITORY: SITE_IMAGE_REPOSITORY,
    SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY: SITE_INTERNAL_IMAGE_REPOSITORY,
    ...stubEnvironment(sandbox, options.stub ?? {}),
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function collectRun(sandbox: Sandbox, status: number | null, stdout: string, stderr: string): LauncherRun {
  const calls = readLines(path.join(sandbox.recordDir, 'calls.log')).map((line) => line.split('\t'));
  const recordedFiles = (log: string): Array<{ path: string; mode: string; contents: string }> =>
    readLines(path.join(sandbox.recordDir, log)).map((line) => {
      const [file, mode, encoded] = line.split('\t');
      return { path: file, mode, contents: Buffer.from(encoded ?? '', 'base64').toString('utf8') };
    });
  const envFiles = recordedFiles('env-files.log');
  return {
    status,
    stdout,
    stderr,
    calls,
    runtimeNamesCalled: readLines(path.join(sandbox.recordDir, 'runtime-names.log')),
    envFiles,
    keyFiles: recordedFiles('key-files.log'),
    keyStoreEntries: listTree(sandbox.secretDir),
    runtimeSawKeyInEnvironment: fs.existsSync(path.join(sandbox.recordDir, 'runtime-saw-key')),
    toolCalls: readLines(path.join(sandbox.recordDir, 'tools.log')).map((line) => line.split('\t')),
    toolsThatSawKey: readLines(path.join(sandbox.recordDir, 'tools-saw-key.log')),
    leftoverTempFiles: fs.readdirSync(sandbox.tmpDir),
    sandbox,
  };
}

const sandboxes: string[] = [];

/** Runs the launcher once in a fresh sandbox, stdin not a terminal. */
export function runLauncher(args: readonly string[], options: RunOptions = {}): LauncherRun {
  const sandbox = createSandbox(options.stub);
  sandboxes.push(sandbox.root);
  const result = spawnSync(realBash(), [LAUNCHER, ...args], {
    env: launcherEnvironment(sandbox, options),
    input: '',
    encoding: 'utf8',
  });
  return collectRun(sandbox, result.status, result.stdout, result.stderr);
}

export interface BlockedLauncher {
  readonly child: ChildProcess;
  readonly sandbox: Sandbox;
  /** Resolves once the stub runtime sits in the blocking call. */
  blocked(): Promise<void>;
  /** Lets the blocking call finish (no-op when the stub is gone). */
  release(): void;
  /** Signals the launcher alone, or its whole process group (as Ctrl-C on a terminal does). */
  signal(name: NodeJS.Signals, target: 'launcher' | 'group'): void;
  /** The run once the launcher has exited; status is 128+n when it died of signal n. */
  readonly finished: Promise<LauncherRun>;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Starts the launcher in its own process group with the stub blocking in `stub.blockIn`. */
export function startBlockedLauncher(args: readonly string[], options: RunOptions & { stub: { blockIn: string } }): BlockedLauncher {
  const sandbox = createSandbox(options.stub);
  sandboxes.push(sandbox.root);
  const env = launcherEnvironment(sandbox, options);
  const made = spawnSync('mkfifo', [env.STUB_BLOCK_FIFO], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  const child = track(spawn(realBash(), [LAUNCHER, ...args], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }), { group: true });
  startedGroups.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const finished = new Promise<LauncherRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      const code = status ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : null);
      resolve(collectRun(sandbox, code, stdout, stderr));
    });
  });
  const marker = path.join(sandbox.recordDir, 'blocked');
  return {
    child,
    sandbox,
    async blocked() {
      // Polls a file the stub writes; jest's test timeout bounds the wait.
      while (!fs.existsSync(marker)) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`the launcher exited before the stub blocked in ${options.stub.blockIn}:\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    release() {
      // Read-write open never blocks, even when the stub has already gone.
      const fd = fs.openSync(env.STUB_BLOCK_FIFO, fs.constants.O_RDWR);
      fs.writeSync(fd, 'go\n');
      fs.closeSync(fd);
    },
    signal(name, target) {
      process.kill(target === 'group' ? -child.pid! : child.pid!, name);
    },
    finished,
  };
}

/** Signals the stub runtime recorded while blocked. */
export function stubSignals(run: LauncherRun): string[] {
  return readLines(path.join(run.sandbox.recordDir, 'stub-signals.log'));
}

const startedGroups: ChildProcess[] = [];

export function removeSandboxes(): void {
  // A launcher a failed test left blocked would keep jest from exiting: end its group.
  for (const child of startedGroups.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch (error) {
      // Gone between the check and the kill.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  for (const root of sandboxes.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  for (const directory of secretDirs.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
}

/** The runtime subcommands called, in order (`container inspect` counts as one). */
export function subcommands(run: LauncherRun): string[] {
  return run.calls.map((call) => (call[0] === 'container' || call[0] === 'image' ? `${call[0]} ${call[1]}` : call[0]));
}

export function runCall(run: LauncherRun): string[] {
  const call = run.calls.find((candidate) => candidate[0] === 'run');
  if (!call) throw new Error(`no run call; calls were ${JSON.stringify(run.calls)}\nstderr: ${run.stderr}`);
  return call;
}

/** The value following `flag` in a call, for every occurrence. */
export function flagValues(call: readonly string[], flag: string): string[] {
  const values: string[] = [];
  call.forEach((argument, index) => {
    if (argument === flag && index + 1 < call.length) values.push(call[index + 1]);
  });
  return values;
}

/** The filesystems the launcher mounts read-only when this host has them under the trace path. */
export const TRACE_MOUNT_CANDIDATES = ['/sys/kernel/tracing', '/sys/kernel/debug/tracing', '/sys/kernel/btf', '/sys/fs/bpf'];

/** The --volume values the launcher must give for a resolved trace path on this host: the
 *  candidates under it, or the path itself when it lies inside one of them. */
export function expectedTraceVolumes(tracePath: string): string[] {
  const inside = TRACE_MOUNT_CANDIDATES.find((candidate) => tracePath === candidate || tracePath.startsWith(`${candidate}/`));
  const mounts = inside ? [tracePath] : TRACE_MOUNT_CANDIDATES.filter((candidate) => candidate.startsWith(`${tracePath}/`) && fs.existsSync(candidate));
  if (mounts.length === 0) throw new Error(`this host has none of ${TRACE_MOUNT_CANDIDATES.join(', ')} under ${tracePath}`);
  return mounts.map((mount) => `${mount}:${mount}:ro`);
}

export const KEY_FILE_IN_CONTAINER = '/run/secrets/svc-sensor-api-key';

/** The --volume values of a run call other than the key file's. */
export function traceVolumes(call: readonly string[]): string[] {
  return flagValues(call, '--volume').filter((volume) => !volume.endsWith(`:${KEY_FILE_IN_CONTAINER}:ro`));
}

export const REQUIRED = ['-n', 'acme', '-d', 'corp.example.com', '-a', 'shop-web'];
