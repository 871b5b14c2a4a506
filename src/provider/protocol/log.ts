/**
 * The provider's stderr logger. Terraform's go-plugin client reads the plugin's stderr and
 * files each line under the level named by its `[LEVEL]` prefix, so the lines are shown with
 * TF_LOG. stdout is reserved for the handshake line. Every line passes through the given redact.
 */
import { NO_REDACTION, type Redact } from './redaction';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Readonly<Record<LogLevel, number>> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };

export interface Logger {
  readonly level: LogLevel;
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * The level from SVC_LOG (ours), else TF_LOG_PROVIDER (terraform's level for provider logs, which
 * terraform passes on to the plugin with the rest of its environment), else TF_LOG. Like
 * terraform, a value that is not a level name (TF_LOG=1, TF_LOG=JSON) means trace; unset means info.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  const setting = (env.SVC_LOG || env.TF_LOG_PROVIDER || env.TF_LOG || '').trim().toLowerCase();
  if (setting === '') return 'info';
  if (setting === 'warning') return 'warn';
  if (setting in LEVEL_ORDER) return setting as LogLevel;
  if (setting === 'off') return 'error';
  return 'trace';
}

/** Where text goes: a stream, or anything else with a write (tests collect lines). */
export interface TextSink {
  write(text: string): unknown;
}

/**
 * process.stderr, looked up at the first write: node builds the stream on first access (about
 * a millisecond of the start-up, for a pipe), and most starts log nothing before the handshake.
 */
export const PROCESS_STDERR: TextSink = { write: (text) => process.stderr.write(text) };

export function createLogger(stderr: TextSink, level: LogLevel, redact: Redact = NO_REDACTION): Logger {
  const write = (lineLevel: LogLevel, message: string): void => {
    if (LEVEL_ORDER[lineLevel] < LEVEL_ORDER[level]) return;
    // One line per entry: go-plugin reads stderr line by line.
    const text = redact(message).replace(/\r?\n/g, ' | ');
    stderr.write(`[${lineLevel.toUpperCase()}] svc: ${text}\n`);
  };
  return {
    level,
    trace: (message) => write('trace', message),
    debug: (message) => write('debug', message),
    info: (message) => write('info', message),
    warn: (message) => write('warn', message),
    error: (message) => write('error', message),
  };
}
