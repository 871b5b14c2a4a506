/**
 * `npm run bench` stopped early must still remove everything it made and end what it started.
 * Its output a pipe that the reader closes (`npm run bench 2>&1 | head`): the next write fails
 * with EPIPE, and the run stops there with exit 3. Ctrl-C (SIGINT) while terraform runs: exit
 * 130. Either way the temporary directory (its own TMPDIR here) is left empty, including what a
 * step in progress made (the release build's work directory), and no process of the run is left.
 * It runs the bench's entry with --quick --no-go-peer and stops it after a chosen progress line.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INTERRUPTED_EXIT, OUTPUT_FAILED_EXIT } from '../../scripts/bench/stop';
import { track } from '../support/child-processes';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const RUN_TS = path.join(REPOSITORY, 'bin', 'run-ts.js');
const RUN = path.join(REPOSITORY, 'scripts', 'bench', 'run.ts');

/** How the run is stopped once its stderr has shown the line. */
type Stop = 'close the pipes' | 'Ctrl-C';

interface StoppedRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stderr up to the stop. */
  readonly read: string;
}

/** Runs the bench with its stdout and stderr on pipes and stops it once a stderr line matches `after`. */
function runStopping(after: RegExp, stop: Stop, directory: string, temporary: string): Promise<StoppedRun> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_)/.test(name)));
    const child = track(
      spawn(process.execPath, [RUN_TS, RUN, '--quick', '--no-go-peer', '--out', path.join(directory, 'results.json')], {
        cwd: directory,
        env: { ...env, TMPDIR: temporary, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: path.join(directory, 'no-such-terraform.rc') },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let read = '';
    let stopped = false;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stopped) return;
      read += text;
      if (!after.test(read)) return;
      stopped = true;
      if (stop === 'Ctrl-C') {
        child.kill('SIGINT');
        return;
      }
      // The reader goes, as head does after its lines: the bench's next write has no reader.
      child.stdout.destroy();
      child.stderr.destroy();
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, read }));
  });
}

/** Processes whose working directory or command line is under `directory` (terraform, providers, builds). */
function processesUnder(directory: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
        const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        return cwd.startsWith(directory) || command.includes(directory) ? [`${pid} in ${cwd}: ${command}`] : [];
      } catch {
        // Ended since the listing, or another user's.
        return [];
      }
    });
}

describe('npm run bench stopped early', () => {
  let directory: string;
  let temporary: string;

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-stopped-'));
    temporary = path.join(directory, 'tmp');
    fs.mkdirSync(temporary);
  });

  afterEach(() => {
    fs.rmSync(directory, { recursive: true, force: true });
  });

  test.each<{ when: string; after: RegExp; stop: Stop; exitStatus: number }>([
    // The session exists: its root, the provider build, the emulator.
    { when: 'its output pipe closed once the emulator runs', after: /^bench: emulator on /m, stop: 'close the pipes', exitStatus: OUTPUT_FAILED_EXIT },
    // The release build has made its own work directory and is bundling.
    { when: 'its output pipe closed during the release build', after: /^bench: release: .*bundling/m, stop: 'close the pipes', exitStatus: OUTPUT_FAILED_EXIT },
    // The setup applies of the first plan row: terraform and the providers run.
    { when: 'Ctrl-C while terraform applies', after: /^bench: plan refresh N=1: apply 1 of each/m, stop: 'Ctrl-C', exitStatus: INTERRUPTED_EXIT },
  ])('$when: nothing left in TMPDIR nor running, exit $exitStatus', async ({ after, stop, exitStatus }) => {
    const run = await runStopping(after, stop, directory, temporary);
    expect(run.read).toMatch(after);
    expect(fs.readdirSync(temporary)).toEqual([]);
    expect(processesUnder(temporary)).toEqual([]);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: exitStatus, signal: null });
    // Stopped before any figure was complete: no results written.
    expect(fs.existsSync(path.join(directory, 'results.json'))).toBe(false);
  }, 300_000);
});
