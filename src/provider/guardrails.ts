/**
 * Guardrails over list entries, as pure functions the resources call at validate and plan:
 * a catch-all range (error), a very broad range (warning unless allow_broad_ranges), an address
 * that cannot be a client's (IPv4-mapped, unspecified, loopback, multicast, broadcast: warning
 * naming the better spelling), and at plan the pairs of entries that contradict (whitelist and
 * blacklist/blocklist at once) or repeat each other (a broader entry of the same list covers
 * one). Every rule is listed with its level and opt-out in help/guardrails.md.
 */
import * as ipaddr from 'ipaddr.js';
import { parseAddress, type AddressFamily, type ParsedAddress } from '../address';
import { contains, ipv4Number, networkNumber } from '../address-ranges';
import type { ListName } from '../api/types';
import { errorDiagnostic, warningDiagnostic, type AttributePath, type Diagnostic } from './core';

/**
 * Prefixes shorter than these warn (unless allow_broad_ranges). One IPv4 /8 is 16.7 million
 * addresses, a whole regional allocation; one IPv6 /32 is what a registry gives a whole ISP.
 * On the whitelist a shorter prefix exempts that many clients from all protection; on the
 * blacklist and blocklist it denies them all.
 */
export const BROAD_RANGE_LIMITS: Readonly<Record<ListName, Readonly<Record<AddressFamily, number>>>> = {
  whitelist: { ipv4: 8, ipv6: 32 },
  blacklist: { ipv4: 8, ipv6: 32 },
  blocklist: { ipv4: 8, ipv6: 32 },
};

const LIST_EFFECT: Record<ListName, string> = {
  whitelist: 'exempts every client from all protection',
  blacklist: 'denies every client on every site',
  blocklist: 'blocks every client on every site',
};

const BROAD_EFFECT: Record<ListName, string> = {
  whitelist: 'exempts all of them from all protection, also from risk-based blocking',
  blacklist: 'denies all of them permanently',
  blocklist: 'blocks all of them for 30 minutes',
};

/** Where an entry is written, for messages: `ip` of a per-entry resource, or an `entries` key. */
export interface EntryPlace {
  readonly path: AttributePath;
  /** e.g. `ip` or `entries key`. */
  readonly what: string;
}

/** Safe to call on any text: an address that does not parse gets no guardrail (validate reports it). */
function parsed(value: string): ParsedAddress | undefined {
  try {
    return parseAddress(value);
  } catch {
    // Deliberate: the address check of the same attribute already reports the invalid value.
    return undefined;
  }
}

/** Errors at validate: a range that matches every address of its family. No opt-out. */
export function catchAllDiagnostics(list: ListName, value: string, place: EntryPlace): Diagnostic[] {
  const address = parsed(value);
  return address === undefined ? [] : catchAllOf(list, value, address, place);
}

function catchAllOf(list: ListName, value: string, address: ParsedAddress, place: EntryPlace): Diagnostic[] {
  if (address.prefixLength !== 0) return [];
  const family = address.family === 'ipv4' ? 'IPv4' : 'IPv6';
  return [
    errorDiagnostic(
      `Catch-all range on the ${list}`,
      `${place.what} = ${JSON.stringify(value)} is ${address.canonical}, every ${family} address: on the ${list} it ${LIST_EFFECT[list]}. ` +
        'Nothing was sent. Give the addresses or ranges you mean; there is no setting that allows a catch-all range.',
      place.path,
    ),
  ];
}

/** A warning at plan for a prefix shorter than BROAD_RANGE_LIMITS, unless the provider allows broad ranges. */
export function broadRangeDiagnostics(list: ListName, value: string, place: EntryPlace): Diagnostic[] {
  const address = parsed(value);
  if (address === undefined || address.prefixLength === 0) return [];
  const limit = BROAD_RANGE_LIMITS[list][address.family];
  if (address.prefixLength >= limit) return [];
  const count = address.family === 'ipv4' ? `${(2 ** (32 - address.prefixLength)).toLocaleString('en-US')} addresses` : `2^${128 - address.prefixLength} addresses`;
  return [
    warningDiagnostic(
      `Very broad range on the ${list}`,
      `${place.what} = ${JSON.stringify(value)} is a /${address.prefixLength} (${count}), broader than /${limit}: on the ${list} it ${BROAD_EFFECT[list]}. ` +
        'If that is what you mean, set allow_broad_ranges = true in the provider "svc" block.',
      place.path,
    ),
  ];
}

