import { TerraformStack, TerraformVariable } from 'cdktf';
import { Vpc } from '@cdktf/provider-aws/lib/vpc';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { S3Bucket } from '@cdktf/provider-aws/lib/s3-bucket';
import { ArchitectureRulesProps } from '../../modules/architecture-rules';
import { findingsOfRule, synthWithRules } from './stacks';

describe('rule 5: cross-VPC sensor connectivity', () => {
  interface Case {
    readonly name: string;
    readonly build?: (stack: TerraformStack) => void;
    readonly props: ArchitectureRulesProps | ((stack: TerraformStack) => ArchitectureRulesProps);
    readonly outside?: string[];
  }
  const cases: Case[] = [
    { name: 'compliant: sensors inside the VPC', props: { vpcCidr: '10.0.0.0/16', sensorCidrs: ['10.0.5.0/24', '10.0.9.9'] } },
    { name: 'not applicable: no sensor ranges given', props: { vpcCidr: '10.0.0.0/16' } },
    { name: 'not applicable: VPC range unknown', props: { sensorCidrs: ['192.168.0.0/24'] } },
    {
      name: 'not applicable: VPC range from a variable',
      props: (stack) => ({
        vpcCidr: new TerraformVariable(stack, 'vpc_cidr', { type: 'string' }).stringValue,
        sensorCidrs: ['192.168.0.0/24'],
      }),
    },
    {
      name: 'non-compliant: sensors in another VPC',
      props: { vpcCidr: '10.0.0.0/16', sensorCidrs: ['10.0.1.0/24', '192.168.0.0/24', '10.1.0.0/16'] },
      outside: ['192.168.0.0/24', '10.1.0.0/16'],
    },
    {
      name: 'non-compliant: sensor range wider than the VPC',
      props: { vpcCidr: '10.0.0.0/16', sensorCidrs: ['10.0.0.0/8'] },
      outside: ['10.0.0.0/8'],
    },
    {
      name: 'non-compliant: VPC range read from the stack\'s aws_vpc',
      build: (stack) => new Vpc(stack, 'network', { cidrBlock: '172.16.0.0/16' }),
      props: { sensorCidrs: ['10.0.0.0/24'] },
      outside: ['10.0.0.0/24'],
    },
  ];

  test.each(cases)('$name', ({ build, props, outside }) => {
    const findings = findingsOfRule(synthWithRules(build ?? (() => undefined), props), 'SVC-ARCH-5');
    if (!outside) {
      expect(findings).toEqual([]);
      return;
    }
    expect(findings).toHaveLength(1);
    // Reported once, on the scope the aspect was added to, as a warning.
    expect(findings[0]).toMatchObject({ level: 'warning', path: 'stack' });
    expect(findings[0].message).toContain(`sensor range(s) ${outside.join(', ')} are outside the control plane VPC`);
    expect(findings[0].message).toMatch(/VPC peering or a transit gateway/);
  });
});

describe('rule 6: scanner ingress guidance', () => {
  test('compliant stack without a scanner group: no finding', () => {
    const findings = synthWithRules((stack) => new SecurityGroup(stack, 'other', {}));
    expect(findingsOfRule(findings, 'SVC-ARCH-6')).toEqual([]);
  });

  test('the scanner security group gets the guidance as info, naming its id', () => {
    const findings = synthWithRules(
      () => undefined,
      (stack) => ({ scannerSecurityGroups: [new SecurityGroup(stack, 'scanner', {}), ] }),
    );
    const guidance = findingsOfRule(findings, 'SVC-ARCH-6');
    expect(guidance).toHaveLength(1);
    expect(guidance[0]).toMatchObject({ level: 'info', path: 'stack/scanner' });
    expect(guidance[0].message).toContain('allow ingress from this group (aws_security_group.scanner.id');
  });

  test('non-compliant: something that is not a security group listed as the scanner', () => {
    const findings = synthWithRules(
      () => undefined,
      (stack) => ({ scannerSecurityGroups: [new S3Bucket(stack, 'bucket', {})] }),
    );
    const guidance = findingsOfRule(findings, 'SVC-ARCH-6');
    expect(guidance).toHaveLength(1);
    expect(guidance[0]).toMatchObject({ level: 'error', path: 'stack/bucket' });
    expect(guidance[0].message).toContain('is aws_s3_bucket.bucket; list the Scan Template Service aws_security_group');
  });
});
