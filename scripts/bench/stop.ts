/**
 * Ending a bench run early: on Ctrl-C, or when its own output cannot be written (stdout or
 * stderr a pipe whose reader has gone, as in `npm run bench 2>&1 | head`: EPIPE). Either aborts
 * one AbortSignal with a BenchStopped. The session then ends the processes it started and every
 * later step throws that BenchStopped, so the run unwinds through its `finally` blocks (the
 * session's close, the release build's own work directory) and main returns the stop's exit
 * status. Exiting from the handler instead would skip those blocks and leave their temporary
 * directories behind; an output error with no listener ends node the same way.
 */
import type { Progress } from './session';

/** Exit status after Ctrl-C (128 + SIGINT, as a shell reports a process it ended). */
export const INTERRUPTED_EXIT = 130;
/** Exit status when stdout or stderr could not be written. */
export const OUTPUT_FAILED_EXIT = 3;

export class BenchStopped extends Error {
  readonly code = 'bench_stopped';
  constructor(
    message: string,
    readonly exitStatus: number,
  ) {
    super(message);
    this.name = 'BenchStopped';
  }
}

/** The streams a run writes: progress to `stderr`, the table to `stdout`. */
export interface BenchStreams {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export class BenchStop {
  private readonly controller = new AbortController();
  /** Aborted, with a BenchStopped as its reason, once the run must stop. */
  readonly signal: AbortSignal = this.controller.signal;
  /** Streams that failed a write: nothing more is written to them. */
  private readonly failed = new Set<NodeJS.WritableStream>();
  private readonly onSignal = () => {
    this.progress('interrupted: stopping the emulator and terraform, removing temporary files');
    this.stop(new BenchStopped('interrupted (Ctrl-C)', INTERRUPTED_EXIT));
  };

  /**
   * Listens for Ctrl-C until dispose(), and for write errors on both streams for good: a write's
   * error is emitted after the write, and one that came after dispose() with no listener left
   * would end node with an uncaught error.
   */
  constructor(private readonly streams: BenchStreams = { stdout: process.stdout, stderr: process.stderr }) {
    for (const name of ['stdout', 'stderr'] as const) streams[name].on('error', (error: Error) => this.outputFailed(name, streams[name], error));
    process.once('SIGINT', this.onSignal);
  }

  /** A progress line on stderr, unless stderr has failed. */
  readonly progress: Progress = (line) => {
    if (!this.failed.has(this.streams.stderr)) this.streams.stderr.write(`bench: ${line}\n`);
  };

  /** Writes `text` to stdout; resolves once it is written or has failed (which stops the run). */
  writeOutput(text: string): Promise<void> {
    if (this.failed.has(this.streams.stdout)) return Promise.resolve();
    const stdout = this.streams.stdout;
    return new Promise((resolve) =>
      stdout.write(text, (error) => {
        if (error) this.outputFailed('stdout', stdout, error);
        resolve();
      }),
    );
  }

  /** The first stop wins: its reason and exit status are the run's. */
  stop(reason: BenchStopped): void {
    if (!this.signal.aborted) this.controller.abort(reason);
  }

  /** The stop's reason, or undefined while the run may go on. */
  get stopped(): BenchStopped | undefined {
    return this.signal.aborted ? (this.signal.reason as BenchStopped) : undefined;
  }

  dispose(): void {
    process.removeListener('SIGINT', this.onSignal);
  }

  private outputFailed(name: 'stdout' | 'stderr', stream: NodeJS.WritableStream, error: Error): void {
    this.failed.add(stream);
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    const stopped = new BenchStopped(`could not write to ${name} (${code})`, OUTPUT_FAILED_EXIT);
    // Said where it can still be read: stdout failing at the table leaves stderr working.
    if (!this.signal.aborted) this.progress(`${stopped.message}: stopping the emulator and terraform, removing temporary files`);
    this.stop(stopped);
  }
}
