/**
 * Runs a command to completion the way spawnSync does (status, signal, stdout, stderr), but in
 * a process group of its own that is killed whole: when its own time limit passes, and when the
 * test that started it times out (it is tracked, see child-processes.ts). spawnSync's timeout
 * kills only its direct child: `npm run demo` timing out left the demo script and the emulator running.
 * And it is asynchronous, so jest's test timeout can fire while it runs.
 */
import { spawn } from 'node:child_process';
import { track } from './child-processes';

export interface CommandRun {
  /** The exit code, or null when a signal ended it. */
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when `timeoutMs` passed and the group was killed. */
  readonly timedOut: boolean;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; stdin is empty without it. */
  readonly input?: string;
  /** The whole process group is killed (SIGKILL) after this long. */
  readonly timeoutMs: number;
}

export function runCommand(command: string, args: readonly string[], options: RunOptions): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true }), { group: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const killGroup = () => {
      if (child.pid === undefined) return; // never started: the error event says why
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => undefined); // a command that never reads its stdin may close it first
    child.stdin.end(options.input ?? '');
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    child.once('exit', () => {
      clearTimeout(timer);
      // A grandchild that outlives the command would hold its pipes open: the group goes with it.
      killGroup();
    });
    child.once('close', (status, signal) => {
      resolve({ status, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), timedOut });
    });
  });
}
