/**
 * The provider's list cache: one `list_<list>` call per (tenant, list) per provider process,
 * shared by every reader (terraform refreshes about ten resources at once, and a per-entry
 * resource would otherwise cost one call each). A write to a list invalidates its entry before
 * it starts and again when it ends, so nobody is handed a list older than a write they saw begin.
 */
import { canonicalAddress, checkAddress } from '../address';
import type { ListEntry, ListName } from '../api/types';

export type ListLoader = (tenant: string, list: ListName) => Promise<readonly ListEntry[]>;

export interface CachedList {
  /** In the order the service listed them. */
  readonly entries: readonly ListEntry[];
  /** By canonical ip. */
  readonly byIp: ReadonlyMap<string, ListEntry>;
}

interface Slot {
  readonly generation: number;
  readonly promise: Promise<CachedList>;
}

export class ListCache {
  private readonly slots = new Map<string, Slot>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly load: ListLoader) {}

  /** The list, loaded at most once per generation; a failed load is not kept. */
  read(tenant: string, list: ListName): Promise<CachedList> {
    const key = slotKey(tenant, list);
    const generation = this.generationOf(key);
    const slot = this.slots.get(key);
    if (slot !== undefined && slot.generation === generation) return slot.promise;
    const promise = this.load(tenant, list).then(indexEntries);
    promise.catch(() => {
      if (this.slots.get(key)?.promise === promise) this.slots.delete(key);
    });
    this.slots.set(key, { generation, promise });
    return promise;
  }

  /** The entry holding `ip` (any spelling), or undefined. */
  async find(tenant: string, list: ListName, ip: string): Promise<ListEntry | undefined> {
    return (await this.read(tenant, list)).byIp.get(canonicalAddress(ip));
  }

  /** Runs a write to (tenant, list); reads before, during and after it do not share a load. */
  async write<Result>(tenant: string, list: ListName, run: () => Promise<Result>): Promise<Result> {
    const key = slotKey(tenant, list);
    this.invalidate(key);
    try {
      return await run();
    } finally {
      // Also after a failure: a failed write may still have landed.
      this.invalidate(key);
    }
  }

  private invalidate(key: string): void {
    this.generations.set(key, this.generationOf(key) + 1);
    this.slots.delete(key);
  }

  private generationOf(key: string): number {
    return this.generations.get(key) ?? 0;
  }
}

function slotKey(tenant: string, list: ListName): string {
  return JSON.stringify([tenant, list]);
}

function indexEntries(entries: readonly ListEntry[]): CachedList {
  const byIp = new Map<string, ListEntry>();
  for (const entry of entries) {
    // The service stores canonical spellings; canonicalising again costs little and keeps lookups exact.
    const checked = checkAddress(entry.ip);
    byIp.set(checked.ok ? checked.canonical : entry.ip, entry);
  }
  return { entries, byIp };
}
