/**
 * The `svc-emulator` command: parses flags, starts the server, prints exactly one line on
 * stdout (`svc-emulator listening on <url>`) and logs everything else to stderr. Logs carry
 * method, path, command, status and request id, never a body, an API key or a token.
 */
import * as fs from 'node:fs';
import { isLoopbackHost } from '../address';
import { EmulatorConfigError, StateFileError } from './errors';
import { parseFaultSpec, type ActiveFaultSettings } from './faults';
import { mergeSeeds, quickSeed, validateSeed, type EmulatorSeed } from './seed';
import { DEFAULT_TOKEN_TTL_SECONDS, startEmulator, type EmulatorOptions } from './server';

export const DEFAULT_CLI_PORT = 8080;
/** The quick seed's key from the environment, so it stays off the command line (`ps`). */
export const API_KEY_ENV = 'SVC_EMULATOR_API_KEY';

/** Every flag, in the order --help shows them; the help text is generated from this table. */
export const FLAGS = [
  { name: '--port', value: '<n>', help: `TCP port; 0 picks a free one (default ${DEFAULT_CLI_PORT})` },
  { name: '--host', value: '<address>', help: 'address to bind (default 127.0.0.1; anything else exposes the emulator)' },
  { name: '--config', value: '<file>', help: 'seed JSON: {"tenants": [...], "channels": [...], "users": [...]} (see help/emulator.md)' },
  { name: '--tenant', value: '<name>', help: 'quick seed (needs a key: --api-key, --api-key-file or SVC_EMULATOR_API_KEY):\none tenant, a channel "main" and one writable user' },
  { name: '--api-key', value: '<key>', help: 'quick seed: the API key of that user (admin@<tenant>.example); needs --tenant.\nVisible in the process list: prefer --api-key-file or SVC_EMULATOR_API_KEY' },
  { name: '--api-key-file', value: '<file>', help: 'quick seed: read that key from the first line of this file instead; needs --tenant' },
  { name: '--token-ttl', value: '<seconds>', help: `session token lifetime on the emulator clock (default ${DEFAULT_TOKEN_TTL_SECONDS})` },
  {
    name: '--faults',
    value: '<spec>',
    help:
      'inject faults into /svc_api requests, e.g.\n' +
      'rate=0.2,kinds=429+500+503+reset,latency=20,retry-after=0,seed=7\n' +
      'or JSON {"rate":0.2,"kinds":["429"],"latencyMs":20,"retryAfterSeconds":0,"seed":7};\n' +
      'kind reset-after (opt-in) runs the command, then resets: the change lands, the reply is lost',
  },
  { name: '--state-file', value: '<file>', help: 'keep state (lists, audit log, sessions, clock) in this file, written atomically after every change' },
  { name: '--start-time', value: '<epoch-seconds>', help: 'start the emulator clock at this time (default: now, or the clock saved in --state-file)' },
  { name: '--quiet', value: '', help: 'no request lines on stderr (errors and notices stay)' },
  { name: '--help', value: '', help: 'show this help and exit (also -h)' },
] as const;