interface SpecialBlock {
  readonly range: string;
  readonly why: string;
  readonly advice: string;
}

/** Address blocks that are never a client's source address; the first that holds an entry names it. */
const SPECIAL_BLOCKS: readonly SpecialBlock[] = [
  { range: '0.0.0.0/32', why: 'the unspecified address 0.0.0.0', advice: 'no client has it; give the client address or range you mean, or remove the entry' },
  { range: '::/128', why: 'the unspecified address ::', advice: 'no client has it; give the client address or range you mean, or remove the entry' },
  {
    range: '127.0.0.0/8',
    why: 'a loopback address (127.0.0.0/8)',
    advice: 'traffic from it never leaves the host, so the service never sees it; give the address clients reach the service from',
  },
  { range: '::1/128', why: 'the loopback address ::1', advice: 'traffic from it never leaves the host, so the service never sees it; give the address clients reach the service from' },
  { range: '224.0.0.0/4', why: 'a multicast address (224.0.0.0/4)', advice: 'no client sends from a multicast address; give the senders\' unicast addresses' },
  { range: 'ff00::/8', why: 'a multicast address (ff00::/8)', advice: 'no client sends from a multicast address; give the senders\' unicast addresses' },
  { range: '255.255.255.255/32', why: 'the broadcast address 255.255.255.255', advice: 'no client sends from it; give the client address or range you mean, or remove the entry' },
];

/** SPECIAL_BLOCKS with their ranges parsed, once per process (at the first entry checked). */
let parsedSpecialBlocks: ReadonlyArray<SpecialBlock & { readonly parsed: ParsedAddress }> | undefined;

function specialBlocks(): ReadonlyArray<SpecialBlock & { readonly parsed: ParsedAddress }> {
  parsedSpecialBlocks ??= SPECIAL_BLOCKS.map((block) => ({ ...block, parsed: parseAddress(block.range) }));
  return parsedSpecialBlocks;
}

/** Warnings at validate for an entry that cannot mean what the user wants, naming the better spelling. */
export function unlikelyAddressDiagnostics(list: ListName, value: string, place: EntryPlace): Diagnostic[] {
  const address = parsed(value);
  return address === undefined ? [] : unlikelyAddressOf(list, value, address, place);
}

/**
 * Validate's guardrails of one entry (the catch-all error, the warnings for addresses no client
 * has), the address parsed once for both.
 */
export function validateEntryGuardrails(list: ListName, value: string, place: EntryPlace): Diagnostic[] {
  const address = parsed(value);
  if (address === undefined) return [];
  const catchAll = catchAllOf(list, value, address, place);
  const unlikely = unlikelyAddressOf(list, value, address, place);
  return catchAll.length === 0 ? unlikely : catchAll.concat(unlikely);
}

function unlikelyAddressOf(list: ListName, value: string, address: ParsedAddress, place: EntryPlace): Diagnostic[] {
  const mapped = ipv4OfMapped(address);
  if (mapped !== undefined) {
    return [
      warningDiagnostic(
        `IPv4-mapped IPv6 address on the ${list}`,
        `${place.what} = ${JSON.stringify(value)} is an IPv4-mapped IPv6 address, which the service keeps as a separate IPv6 entry: ` +
          `it does not match IPv4 clients. Did you mean ${JSON.stringify(mapped)}?`,
        place.path,
      ),
    ];
  }
  let block: SpecialBlock | undefined;
  for (const candidate of specialBlocks()) {
    if (!contains(candidate.parsed, address)) continue;
    block = candidate;
    break;
  }
  if (block === undefined) return [];
  return [
    warningDiagnostic(
      `Address on the ${list} that no client has`,
      `${place.what} = ${JSON.stringify(value)} is ${block.why}: ${block.advice}.`,
      place.path,
    ),
  ];
}

/** `1.2.3.4` for `::ffff:1.2.3.4`, `1.2.3.0/24` for `::ffff:1.2.3.0/120`; undefined for anything else. */
function ipv4OfMapped(address: ParsedAddress): string | undefined {
  if (address.family !== 'ipv6' || address.prefixLength < 96) return undefined;
  const ip = ipaddr.IPv6.parse(address.address);
  if (!ip.isIPv4MappedAddress()) return undefined;
  const ipv4 = ip.toIPv4Address().toString();
  return address.prefixLength === 128 ? ipv4 : `${ipv4}/${address.prefixLength - 96}`;
}

