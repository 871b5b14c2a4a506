/**
 * Every process a test starts is registered here, so none outlives its test: a test that times
 * out (jest abandons it) would otherwise leave, say, `script` waiting at a key prompt with its
 * pipes open, and jest then waits for it forever. The setup file kill-children.ts kills what a
 * test started after that test, and what a file's hooks started after the file.
 */
import type { ChildProcess } from 'node:child_process';

interface Tracked {
  readonly child: ChildProcess;
  /** The test that started it; undefined for beforeAll hooks and module scope. */
  readonly test: string | undefined;
  /** Started with `detached: true`: its process group goes, grandchildren included. */
  readonly group: boolean;
}

const live = new Set<Tracked>();

function currentTest(): string | undefined {
  // expect is jest's global; outside a test (beforeAll, module scope) the name is undefined.
  return typeof expect === 'undefined' ? undefined : expect.getState().currentTestName;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Registers a started child; pass `group: true` when it was spawned with `detached: true`. */
export function track<T extends ChildProcess>(child: T, options: { group?: boolean } = {}): T {
  const entry: Tracked = { child, test: currentTest(), group: options.group === true };
  live.add(entry);
  child.once('exit', () => live.delete(entry));
  child.once('error', () => live.delete(entry));
  return child;
}

function kill(entry: Tracked): void {
  live.delete(entry);
  const { child } = entry;
  if (child.pid === undefined || !isRunning(child)) return;
  try {
    if (entry.group) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // Gone between the check and the kill: nothing left to do.
  }
  // Closed pipes let jest's handles go even if a grandchild still holds the other end.
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Kills the children the named test started and that still run; returns how many. */
export function killChildrenOfTest(test: string | undefined): number {
  const started = [...live].filter((entry) => entry.test === test && isRunning(entry.child));
  started.forEach(kill);
  return started.length;
}

/** Kills every tracked child that still runs; returns how many. */
export function killAllChildren(): number {
  const running = [...live].filter((entry) => isRunning(entry.child));
  running.forEach(kill);
  live.clear();
  return running.length;
}

/** How many tracked children still run (for the tests of this module). */
export function runningChildren(): number {
  return [...live].filter((entry) => isRunning(entry.child)).length;
}