export class CliUsageError extends Error {
  readonly code = 'cli_usage';
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

export function helpText(): string {
  const width = Math.max(...FLAGS.map((flag) => `${flag.name} ${flag.value}`.length));
  const lines = FLAGS.map((flag) => {
    const [first, ...more] = flag.help.split('\n');
    const continuation = more.map((line) => `\n  ${''.padEnd(width)}  ${line}`).join('');
    return `  ${`${flag.name} ${flag.value}`.padEnd(width)}  ${first}${continuation}`;
  });
  return [
    'Usage: svc-emulator [flags]',
    '',
    'A local emulator of the svc management API (/svc_api/v2/...) for tests and demos.',
    '',
    'Flags:',
    ...lines,
    '',
    'Admin routes (no token, never faulted): GET|POST /_emulator/clock, GET|POST /_emulator/faults,',
    'POST /_emulator/risk-block, GET /_emulator/stats, POST /_emulator/stats/reset, GET /_emulator/health.',
    '',
    `Environment: ${API_KEY_ENV}=<key> gives the quick seed's key when --tenant has neither`,
    '--api-key nor --api-key-file (keys on the command line show in `ps`).',
    '',
    'Example: svc-emulator --port 0 --tenant acme --api-key k1',
    `         ${API_KEY_ENV}=k1 svc-emulator --port 0 --tenant acme`,
    'More: help/emulator.md',
  ].join('\n');
}

export interface CliSettings {
  port: number;
  host: string;
  configFile?: string;
  tenant?: string;
  apiKey?: string;
  /** Read by emulatorOptions(), so the key never sits in the parsed arguments. */
  apiKeyFile?: string;
  tokenTtlSeconds: number;
  faults?: ActiveFaultSettings;
  stateFile?: string;
  startTime?: number;
  quiet: boolean;
}

export type ParsedArguments = { kind: 'help' } | { kind: 'run'; settings: CliSettings };

function wholeNumber(flag: string, text: string, minimum: number, maximum: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < minimum || value > maximum) {
    throw new CliUsageError(`${flag} must be a whole number from ${minimum} to ${maximum}, got "${text}"`);
  }
  return value;
}

/**
 * Parses argv (without node and the script); `--flag value` and `--flag=value` both work.
 * `env` gives SVC_EMULATOR_API_KEY, used for --tenant when no key flag is given.
 */
export function parseArguments(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedArguments {
  const settings: CliSettings = { port: DEFAULT_CLI_PORT, host: '127.0.0.1', tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS, quiet: false };
  const known = new Map<string, (typeof FLAGS)[number]>(FLAGS.map((flag) => [flag.name, flag]));
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '-h' || argument === '--help') return { kind: 'help' };
    const equals = argument.indexOf('=');
    const name = argument.startsWith('--') && equals !== -1 ? argument.slice(0, equals) : argument;
    const flag = known.get(name);
    if (!flag) throw new CliUsageError(`unknown flag "${name}"`);
    let value = '';
    if (flag.value !== '') {
      if (equals !== -1) value = argument.slice(equals + 1);
      else if (index + 1 < argv.length && !argv[index + 1].startsWith('--')) value = argv[++index];
      else throw new CliUsageError(`${name} needs a value ${flag.value}`);
      if (value === '') throw new CliUsageError(`${name} needs a non-empty value ${flag.value}`);
    } else if (equals !== -1) {
      throw new CliUsageError(`${name} takes no value`);
    }
    switch (flag.name) {
      case '--port':
        settings.port = wholeNumber(name, value, 0, 65535);
        break;
      case '--host':
        settings.host = value;
        break;
      case '--config':
        settings.configFile = value;
        break;
      case '--tenant':
        settings.tenant = value;
        break;
      case '--api-key':
        settings.apiKey = value;
        break;
      case '--api-key-file':
        settings.apiKeyFile = value;
        break;
      case '--token-ttl':
        settings.tokenTtlSeconds = wholeNumber(name, value, 1, 365 * 24 * 60 * 60);
        break;
      case '--faults':
        try {
          settings.faults = parseFaultSpec(value);
        } catch (error) {
          if (error instanceof EmulatorConfigError) throw new CliUsageError(error.message.replace(/^(--)?faults /, '--faults '));
          throw error;
        }
        break;
      case '--state-file':
        settings.stateFile = value;
        break;
      case '--start-time':
        settings.startTime = wholeNumber(name, value, 0, 253402300799);
        break;
      case '--quiet':
        settings.quiet = true;
        break;
    }
  }
  if (settings.apiKey !== undefined && settings.apiKeyFile !== undefined) {
    throw new CliUsageError('give the key once: --api-key or --api-key-file, not both');
  }
  if (settings.apiKey !== undefined && settings.tenant === undefined) {
    throw new CliUsageError('--api-key needs --tenant <name> (the tenant the key belongs to)');
  }
  if (settings.apiKeyFile !== undefined && settings.tenant === undefined) {
    throw new CliUsageError('--api-key-file needs --tenant <name> (the tenant the key belongs to)');
  }
  const fromEnvironment = env[API_KEY_ENV];
  if (settings.tenant !== undefined && settings.apiKey === undefined && settings.apiKeyFile === undefined && fromEnvironment !== undefined && fromEnvironment !== '') {
    settings.apiKey = fromEnvironment;
  }
  if (settings.tenant !== undefined && settings.apiKey === undefined && settings.apiKeyFile === undefined) {
    throw new CliUsageError(`--tenant needs --api-key <key>, --api-key-file <file> or ${API_KEY_ENV} (the key of its user)`);
  }
  return { kind: 'run', settings };
}

