/**
 * The emulator as a library: `startEmulator(options)` serves the management API contract on a
 * real node:http server (127.0.0.1, a free port by default) and returns controls for tests.
 * The interface is agreed with the client's tests (see help/emulator.md); add, do not change.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { adminRequestRefusal } from './admin-guard';
import { EmulatorClock, clockAdvanceProblem, startTimeProblem } from './clock';
import { EmulatorConfigError, describeValue } from './errors';
import { FaultInjector, type FaultKind, type FaultSettings } from './faults';
import { readBody, sendJson, sendText } from './http';
import { STATE_FORMAT, STATE_VERSION, readStateFile, writeStateFile } from './persistence';
import { handleAdminRequest } from './routes/admin';
import { handleApiRequest } from './routes/api';
import { validateSeed, type EmulatorSeed } from './seed';
import { StatsCounter, type EmulatorStats } from './stats';
import { EmulatorStore, type RiskBlockResult } from './store';
import { TokenStore } from './tokens';

export type { EmulatorSeed } from './seed';
export type { FaultSettings, FaultKind } from './faults';
export type { EmulatorStats } from './stats';

export interface EmulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  seed?: EmulatorSeed;
  /** Default 1800 (30 minutes). */
  tokenTtlSeconds?: number;
  faults?: FaultSettings;
  /** Optional persistence; written atomically after every change. */
  stateFile?: string;
  /** Epoch seconds the clock starts at; default real time (or the saved clock of the state file). */
  startTime?: number;
  /** Receives one line per request and event; default: nothing. Never given keys or tokens. */
  log?: (line: string) => void;
  /** Added: false keeps request lines out of `log` (errors and events still go there). Default true. */
  logRequests?: boolean;
  /**
   * Added, for tests only: receives each session token as it is issued, so a test can search
   * logs and files for the tokens a client was given. The emulator itself keeps only hashes.
   */
  onTokenIssued?: (token: string) => void;
}

export interface RunningEmulator {
  readonly url: string;
  readonly port: number;
  advanceClock(seconds: number): void;
  setFaults(faults: FaultSettings | undefined): void;
  riskBlock(tenant: string, ip: string): RiskBlockResult;
  stats(): EmulatorStats;
  resetStats(): void;
  close(): Promise<void>;
  /** Added: the emulator clock now, epoch seconds. */
  now(): number;
}

export const DEFAULT_TOKEN_TTL_SECONDS = 1800;

function checkOptions(options: EmulatorOptions): void {
  const { port, tokenTtlSeconds, startTime } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new EmulatorConfigError(`port must be a whole number from 0 to 65535, got ${describeValue(port)}`);
  }
  if (tokenTtlSeconds !== undefined && (!Number.isInteger(tokenTtlSeconds) || tokenTtlSeconds <= 0)) {
    throw new EmulatorConfigError(`tokenTtlSeconds must be a whole number above 0, got ${describeValue(tokenTtlSeconds)}`);
  }
  const startProblem = startTime === undefined ? undefined : startTimeProblem(startTime);
  if (startProblem) throw new EmulatorConfigError(`startTime ${startProblem}`);
}

/**
 * A command name as it goes into a log line: names are client input, so anything but a plain
 * identifier is quoted with its control characters escaped (a newline would forge a log line).
 */
