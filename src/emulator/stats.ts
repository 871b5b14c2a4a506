/** Request counters for tests and the demo (`GET /_emulator/stats`). */
import { DEFAULT_FAULT_KINDS, type FaultKind } from './faults';

export interface EmulatorStats {
  /** `/svc_api` requests received, faulted ones included. */
  requests: number;
  /**
   * Per command the area knows, successful and failed alike; faulted requests are not counted.
   * Unknown names are only counted in `unknownCommands`, so client input cannot grow this map.
   */
  byCommand: Record<string, number>;
  /** Requests naming a command their area does not have. */
  unknownCommands: number;
  /** Per kind; the default kinds always appear, the opt-in `reset-after` once it happened. */
  faults: Record<string, number>;
  /** Successful logins (tokens issued). */
  logins: number;
}

export class StatsCounter {
  private current = StatsCounter.empty();

  // A Map, not an object: a command named `constructor` or `__proto__` is just a name.
  private static empty(): Omit<EmulatorStats, 'byCommand'> & { byCommand: Map<string, number> } {
    return {
      requests: 0,
      byCommand: new Map(),
      unknownCommands: 0,
      faults: Object.fromEntries(DEFAULT_FAULT_KINDS.map((kind) => [kind, 0])),
      logins: 0,
    };
  }

  request(): void {
    this.current.requests += 1;
  }

  /** Only for names the area knows (the table of commands bounds the map). */
  command(command: string): void {
    this.current.byCommand.set(command, (this.current.byCommand.get(command) ?? 0) + 1);
  }

  unknownCommand(): void {
    this.current.unknownCommands += 1;
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
      byCommand: Object.fromEntries(this.current.byCommand),
      unknownCommands: this.current.unknownCommands,
      faults: { ...this.current.faults },
      logins: this.current.logins,
    };
  }

  reset(): void {
    this.current = StatsCounter.empty();
  }
}
