/**
 * modules/stack-naming.ts: the one place of the stack-name rules. ControlPlane and
 * DeploymentPolicy (and its command) must accept and refuse the same names, each with its own
 * typed error naming its own prop.
 */
import { TerraformStack, Testing } from 'cdktf';
import { ControlPlane, ControlPlaneValidationError } from '../../modules/control-plane';
import { DeploymentPolicyPropError, deploymentPolicyDocument } from '../../modules/deployment-policy';
import { main as deploymentPolicyCommand } from '../../modules/deployment-policy/cli';
import {
  DEFAULT_STACK_NAME,
  HOSTED_ZONE_ID_PATTERN,
  MAX_STACK_NAME_LENGTH,
  serviceHostname,
  stackNameProblem,
} from '../../modules/stack-naming';
import { REQUIRED_PROPS } from './fixtures';

const ACCOUNT = '123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';

function controlPlaneError(stackName: string): ControlPlaneValidationError | undefined {
  try {
    new ControlPlane(new TerraformStack(Testing.app(), 'test'), 'control-plane', { ...REQUIRED_PROPS, stackName, checkArchitectureRules: false });
  } catch (error) {
    if (error instanceof ControlPlaneValidationError) return error;
    throw error;
  }
  return undefined;
}

function policyError(stackName: string): DeploymentPolicyPropError | undefined {
  try {
    deploymentPolicyDocument({ stackName, accountId: ACCOUNT, hostedZoneId: ZONE });
  } catch (error) {
    if (error instanceof DeploymentPolicyPropError) return error;
    throw error;
  }
  return undefined;
}

function commandExitCode(stackName: string): number {
  const ignore = { write: () => true };
  return deploymentPolicyCommand(['--stack-name', stackName, '--account-id', ACCOUNT, '--hosted-zone-id', ZONE], { stdout: ignore, stderr: ignore });
}

describe('stack-name rules shared by ControlPlane, DeploymentPolicy and its command', () => {
  it.each<[string, string, 'stack_name_invalid' | 'stack_name_too_long' | undefined]>([
    ['the default', DEFAULT_STACK_NAME, undefined],
    ['a short name', 'Prevent2', undefined],
    ['exactly 14 characters', 'Prevent-Europe', undefined],
    ['15 characters', 'Prevent-Europe1', 'stack_name_too_long'],
    ['starting with a digit', '1Prevent', 'stack_name_invalid'],
    ['an underscore', 'svc_prevent', 'stack_name_invalid'],
    ['a wildcard, which would widen the policy', 'Svc*', 'stack_name_invalid'],
    ['empty', '', 'stack_name_invalid'],
    // In lower case the name is a DNS label of the service hostnames, which ACM certifies.
    ['ending with a hyphen', 'Prevent-', 'stack_name_invalid'],
    ['a single letter', 'P', undefined],
    // The load balancer would be named internal-eu-lb, which AWS refuses.
    ['starting with internal-', 'internal-eu', 'stack_name_invalid'],
    ['starting with Internal- in another case', 'Internal-eu', 'stack_name_invalid'],
    ['containing internal elsewhere', 'Svc-internal', undefined],
    // Security groups would be named sg-prod-lb and so on, which AWS refuses.
    ['starting with sg-', 'sg-prod', 'stack_name_invalid'],
    ['starting with sg but no hyphen', 'sgprod', undefined],
  ])('%s (%j)', (_name, stackName, code) => {
    expect(stackNameProblem(stackName)?.code).toBe(code);
    const fromControlPlane = controlPlaneError(stackName);
    const fromPolicy = policyError(stackName);
    if (code === undefined) {
      expect(fromControlPlane).toBeUndefined();
      expect(fromPolicy).toBeUndefined();
      expect(commandExitCode(stackName)).toBe(0);
    } else {
      expect(fromControlPlane).toMatchObject({ code, propName: 'stackName', value: stackName });
      expect(fromPolicy).toMatchObject({ prop: 'stackName', value: stackName });
      // Both say the same thing: the shared problem text is in both messages.
      expect(fromControlPlane!.message).toContain(stackNameProblem(stackName)!.problem);
      expect(fromPolicy!.message).toContain(stackNameProblem(stackName)!.problem);
      expect(commandExitCode(stackName)).toBe(2);
    }
  });

  it('keeps the spec limit and default', () => {
    expect(MAX_STACK_NAME_LENGTH).toBe(14);
    expect(DEFAULT_STACK_NAME).toBe('SvcPrevent');
  });

  it.each([
    [ZONE, true],
    ['Z1', true],
    [`Z${'A'.repeat(31)}`, true],
    [`Z${'A'.repeat(32)}`, false],
    ['z0123456789abc', false],
    [`/hostedzone/${ZONE}`, false],
  ])('hosted zone id %s matches: %s', (id, matches) => {
    expect(HOSTED_ZONE_ID_PATTERN.test(id)).toBe(matches);
  });

  it('derives service hostnames as <service>.<stack name lower>.<zone>', () => {
    expect(serviceHostname('analyzer', 'Prevent-EU', 'example.com')).toBe('analyzer.prevent-eu.example.com');
  });
});
