/**
 * Something made once and shared read-only by every test file that asks for it (the packed
 * library, the run's release): the first caller makes it in `directory` while holding the lock
 * directory `<directory>.lock`; the others wait for its result, `<directory>/<resultName>`
 * (written whole, then renamed into place). A lock whose owner is gone (a worker killed midway)
 * is taken over. With `recordFailure`, a failure is written beside the result and every later
 * caller reports it instead of making the thing again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface MadeOnceOptions<T> {
  readonly directory: string;
  /** The JSON file in `directory` that holds the result. */
  readonly resultName: string;
  /** What is made, for the recorded failure's message ("the run's shared release build"). */
  readonly what: string;
  readonly recordFailure: boolean;
  readonly make: (directory: string) => Promise<T>;
}

/** How often a caller waiting for another's result looks for it. */
const POLL_MS = 1000;

export async function madeOnce<T>(options: MadeOnceOptions<T>): Promise<T> {
  const result = path.join(options.directory, options.resultName);
  const failure = path.join(options.directory, 'failure.txt');
  const lock = `${options.directory}.lock`;
  for (;;) {
    if (fs.existsSync(result)) return JSON.parse(fs.readFileSync(result, 'utf8')) as T;
    if (options.recordFailure && fs.existsSync(failure)) {
      throw new Error(`${options.what} failed (in another test file or an earlier call):\n${fs.readFileSync(failure, 'utf8')}`);
    }
    try {
      fs.mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      removeStaleLock(lock);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'owner'), String(process.pid));
      if (fs.existsSync(result) || fs.existsSync(failure)) continue;
      fs.mkdirSync(options.directory, { recursive: true });
      let made: T;
      try {
        made = await options.make(options.directory);
      } catch (error) {
        if (options.recordFailure) fs.writeFileSync(failure, error instanceof Error ? (error.stack ?? error.message) : String(error));
        throw error;
      }
      fs.writeFileSync(`${result}.partial`, JSON.stringify(made));
      fs.renameSync(`${result}.partial`, result);
      return made;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock is stale when the process that holds it is gone. */
function removeStaleLock(lock: string): void {
  let owner: number;
  try {
    owner = Number(fs.readFileSync(path.join(lock, 'owner'), 'utf8').trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) fs.rmSync(lock, { recursive: true, force: true });
}
