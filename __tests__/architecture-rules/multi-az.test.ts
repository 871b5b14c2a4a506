import { TerraformStack, TerraformVariable } from 'cdktf';
import { AutoscalingGroup } from '@cdktf/provider-aws/lib/autoscaling-group';
import { DataAwsSubnet } from '@cdktf/provider-aws/lib/data-aws-subnet';
import { Subnet } from '@cdktf/provider-aws/lib/subnet';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import { Lb } from '@cdktf/provider-aws/lib/lb';
import { ArchitectureRulesProps } from '../../modules/architecture-rules';
import { findingsOfRule, synthWithRules, expectOnlyFinding } from './stacks';

const RULE = 'SVC-ARCH-1';

function group(stack: TerraformStack, subnets: string[], overrides: { minSize?: number; desiredCapacity?: number } = {}) {
  const template = new LaunchTemplate(stack, 'template', { name: 'SvcPrevent-analyzer' });
  return new AutoscalingGroup(stack, 'group', {
    minSize: overrides.minSize ?? 2,
    maxSize: 4,
    desiredCapacity: overrides.desiredCapacity,
    vpcZoneIdentifier: subnets,
    launchTemplate: { id: template.id },
  });
}

function subnetData(stack: TerraformStack, id: string, zone: string) {
  return new DataAwsSubnet(stack, id, { id, availabilityZone: zone });
}

interface Case {
  readonly name: string;
  readonly build: (stack: TerraformStack) => void;
  readonly props?: ArchitectureRulesProps;
  readonly expected: { level: 'error' | 'warning'; path: string; contains: string } | 'none';
}

const cases: Case[] = [
  {
    name: 'compliant: two data-source subnets in two zones',
    build: (stack) =>
      group(stack, [subnetData(stack, 'subnet-a', 'eu-west-1a').id, subnetData(stack, 'subnet-b', 'eu-west-1b').id]),
    expected: 'none',
  },
  {
    name: 'compliant: two plain subnet ids, zones unknown until plan',
    build: (stack) => group(stack, ['subnet-0aaa', 'subnet-0bbb']),
    expected: 'none',
  },
  {
    name: 'compliant: subnets from a variable (checked at plan time)',
    build: (stack) => {
      const subnets = new TerraformVariable(stack, 'subnets', { type: 'list(string)' });
      group(stack, subnets.listValue);
    },
    expected: 'none',
  },
  {
    name: 'compliant: aws_subnet resources by availability zone id',
    build: (stack) => {
      const a = new Subnet(stack, 'a', { vpcId: 'vpc-1', cidrBlock: '10.0.1.0/24', availabilityZoneId: 'euw1-az1' });
      const b = new Subnet(stack, 'b', { vpcId: 'vpc-1', cidrBlock: '10.0.2.0/24', availabilityZoneId: 'euw1-az2' });
      group(stack, [a.id, b.id]);
    },
    expected: 'none',
  },
  {
    name: 'non-compliant: one subnet',
    build: (stack) => group(stack, ['subnet-0aaa']),
    expected: { level: 'error', path: 'stack/group', contains: 'vpc_zone_identifier lists 1 subnet(s) (subnet-0aaa)' },
  },
  {
    name: 'non-compliant: the same subnet twice',
    build: (stack) => group(stack, ['subnet-0aaa', 'subnet-0aaa']),
    expected: { level: 'error', path: 'stack/group', contains: 'lists 1 subnet(s)' },
  },
  {
    name: 'non-compliant: two data-source subnets in one zone',
    build: (stack) =>
      group(stack, [subnetData(stack, 'subnet-a', 'eu-west-1a').id, subnetData(stack, 'subnet-b', 'eu-west-1a').id]),
    expected: { level: 'error', path: 'stack/group', contains: 'all in availability zone eu-west-1a' },
  },
  {
    name: 'non-compliant: plain subnet ids that the options place in one zone',
    build: (stack) => group(stack, ['subnet-0aaa', 'subnet-0bbb']),
    props: { subnetAvailabilityZones: { 'subnet-0aaa': 'eu-west-1c', 'subnet-0bbb': 'eu-west-1c' } },
    expected: { level: 'error', path: 'stack/group', contains: 'all in availability zone eu-west-1c' },
  },
  {
    name: 'non-compliant (warning): one instance cannot span two zones',
    build: (stack) => group(stack, ['subnet-0aaa', 'subnet-0bbb'], { minSize: 1, desiredCapacity: 1 }),
    expected: { level: 'warning', path: 'stack/group', contains: 'desired_capacity is 1' },
  },
  {
    name: 'non-compliant: load balancer subnets in one zone',
    build: (stack) =>
      new Lb(stack, 'balancer', {
        internal: true,
        subnets: [subnetData(stack, 'subnet-a', 'eu-west-1a').id, subnetData(stack, 'subnet-b', 'eu-west-1a').id],
      }),
    expected: { level: 'error', path: 'stack/balancer', contains: 'aws_lb.balancer subnets has 2 subnets, all in availability zone eu-west-1a' },
  },
];

describe('rule 1: multi-AZ placement', () => {
  test.each(cases)('$name', ({ build, props, expected }) => {
    const findings = findingsOfRule(synthWithRules(build, props), RULE);
    expectOnlyFinding(findings, expected);
    if (expected !== 'none') expect(findings[0].message).toMatch(/at least 2|2 or more/);
  });
});
