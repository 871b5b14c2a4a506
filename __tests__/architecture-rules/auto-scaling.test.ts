import { TerraformStack, TerraformVariable } from 'cdktf';
import { AutoscalingGroup, AutoscalingGroupConfig } from '@cdktf/provider-aws/lib/autoscaling-group';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import { Instance } from '@cdktf/provider-aws/lib/instance';
import { findingsOfRule, synthWithRules, expectOnlyFinding } from './stacks';

const RULE = 'SVC-ARCH-2';
const SUBNETS = ['subnet-0aaa', 'subnet-0bbb'];

function group(stack: TerraformStack, config: Partial<AutoscalingGroupConfig>) {
  return new AutoscalingGroup(stack, 'group', { minSize: 2, maxSize: 4, vpcZoneIdentifier: SUBNETS, ...config });
}

interface Case {
  readonly name: string;
  readonly build: (stack: TerraformStack) => void;
  readonly expected: { level: 'error' | 'warning'; path: string; contains: string } | 'none';
}

const cases: Case[] = [
  {
    name: 'compliant: launch template referenced by id',
    build: (stack) => {
      const template = new LaunchTemplate(stack, 'template', { name: 'SvcPrevent-analyzer' });
      group(stack, { launchTemplate: { id: template.id, version: template.latestVersion.toString() } });
    },
    expected: 'none',
  },
  {
    name: 'compliant: launch template referenced by its literal name',
    build: (stack) => {
      new LaunchTemplate(stack, 'template', { name: 'SvcPrevent-analyzer' });
      group(stack, { launchTemplate: { name: 'SvcPrevent-analyzer' } });
    },
    expected: 'none',
  },
  {
    name: 'compliant: launch template in a mixed instances policy',
    build: (stack) => {
      const template = new LaunchTemplate(stack, 'template', { namePrefix: 'SvcPrevent-' });
      group(stack, {
        mixedInstancesPolicy: {
          launchTemplate: { launchTemplateSpecification: { launchTemplateId: template.id } },
        },
      });
    },
    expected: 'none',
  },
  {
    name: 'compliant: group behind a load balancer with ELB health checks',
    build: (stack) => {
      const template = new LaunchTemplate(stack, 'template', {});
      group(stack, { launchTemplate: { id: template.id }, targetGroupArns: ['arn:tg'], healthCheckType: 'ELB' });
    },
    expected: 'none',
  },
  {
    name: 'non-compliant: launch template no group uses',
    build: (stack) => {
      new LaunchTemplate(stack, 'orphan', { name: 'SvcPrevent-orphan' });
    },
    expected: { level: 'error', path: 'stack/orphan', contains: 'aws_launch_template.orphan is not used by any aws_autoscaling_group' },
  },
  {
    name: 'non-compliant (warning): unused template while a group names its template through a variable',
    build: (stack) => {
      new LaunchTemplate(stack, 'orphan', {});
      const templateId = new TerraformVariable(stack, 'template_id', { type: 'string' });
      group(stack, { launchTemplate: { id: templateId.stringValue } });
    },
    expected: { level: 'warning', path: 'stack/orphan', contains: 'is not used by any aws_autoscaling_group' },
  },
  {
    name: 'non-compliant: standalone instance',
    build: (stack) => {
      new Instance(stack, 'box', { ami: 'ami-123', instanceType: 't3.small' });
    },
    expected: { level: 'error', path: 'stack/box', contains: 'aws_instance.box is a standalone instance' },
  },
  {
    name: 'non-compliant: group that may keep no instance',
    build: (stack) => {
      const template = new LaunchTemplate(stack, 'template', {});
      group(stack, { minSize: 0, launchTemplate: { id: template.id } });
    },
    expected: { level: 'error', path: 'stack/group', contains: 'min_size is 0' },
  },
  {
    name: 'non-compliant (warning): group behind a load balancer with EC2 health checks',
    build: (stack) => {
      const template = new LaunchTemplate(stack, 'template', {});
      group(stack, { launchTemplate: { id: template.id }, targetGroupArns: ['arn:tg'] });
    },
    expected: { level: 'warning', path: 'stack/group', contains: 'health_check_type = "ELB"' },
  },
];

describe('rule 2: instances in auto scaling groups', () => {
  test.each(cases)('$name', ({ build, expected }) => {
    const findings = findingsOfRule(synthWithRules(build), RULE);
    expectOnlyFinding(findings, expected);
  });
});
