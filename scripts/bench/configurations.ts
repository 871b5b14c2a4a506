/**
 * The terraform configurations the bench plans and applies: N entries as svc_*_entry
 * resources or as terraform_data resources holding the same {ip, description}, and one whole
 * list as svc_blacklist or as terraform_data holding the same entries as a map or a set.
 */
import { LIST_NAMES, type ListName } from '../../src/api/types';
import { hclString } from '../terraform-harness/hcl';

/** The lists the bench spreads its entries over: all three, in the contract's order. */
export const LISTS = LIST_NAMES;
export type BenchList = ListName;

export interface BenchEntry {
  /** A terraform resource name. */
  readonly name: string;
  readonly ip: string;
  readonly description: string;
  /** Entries spread round-robin over the three lists. */
  readonly list: BenchList;
}

/** Entry `index` (from 0): a distinct IPv4 address in 10.0.0.0/8, so up to 16 million entries. */
export function benchAddress(index: number): string {
  const number = index + 1;
  return `10.${(number >>> 16) & 255}.${(number >>> 8) & 255}.${number & 255}`;
}

export function benchEntries(count: number): BenchEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `entry_${String(index + 1).padStart(5, '0')}`,
    ip: benchAddress(index),
    description: `bench entry ${index + 1}`,
    list: LISTS[index % LISTS.length],
  }));
}

/** N svc_<list>_entry resources, one block each (as a generated configuration has them). */
export function entryResources(entries: readonly BenchEntry[]): string {
  return entries
    .map((entry) =>
      [`resource "svc_${entry.list}_entry" "${entry.name}" {`, `  ip          = ${hclString(entry.ip)}`, `  description = ${hclString(entry.description)}`, '}', ''].join('\n'),
    )
    .join('\n');
}

/** The baseline of entryResources: N terraform_data resources holding the same values. */
export function dataResources(entries: readonly BenchEntry[]): string {
  return entries
    .map((entry) =>
      [
        `resource "terraform_data" "${entry.name}" {`,
        `  input = { ip = ${hclString(entry.ip)}, description = ${hclString(entry.description)} }`,
        '}',
        '',
      ].join('\n'),
    )
    .join('\n');
}

function mapLiteral(entries: readonly BenchEntry[]): string {
  return ['{', ...entries.map((entry) => `    ${hclString(entry.ip)} = ${hclString(entry.description)}`), '  }'].join('\n');
}

/** One svc_blacklist holding every entry (entries is a map: ip => description). */
export function wholeListResource(entries: readonly BenchEntry[]): string {
  return ['resource "svc_blacklist" "bench" {', `  entries = ${mapLiteral(entries)}`, '}', ''].join('\n');
}

/** The baseline of wholeListResource: terraform_data holding the same map. */
export function dataMapResource(entries: readonly BenchEntry[]): string {
  return ['resource "terraform_data" "bench" {', `  input = ${mapLiteral(entries)}`, '}', ''].join('\n');
}

/** terraform_data holding the entries as a set of {ip, description} objects (what entries was before it became a map). */
export function dataSetResource(entries: readonly BenchEntry[]): string {
  const elements = entries.map((entry) => `    { ip = ${hclString(entry.ip)}, description = ${hclString(entry.description)} },`);
  return ['resource "terraform_data" "bench" {', '  input = toset([', ...elements, '  ])', '}', ''].join('\n');
}