// ---- plan: contradictions and redundant entries ------------------------------------------------

/** An entry seen at plan: declared in the configuration being planned, or listed by the service. */
export interface SeenEntry {
  readonly list: ListName;
  readonly ip: string;
  /** Where it comes from, for messages: e.g. `svc_blacklist_entry (this configuration)` or `the service`. */
  readonly source: string;
}

export interface EntryFinding {
  readonly kind: 'contradiction' | 'redundant';
  /** The entry the warning is placed on (one of the resource's own). */
  readonly entry: SeenEntry;
  readonly other: SeenEntry;
}

interface Indexed {
  readonly seen: SeenEntry;
  readonly canonical: string;
  /** The family and the first prefixLength bits: A covers B when B's key starts with A's. */
  readonly key: string;
  /** The family's part of the key (`ipv4` or `ipv6`) and the number of bits after it. */
  readonly family: string;
  readonly bits: number;
  /** The entry's position in its SeenEntries: findings keep the order the entries were added in. */
  readonly position: number;
}

interface AddressKey {
  readonly canonical: string;
  readonly key: string;
  readonly family: string;
  readonly bits: number;
}

/** Parsed address keys by spelling: a plan compares each entry with every list, so each spelling is parsed once per process. */
const keysBySpelling = new Map<string, AddressKey | null>();

/** The 8 bits of each byte value as text: an IPv4 key is four lookups, not a conversion to base 2 and a pad. */
const BYTE_BITS = Array.from({ length: 256 }, (_, byte) => byte.toString(2).padStart(8, '0'));

function ipv4Bits(number: number): string {
  return BYTE_BITS[number >>> 24] + BYTE_BITS[(number >>> 16) & 255] + BYTE_BITS[(number >>> 8) & 255] + BYTE_BITS[number & 255];
}

function addressKey(ip: string): AddressKey | undefined {
  let known = keysBySpelling.get(ip);
  if (known === undefined) {
    const address = parsed(ip);
    if (address === undefined) known = null;
    else {
      // IPv4 as a plain number: a whole list of 10,000 entries keys each one.
      const allBits = address.family === 'ipv4' ? ipv4Bits(ipv4Number(address.address)) : networkNumber(address).toString(2).padStart(128, '0');
      known = { canonical: address.canonical, key: `${address.family}:${allBits.slice(0, address.prefixLength)}`, family: address.family, bits: address.prefixLength };
    }
    keysBySpelling.set(ip, known);
  }
  return known ?? undefined;
}

/**
 * Entries seen at plan, indexed by address once as they are added: which of them cover an
 * entry is one lookup per prefix length in use, and which lie inside it a binary search, so a
 * plan of N per-entry resources (each compared with those planned before it) is linear in N,
 * not quadratic. Entries that are not addresses are left out (validate reports them).
 */
export class SeenEntries {
  private readonly items: Indexed[] = [];
  private readonly byKey = new Map<string, Indexed | Indexed[]>();
  /**
   * Per family, the prefix lengths in use, and the longest of them: only a range shorter than
   * that can hold entries.
   */
  private readonly prefixLengths = new Map<string, { readonly lengths: number[]; longest: number }>();
  /** `items` sorted by key, made when a range first asks what lies inside it, then kept sorted as entries are added. */
  private sorted: Indexed[] | undefined;
  /**
   * Every entry added, in order (its index is its position). They are indexed at the first
   * question after they were added: a plan registers a whole list's entries for the resources
   * planned after it, and when none asks, they are never indexed.
   */
  private readonly added: SeenEntry[] = [];
  private indexed = 0;

  constructor(entries: readonly SeenEntry[] = []) {
    this.add(entries);
  }

  /** How many entries were added (addresses or not): a limit of `size` sees all added so far. */
  get size(): number {
    return this.added.length;
  }

  add(entries: readonly SeenEntry[]): void {
    for (const seen of entries) this.added.push(seen);
  }

