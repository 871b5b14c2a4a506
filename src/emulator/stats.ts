/** Request counters for tests and the demo (`GET /_emulator/stats`). */
import { DEFAULT_FAULT_KINDS, type FaultKind } from './faults';

export interface EmulatorStats {
  /** `/svc_api` requests received, faulted ones included. */
  requests: number;
  /** Per `command` field, successful and failed alike; faulted requests are not counted. */
  byCommand: Record<string, number>;
  /** Per kind; the default kinds always appear, the opt-in `reset-after` once it happened. */
  faults: Record<string, number>;
  /** Successful logins (tokens issued). */
  logins: number;
}

export class StatsCounter {
  private current: EmulatorStats = StatsCounter.empty();

  private static empty(): EmulatorStats {
    return {
      requests: 0,
      byCommand: {},
      faults: Object.fromEntries(DEFAULT_FAULT_KINDS.map((kind) => [kind, 0])),
      logins: 0,
    };
  }

  request(): void {
    this.current.requests += 1;
  }

  command(command: string): void {
    this.current.byCommand[command] = (this.current.byCommand[command] ?? 0) + 1;
  }

  fault(kind: FaultKind): void {
    this.current.faults[kind] = (this.current.faults[kind] ?? 0) + 1;
  }

  login(): void {
    this.current.logins += 1;
  }

  snapshot(): EmulatorStats {
    return {
      requests: this.current.requests,
      byCommand: { ...this.current.byCommand },
      faults: { ...this.current.faults },
      logins: this.current.logins,
    };
  }

  reset(): void {
    this.current = StatsCounter.empty();
  }
}
