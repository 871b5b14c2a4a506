/**
 * Containment and overlap of addresses and CIDR ranges, on the parsed forms of src/address.ts:
 * the one implementation, for the provider (its guardrails and functions), the emulator and the
 * policy rules. A single address is the range of prefix /32 (/128). IPv4 and IPv6 never contain
 * each other: `::ffff:192.0.2.1` is compared as IPv6, the way the service stores it.
 *
 * Pure and allocation-light (addresses become bigints once), so policy rules can compare
 * lists of thousands of entries. Of the three implementations there were (this one, one on
 * strings that parsed both sides at every call, one that parsed with ipaddr.js at every call),
 * this was the fastest by 12x and 125x per comparison (issue 27, commit fece714's message).
 */
import * as ipaddr from 'ipaddr.js';
import type { AddressFamily, ParsedAddress } from './address';

const FAMILY_BITS: Readonly<Record<AddressFamily, number>> = { ipv4: 32, ipv6: 128 };

/** Parsed forms are immutable: each is converted once. */
const NUMBERS = new WeakMap<ParsedAddress, bigint>();

/** The network address of a parsed address or range as a number. */
export function networkNumber(parsed: ParsedAddress): bigint {
  const known = NUMBERS.get(parsed);
  if (known !== undefined) return known;
  let value = 0n;
  if (parsed.family === 'ipv4') {
    // A canonical IPv4 address is a strict dotted quad: no parser needed.
    const [a, b, c, d] = parsed.address.split('.').map(Number);
    value = BigInt(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);
  } else {
    for (const byte of ipaddr.parse(parsed.address).toByteArray()) value = (value << 8n) | BigInt(byte);
  }
  NUMBERS.set(parsed, value);
  return value;
}

/** The first `prefixLength` bits of an address number of the family, as a number. */
function leadingBits(family: AddressFamily, value: bigint, prefixLength: number): bigint {
  return value >> BigInt(FAMILY_BITS[family] - prefixLength);
}

/**
 * A canonical IPv4 address (a strict dotted quad) as an unsigned 32-bit number, read digit by
 * digit: no bigint and no cache lookup, which made `contains` the largest part of a whole
 * list's validate (every entry is compared with the guardrails' special blocks).
 */
export function ipv4Number(address: string): number {
  let value = 0;
  let octet = 0;
  for (let index = 0; index < address.length; index += 1) {
    const code = address.charCodeAt(index);
    if (code === 46) {
      value = value * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + (code - 48);
  }
  return value * 256 + octet;
}

/** True when every address of `inner` is in `outer` (a range contains itself). */
export function contains(outer: ParsedAddress, inner: ParsedAddress): boolean {
  if (outer.family !== inner.family || inner.prefixLength < outer.prefixLength) return false;
  if (outer.family === 'ipv4') {
    if (outer.prefixLength === 0) return true;
    // Two single addresses: their canonical spellings are equal exactly when they are.
    if (outer.prefixLength === 32) return outer.address === inner.address;
    const shift = 32 - outer.prefixLength;
    return ipv4Number(outer.address) >>> shift === ipv4Number(inner.address) >>> shift;
  }
  return (
    leadingBits(outer.family, networkNumber(outer), outer.prefixLength) ===
    leadingBits(inner.family, networkNumber(inner), outer.prefixLength)
  );
}

/** True when the two share at least one address (for CIDR ranges: one contains the other). */
export function overlaps(a: ParsedAddress, b: ParsedAddress): boolean {
  return contains(a, b) || contains(b, a);
}

/**
 * A set of ranges with a value each, answering "which of them contain this range" without
 * comparing against every member: one lookup per distinct prefix length held.
 */
export class RangeIndex<T> {
  /** `family/prefix` -> leading bits -> values. */
  private readonly byPrefix = new Map<string, Map<bigint, T[]>>();
  /** The prefix lengths held per family, ascending. */
  private readonly prefixes: Record<AddressFamily, number[]> = { ipv4: [], ipv6: [] };

  add(range: ParsedAddress, value: T): void {
    const key = `${range.family}/${range.prefixLength}`;
    let networks = this.byPrefix.get(key);
    if (networks === undefined) {
      networks = new Map();
      this.byPrefix.set(key, networks);
    }
    const bits = leadingBits(range.family, networkNumber(range), range.prefixLength);
    const values = networks.get(bits);
    if (values === undefined) networks.set(bits, [value]);
    else values.push(value);
    const prefixes = this.prefixes[range.family];
    if (!prefixes.includes(range.prefixLength)) {
      prefixes.push(range.prefixLength);
      prefixes.sort((a, b) => a - b);
    }
  }

  /** The values of every member that contains `range` (itself included), broadest first. */
  containing(range: ParsedAddress): T[] {
    const number = networkNumber(range);
    const found: T[] = [];
    for (const prefix of this.prefixes[range.family]) {
      if (prefix > range.prefixLength) break;
      found.push(...(this.byPrefix.get(`${range.family}/${prefix}`)?.get(leadingBits(range.family, number, prefix)) ?? []));
    }
    return found;
  }
}