function readSeedFile(file: string): EmulatorSeed {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new EmulatorConfigError(`--config ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EmulatorConfigError(`--config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return validateSeed(parsed, file);
}

/** The first line of --api-key-file; the message never shows the file's content. */
function readApiKeyFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new EmulatorConfigError(`--api-key-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code}); check the path`);
  }
  const key = text.split(/\r?\n/)[0].trim();
  if (key === '') throw new EmulatorConfigError(`--api-key-file ${file} has no key on its first line; write the key there`);
  return key;
}

export function emulatorOptions(settings: CliSettings, log: (line: string) => void): EmulatorOptions {
  const fromFile = settings.configFile ? readSeedFile(settings.configFile) : undefined;
  const apiKey = settings.apiKeyFile !== undefined ? readApiKeyFile(settings.apiKeyFile) : settings.apiKey;
  const quick = settings.tenant && apiKey ? quickSeed(settings.tenant, apiKey) : undefined;
  return {
    host: settings.host,
    port: settings.port,
    seed: mergeSeeds(fromFile, quick),
    tokenTtlSeconds: settings.tokenTtlSeconds,
    faults: settings.faults ? { ...settings.faults, seed: settings.faults.seed ?? undefined } : undefined,
    stateFile: settings.stateFile,
    startTime: settings.startTime,
    log,
    logRequests: !settings.quiet,
  };
}

/**
 * The emulator has no real authentication (seeded keys, token-free admin routes): bound to
 * anything but the loopback, every host that can reach this one can change its lists.
 */
export function exposureWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  const reach = host === '0.0.0.0' || host === '::' ? 'every network this machine is on' : `the network of ${host}`;
  return `WARNING: listening on ${host} exposes the emulator to ${reach}: its API keys are test keys and its /_emulator/ admin routes (unblock addresses, move the clock) need no token. Use --host 127.0.0.1 unless another machine must reach it.`;
}

export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  exit(code: number): void;
}

const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  exit: (code) => process.exit(code),
};

/** Runs the command. Usage errors exit 2; errors while starting (port in use, bad state file) exit 1. */
export async function main(argv: string[], io: CliIo = processIo): Promise<void> {
  let parsed: ParsedArguments;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    io.stderr(`svc-emulator: ${error.message}\nRun "svc-emulator --help" for every flag.`);
    io.exit(2);
    return;
  }
  if (parsed.kind === 'help') {
    io.stdout(helpText());
    io.exit(0);
    return;
  }
  const log = (line: string) => io.stderr(`svc-emulator: ${line}`);
  let emulator;
  try {
    emulator = await startEmulator(emulatorOptions(parsed.settings, log));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof EmulatorConfigError) {
      io.stderr(`svc-emulator: ${error.message}`);
      io.exit(2);
    } else if (error instanceof StateFileError) {
      io.stderr(`svc-emulator: ${error.message}`);
      io.exit(1);
    } else if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      io.stderr(`svc-emulator: cannot listen on ${parsed.settings.host}:${parsed.settings.port} (${code}); pick another --port or --host`);
      io.exit(1);
    } else {
      throw error;
    }
    return;
  }
  const exposure = exposureWarning(parsed.settings.host);
  if (exposure) log(exposure);
  const running = emulator;
  const stop = (signal: string) => {
    log(`${signal} received, shutting down`);
    void running.close().then(() => io.exit(0));
  };
  // Handlers first: a caller may send SIGTERM the moment it reads the listening line.
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  io.stdout(`svc-emulator listening on ${emulator.url}`);
}
