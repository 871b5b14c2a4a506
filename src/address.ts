/**
 * IP addresses and CIDR ranges in the canonical form of the management API contract:
 * IPv4 as a dotted quad, IPv6 lower-case and RFC 5952 compressed, no host bits set in a
 * range, and `/32` (`/128`) folded into the bare address. The client, the emulator, the
 * provider and the CDKTF constructs all call this one module, so an entry is spelled the
 * same way wherever it is compared.
 */
import * as ipaddr from 'ipaddr.js';
import { quoteForMessage } from './display-text';

/** IPv4 or IPv6; an IPv4 value never matches an IPv6 one. */
export type AddressFamily = 'ipv4' | 'ipv6';

/** An address or CIDR range checked and canonicalised (RFC 5952 for IPv6). */
export interface ParsedAddress {
  readonly family: AddressFamily;
  /** The network address, canonical, without prefix. */
  readonly address: string;
  /** 32 or 128 for a single address. */
  readonly prefixLength: number;
  /** The address alone for a single host, `address/prefix` for a range. */
  readonly canonical: string;
  readonly isRange: boolean;
}

/** Thrown for anything that is not an address or CIDR of the contract's form. */
export class InvalidAddressError extends Error {
  readonly code = 'invalid_address';
  constructor(
    readonly value: string,
    readonly reason: string,
  ) {
    // The first part matches the service's own reply text, so users see one wording.
    // A long value is cut: a 6 MB argument would otherwise be printed whole.
    super(`Invalid IP address or CIDR: ${quoteForMessage(value)} (${reason})`);
    this.name = 'InvalidAddressError';
  }
}

const IPV6_CHARACTERS = /^[0-9A-Fa-f:.]+$/;
const PREFIX_PATTERN = /^\d{1,3}$/;

/**
 * The four octets of a strict dotted quad (no leading zeros, none above 255): four groups of one
 * to three ASCII digits separated by dots. Read character by character rather than with a
 * pattern: a whole list's validate reads 10,000 of them in each provider process.
 */
function ipv4Octets(text: string, original: string): [number, number, number, number] {
  const octets: [number, number, number, number] = [0, 0, 0, 0];
  const starts = [0, 0, 0, 0];
  const lengths = [0, 0, 0, 0];
  let group = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 46 && lengths[group] > 0 && group < 3) {
      group += 1;
      starts[group] = index + 1;
    } else if (code >= 48 && code <= 57 && lengths[group] < 3) {
      octets[group] = octets[group] * 10 + (code - 48);
      lengths[group] += 1;
    } else {
      throw new InvalidAddressError(original, 'not a dotted-quad IPv4 address');
    }
  }
  if (group !== 3 || lengths[3] === 0) throw new InvalidAddressError(original, 'not a dotted-quad IPv4 address');
  for (let index = 0; index < 4; index += 1) {
    if (lengths[index] > 1 && text.charCodeAt(starts[index]) === 48) {
      // Leading zeros read as octal in some parsers and as decimal in others: refuse both.
      throw new InvalidAddressError(original, `octet "${text.slice(starts[index], starts[index] + lengths[index])}" has a leading zero`);
    }
    if (octets[index] > 255) throw new InvalidAddressError(original, `octet ${text.slice(starts[index], starts[index] + lengths[index])} is above 255`);
  }
  return octets;
}

function parseIpv6(text: string, original: string): ipaddr.IPv6 {
  if (text.includes('%')) throw new InvalidAddressError(original, 'zone identifiers are not allowed');
  if (!IPV6_CHARACTERS.test(text) || !ipaddr.IPv6.isValid(text)) {
    throw new InvalidAddressError(original, 'not a valid IPv6 address');
  }
  // An embedded IPv4 tail must itself be a strict dotted quad. It is rewritten as the two hex
  // groups it stands for before ipaddr.js parses the address: ipaddr.js reads `::1.2.3.4`
  // (IPv4-compatible, ::102:304) as `::ffff:1.2.3.4` (IPv4-mapped), a different address.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (!tail.includes('.')) return ipaddr.IPv6.parse(text);
  const [high1, high2, low1, low2] = ipv4Octets(tail, original);
  const groups = `${((high1 << 8) | high2).toString(16)}:${((low1 << 8) | low2).toString(16)}`;
  return ipaddr.IPv6.parse(`${text.slice(0, lastColon + 1)}${groups}`);
}

function formatIpv6(address: ipaddr.IPv6): string {
  // RFC 5952 section 5: IPv4-mapped addresses keep the dotted-quad tail.
  if (address.isIPv4MappedAddress()) return `::ffff:${address.toIPv4Address().toString()}`;
  return address.toRFC5952String();
}

/**
 * Parsed forms by spelling. A plan checks and canonicalises each entry of a whole list several
 * times (validate, the guardrails, the diff by canonical address), in validate and again in the
 * plan's process: it is parsed once instead (help/performance-history.md, "Where a whole list's
 * per-entry time goes").
 * Only valid spellings are kept (an error is made afresh, with its own stack); the map is
 * emptied when full, so a long-lived process (the emulator, a synth) keeps a bounded amount.
 */
