/**
 * Spec rule 3: control plane services run in private subnets and are never publicly exposed.
 * At synth this means: load balancers are internal, nothing asks for a public IP, and no
 * security group admits the whole internet. Whether the subnets themselves are private is
 * known only at plan time (ControlPlane checks it with a data-source postcondition).
 */
import { IConstruct } from 'constructs';
import { NOT_APPLICABLE, RuleContext, RuleResult, combineProblems, nonCompliant } from '../findings';
import { blocks, listEntries, literalBoolean, literalString } from '../expressions';
import { TerraformElementView } from '../inventory';
import { checkAddress } from '../../../src/address';

export function checkPrivatePlacement(node: IConstruct, context: RuleContext): RuleResult {
  const view = context.inventory.view(node);
  if (!view || view.kind !== 'resource') return NOT_APPLICABLE;
  switch (view.type) {
    case 'aws_lb':
    case 'aws_alb':
    case 'aws_elb':
      return checkLoadBalancerIsInternal(view);
    case 'aws_launch_template':
      return checkLaunchTemplate(view);
    case 'aws_launch_configuration':
    case 'aws_instance':
      return literalBoolean(view.attributes.associate_public_ip_address) === true
        ? nonCompliant(
            `${view.address} sets associate_public_ip_address = true, which exposes the ` +
              'instance publicly. Remove it and place the instances in private subnets.',
          )
        : NOT_APPLICABLE;
    case 'aws_security_group':
      return checkSecurityGroup(view);
    case 'aws_security_group_rule':
      return checkSecurityGroupRule(view);
    case 'aws_vpc_security_group_ingress_rule':
      return checkIngressRule(view);
    default:
      return NOT_APPLICABLE;
  }
}

function checkLoadBalancerIsInternal(view: TerraformElementView): RuleResult {
  const internal = view.attributes.internal;
  if (internal !== undefined && literalBoolean(internal) === undefined) return NOT_APPLICABLE;
  if (literalBoolean(internal) === true) return { compliance: 'compliant' };
  const given = internal === undefined ? 'not set (defaults to internet-facing)' : 'false';
  return nonCompliant(
    `${view.address} internal is ${given}; set internal = true and place it in private subnets.`,
  );
}

function checkLaunchTemplate(view: TerraformElementView): RuleResult {
  const interfaces = blocks(view.attributes.network_interfaces) ?? [];
  const publicInterfaces = interfaces
    .map((networkInterface, index) => ({ index, value: networkInterface.associate_public_ip_address }))
    .filter(({ value }) => literalBoolean(value) === true);
  return combineProblems(
    publicInterfaces.map(({ index }) => ({
      message:
        `${view.address} network_interfaces[${index}] sets associate_public_ip_address = true; ` +
        'set it to false (or remove it) so service instances get no public address.',
    })),
    'error',
  );
}

/** Literal CIDRs that cover every address of their family (0.0.0.0/0, ::/0). */
function worldRanges(values: readonly unknown[]): string[] {
  return values
    .map((value) => literalString(value))
    .filter((value): value is string => value !== undefined)
    .filter((value) => {
      const checked = checkAddress(value);
      return checked.ok && checked.canonical.endsWith('/0');
    });
}

function portLabel(rule: Readonly<Record<string, unknown>>): string {
  const from = rule.from_port;
  const to = rule.to_port;
  const protocol = rule.protocol ?? rule.ip_protocol;
  return `${String(protocol ?? 'any')} ${String(from ?? '*')}-${String(to ?? '*')}`;
}

function openIngressMessage(address: string, where: string, ranges: readonly string[]): string {
  return (
    `${address} ${where} allows ingress from ${ranges.join(' and ')}, i.e. from anywhere. ` +
    'Allow only the VPC range, the sensor ranges or specific security groups.'
  );
}

function checkSecurityGroup(view: TerraformElementView): RuleResult {
  const ingress = blocks(view.attributes.ingress);
  if (ingress === undefined) return NOT_APPLICABLE;
  const problems = ingress.flatMap((rule, index) => {
    const ranges = worldRanges([
      ...(listEntries(rule.cidr_blocks) ?? []),
      ...(listEntries(rule.ipv6_cidr_blocks) ?? []),
    ]);
    return ranges.length === 0
      ? []
      : [{ message: openIngressMessage(view.address, `ingress[${index}] (${portLabel(rule)})`, ranges) }];
  });
  return combineProblems(problems, 'error');
}

function checkSecurityGroupRule(view: TerraformElementView): RuleResult {
  if (literalString(view.attributes.type) !== 'ingress') return NOT_APPLICABLE;
  const ranges = worldRanges([
    ...(listEntries(view.attributes.cidr_blocks) ?? []),
    ...(listEntries(view.attributes.ipv6_cidr_blocks) ?? []),
  ]);
  return ranges.length === 0
    ? { compliance: 'compliant' }
    : nonCompliant(openIngressMessage(view.address, `(${portLabel(view.attributes)})`, ranges));
}

function checkIngressRule(view: TerraformElementView): RuleResult {
  const ranges = worldRanges([view.attributes.cidr_ipv4, view.attributes.cidr_ipv6]);
  return ranges.length === 0
    ? { compliance: 'compliant' }
    : nonCompliant(openIngressMessage(view.address, `(${portLabel(view.attributes)})`, ranges));
}
