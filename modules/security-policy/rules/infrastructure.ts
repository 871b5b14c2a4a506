/**
 * What the stack's own infrastructure uses, for SVC-POLICY-5 (self-lockout): the addresses a
 * SecurityPolicy is told about (its ownInfrastructure prop), and the literal addresses of the
 * stack's AWS resources and data sources. Values known only at plan (references, variables,
 * a NAT gateway's public_ip read by ControlPlaneEgress) are left out: nothing is guessed.
 */
import { Token } from 'cdktf';
import { checkAddress, parseAddress } from '../../../src/address';
import { literalString } from '../../architecture-rules/expressions';
import type { TerraformInventory } from '../../architecture-rules/inventory';
import type { OwnInfrastructure } from '../props';
import type { InfrastructureAddress } from './rule';

/** Where literal addresses of the stack's own infrastructure sit. */
export const INFRASTRUCTURE_ATTRIBUTES: readonly { readonly kind: 'resource' | 'data'; readonly type: string; readonly attributes: readonly string[] }[] = [
  { kind: 'resource', type: 'aws_vpc', attributes: ['cidr_block', 'ipv6_cidr_block'] },
  { kind: 'data', type: 'aws_vpc', attributes: ['cidr_block'] },
  { kind: 'resource', type: 'aws_vpc_ipv4_cidr_block_association', attributes: ['cidr_block'] },
  { kind: 'resource', type: 'aws_subnet', attributes: ['cidr_block', 'ipv6_cidr_block'] },
  { kind: 'data', type: 'aws_subnet', attributes: ['cidr_block', 'ipv6_cidr_block'] },
  { kind: 'resource', type: 'aws_eip', attributes: ['address', 'public_ip'] },
  { kind: 'data', type: 'aws_eip', attributes: ['public_ip'] },
  { kind: 'resource', type: 'aws_eip_association', attributes: ['public_ip'] },
];

/** The literal addresses of the stack's AWS resources listed in INFRASTRUCTURE_ATTRIBUTES. */
export function stackInfrastructure(inventory: TerraformInventory): InfrastructureAddress[] {
  const found: InfrastructureAddress[] = [];
  for (const { kind, type, attributes } of INFRASTRUCTURE_ATTRIBUTES) {
    for (const element of inventory.elements(kind, [type])) {
      for (const attribute of attributes) {
        const value = literalString(element.attributes[attribute]);
        const checked = value === undefined ? undefined : checkAddress(value);
        // A malformed literal is the AWS provider's to refuse at plan, not a policy finding.
        if (checked?.ok) found.push({ parsed: parseAddress(checked.canonical), what: `${element.address} ${attribute}` });
      }
    }
  }
  return found;
}

/**
 * The literal values of an ownInfrastructure prop with their fields
 * (`ownInfrastructure.sensorCidrs[1]`), unchecked; tokens are left out (known only at plan).
 */
export function ownInfrastructureValues(own: OwnInfrastructure): { field: string; value: unknown }[] {
  const fields: { field: string; value: unknown }[] = [];
  for (const name of ['egressAddresses', 'sensorCidrs'] as const) {
    const values: unknown = own[name];
    // A whole list from a variable is one token.
    if (values === undefined || Token.isUnresolved(values)) continue;
    if (!Array.isArray(values)) {
      fields.push({ field: `ownInfrastructure.${name}`, value: values });
      continue;
    }
    values.forEach((value: unknown, index) => fields.push({ field: `ownInfrastructure.${name}[${index}]`, value }));
  }
  if (own.vpcCidr !== undefined) fields.push({ field: 'ownInfrastructure.vpcCidr', value: own.vpcCidr });
  return fields.filter(({ value }) => !Token.isUnresolved(value));
}
