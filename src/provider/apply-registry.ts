/**
 * What the changes of one provider process know of each other, so that terraform's ordering
 * rules lose nothing. Terraform runs the create of a create_before_destroy replacement and the
 * destroy of the object it deposed in the same process, and the deletes of per-entry resources
 * in parallel with the create of the whole list that replaces them; without this, each destroy
 * would undo what the newer change just wrote. Also the addresses planned by per-entry
 * resources, so two resources for one address are an error at plan.
 */
import type { ListName } from '../api/types';

/**
 * Many shared holders at once, or one exclusive holder: per-entry deletes of a list run
 * together, and a whole list's write waits for them (and they for it).
 */
class SharedOrExclusive {
  private exclusiveDone: Promise<void> = Promise.resolve();
  private readonly holders = new Set<Promise<unknown>>();

  async shared<Result>(run: () => Promise<Result>): Promise<Result> {
    // Wait until no exclusive holder is running or queued; join synchronously after the check.
    for (;;) {
      const gate = this.exclusiveDone;
      await gate;
      if (gate === this.exclusiveDone) break;
    }
    const running = run();
    this.holders.add(running);
    try {
      return await running;
    } finally {
      this.holders.delete(running);
    }
  }

  async exclusive<Result>(run: () => Promise<Result>): Promise<Result> {
    const previous = this.exclusiveDone;
    let release = (): void => undefined;
    this.exclusiveDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      await Promise.allSettled([...this.holders]);
      return await run();
    } finally {
      release();
    }
  }
}

function listKey(tenant: string, list: ListName): string {
  return JSON.stringify([tenant, list]);
}

export class ApplyRegistry {
  /** Whole lists a create or update of this process wrote: the canonical addresses they declare. */
  private readonly appliedLists = new Map<string, ReadonlySet<string>>();
  /** SSO settings a create or update of this process set, by `tenant`/`channel` and name. */
  private readonly appliedSso = new Set<string>();
  /** Per-entry addresses planned in this process: canonical -> the ip as the first resource wrote it. */
  private readonly plannedEntries = new Map<string, string>();
  /** Per-entry addresses a create of this process wrote. */
  private readonly writtenEntries = new Set<string>();
  private readonly gates = new Map<string, SharedOrExclusive>();

  private gate(tenant: string, list: ListName): SharedOrExclusive {
    const key = listKey(tenant, list);
    let gate = this.gates.get(key);
    if (gate === undefined) {
      gate = new SharedOrExclusive();
      this.gates.set(key, gate);
    }
    return gate;
  }

  /**
   * A whole list's create or update: registered before it reads the list, then run alone on
   * that list, so a per-entry delete either ran before it (and the write adds the entry back)
   * or sees the registration (and leaves the entry).
   */
  writeWholeList<Result>(tenant: string, list: ListName, declared: ReadonlySet<string>, run: () => Promise<Result>): Promise<Result> {
    this.appliedLists.set(listKey(tenant, list), declared);
    return this.gate(tenant, list).exclusive(run);
  }

  /** A whole list's destroy, alone on that list; `run` sees what a newer object of this process declares. */
  destroyWholeList<Result>(tenant: string, list: ListName, run: (declaredByNewer: ReadonlySet<string>) => Promise<Result>): Promise<Result> {
    return this.gate(tenant, list).exclusive(() => run(this.appliedLists.get(listKey(tenant, list)) ?? new Set()));
  }

  /** A per-entry delete; `run` sees whether a whole list written in this process declares the address. */
  deleteEntry<Result>(tenant: string, list: ListName, canonical: string, run: (declaredByWholeList: boolean) => Promise<Result>): Promise<Result> {
    return this.gate(tenant, list).shared(() => run(this.appliedLists.get(listKey(tenant, list))?.has(canonical) === true));
  }

  /** A per-entry create of this process wrote (or found exactly as configured) this address. */
  entryWritten(tenant: string, list: ListName, canonical: string): void {
    this.writtenEntries.add(JSON.stringify([tenant, list, canonical]));
  }

  entryWrittenInThisProcess(tenant: string, list: ListName, canonical: string): boolean {
    return this.writtenEntries.has(JSON.stringify([tenant, list, canonical]));
  }

  ssoApplied(kind: 'tenant' | 'channel', name: string): void {
    this.appliedSso.add(JSON.stringify([kind, name]));
  }

  /** True when a create or update of this process set the SSO of that tenant or channel. */
  ssoAppliedInThisProcess(kind: 'tenant' | 'channel', name: string): boolean {
    return this.appliedSso.has(JSON.stringify([kind, name]));
  }

  /** Claims an address for a per-entry resource being planned; returns the spelling of an earlier claim, if any. */
  claimEntry(tenant: string, list: ListName, canonical: string, written: string): string | undefined {
    const key = JSON.stringify([tenant, list, canonical]);
    const earlier = this.plannedEntries.get(key);
    if (earlier !== undefined) return earlier;
    this.plannedEntries.set(key, written);
    return undefined;
  }
}
