/**
 * The emulator's clock: real time plus an offset that tests move forward, so token TTLs and
 * blocklist expiry are tested without waiting. Whole epoch seconds, like the API's fields.
 */
export type RealTimeSource = () => number;

const realEpochSeconds: RealTimeSource = () => Date.now() / 1000;

export class EmulatorClock {
  private offsetSeconds: number;

  constructor(
    startTime?: number,
    private readonly realTime: RealTimeSource = realEpochSeconds,
  ) {
    this.offsetSeconds = startTime === undefined ? 0 : startTime - realTime();
  }

  now(): number {
    return Math.floor(this.realTime() + this.offsetSeconds);
  }

  advance(seconds: number): number {
    this.offsetSeconds += seconds;
    return this.now();
  }

  /** Persisted so a restart keeps time that tests or demos moved forward. */
  get offset(): number {
    return this.offsetSeconds;
  }

  restoreOffset(offsetSeconds: number): void {
    this.offsetSeconds = offsetSeconds;
  }
}

/** 9999-12-31T23:59:59Z: later times have no ISO form, and expiry arithmetic stops being exact. */
export const LATEST_EMULATOR_TIME = 253_402_300_799;
/** Ten years per call: far beyond any TTL or block duration, and a typo of a huge number is refused. */
export const MAX_CLOCK_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

function describeNumber(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value) ?? typeof value;
}

/** Why a start time is refused, or undefined. */
export function startTimeProblem(startTime: unknown): string | undefined {
  if (typeof startTime !== 'number' || !Number.isFinite(startTime) || startTime < 0 || startTime > LATEST_EMULATOR_TIME) {
    return `must be epoch seconds from 0 to ${LATEST_EMULATOR_TIME} (9999-12-31), got ${describeNumber(startTime)}`;
  }
  return undefined;
}

/** Why a clock advance is refused, or undefined. The clock only moves forward, by a bounded step. */
export function clockAdvanceProblem(seconds: unknown, now: number): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_CLOCK_ADVANCE_SECONDS) {
    return `advanceSeconds must be a number from 0 to ${MAX_CLOCK_ADVANCE_SECONDS} (ten years; the clock only moves forward), got ${describeNumber(seconds)}`;
  }
  if (now + seconds > LATEST_EMULATOR_TIME) {
    return `advancing ${seconds} seconds from ${now} passes ${LATEST_EMULATOR_TIME} (9999-12-31), the latest time the emulator keeps`;
  }
  return undefined;
}