const PARSED_BY_SPELLING = new Map<string, ParsedAddress>();
const PARSED_KEPT = 50_000;

/** Parses an address or CIDR range; throws InvalidAddressError naming the value and why. */
export function parseAddress(value: string): ParsedAddress {
  const known = typeof value === 'string' ? PARSED_BY_SPELLING.get(value) : undefined;
  if (known !== undefined) return known;
  const parsed = parseUncached(value);
  if (PARSED_BY_SPELLING.size >= PARSED_KEPT) PARSED_BY_SPELLING.clear();
  PARSED_BY_SPELLING.set(value, parsed);
  return parsed;
}

function parseUncached(value: string): ParsedAddress {
  if (typeof value !== 'string') {
    throw new InvalidAddressError(String(value), `expected a string, got ${typeof value}`);
  }
  if (value.length === 0) throw new InvalidAddressError(value, 'the value is empty');
  if (value.trim() !== value) throw new InvalidAddressError(value, 'leading or trailing white space');
  if (value.length > 64) throw new InvalidAddressError(value, 'longer than any address or CIDR');

  const slash = value.indexOf('/');
  const addressText = slash === -1 ? value : value.slice(0, slash);
  const prefixText = slash === -1 ? undefined : value.slice(slash + 1);
  const family: AddressFamily = addressText.includes(':') ? 'ipv6' : 'ipv4';
  // IPv4 is checked by hand (no ipaddr.js): a plan canonicalises every entry several times.
  const octets = family === 'ipv4' ? ipv4Octets(addressText, value) : undefined;
  const ipv6 = family === 'ipv6' ? parseIpv6(addressText, value) : undefined;
  const maxPrefix = family === 'ipv4' ? 32 : 128;

  let prefixLength = maxPrefix;
  if (prefixText !== undefined) {
    if (!PREFIX_PATTERN.test(prefixText)) {
      throw new InvalidAddressError(value, `prefix length "${prefixText}" is not a number`);
    }
    if (prefixText.length > 1 && prefixText.startsWith('0')) {
      // Refused like a leading-zero octet: `/08` is not a spelling any other part writes.
      throw new InvalidAddressError(value, `prefix length "${prefixText}" has a leading zero`);
    }
    prefixLength = Number(prefixText);
    if (prefixLength > maxPrefix) {
      throw new InvalidAddressError(value, `prefix length ${prefixLength} is above ${maxPrefix}`);
    }
  }

  // A single address has no host bits to check.
  const given = prefixLength === maxPrefix ? [] : (octets ?? (ipv6 as ipaddr.IPv6).toByteArray());
  const network = given.map((byte, index) => byte & networkMask(prefixLength, index));
  if (given.some((byte, index) => byte !== network[index])) {
    const networkText = family === 'ipv4' ? network.join('.') : formatIpv6(ipaddr.fromByteArray(network) as ipaddr.IPv6);
    throw new InvalidAddressError(
      value,
      `host bits are set; the network of this range is ${networkText}/${prefixLength}`,
    );
  }

  // A strict dotted quad is already canonical.
  const address = family === 'ipv4' ? addressText : formatIpv6(ipv6 as ipaddr.IPv6);
  const isRange = prefixLength !== maxPrefix;
  // Frozen: callers share one object per spelling.
  return Object.freeze({
    family,
    address,
    prefixLength,
    canonical: isRange ? `${address}/${prefixLength}` : address,
    isRange,
  });
}

/** The bits of byte `index` that a prefix of `prefixLength` keeps. */
function networkMask(prefixLength: number, index: number): number {
  const bits = Math.min(Math.max(prefixLength - index * 8, 0), 8);
  return (0xff << (8 - bits)) & 0xff;
}

/** The canonical spelling of an address or CIDR; throws InvalidAddressError. */
export function canonicalAddress(value: string): string {
  return parseAddress(value).canonical;
}

/** Like canonicalAddress, but returns the error instead of throwing, for validators. */
export function checkAddress(
  value: string,
): { ok: true; canonical: string } | { ok: false; error: InvalidAddressError } {
  try {
    return { ok: true, canonical: canonicalAddress(value) };
  } catch (error) {
    if (error instanceof InvalidAddressError) return { ok: false, error };
    throw error;
  }
}

/**
 * True for a host name that stays on this machine: `localhost`, 127.0.0.0/8 and ::1 (as the URL
 * parser gives them: `[::1]` in brackets, IPv4 already normalised).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost') return true;
  try {
    const address = parseAddress(host);
    return address.family === 'ipv4' ? address.address.startsWith('127.') : address.address === '::1';
  } catch {
    // Deliberate: a DNS name is not an address, and only `localhost` among names is loopback.
    return false;
  }
}
