import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Aspects, Fn, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { Construct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { Lb } from '@cdktf/provider-aws/lib/lb';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { AutoscalingGroup } from '@cdktf/provider-aws/lib/autoscaling-group';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import { LbListener } from '@cdktf/provider-aws/lib/lb-listener';
import {
  ARCHITECTURE_RULES,
  ArchitectureRule,
  ArchitectureRules,
  ArchitectureRulesOptionError,
} from '../../modules/architecture-rules';
import { findingsOf, newStack } from './stacks';

const THROWING_RULE: ArchitectureRule = {
  id: 'TEST-THROWS',
  specRule: 0,
  title: 'always throws',
  severity: 'warning',
  evaluate: (node) => {
    if (node.node.id === 'balancer') throw new Error('cannot read attribute internal');
    return { compliance: 'not_applicable' };
  },
};

const CONTINUE_ENV = 'CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS';

describe('the ArchitectureRules aspect', () => {
  let outdir: string;
  let savedContinue: string | undefined;
  beforeEach(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'architecture-rules-'));
    savedContinue = process.env[CONTINUE_ENV];
    delete process.env[CONTINUE_ENV];
  });
  afterEach(() => {
    fs.rmSync(outdir, { recursive: true, force: true });
    if (savedContinue === undefined) delete process.env[CONTINUE_ENV];
    else process.env[CONTINUE_ENV] = savedContinue;
  });

  function appWithPublicBalancer(): { app: App; stack: TerraformStack } {
    const app = new App({ outdir, stackTraces: false });
    const stack = new TerraformStack(app, 'control');
    new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    new Lb(stack, 'balancer', { subnets: ['subnet-0aaa', 'subnet-0bbb'] });
    Aspects.of(stack).add(new ArchitectureRules());
    return { app, stack };
  }

  test('runs the six spec rules, in order, by default', () => {
    expect(new ArchitectureRules().rules.map((rule) => [rule.id, rule.specRule])).toEqual([
      ['SVC-ARCH-1', 1], ['SVC-ARCH-2', 2], ['SVC-ARCH-3', 3], ['SVC-ARCH-4', 4], ['SVC-ARCH-5', 5], ['SVC-ARCH-6', 6],
    ]);
    expect(ARCHITECTURE_RULES).toHaveLength(6);
  });

  test('an error finding makes app.synth() throw with the construct path and message', () => {
    const { app } = appWithPublicBalancer();
    expect(() => app.synth()).toThrow(/Encountered Annotations with level "ERROR":\n\[control\/balancer\] \[SVC-ARCH-3 /);
  });

  test('with the CLI\'s continue flag, synth writes the error into the manifest for cdktf to print and fail on', () => {
    process.env[CONTINUE_ENV] = 'true';
    const { app } = appWithPublicBalancer();
    app.synth();
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
    const annotations = manifest.stacks.control.annotations as { level: string; constructPath: string; message: string }[];
    expect(annotations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: '@cdktf/error', constructPath: 'control/balancer', message: expect.stringContaining('internal is not set') }),
      ]),
    );
  });

  test('warnings and info do not stop app.synth()', () => {
    const app = new App({ outdir, stackTraces: false });
    const stack = new TerraformStack(app, 'control');
    new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const scanner = new SecurityGroup(stack, 'scanner', {});
    Aspects.of(stack).add(new ArchitectureRules({ vpcCidr: '10.0.0.0/16', sensorCidrs: ['192.168.0.0/24'], scannerSecurityGroups: [scanner] }));
    expect(() => app.synth()).not.toThrow();
    expect(findingsOf(stack).map((finding) => finding.level).sort()).toEqual(['info', 'warning']);
    expect(fs.existsSync(path.join(outdir, 'stacks', 'control', 'cdk.tf.json'))).toBe(true);
  });

  test('a rule that throws becomes an error finding naming the rule; other rules still run', () => {
    const stack = newStack();
    new Lb(stack, 'balancer', { subnets: ['subnet-0aaa', 'subnet-0bbb'] });
    Aspects.of(stack).add(new ArchitectureRules({ rules: [THROWING_RULE, ...ARCHITECTURE_RULES] }));
    expect(() => Testing.synth(stack)).not.toThrow();
    const findings = findingsOf(stack);
    const crash = findings.filter((finding) => finding.message.startsWith('[TEST-THROWS always throws]'));
    expect(crash).toHaveLength(1);
    expect(crash[0]).toMatchObject({ level: 'error', path: 'stack/balancer' });
    expect(crash[0].message).toContain('the rule failed while checking stack/balancer: cannot read attribute internal');
    expect(findings.some((finding) => finding.message.startsWith('[SVC-ARCH-3 '))).toBe(true);
  });

  test('deploy-time values everywhere: no crash, no finding, left to plan-time checks', () => {
    const stack = newStack();
    const text = (name: string) => new TerraformVariable(stack, name, { type: 'string' }).stringValue;
    const subnets = new TerraformVariable(stack, 'subnets', { type: 'list(string)' });
    const ingress = new TerraformVariable(stack, 'ingress', { type: 'any' });
    const internal = new TerraformVariable(stack, 'internal', { type: 'bool' });
    const template = new LaunchTemplate(stack, 'template', {
      networkInterfaces: [{ associatePublicIpAddress: text('public_ip') }],
    });
    new AutoscalingGroup(stack, 'group', {
      minSize: Token.asNumber(text('min')),
      maxSize: 4,
      vpcZoneIdentifier: Fn.split(',', text('subnet_csv')),
      launchTemplate: { id: template.id },
    });
    new Lb(stack, 'balancer', { internal: internal.booleanValue, subnets: subnets.listValue });
    new SecurityGroup(stack, 'group-with-dynamic-ingress', { ingress: Token.asAny(ingress.value) });
    new LbListener(stack, 'listener', {
      loadBalancerArn: text('lb_arn'),
      protocol: text('protocol'),
      certificateArn: text('certificate'),
      sslPolicy: text('policy'),
      defaultAction: [{ type: 'forward', targetGroupArn: text('tg') }],
    });
    Aspects.of(stack).add(new ArchitectureRules({ vpcCidr: text('vpc_cidr'), sensorCidrs: [text('sensor_cidr')] }));
    expect(() => Testing.synth(stack)).not.toThrow();
    expect(findingsOf(stack)).toEqual([]);
  });

  test('sensor ranges as a whole list from a variable: no option error, rule 5 not applicable', () => {
    const stack = newStack();
    const sensorCidrs = new TerraformVariable(stack, 'sensor_cidrs', { type: 'list(string)' }).listValue;
    const rules = new ArchitectureRules({ vpcCidr: '10.0.0.0/16', sensorCidrs });
    Aspects.of(stack).add(rules);
    Testing.synth(stack);
    expect(findingsOf(stack)).toEqual([]);
  });

  test('synthesizing twice does not repeat findings', () => {
    const stack = newStack();
    new Lb(stack, 'balancer', { subnets: ['subnet-0aaa', 'subnet-0bbb'] });
    Aspects.of(stack).add(new ArchitectureRules());
    Testing.synth(stack);
    Testing.synth(stack);
    expect(findingsOf(stack)).toHaveLength(1);
  });

  test('applied to one construct, it checks only that subtree', () => {
    const stack = newStack();
    new Lb(stack, 'outside', { subnets: ['subnet-0aaa', 'subnet-0bbb'] });
    const controlPlane = new Construct(stack, 'control-plane');
    new Lb(controlPlane, 'inside', { subnets: ['subnet-0aaa', 'subnet-0bbb'] });
    Aspects.of(controlPlane).add(new ArchitectureRules({ vpcCidr: '10.0.0.0/16', sensorCidrs: ['192.168.1.0/24'] }));
    Testing.synth(stack);
    const findings = findingsOf(stack);
    expect(findings.map((finding) => [finding.path, finding.level])).toEqual([
      ['stack/control-plane', 'warning'],
      ['stack/control-plane/inside', 'error'],
    ]);
    // The finding names the Terraform address, which differs from the construct path.
    expect(findings[1].message).toMatch(/aws_lb\.control-plane_inside_[0-9A-F]+ internal is not set/);
  });

  test.each([
    ['vpcCidr', { vpcCidr: '10.0.0.1/16' }, 'host bits are set'],
    ['vpcCidr', { vpcCidr: 'ten-dot-zero' }, 'not a dotted-quad'],
    ['sensorCidrs[1]', { sensorCidrs: ['10.0.0.0/24', '300.1.1.1'] }, 'above 255'],
    ['subnetAvailabilityZones[subnet-1]', { subnetAvailabilityZones: { 'subnet-1': ' ' } }, 'availability zone name'],
  ])('option %s: a malformed value is a typed error naming option and value', (option, props, reason) => {
    let caught: unknown;
    try {
      new ArchitectureRules(props);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ArchitectureRulesOptionError);
    const error = caught as ArchitectureRulesOptionError;
    expect(error.code).toBe('invalid_architecture_rules_option');
    expect({ constructPath: error.constructPath, prop: error.prop, option: error.option }).toEqual({ constructPath: 'ArchitectureRules', prop: option, option });
    expect(error.fix).toEqual(expect.any(String));
    expect(error.message).toMatch(new RegExp(`^ArchitectureRules: ${option.replace(/[[\]]/g, '\\$&')} = ".*": .*\\. Fix: `));
    expect(error.message).toContain(option);
    expect(error.message).toContain(reason);
  });
});
