/**
 * The `svc-emulator` executable as a child process, for scripts and tests that need a separate
 * process (the demo, process-level tests): spawns `node bin/svc-emulator.js --port 0 ...`,
 * waits for its one stdout line `svc-emulator listening on <url>` and hands back the URL and
 * controls. In-process tests should prefer startEmulator() from ./server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { API_KEY_ENV } from './cli';

export const EMULATOR_EXECUTABLE = path.resolve(__dirname, '..', '..', 'bin', 'svc-emulator.js');

/** Kept of the child's stderr for error messages: the newest output matters, not all of it. */
const STDERR_TAIL_BYTES = 16 * 1024;
const DEFAULT_STOP_GRACE_MS = 10_000;

export interface EmulatorProcessOptions {
  /** Flags after `--port 0` (a later `--port` wins), e.g. `['--tenant', 'acme', '--quiet']`. */
  readonly args?: readonly string[];
  /**
   * The quick seed's key (with `--tenant` in args), passed as SVC_EMULATOR_API_KEY in the
   * child's environment: `--api-key` would show it to anyone running `ps`.
   */
  readonly apiKey?: string;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default process.cwd() */
  readonly cwd?: string;
  /** Receives the child's stderr as it comes (e.g. `(text) => process.stderr.write(text)`). @default kept only */
  readonly onStderr?: (text: string) => void;
  /** How long stop() waits after SIGTERM before it kills hard and fails. @default 10000 */
  readonly stopGraceMs?: number;
}

export interface EmulatorExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface EmulatorProcess {
  /** e.g. `http://127.0.0.1:41234`, from the emulator's first stdout line. */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Settles when the child has exited. */
  readonly exited: Promise<EmulatorExit>;
  /** The last 16 KiB of the child's stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit (the emulator exits 0). Fails if it outlives stopGraceMs (then it is killed). */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

export class EmulatorProcessError extends Error {
  readonly code = 'emulator_process';
  constructor(message: string) {
    super(message);
    this.name = 'EmulatorProcessError';
  }
}

const LISTENING_LINE = /^svc-emulator listening on (http:\/\/(?:\[[^\]]+\]|[^:/\s]+):(\d+))$/;

function describeExit(exit: EmulatorExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

function withStderr(message: string, stderr: string): string {
  const text = stderr.trim();
  return text === '' ? `${message} (nothing on stderr)` : `${message}; its stderr:\n${text}`;
}

/**
 * Resolves once the emulator has printed its URL and answered GET /_emulator/health: it prints
 * the line just before it installs its SIGTERM handler, so a stop() sent on the line alone can
 * find the default action (death by signal, no clean shutdown).
 */
export async function startEmulatorProcess(options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [EMULATOR_EXECUTABLE, '--port', '0', ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), ...(options.apiKey === undefined ? {} : { [API_KEY_ENV]: options.apiKey }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  // Read stderr for the whole life of the child: a full pipe would block the emulator's logging.
  let stderrTail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_BYTES);
    options.onStderr?.(text);
  });

  let exitStatus: EmulatorExit | undefined;
  const exited = new Promise<EmulatorExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitStatus = { code, signal };
      resolve(exitStatus);
    });
  });
  // 'close' comes after both pipes are drained, so the stderr tail is complete by then.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const waitForExit = async (): Promise<EmulatorExit> => {
    const exit = await exited;
    await closed;
    return exit;
  };

  const kill = async (): Promise<void> => {
    if (exitStatus === undefined) child.kill('SIGKILL');
    await waitForExit();
  };

  const stop = async (): Promise<void> => {
    if (exitStatus !== undefined) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const outlived = new Promise<'outlived'>((resolve) => {
      timer = setTimeout(() => resolve('outlived'), options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
    });
    const outcome = await Promise.race([waitForExit(), outlived]);
    clearTimeout(timer);
    if (outcome === 'outlived') {
      await kill();
      throw new EmulatorProcessError(withStderr(`svc-emulator (pid ${child.pid}) did not exit within ${options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS} ms of SIGTERM and was killed`, stderrTail));
    }
  };

  const listening = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      lines.close();
      reject(new EmulatorProcessError(message));
    };

    child.once('error', (error) => fail(`svc-emulator could not be started with ${process.execPath}: ${error.message}`));
    lines.once('line', (line) => {
      if (settled) return;
      const match = LISTENING_LINE.exec(line);
      if (!match) {
        child.kill('SIGKILL');
        fail(`svc-emulator printed an unexpected first line: ${JSON.stringify(line)}`);
        return;
      }
      settled = true;
      // readline keeps reading stdout after this, so the pipe never fills.
      resolve({ url: match[1], port: Number(match[2]) });
    });
    void waitForExit().then((exit) => fail(withStderr(`svc-emulator ${describeExit(exit)} before it was listening`, stderrTail)));
  });

  // A request is served on a later turn of the emulator's event loop than the line was printed.
  const health = await fetch(`${listening.url}/_emulator/health`).then(
    async (response) => ({ ok: response.ok, text: await response.text() }),
    (error: unknown) => ({ ok: false, text: error instanceof Error ? error.message : String(error) }),
  );
  if (!health.ok) {
    await kill();
    throw new EmulatorProcessError(withStderr(`svc-emulator at ${listening.url} did not answer /_emulator/health (${health.text}) and was killed`, stderrTail));
  }
  return { ...listening, child, exited, stderr: () => stderrTail, stop, kill };
}
