/**
 * runCommand (__tests__/support/run-command.ts): spawnSync's result, from a process group of its
 * own that goes whole, grandchildren included, when its time limit passes or the command exits
 * leaving something behind. (When its test times out, kill-children.ts kills the group: the
 * child-processes tests cover that path.)
 */
import * as fs from 'node:fs';
import { runCommand } from '../support/run-command';

/** Alive and not a zombie (a reparented grandchild may linger as one until PID 1 reaps it). */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (up to 2 s) for the process to be gone; true when it is. */
async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 100 && isAlive(pid); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  return !isAlive(pid);
}

test('gives the exit status, stdout and stderr as spawnSync does, with stdin from input', async () => {
  const result = await runCommand('sh', ['-c', 'read line; echo "out $line"; echo err >&2; exit 3'], { input: 'given\n', timeoutMs: 30_000 });
  expect(result).toEqual({ status: 3, signal: null, stdout: 'out given\n', stderr: 'err\n', timedOut: false });
});

test('on its time limit the whole process group is killed, the grandchild too', async () => {
  const result = await runCommand('sh', ['-c', 'sleep 600 & echo $!; wait'], { timeoutMs: 1_000 });
  expect({ status: result.status, signal: result.signal, timedOut: result.timedOut }).toEqual({ status: null, signal: 'SIGKILL', timedOut: true });
  expect(await gone(Number(result.stdout.trim()))).toBe(true);
});

test('a grandchild the command left running goes when the command exits', async () => {
  // The grandchild holds stdout open: without the group kill, the result would never come.
  const result = await runCommand('sh', ['-c', 'sleep 600 & echo $!; exit 0'], { timeoutMs: 30_000 });
  expect({ status: result.status, timedOut: result.timedOut }).toEqual({ status: 0, timedOut: false });
  expect(await gone(Number(result.stdout.trim()))).toBe(true);
});

test('a command that cannot start rejects, naming it', async () => {
  await expect(runCommand('svc-no-such-command', [], { timeoutMs: 30_000 })).rejects.toThrow(/svc-no-such-command could not be started/);
});
