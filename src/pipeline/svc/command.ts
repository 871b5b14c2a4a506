/**
 * What every `svc` sub-command shares: how it is described for --help, what it is given to run
 * (arguments, output streams, environment), and the one error type that means "the user's
 * input or the service said no": printed as one line and exit 1, never a stack trace.
 */

/** Where a command writes; process.stdout/stderr in the shipped command, buffers in tests. */
export interface SvcIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The environment read for SVC_BASE_URL, SVC_TENANT, SVC_API_KEY (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** The directory relative paths are read from (default process.cwd()). */
  readonly workingDirectory?: string;
}

export interface SvcContext {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export interface SvcCommand {
  readonly name: string;
  /** One line for `svc --help`. */
  readonly summary: string;
  /** The whole `svc <name> --help` text. */
  readonly usage: string;
  /** Runs the command; returns the exit status (0 ok, 2 drift or changes where the command says). */
  run(argv: readonly string[], context: SvcContext): Promise<number>;
}

/** Bad input or a refusal the user can act on: `svc: <message>`, exit 1. */
export class SvcCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SvcCommandError';
  }
}
