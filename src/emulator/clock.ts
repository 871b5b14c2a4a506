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
