/**
 * The terraform configurations the bench plans and applies: N entries as svc_*_entry
 * resources, as the floor's floor_entry or floor_wide_entry, as the Go peer's prefix-list
 * entries or as terraform_data resources holding the same {ip, description}; and one whole list as
 * svc_blacklist, as the Go peer's aws_wafv2_ip_set or as terraform_data holding the same
 * entries as a map or a set.
 */
import { LIST_NAMES, type ListName } from '../../src/api/types';
import { hclString } from '../terraform-harness/hcl';
import { FLOOR_PROVIDER_NAMESPACE, FLOOR_PROVIDER_TYPE, FLOOR_RESOURCE_TYPE, FLOOR_WIDE_RESOURCE_TYPE } from './floor-provider/provider';

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

/** `required_providers` for the floor (floor-provider/). */
export function floorProviderBlock(): string {
  return ['terraform {', '  required_providers {', `    floor = { source = ${hclString(`${FLOOR_PROVIDER_NAMESPACE}/${FLOOR_PROVIDER_TYPE}`)} }`, '  }', '}', ''].join('\n');
}

/** N resources of a floor type, each with an entry's {ip, description}. */
function floorTypeResources(type: string, entries: readonly BenchEntry[]): string {
  return entries
    .map((entry) => [`resource "${type}" "${entry.name}" {`, `  ip          = ${hclString(entry.ip)}`, `  description = ${hclString(entry.description)}`, '}', ''].join('\n'))
    .join('\n');
}

/** The floor's counterpart of entryResources: N floor_entry holding the same {ip, description}. */
export function floorResources(entries: readonly BenchEntry[]): string {
  return floorTypeResources(FLOOR_RESOURCE_TYPE, entries);
}

/**
 * The same with svc's attributes: N floor_wide_entry holding the same {ip, description}, the
 * tenant left to its default as entryResources leaves it to the provider's.
 */
export function wideFloorResources(entries: readonly BenchEntry[]): string {
  return floorTypeResources(FLOOR_WIDE_RESOURCE_TYPE, entries);
}

/** Every AWS endpoint the resources below could call, pointed at a closed loopback port: a plan that called AWS would fail, never leave the machine. */
const CLOSED_ENDPOINT = 'http://127.0.0.1:9';

/**
 * hashicorp/aws configured to plan without AWS: static fake keys, no credential, account or
 * metadata checks, its endpoints on a closed loopback port, no retries.
 */
export function goPeerProviderBlock(): string {
  return [
    'terraform {',
    '  required_providers {',
    '    aws = { source = "hashicorp/aws" }',
    '  }',
    '}',
    '',
    'provider "aws" {',
    '  region                      = "eu-west-1"',
    '  access_key                  = "bench-not-a-key"',
    '  secret_key                  = "bench-not-a-secret"',
    '  skip_credentials_validation = true',
    '  skip_requesting_account_id  = true',
    '  skip_metadata_api_check     = true',
    '  skip_region_validation      = true',
    '  max_retries                 = 0',
    '  endpoints {',
    ...['ec2', 'sts', 'wafv2'].map((service) => `    ${service.padEnd(5)} = ${hclString(CLOSED_ENDPOINT)}`),
    '  }',
    '}',
    '',
  ].join('\n');
}

/** A made-up prefix list: the entries are only planned. */
const PEER_PREFIX_LIST = 'pl-0123456789abcdef0';

/**
 * The Go peer's per-entry resource for the same job: one aws_ec2_managed_prefix_list_entry (an
 * address of a managed list, with a description) per entry.
 */
export function goPeerEntryResources(entries: readonly BenchEntry[]): string {
  return entries
    .map((entry) =>
      [
        `resource "aws_ec2_managed_prefix_list_entry" "${entry.name}" {`,
        `  prefix_list_id = ${hclString(PEER_PREFIX_LIST)}`,
        `  cidr           = ${hclString(`${entry.ip}/32`)}`,
        `  description    = ${hclString(entry.description)}`,
        '}',
        '',
      ].join('\n'),
    )
    .join('\n');
}

/** The Go peer's whole-list resource: one aws_wafv2_ip_set holding every address (it has no descriptions). */
export function goPeerIpSetResource(entries: readonly BenchEntry[]): string {
  return [
    'resource "aws_wafv2_ip_set" "bench" {',
    '  name               = "bench"',
    '  scope              = "REGIONAL"',
    '  ip_address_version = "IPV4"',
    '  addresses = [',
    ...entries.map((entry) => `    ${hclString(`${entry.ip}/32`)},`),
    '  ]',
    '}',
    '',
  ].join('\n');
}
