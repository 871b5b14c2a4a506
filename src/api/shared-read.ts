/**
 * Concurrent reads of the same list share one request. A caller only joins a read that started
 * after the last write to that list began, so nobody is handed a list older than their own
 * write. (The Terraform provider reads one list for many resources at once.)
 */

export class SharedReads<Key, Value> {
  private readonly inFlight = new Map<Key, { generation: number; promise: Promise<Value> }>();
  private readonly generations = new Map<Key, number>();

  /** Call before a write to `key` starts: reads already under way are no longer joined. */
  invalidate(key: Key): void {
    this.generations.set(key, this.generationOf(key) + 1);
  }

  /**
   * Runs a write to `key`: reads under way before it, or started while it runs, are not joined
   * afterwards, whether the write succeeds or fails (a failed write may still have landed).
   */
  async write<Result>(key: Key, run: () => Promise<Result>): Promise<Result> {
    this.invalidate(key);
    try {
      return await run();
    } finally {
      this.invalidate(key);
    }
  }

  read(key: Key, load: () => Promise<Value>): Promise<Value> {
    const generation = this.generationOf(key);
    const running = this.inFlight.get(key);
    if (running !== undefined && running.generation === generation) return running.promise;
    const promise = load().finally(() => {
      if (this.inFlight.get(key)?.promise === promise) this.inFlight.delete(key);
    });
    this.inFlight.set(key, { generation, promise });
    return promise;
  }

  private generationOf(key: Key): number {
    return this.generations.get(key) ?? 0;
  }
}