  private indexAdded(): void {
    for (; this.indexed < this.added.length; this.indexed += 1) {
      const seen = this.added[this.indexed];
      const key = addressKey(seen.ip);
      if (key === undefined) continue;
      const item: Indexed = { seen, canonical: key.canonical, key: key.key, family: key.family, bits: key.bits, position: this.indexed };
      this.items.push(item);
      // One entry per key is the usual case (a whole list of single addresses): no array for it.
      const same = this.byKey.get(item.key);
      if (same === undefined) this.byKey.set(item.key, item);
      else if (Array.isArray(same)) same.push(item);
      else this.byKey.set(item.key, [same, item]);
      const inFamily = this.prefixLengths.get(item.family);
      if (inFamily === undefined) this.prefixLengths.set(item.family, { lengths: [item.bits], longest: item.bits });
      else if (!inFamily.lengths.includes(item.bits)) {
        inFamily.lengths.push(item.bits);
        inFamily.longest = Math.max(inFamily.longest, item.bits);
      }
      if (this.sorted !== undefined) this.sorted.splice(firstAtOrAfter(this.sorted, item.key), 0, item);
    }
  }

  /** The entries added before position `limit` that cover `entry` (its own key included) or lie inside it, in the order added. */
  related(entry: AddressKey, limit: number): Indexed[] {
    this.indexAdded();
    const inFamily = this.prefixLengths.get(entry.family);
    if (inFamily === undefined) return [];
    const found: Indexed[] = [];
    for (const length of inFamily.lengths) {
      if (length > entry.bits) continue;
      // The entry's own length (the usual case: single addresses) is its own key, not rebuilt.
      const key = length === entry.bits ? entry.key : entry.key.slice(0, entry.family.length + 1 + length);
      const same = this.byKey.get(key);
      if (same === undefined) continue;
      if (!Array.isArray(same)) {
        if (same.position < limit) found.push(same);
      } else for (const other of same) if (other.position < limit) found.push(other);
    }
    // Strictly inside: only a range has anything inside it.
    if (inFamily.longest > entry.bits) {
      this.sorted ??= [...this.items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const sorted = this.sorted;
      for (let index = firstAtOrAfter(sorted, entry.key); index < sorted.length && sorted[index].key.startsWith(entry.key); index += 1) {
        const other = sorted[index];
        if (other.key !== entry.key && other.position < limit) found.push(other);
      }
    }
    return found.length > 1 ? found.sort((a, b) => a.position - b.position) : found;
  }
}

/** The index of the first of `sorted` whose key is not below `key` (binary search). */
function firstAtOrAfter(sorted: readonly Indexed[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].key < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The entries of `entries` a finding search sees: those added before position `limit` (all by default). */
export interface SeenView {
  readonly entries: SeenEntries;
  readonly limit?: number;
}

function isDenyList(list: ListName): boolean {
  return list !== 'whitelist';
}

/** The finding (if any) of the entry `seen` (of address `entry`) against `other`, which covers it or lies inside it (or neither: none). */
function findingOf(seen: SeenEntry, entry: AddressKey, other: Indexed, findings: EntryFinding[]): void {
  const sameList = other.seen.list === seen.list;
  const opposite = !sameList && isDenyList(other.seen.list) !== isDenyList(seen.list);
  if (entry.key.startsWith(other.key)) {
    if (sameList && other.canonical !== entry.canonical) findings.push({ kind: 'redundant', entry: seen, other: other.seen });
    if (opposite) findings.push({ kind: 'contradiction', entry: seen, other: other.seen });
  } else if (opposite && other.key.startsWith(entry.key)) {
    findings.push({ kind: 'contradiction', entry: seen, other: other.seen });
  }
}

function limitOf(view: SeenView): number {
  return view.limit ?? view.entries.size;
}

/**
 * The findings for the resource's own entries among themselves and `others` (the service's lists,
 * other resources): an overlap between the whitelist and the blacklist or blocklist (either may
 * contain the other), and an own entry that a broader entry of the same list covers. An entry
 * equal to an own entry on the same list is that entry itself (or its copy on the service).
 * Linear in the entries (times the prefix lengths in use), so a 5,000-entry list plans quickly.
 * `others` is a list, or views of SeenEntries a plan keeps (entries planned before, a list read).
 *
 * How the own entries are compared among themselves: by default through an index of their own;
 * through `among`, one of `others`' views, when `own` (these very objects) were added to it (a
 * whole list's plan declares its 10,000 entries and compares them: one index, one lookup per
 * entry; the findings and their order are the same); or not at all with `DISTINCT_ENTRIES`, for
 * entries that cannot overlap one another (see ownEntriesCannotOverlap).
 */
export function findEntryFindings(own: readonly SeenEntry[], others: readonly SeenEntry[] | readonly SeenView[], among?: SeenView | typeof DISTINCT_ENTRIES): EntryFinding[] {
  const given: readonly SeenView[] =
    others.length === 0 ? [] : 'entries' in others[0] ? (others as readonly SeenView[]) : [{ entries: new SeenEntries(others as readonly SeenEntry[]) }];
  // An empty view (an empty list on the service) finds nothing: with none left, nothing is keyed.
  const views = given.filter((view) => limitOf(view) > 0);
  if (views.length === 0 && among === DISTINCT_ENTRIES) return [];
  const ownIn = among === DISTINCT_ENTRIES ? undefined : among;
  const ownEntries = among === undefined ? new SeenEntries(own) : undefined;
  const ownSet = ownIn === undefined ? undefined : new Set(own);
  const findings: EntryFinding[] = [];
  for (const seen of own) {
    const key = addressKey(seen.ip);
    if (key === undefined) continue;
    const inOwnView = ownIn === undefined ? undefined : ownIn.entries.related(key, limitOf(ownIn));
    // First the own entries among themselves, in their order, as an index of them alone finds them.
    // An entry compared with itself finds nothing: skipped.
    if (ownEntries !== undefined) {
      for (const other of ownEntries.related(key, ownEntries.size)) if (other.seen !== seen) findingOf(seen, key, other, findings);
    } else if (inOwnView !== undefined && inOwnView.length > 1) {
      for (const other of inOwnView) if (other.seen !== seen && ownSet?.has(other.seen)) findingOf(seen, key, other, findings);
    }
    for (const view of views) {
      for (const other of view === ownIn && inOwnView !== undefined ? inOwnView : view.entries.related(key, limitOf(view))) if (other.seen !== seen) findingOf(seen, key, other, findings);
    }
  }
  return findings;
}

/** findEntryFindings' `among` for own entries that cannot overlap one another. */
export const DISTINCT_ENTRIES = 'distinct entries';

/**
 * True when no two of `entries` can make a finding: single addresses (no range) of one list, so
 * each covers only an entry of the same address, and an entry of the same address on the same
 * list is no finding.
 */
export function ownEntriesCannotOverlap(entries: readonly SeenEntry[]): boolean {
  const list = entries[0]?.list;
  return entries.every((entry) => entry.list === list && parsed(entry.ip)?.isRange === false);
}

/** The same pair found from either side has one key. */
export function findingKey(finding: EntryFinding): string {
  const sides = [finding.entry, finding.other].map((side) => `${side.list} ${parsed(side.ip)?.canonical ?? side.ip}`).sort();
  return `${finding.kind}: ${sides.join(' | ')}`;
}

export function findingDiagnostic(finding: EntryFinding, tenant: string, place: EntryPlace): Diagnostic {
  const { entry, other } = finding;
  const self = parsed(entry.ip)?.canonical ?? entry.ip;
  const that = parsed(other.ip)?.canonical ?? other.ip;
  if (finding.kind === 'redundant') {
    return warningDiagnostic(
      `Entry already covered on the ${entry.list}`,
      `${place.what} = ${JSON.stringify(entry.ip)} (${self}) lies inside ${that}, which the ${entry.list} of tenant ${JSON.stringify(tenant)} ` +
        `already holds (${other.source}), so this entry changes nothing. Remove one of the two, or keep both on purpose.`,
      place.path,
    );
  }
  const [allowed, denied] = entry.list === 'whitelist' ? [entry, other] : [other, entry];
  const allowedIp = allowed === entry ? self : that;
  const deniedIp = denied === entry ? self : that;
  return warningDiagnostic(
    `Address on the whitelist and the ${denied.list} at once`,
    `${place.what} = ${JSON.stringify(entry.ip)} (${self}, ${entry.list}) overlaps ${that} on the ${other.list} (${other.source}) of tenant ${JSON.stringify(tenant)}: ` +
      `whitelist ${allowedIp} exempts clients that ${denied.list} ${deniedIp} denies, so one of the two entries does not do what it says. ` +
      'Remove the address from one of the two lists.',
    place.path,
  );
}