export function loggableCommand(command: string | undefined): string {
  if (command === undefined) return '-';
  const shown = command.length > 64 ? `${command.slice(0, 64)}...` : command;
  if (/^[A-Za-z0-9_.-]+$/.test(command)) return shown;
  return JSON.stringify(shown).replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Faults answered instead of running the command (every kind but reset-after). */
function sendFault(response: http.ServerResponse, socket: Socket, kind: Exclude<FaultKind, 'reset-after'>, retryAfterSeconds: number): void {
  switch (kind) {
    case '429':
      sendJson(response, 429, { message: 'Too Many Requests (injected fault)' }, { 'Retry-After': String(retryAfterSeconds) });
      return;
    case '500':
      // Not JSON at all: clients must surface the status and the request id.
      sendText(response, 500, 'Internal Server Error (injected fault)');
      return;
    case '503':
      // JSON, but without Ok or Error.
      sendJson(response, 503, { message: 'Service Unavailable (injected fault)' });
      return;
    case 'reset':
      // A TCP RST, as when a server dies mid-request: the client sees ECONNRESET, no reply.
      socket.resetAndDestroy();
      return;
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const log = options.log ?? (() => undefined);
  const clock = new EmulatorClock(options.startTime);
  const tokens = new TokenStore(options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS, options.onTokenIssued);
  const stats = new StatsCounter();
  const faults = new FaultInjector(options.faults);
  const stateFile = options.stateFile;

  const saved = stateFile ? readStateFile(stateFile) : undefined;
  const store = saved ? EmulatorStore.fromSnapshot(saved) : new EmulatorStore();
  if (saved) {
    tokens.restore(saved.tokens);
    if (options.startTime === undefined) clock.restoreOffset(saved.clockOffsetSeconds);
    log(`state loaded from ${stateFile}: ${store.tenants.size} tenants, ${tokens.size} sessions`);
  }
  if (options.seed) store.applySeed(validateSeed(options.seed, 'seed'));

  const save = (): void => {
    if (!stateFile) return;
    writeStateFile(stateFile, {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      savedAt: clock.now(),
      clockOffsetSeconds: clock.offset,
      tokens: tokens.snapshot(),
      ...store.snapshot(),
    });
  };
  save();

  const shutdown = new AbortController();
  const setFaults = (settings: unknown) => {
    const active = faults.set(settings as FaultSettings | undefined);
    log(`faults now: rate=${active.rate} kinds=${active.kinds.join('+')} latency=${active.latencyMs}ms retry-after=${active.retryAfterSeconds}s`);
    return active;
  };
  const riskBlock = (tenant: string, ip: string): RiskBlockResult => {
    const result = store.riskBlock(tenant, ip, clock.now());
    save();
    return result;
  };

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const requestId = randomUUID();
    response.setHeader('X-Request-ID', requestId);
    const started = process.hrtime.bigint();
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0];
    const body = await readBody(request);
    const finish = (status: number | string, detail: string) => {
      if (options.logRequests === false) return;
      const milliseconds = Number((process.hrtime.bigint() - started) / 1_000_000n);
      log(`${method} ${path} ${detail} -> ${status} ${milliseconds}ms request-id=${requestId}`);
    };

    if (path.startsWith('/svc_api/')) {
      stats.request();
      const active = faults.current();
      if (active.latencyMs > 0) await delay(active.latencyMs, undefined, { signal: shutdown.signal });
      const fault = faults.pick();
      if (fault !== undefined && fault !== 'reset-after') {
        stats.fault(fault);
        sendFault(response, request.socket, fault, active.retryAfterSeconds);
        finish(fault, 'injected-fault');
        return;
      }
      const outcome = handleApiRequest(
        { method, path, bodyText: body.text, bodyTooLarge: body.tooLarge },
        { store, tokens, clock, stats },
      );
      if (outcome.changed) save();
      if (fault === 'reset-after') {
        // The command ran and its change is saved; only the reply is lost, as in a real outage.
        stats.fault(fault);
        request.socket.resetAndDestroy();
        finish(fault, `${loggableCommand(outcome.command)} injected-fault-after-command`);
        return;
      }
      sendJson(response, 200, outcome.reply);
      finish(200, `${loggableCommand(outcome.command)} ${'Error' in outcome.reply ? 'Error' : 'Ok'}`);
      return;
    }
    if (path.startsWith('/_emulator/')) {
      const refusal = adminRequestRefusal(method, request.headers);
      if (refusal) {
        sendJson(response, refusal.status, { Error: refusal.message });
        finish(refusal.status, 'admin-refused');
        return;
      }
      const outcome = handleAdminRequest(
        { method, path, bodyText: body.text },
        { clock, faults, stats, store, save, riskBlock, setFaults },
      );
      sendJson(response, outcome.status, outcome.body);
      finish(outcome.status, 'admin');
      return;
    }
    sendJson(response, 404, { Error: `No route ${path}; the API lives under /svc_api/v2/ and the controls under /_emulator/` });
    finish(404, '-');
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      // The request boundary: an emulator bug ends this request, not the server.
      // A shutdown, or a client that hung up mid-body, leaves nobody to answer.
      if (shutdown.signal.aborted || request.socket.destroyed) {
        request.socket.destroy();
        return;
      }
      log(`internal error on ${request.method} ${(request.url ?? '').split('?')[0]}: ${error.stack ?? error.message}`);
      if (!response.headersSent) sendJson(response, 500, { Error: `Internal emulator error: ${error.message}` });
      else response.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    now: () => clock.now(),
    advanceClock(seconds: number) {
      const problem = clockAdvanceProblem(seconds, clock.now());
      if (problem) throw new EmulatorConfigError(`advanceClock: ${problem}`);
      clock.advance(seconds);
      save();
    },
    setFaults(settings) {
      setFaults(settings);
    },
    riskBlock,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
