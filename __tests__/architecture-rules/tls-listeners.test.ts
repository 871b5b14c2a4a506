import { TerraformStack, TerraformVariable } from 'cdktf';
import { AcmCertificate } from '@cdktf/provider-aws/lib/acm-certificate';
import { AcmCertificateValidation } from '@cdktf/provider-aws/lib/acm-certificate-validation';
import { DataAwsAcmCertificate } from '@cdktf/provider-aws/lib/data-aws-acm-certificate';
import { IamServerCertificate } from '@cdktf/provider-aws/lib/iam-server-certificate';
import { LbListener, LbListenerConfig } from '@cdktf/provider-aws/lib/lb-listener';
import { LbListenerCertificate } from '@cdktf/provider-aws/lib/lb-listener-certificate';
import { isTls12OrLaterPolicy } from '../../modules/architecture-rules/rules/tls-listeners';
import { findingsOfRule, synthWithRules, expectOnlyFinding } from './stacks';

const RULE = 'SVC-ARCH-4';
const ACM_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f3e2a1b-1111-2222-3333-444455556666';
const GOOD_POLICY = 'ELBSecurityPolicy-TLS13-1-2-2021-06';

function listener(stack: TerraformStack, config: Partial<LbListenerConfig>) {
  return new LbListener(stack, 'listener', {
    loadBalancerArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/x/1',
    port: 443,
    defaultAction: [{ type: 'forward', targetGroupArn: 'arn:tg' }],
    ...config,
  });
}

function validatedCertificate(stack: TerraformStack) {
  const certificate = new AcmCertificate(stack, 'certificate', { domainName: 'analyzer.svcprevent.example.com', validationMethod: 'DNS' });
  return new AcmCertificateValidation(stack, 'validation', { certificateArn: certificate.arn });
}

interface Case {
  readonly name: string;
  readonly build: (stack: TerraformStack) => void;
  readonly expected: { path: string; contains: string } | 'none';
}

const cases: Case[] = [
  {
    name: 'compliant: HTTPS with a validated ACM certificate and a TLS 1.2+ policy',
    build: (stack) =>
      listener(stack, { protocol: 'HTTPS', sslPolicy: GOOD_POLICY, certificateArn: validatedCertificate(stack).certificateArn }),
    expected: 'none',
  },
  {
    name: 'compliant: TLS with a literal ACM ARN',
    build: (stack) => listener(stack, { protocol: 'TLS', sslPolicy: 'ELBSecurityPolicy-TLS-1-2-2017-01', certificateArn: ACM_ARN }),
    expected: 'none',
  },
  {
    name: 'compliant: certificate from an ACM data source, policy from a variable',
    build: (stack) => {
      const certificate = new DataAwsAcmCertificate(stack, 'issued', { domain: 'svcprevent.example.com' });
      const policy = new TerraformVariable(stack, 'policy', { type: 'string' });
      listener(stack, { protocol: 'HTTPS', sslPolicy: policy.stringValue, certificateArn: certificate.arn });
    },
    expected: 'none',
  },
  {
    name: 'compliant: extra listener certificate from ACM',
    build: (stack) =>
      new LbListenerCertificate(stack, 'extra', { listenerArn: 'arn:listener', certificateArn: validatedCertificate(stack).certificateArn }),
    expected: 'none',
  },
  {
    name: 'non-compliant: HTTP listener',
    build: (stack) => listener(stack, { protocol: 'HTTP', port: 80 }),
    expected: { path: 'stack/listener', contains: 'aws_lb_listener.listener protocol is HTTP' },
  },
  {
    name: 'non-compliant: protocol not set (HTTP by default)',
    build: (stack) => listener(stack, {}),
    expected: { path: 'stack/listener', contains: 'protocol is not set (defaults to HTTP)' },
  },
  {
    name: 'non-compliant: HTTPS without a certificate',
    build: (stack) => listener(stack, { protocol: 'HTTPS', sslPolicy: GOOD_POLICY }),
    expected: { path: 'stack/listener', contains: 'has no certificate_arn' },
  },
  {
    name: 'non-compliant: HTTPS with an IAM server certificate ARN',
    build: (stack) =>
      listener(stack, {
        protocol: 'HTTPS', sslPolicy: GOOD_POLICY, certificateArn: 'arn:aws:iam::123456789012:server-certificate/old',
      }),
    expected: { path: 'stack/listener', contains: 'is not an ACM certificate ARN' },
  },
  {
    name: 'non-compliant: HTTPS with an IAM server certificate resource',
    build: (stack) => {
      const certificate = new IamServerCertificate(stack, 'uploaded', { certificateBody: 'x', privateKey: 'y' });
      listener(stack, { protocol: 'HTTPS', sslPolicy: GOOD_POLICY, certificateArn: certificate.arn });
    },
    expected: { path: 'stack/listener', contains: 'comes from aws_iam_server_certificate.uploaded.arn, which is not an ACM certificate' },
  },
  {
    name: 'non-compliant: HTTPS without ssl_policy (AWS default accepts TLS 1.0)',
    build: (stack) => listener(stack, { protocol: 'HTTPS', certificateArn: ACM_ARN }),
    expected: { path: 'stack/listener', contains: 'has no ssl_policy' },
  },
  {
    name: 'non-compliant: HTTPS with a policy that accepts TLS 1.0',
    build: (stack) => listener(stack, { protocol: 'HTTPS', certificateArn: ACM_ARN, sslPolicy: 'ELBSecurityPolicy-2016-08' }),
    expected: { path: 'stack/listener', contains: 'ssl_policy ELBSecurityPolicy-2016-08 accepts TLS versions below 1.2' },
  },
  {
    name: 'non-compliant: extra listener certificate not from ACM',
    build: (stack) =>
      new LbListenerCertificate(stack, 'extra', { listenerArn: 'arn:listener', certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' }),
    expected: { path: 'stack/extra', contains: 'is not an ACM certificate ARN' },
  },
];

describe('rule 4: TLS-only listeners with ACM certificates', () => {
  test.each(cases)('$name', ({ build, expected }) => {
    const findings = findingsOfRule(synthWithRules(build), RULE);
    expectOnlyFinding(findings, expected === 'none' ? expected : { level: 'error', ...expected });
  });

  test.each([
    ['ELBSecurityPolicy-TLS13-1-2-2021-06', true],
    ['ELBSecurityPolicy-TLS13-1-3-2021-06', true],
    ['ELBSecurityPolicy-TLS-1-2-Ext-2018-06', true],
    ['ELBSecurityPolicy-FS-1-2-Res-2020-10', true],
    ['ELBSecurityPolicy-TLS13-1-1-2021-06', false],
    ['ELBSecurityPolicy-TLS13-1-0-2021-06', false],
    ['ELBSecurityPolicy-TLS-1-1-2017-01', false],
    ['ELBSecurityPolicy-FS-2018-06', false],
    ['ELBSecurityPolicy-2016-08', false],
  ])('policy %s is TLS 1.2+: %s', (policy, expected) => {
    expect(isTls12OrLaterPolicy(policy)).toBe(expected);
  });
});
