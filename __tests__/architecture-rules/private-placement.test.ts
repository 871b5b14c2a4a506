import { TerraformStack, TerraformVariable } from 'cdktf';
import { Lb } from '@cdktf/provider-aws/lib/lb';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { SecurityGroupRule } from '@cdktf/provider-aws/lib/security-group-rule';
import { VpcSecurityGroupIngressRule } from '@cdktf/provider-aws/lib/vpc-security-group-ingress-rule';
import { Instance } from '@cdktf/provider-aws/lib/instance';
import { findingsOfRule, synthWithRules, expectOnlyFinding } from './stacks';

const RULE = 'SVC-ARCH-3';
const SUBNETS = ['subnet-0aaa', 'subnet-0bbb'];
const HTTPS_FROM = (cidrBlocks: string[], ipv6CidrBlocks: string[] = []) => ({
  fromPort: 443,
  toPort: 443,
  protocol: 'tcp',
  cidrBlocks,
  ipv6CidrBlocks,
});

interface Case {
  readonly name: string;
  readonly build: (stack: TerraformStack) => void;
  readonly expected: { path: string; contains: string } | 'none';
}

const cases: Case[] = [
  {
    name: 'compliant: internal load balancer',
    build: (stack) => new Lb(stack, 'balancer', { internal: true, subnets: SUBNETS }),
    expected: 'none',
  },
  {
    name: 'compliant: internal flag from a variable (known at plan)',
    build: (stack) => {
      const internal = new TerraformVariable(stack, 'internal', { type: 'bool' });
      new Lb(stack, 'balancer', { internal: internal.booleanValue, subnets: SUBNETS });
    },
    expected: 'none',
  },
  {
    name: 'compliant: launch template without public addresses',
    build: (stack) =>
      new LaunchTemplate(stack, 'template', { networkInterfaces: [{ associatePublicIpAddress: 'false' }] }),
    expected: 'none',
  },
  {
    name: 'compliant: security group open to the VPC only, egress anywhere',
    build: (stack) =>
      new SecurityGroup(stack, 'group', {
        ingress: [HTTPS_FROM(['10.0.0.0/16'])],
        egress: [{ fromPort: 0, toPort: 0, protocol: '-1', cidrBlocks: ['0.0.0.0/0'] }],
      }),
    expected: 'none',
  },
  {
    name: 'compliant: egress rule to anywhere',
    build: (stack) =>
      new SecurityGroupRule(stack, 'rule', {
        type: 'egress', securityGroupId: 'sg-1', fromPort: 0, toPort: 0, protocol: '-1', cidrBlocks: ['0.0.0.0/0'],
      }),
    expected: 'none',
  },
  {
    name: 'non-compliant: load balancer without internal (internet-facing by default)',
    build: (stack) => new Lb(stack, 'balancer', { subnets: SUBNETS }),
    expected: { path: 'stack/balancer', contains: 'aws_lb.balancer internal is not set (defaults to internet-facing); set internal = true' },
  },
  {
    name: 'non-compliant: load balancer internal = false',
    build: (stack) => new Lb(stack, 'balancer', { internal: false, subnets: SUBNETS }),
    expected: { path: 'stack/balancer', contains: 'internal is false' },
  },
  {
    name: 'non-compliant: launch template with a public address',
    build: (stack) =>
      new LaunchTemplate(stack, 'template', { networkInterfaces: [{ associatePublicIpAddress: 'true' }] }),
    expected: { path: 'stack/template', contains: 'network_interfaces[0] sets associate_public_ip_address = true' },
  },
  {
    name: 'non-compliant: instance with a public address',
    build: (stack) =>
      new Instance(stack, 'box', { ami: 'ami-1', instanceType: 't3.small', associatePublicIpAddress: true }),
    expected: { path: 'stack/box', contains: 'aws_instance.box sets associate_public_ip_address = true' },
  },
  {
    name: 'non-compliant: security group ingress from 0.0.0.0/0',
    build: (stack) => new SecurityGroup(stack, 'group', { ingress: [HTTPS_FROM(['10.0.0.0/16', '0.0.0.0/0'])] }),
    expected: { path: 'stack/group', contains: 'ingress[0] (tcp 443-443) allows ingress from 0.0.0.0/0' },
  },
  {
    name: 'non-compliant: security group ingress from ::/0',
    build: (stack) => new SecurityGroup(stack, 'group', { ingress: [HTTPS_FROM([], ['::/0'])] }),
    expected: { path: 'stack/group', contains: 'allows ingress from ::/0' },
  },
  {
    name: 'non-compliant: separate ingress rule from anywhere',
    build: (stack) =>
      new SecurityGroupRule(stack, 'rule', {
        type: 'ingress', securityGroupId: 'sg-1', fromPort: 22, toPort: 22, protocol: 'tcp', cidrBlocks: ['0.0.0.0/0'],
      }),
    expected: { path: 'stack/rule', contains: 'aws_security_group_rule.rule (tcp 22-22) allows ingress from 0.0.0.0/0' },
  },
  {
    name: 'non-compliant: VPC ingress rule from anywhere',
    build: (stack) =>
      new VpcSecurityGroupIngressRule(stack, 'rule', {
        securityGroupId: 'sg-1', fromPort: 443, toPort: 443, ipProtocol: 'tcp', cidrIpv4: '0.0.0.0/0',
      }),
    expected: { path: 'stack/rule', contains: 'allows ingress from 0.0.0.0/0' },
  },
];

describe('rule 3: private placement, no public exposure', () => {
  test.each(cases)('$name', ({ build, expected }) => {
    const findings = findingsOfRule(synthWithRules(build), RULE);
    expectOnlyFinding(findings, expected === 'none' ? expected : { level: 'error', ...expected });
  });
});
