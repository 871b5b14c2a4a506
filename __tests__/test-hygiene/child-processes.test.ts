/**
 * The jest setup file kill-children.ts kills what a test left running, so an abandoned (timed
 * out) test cannot keep a child, or jest, alive. These tests run in order: each one checks what
 * the hook did after the one before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { runningChildren, track } from '../support/child-processes';

let fromBeforeAll: ChildProcess;
let leftRunning: ChildProcess;
let groupLeader: ChildProcess;
let grandchildPid: number;

beforeAll(() => {
  fromBeforeAll = track(spawn('sleep', ['600'], { stdio: 'ignore' }));
});

/** Resolves once node has reaped the child (its exit is known). */
function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

/** Alive and not a zombie (a reparented grandchild may linger as one until PID 1 reaps it). */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

test('a test starts children and leaves them running', async () => {
  leftRunning = track(spawn('sleep', ['600'], { stdio: 'ignore' }));
  groupLeader = track(spawn('bash', ['-c', 'sleep 600 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] }), { group: true });
  grandchildPid = Number(await new Promise<string>((resolve) => groupLeader.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
  expect(isAlive(grandchildPid)).toBe(true);
  expect(runningChildren()).toBe(3);
});

test('after that test, its children were killed, its detached child with its whole group', async () => {
  expect(await exited(leftRunning)).toBe('SIGKILL');
  expect(await exited(groupLeader)).toBe('SIGKILL');
  for (let attempt = 0; attempt < 100 && isAlive(grandchildPid); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(isAlive(grandchildPid)).toBe(false);
});

test('a child the file started in beforeAll lives on until the file ends', () => {
  expect(fromBeforeAll.exitCode).toBeNull();
  expect(fromBeforeAll.signalCode).toBeNull();
  expect(runningChildren()).toBe(1);
});
