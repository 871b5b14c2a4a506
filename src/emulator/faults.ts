/**
 * Fault injection for `/svc_api` requests: a share of them answered with 429 (Retry-After),
 * 500, 503 or a reset connection, plus added latency. Those faults happen before a command
 * runs, so they never change state; a client that retries lands each change once. The opt-in
 * kind `reset-after` runs the command first and then resets the connection: the change landed,
 * its reply is lost, and a retrying client sends it again. With a seed the choice is a
 * deterministic pseudo-random sequence.
 */
import { EmulatorConfigError, describeValue } from './errors';

export const FAULT_KINDS = ['429', '500', '503', 'reset', 'reset-after'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** The kinds used when none are named: the ones that never change state (reset-after is opt-in). */
export const DEFAULT_FAULT_KINDS: readonly FaultKind[] = ['429', '500', '503', 'reset'];

export interface FaultSettings {
  rate: number;
  kinds?: FaultKind[];
  retryAfterSeconds?: number;
  latencyMs?: number;
  seed?: number;
}

/** Settings with every default filled in: what the admin route reports as "in force". */
export interface ActiveFaultSettings {
  rate: number;
  kinds: FaultKind[];
  retryAfterSeconds: number;
  latencyMs: number;
  seed: number | null;
}

export const NO_FAULTS: ActiveFaultSettings = {
  rate: 0,
  kinds: [...DEFAULT_FAULT_KINDS],
  retryAfterSeconds: 1,
  latencyMs: 0,
  seed: null,
};

const SETTING_NAMES = ['rate', 'kinds', 'retryAfterSeconds', 'latencyMs', 'seed'];

function nonNegativeInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new EmulatorConfigError(`faults ${name} must be a whole number 0 or above, got ${describeValue(value)}`);
  }
  return value;
}

/** Checks untrusted settings (flag, admin route, library) and fills defaults. */
export function normaliseFaultSettings(input: unknown): ActiveFaultSettings {
  if (input === undefined || input === null) return { ...NO_FAULTS, kinds: [...NO_FAULTS.kinds] };
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new EmulatorConfigError(`faults must be an object like {"rate":0.2}, got ${describeValue(input)}`);
  }
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!SETTING_NAMES.includes(key)) {
      throw new EmulatorConfigError(`faults has unknown setting "${key}"; allowed are ${SETTING_NAMES.join(', ')}`);
    }
  }
  const rate = record.rate;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new EmulatorConfigError(`faults rate must be a number from 0 to 1 (a share of requests), got ${describeValue(rate)}`);
  }
  let kinds = [...DEFAULT_FAULT_KINDS];
  if (record.kinds !== undefined) {
    if (!Array.isArray(record.kinds) || record.kinds.length === 0) {
      throw new EmulatorConfigError(`faults kinds must be a non-empty list of ${FAULT_KINDS.join(', ')}, got ${describeValue(record.kinds)}`);
    }
    kinds = record.kinds.map((kind: unknown) => {
      const text = String(kind);
      if (!(FAULT_KINDS as readonly string[]).includes(text)) {
        throw new EmulatorConfigError(`faults kind ${describeValue(kind)} is unknown; use ${FAULT_KINDS.join(', ')}`);
      }
      return text as FaultKind;
    });
  }
  return {
    rate,
    kinds: [...new Set(kinds)],
    retryAfterSeconds:
      record.retryAfterSeconds === undefined ? 1 : nonNegativeInteger(record.retryAfterSeconds, 'retryAfterSeconds'),
    latencyMs: record.latencyMs === undefined ? 0 : nonNegativeInteger(record.latencyMs, 'latencyMs'),
    // null is what GET /_emulator/faults reports for "no seed", so posting it back works.
    seed: record.seed === undefined || record.seed === null ? null : nonNegativeInteger(record.seed, 'seed'),
  };
}

const SPEC_KEYS: Record<string, keyof FaultSettings> = {
  rate: 'rate',
  kinds: 'kinds',
  latency: 'latencyMs',
  'retry-after': 'retryAfterSeconds',
  seed: 'seed',
};

/**
 * Parses the `--faults` flag: JSON (`{"rate":0.2,"kinds":["429"]}`) or the short form
 * `rate=0.2,kinds=429+500+503+reset,latency=20,retry-after=0,seed=7`.
 */
export function parseFaultSpec(text: string): ActiveFaultSettings {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new EmulatorConfigError(`--faults is not valid JSON: ${(error as Error).message}`);
    }
    return normaliseFaultSettings(parsed);
  }
  const settings: Record<string, unknown> = {};
  for (const part of trimmed.split(',')) {
    const [key, value, ...rest] = part.split('=');
    const trimmedKey = key?.trim() ?? '';
    const name = Object.hasOwn(SPEC_KEYS, trimmedKey) ? SPEC_KEYS[trimmedKey] : undefined;
    if (!name || value === undefined || rest.length > 0 || value.trim() === '') {
      throw new EmulatorConfigError(
        `--faults part ${describeValue(part)} is not key=value with key one of ${Object.keys(SPEC_KEYS).join(', ')}; example: rate=0.2,kinds=429+500,latency=20,retry-after=0,seed=7`,
      );
    }
    if (name === 'kinds') {
      settings.kinds = value.split('+').map((kind) => kind.trim());
    } else {
      const number = Number(value);
      settings[name] = Number.isNaN(number) ? value : number;
    }
  }
  if (settings.rate === undefined) {
    throw new EmulatorConfigError('--faults needs rate=<0..1>, for example rate=0.2');
  }
  return normaliseFaultSettings(settings);
}

/** mulberry32: a small, well-known 32-bit generator; good enough to pick faults reproducibly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private active: ActiveFaultSettings = normaliseFaultSettings(undefined);
  private random: () => number = Math.random;

  constructor(settings?: FaultSettings | ActiveFaultSettings) {
    this.set(settings);
  }

  /** Replaces the settings; a seed restarts its sequence. Throws EmulatorConfigError. */
  set(settings: FaultSettings | ActiveFaultSettings | undefined): ActiveFaultSettings {
    const normalised = normaliseFaultSettings(settings === undefined ? undefined : { ...settings, seed: settings.seed ?? undefined });
    this.active = normalised;
    this.random = normalised.seed === null ? Math.random : seededRandom(normalised.seed);
    return this.current();
  }

  current(): ActiveFaultSettings {
    return { ...this.active, kinds: [...this.active.kinds] };
  }

  /** The fault for the next request, or undefined for a normal answer. */
  pick(): FaultKind | undefined {
    if (this.active.rate <= 0) return undefined;
    if (this.random() >= this.active.rate) return undefined;
    const index = Math.min(this.active.kinds.length - 1, Math.floor(this.random() * this.active.kinds.length));
    return this.active.kinds[index];
  }
}
