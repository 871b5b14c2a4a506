/**
 * Entries of the three lists as SecurityPolicy handles them: checked with the project's
 * address module, remembered with where they came from (file:line, prop or addEntries call),
 * one per canonical address, and named for Terraform from that address.
 */
import { Token } from 'cdktf';
import { checkAddress } from '../../src/address';
import { descriptionProblem } from '../../src/description';
import { EntryFileError, addressProblem, loadEntryFile } from '../../src/entry-file';
import { LIST_NAMES, type ListName } from '../../src/api/types';
export { addressProblem, displayPath } from '../../src/entry-file';
import { PolicyFileError, SecurityPolicyPropError, describeSource, type EntrySource } from './errors';

/** The service's lists (the wire contract's LIST_NAMES), as SecurityPolicy's props and config name them. */
export type PolicyListName = ListName;
/** The three lists a policy manages, in the order the service and every report name them. */
export const POLICY_LIST_NAMES: readonly PolicyListName[] = LIST_NAMES;

/** One entry as users write it, inline or in a file. */
export interface PolicyEntry {
  /** IPv4/IPv6 address or CIDR range without host bits. A token (e.g. a NAT gateway's public_ip) is not checked at synth. */
  readonly ip: string;
  /** @default "" */
  readonly description?: string;
}

/** An entry for addEntries: a token ip needs a name, since no name can be derived from an unknown address. */
export interface AddedPolicyEntry extends PolicyEntry {
  /**
   * The per-entry resource name suffix for a token ip (`whitelist_<name>`). Ignored for literal
   * addresses, which are named from the address. @default `<source>_<index>`
   */
  readonly name?: string;
}

/** An entry after checking, with where it came from. */
export interface CheckedEntry {
  /** As written (the provider keeps the user's spelling in state). */
  readonly ip: string;
  /** The canonical address; undefined for a token ip. */
  readonly canonical: string | undefined;
  readonly description: string | undefined;
  readonly source: EntrySource;
}

/**
 * Loads and checks one entry file (src/entry-file.ts, which `svc entries import` reads too);
 * its problems come as PolicyFileError, like every other SecurityPolicy file problem.
 */
export function loadPolicyEntryFile(file: string): CheckedEntry[] {
  try {
    return loadEntryFile(file);
  } catch (error) {
    if (!(error instanceof EntryFileError)) throw error;
    const { code, file: shown, line, field, value, detail } = error;
    throw new PolicyFileError({ code, file: shown, ...(line === undefined ? {} : { line }), field, value, message: detail });
  }
}

/** Where an inline entry of a configuration file sits: the file and the field path in it. */
export interface ConfigEntryOrigin {
  /** The configuration file, as the user named it. */
  readonly file: string;
  /** e.g. `securityPolicy.blocklist.entries[2]`. */
  readonly field: string;
}

const CONFIG_ORIGIN = Symbol('svc-prevent.configEntryOrigin');

/**
 * Marks an entry the config parser read from a configuration file, so messages about it (a
 * duplicate address) name that file and field instead of the construct path and prop. Not
 * enumerable: the entry stays `{ ip, description }` to everything else.
 */
export function withConfigOrigin<T extends PolicyEntry>(entry: T, origin: ConfigEntryOrigin): T {
  Object.defineProperty(entry, CONFIG_ORIGIN, { value: origin, enumerable: false });
  return entry;
}

function configOrigin(entry: object): ConfigEntryOrigin | undefined {
  return (entry as { [CONFIG_ORIGIN]?: ConfigEntryOrigin })[CONFIG_ORIGIN];
}

/**
 * Checks an inline or added entry (not from an entry file): a literal ip must be an address, a
 * token passes as it is (terraform and the provider check it once known). An entry from the
 * app's configuration file keeps that file and field as its source.
 */
export function checkPropEntry(entry: unknown, propSource: EntrySource & { constructPath: string }): CheckedEntry {
  const origin = typeof entry === 'object' && entry !== null ? configOrigin(entry) : undefined;
  const source: EntrySource & { constructPath: string } = origin === undefined ? propSource : { ...propSource, file: origin.file, field: origin.field };
  const fail = (prop: string, value: unknown, message: string) =>
    new SecurityPolicyPropError({ constructPath: propSource.constructPath, prop, value, message });
  // The config parser has checked these already; a prop error names the construct's prop.
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw fail(propSource.field, entry, 'expected an object { ip, description? }');
  }
  const { ip, description } = entry as { ip?: unknown; description?: unknown };
  if (typeof ip !== 'string') throw fail(`${propSource.field}.ip`, ip, 'expected a string: an IPv4/IPv6 address or CIDR range');
  if (description !== undefined && typeof description !== 'string') {
    throw fail(`${propSource.field}.description`, description, 'expected a string, or leave it out');
  }
  const descriptionIssue = typeof description === 'string' && !Token.isUnresolved(description) ? descriptionProblem(description) : undefined;
  if (descriptionIssue !== undefined) throw fail(`${propSource.field}.description`, description, descriptionIssue);
  if (Token.isUnresolved(ip)) return { ip, canonical: undefined, description, source };
  const checked = checkAddress(ip);
  if (!checked.ok) throw fail(`${propSource.field}.ip`, ip, addressProblem(checked.error.reason));
  return { ip, canonical: checked.canonical, description, source };
}

/** The error for a second entry with the same canonical address as an earlier one in the same list. */
export function duplicateEntryError(list: PolicyListName, first: CheckedEntry, second: CheckedEntry): Error {
  const message =
    `is the same address as ${JSON.stringify(first.ip)} at ${describeSource(first.source)} ` +
    `(both are ${second.canonical} on the ${list}); keep one of the two entries`;
  if (second.source.file !== undefined) {
    return new PolicyFileError({
      code: 'duplicate_policy_entry',
      file: second.source.file,
      ...(second.source.line === undefined ? {} : { line: second.source.line }),
      field: `${second.source.field}.ip`,
      value: second.ip,
      message: `${JSON.stringify(second.ip)} ${message}`,
    });
  }
  return new SecurityPolicyPropError({
    code: 'duplicate_policy_entry',
    constructPath: second.source.constructPath ?? '',
    prop: `${second.source.field}.ip`,
    value: second.ip,
    message,
  });
}

/**
 * The Terraform resource name of a per-entry resource: the list, then the canonical address
 * with `.`, `:` and `/` written as `_`. So 203.0.113.9 on the blacklist is
 * `blacklist_203_0_113_9`, 198.51.100.0/24 is `blacklist_198_51_100_0_24` and 2001:db8::1 is
 * `blacklist_2001_db8__1`. Reordering a file or respelling an address (10.0.0.1/32) keeps the
 * name, and `terraform import svc_blacklist_entry.blacklist_203_0_113_9 acme/203.0.113.9` can
 * be written by hand.
 */
export function entryResourceName(list: PolicyListName, canonical: string, prefix = ''): string {
  return `${prefix}${list}_${canonical.replace(/[.:/]/g, '_')}`;
}

/** A name part from free text (a source or channel name): letters, digits, `_` and `-` only. */
export function nameFragment(text: string): string {
  const fragment = text.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return fragment === '' ? 'entry' : fragment;
}
