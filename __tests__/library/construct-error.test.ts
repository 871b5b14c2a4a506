/**
 * One error shape for every construct (issue 32, item 6): SecurityPolicy, DeploymentPolicy (and
 * its command) and ArchitectureRules raise a SvcConstructError subclass naming the construct
 * path, the prop as the user wrote it, the value, a stable code and, where there is one, the fix.
 */
import { TerraformStack, Testing } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { SvcConstructError } from '../../modules/construct-error';
import { SecurityPolicy, SecurityPolicyPropError } from '../../modules/security-policy';
import { DeploymentPolicy, DeploymentPolicyPropError, deploymentPolicyDocument } from '../../modules/deployment-policy';
import { ArchitectureRules, ArchitectureRulesOptionError } from '../../modules/architecture-rules';
import { main as deploymentPolicyCommand } from '../../modules/deployment-policy/cli';

function thrownBy(action: () => unknown): SvcConstructError {
  try {
    action();
  } catch (error) {
    if (error instanceof SvcConstructError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

function stack(): TerraformStack {
  const result = new TerraformStack(Testing.app(), 'stack');
  new AwsProvider(result, 'aws', { region: 'eu-west-1' });
  return result;
}

const ACCOUNT = '123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';

test.each([
  [
    'SecurityPolicy',
    () => new SecurityPolicy(stack(), 'security-policy', { blacklist: { entries: [{ ip: '10.0.0.1/8' }] } }),
    SecurityPolicyPropError,
    { code: 'invalid_security_policy_prop', constructPath: 'stack/security-policy', prop: 'blacklist.entries[0].ip', value: '10.0.0.1/8' },
  ],
  [
    'DeploymentPolicy',
    () => new DeploymentPolicy(stack(), 'deployment', { accountId: '1234', hostedZoneId: ZONE }),
    DeploymentPolicyPropError,
    { code: 'invalid_deployment_policy_prop', constructPath: 'stack/deployment', prop: 'accountId', value: '1234' },
  ],
  [
    'DeploymentPolicy installation role',
    () => new DeploymentPolicy(stack(), 'deployment', { accountId: ACCOUNT, hostedZoneId: ZONE, installationRole: { trustedPrincipal: 'ci-user' } }),
    DeploymentPolicyPropError,
    { code: 'invalid_deployment_policy_prop', constructPath: 'stack/deployment', prop: 'installationRole.trustedPrincipal', value: 'ci-user' },
  ],
  [
    'deploymentPolicyDocument, outside a construct',
    () => deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE, region: 'EU-WEST-1' }),
    DeploymentPolicyPropError,
    { code: 'invalid_deployment_policy_prop', constructPath: 'deploymentPolicyDocument', prop: 'region', value: 'EU-WEST-1' },
  ],
  [
    'ArchitectureRules',
    () => new ArchitectureRules({ sensorCidrs: ['10.0.0.0/24', '300.1.1.1'] }),
    ArchitectureRulesOptionError,
    { code: 'invalid_architecture_rules_option', constructPath: 'ArchitectureRules', prop: 'sensorCidrs[1]', value: '300.1.1.1' },
  ],
] as const)('%s raises a SvcConstructError naming path, prop, value and code', (_name, action, subclass, expected) => {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(subclass);
  expect(error.name).toBe(subclass.name);
  expect({ code: error.code, constructPath: error.constructPath, prop: error.prop, value: error.value }).toEqual(expected);
  const fix = error.fix === undefined ? '' : `. Fix: ${error.fix}`;
  expect(error.message).toBe(`${expected.constructPath}: ${expected.prop} = ${JSON.stringify(expected.value)}: ${error.problem}${fix}`);
  // Props as the user wrote them: no file of this repository, no template parameter key.
  expect(error.message).not.toMatch(/modules\/|src\/|\.ts\b|StackName|AccountId/);
});

test('the deployment policy and the architecture rules say how to fix it', () => {
  for (const error of [
    thrownBy(() => deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: 'example.com' })),
    thrownBy(() => new ArchitectureRules({ vpcCidr: '10.0.0.1/16' })),
  ]) {
    expect([error.name, error.fix]).toEqual([error.name, expect.stringMatching(/^give /)]);
  }
});

test('the command reports a bad flag as the error of the command, naming the flag', () => {
  let stderr = '';
  const code = deploymentPolicyCommand(['--account-id', ACCOUNT, '--hosted-zone-id', ZONE, '--partition', 'azure'], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
  });
  expect(code).toBe(2);
  expect(stderr).toBe('svc-deployment-policy: --partition = "azure": not an AWS partition. Fix: give a partition such as aws, aws-cn or aws-us-gov\n');
});

test('a value that may be a secret is neither in the message nor kept', () => {
  const error = new SvcConstructError({ code: 'unknown_parameter', constructPath: 'parameter file', prop: 'ApiKye', value: 'sk-secret', showValue: false, problem: 'not a parameter', fix: 'remove it' });
  expect(error.message).toBe('parameter file: ApiKye: not a parameter. Fix: remove it');
  expect(error.value).toBeUndefined();
});
