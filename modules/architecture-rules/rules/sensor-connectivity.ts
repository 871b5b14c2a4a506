/**
 * Spec rule 5: if sensors run in a different VPC than the control plane, VPC peering or
 * transit gateway connectivity between the two VPCs is required. Evaluated once, on the
 * construct the aspect was added to, from the sensorCidrs and vpcCidr options.
 */
import { IConstruct } from 'constructs';
import { COMPLIANT, NOT_APPLICABLE, RuleContext, RuleResult, nonCompliant } from '../findings';
import { literalString } from '../expressions';
import { checkAddress, parseAddress } from '../../../src/address';
import { contains } from '../../../src/address-ranges';

/** The VPC range from the options, else from the stack's one VPC with a literal cidr_block. */
export function controlPlaneVpcCidr(context: RuleContext): string | undefined {
  if (context.options.vpcCidr !== undefined) return context.options.vpcCidr;
  const ranges = [
    ...context.inventory.elements('resource', ['aws_vpc']),
    ...context.inventory.elements('data', ['aws_vpc']),
  ].map((vpc) => literalString(vpc.attributes.cidr_block));
  if (ranges.length !== 1 || ranges[0] === undefined) return undefined;
  const checked = checkAddress(ranges[0]);
  return checked.ok ? checked.canonical : undefined;
}

export function checkSensorConnectivity(_node: IConstruct, context: RuleContext): RuleResult {
  if (!context.isScopeRoot || context.options.sensorCidrs.length === 0) return NOT_APPLICABLE;
  const vpcCidr = controlPlaneVpcCidr(context);
  if (vpcCidr === undefined) return NOT_APPLICABLE;
  const vpc = parseAddress(vpcCidr);
  const outside = context.options.sensorCidrs.filter((range) => !contains(vpc, parseAddress(range)));
  if (outside.length === 0) return COMPLIANT;
  return nonCompliant(
    `sensor range(s) ${outside.join(', ')} are outside the control plane VPC ${vpcCidr}. Sensors ` +
      'there reach the Runtime Analyzer (TLS gRPC, port 50051) only through VPC peering or a ' +
      'transit gateway between the two VPCs: set that up, with routes both ways and ingress for ' +
      'those ranges on the load balancer security group, before deploying sensors.',
  );
}
