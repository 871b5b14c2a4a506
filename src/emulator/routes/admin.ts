/**
 * `/_emulator/...`: test and demo controls outside the API (never faulted, no token).
 * JSON in and out; a bad request gets HTTP 400 `{"Error": ...}`, an unknown route 404.
 */
import { InvalidAddressError } from '../../address';
import { clockAdvanceProblem, type EmulatorClock } from '../clock';
import { AdminRequestError, ApiCommandError, EmulatorConfigError, describeValue } from '../errors';
import type { ActiveFaultSettings, FaultInjector } from '../faults';
import type { StatsCounter } from '../stats';
import type { EmulatorStore, RiskBlockResult } from '../store';

export interface AdminDependencies {
  clock: EmulatorClock;
  faults: FaultInjector;
  stats: StatsCounter;
  store: EmulatorStore;
  /** Saves the state file when there is one. */
  save(): void;
  riskBlock(tenant: string, ip: string): RiskBlockResult;
  setFaults(settings: unknown): ActiveFaultSettings;
}

export interface AdminRequest {
  method: string;
  path: string;
  bodyText: string;
}

export interface AdminOutcome {
  status: number;
  body: unknown;
}

function jsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AdminRequestError(`Malformed JSON body: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AdminRequestError('The body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

type AdminHandler = (body: Record<string, unknown>, dependencies: AdminDependencies) => unknown;

const ROUTES: Record<string, AdminHandler> = {
  'GET /_emulator/health': () => ({ ok: true }),
  'GET /_emulator/clock': (_body, { clock }) => ({ now: clock.now() }),
  'POST /_emulator/clock': (body, { clock, save }) => {
    const seconds = body.advanceSeconds;
    const problem = clockAdvanceProblem(seconds, clock.now());
    if (problem) throw new AdminRequestError(problem);
    const now = clock.advance(seconds as number);
    save();
    return { now };
  },
  'GET /_emulator/faults': (_body, { faults }) => faults.current(),
  'POST /_emulator/faults': (body, { setFaults }) => setFaults(body),
  'POST /_emulator/risk-block': (body, { riskBlock }) => {
    if (typeof body.tenant !== 'string' || typeof body.ip !== 'string') {
      throw new AdminRequestError(`risk-block needs {"tenant": "<name>", "ip": "<address>"}, got ${describeValue(body)}`);
    }
    return riskBlock(body.tenant, body.ip);
  },
  'GET /_emulator/stats': (_body, { stats }) => stats.snapshot(),
  'POST /_emulator/stats/reset': (_body, { stats }) => {
    stats.reset();
    return stats.snapshot();
  },
};

/** Every admin route as `METHOD /path`, for help texts and their tests. */
export const ADMIN_ROUTES: readonly string[] = Object.keys(ROUTES);

export function handleAdminRequest(request: AdminRequest, dependencies: AdminDependencies): AdminOutcome {
  const route = `${request.method} ${request.path.replace(/\/$/, '')}`;
  const handler = Object.hasOwn(ROUTES, route) ? ROUTES[route] : undefined;
  if (!handler) {
    return {
      status: 404,
      body: { Error: `No admin route ${route}; routes are: ${Object.keys(ROUTES).join(', ')}` },
    };
  }
  try {
    return { status: 200, body: handler(jsonObject(request.bodyText), dependencies) };
  } catch (error) {
    // Deliberate boundary: the caller's mistakes become 400 replies; anything else propagates.
    if (
      error instanceof AdminRequestError ||
      error instanceof EmulatorConfigError ||
      error instanceof ApiCommandError ||
      error instanceof InvalidAddressError
    ) {
      return { status: error instanceof AdminRequestError ? error.status : 400, body: { Error: error.message } };
    }
    throw error;
  }
}
