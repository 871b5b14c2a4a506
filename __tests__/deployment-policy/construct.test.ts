import { Testing, TerraformStack } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { DataAwsCallerIdentity } from '@cdktf/provider-aws/lib/data-aws-caller-identity';
import {
  CLOUDFORMATION_SERVICE_PRINCIPAL,
  DeploymentPolicy,
  DeploymentPolicyPropError,
  DeploymentPolicyProps,
  MANAGED_POLICY_MAX_CHARACTERS,
  STACK_NAME_TAG_KEY,
  DEFAULT_STACK_NAME,
  deploymentPolicyDocument,
} from '../../modules/deployment-policy';
import * as controlPlane from '../../modules/control-plane/control-plane';
import * as controlPlaneProps from '../../modules/control-plane/props';

const ACCOUNT = '123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';

interface Synthesized {
  resource: Record<string, Record<string, Record<string, unknown>>>;
  output?: Record<string, { value: unknown; description: string }>;
}

function synth(props: Partial<DeploymentPolicyProps> = {}): { json: Synthesized; construct: DeploymentPolicy } {
  const stack = new TerraformStack(Testing.app(), 'stack');
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  const construct = new DeploymentPolicy(stack, 'deployment', { accountId: ACCOUNT, hostedZoneId: ZONE, ...props });
  return { json: JSON.parse(Testing.synth(stack)) as Synthesized, construct };
}

function policies(json: Synthesized): Record<string, unknown>[] {
  return Object.values(json.resource.aws_iam_policy ?? {});
}

describe('DeploymentPolicy', () => {
  test('creates managed policies that together hold the whole document, each within the size limit', () => {
    const { json, construct } = synth();
    const created = policies(json);
    expect(created.length).toBe(construct.policies.length);
    expect(created.map((policy) => policy.name)).toEqual(created.map((_, index) => `SvcPrevent-deployment-${index + 1}`));
    const documents = created.map((policy) => JSON.parse(policy.policy as string));
    for (const document of documents) {
      expect(document.Version).toBe('2012-10-17');
      expect(JSON.stringify(document).length).toBeLessThanOrEqual(MANAGED_POLICY_MAX_CHARACTERS);
    }
    expect(documents.flatMap((document) => document.Statement)).toEqual(
      deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE }).Statement,
    );
    expect(construct.document).toEqual(deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE }));
  });

  test.each([
    ['the default product tag', {}, 'svc-prevent'],
    ['a given product tag', { productTagValue: 'runtime-protection' }, 'runtime-protection'],
  ])('tags every policy with key product (%s)', (_name, props, value) => {
    for (const policy of policies(synth(props).json)) expect(policy.tags).toEqual({ product: value });
  });

  test('uses the given stack name and policy name', () => {
    const { json } = synth({ stackName: 'TeamA', policyName: 'deploy-team-a' });
    const created = policies(json);
    expect(created.map((policy) => policy.name)).toEqual(created.map((_, index) => `deploy-team-a-${index + 1}`));
    expect(created.map((policy) => policy.policy as string).join()).toContain('role/TeamA*');
  });

  test('keeps role and policy names within IAM limits with the longest stack name', () => {
    const { json } = synth({ stackName: 'Prevent-Europe', installationRole: {} });
    const role = Object.values(json.resource.aws_iam_role)[0];
    expect(role.name).toBe('Prevent-Europe-installation');
    expect((role.name as string).length).toBeLessThanOrEqual(64);
    for (const policy of policies(json)) expect((policy.name as string).length).toBeLessThanOrEqual(128);
  });

  test('outputs the policy ARNs, and the installation role ARN when there is one', () => {
    const withoutRole = synth().json;
    const policyIds = Object.keys(withoutRole.resource.aws_iam_policy);
    expect(Object.keys(withoutRole.output ?? {})).toEqual(['deployment_policy_arns']);
    expect(withoutRole.output!.deployment_policy_arns.value).toEqual(policyIds.map((policyId) => `\${aws_iam_policy.${policyId}.arn}`));
    const withRole = synth({ installationRole: {} }).json;
    const roleId = Object.keys(withRole.resource.aws_iam_role)[0];
    expect(withRole.output!.deployment_installation_role_arn.value).toBe(`\${aws_iam_role.${roleId}.arn}`);
  });

  test('creates no installation role unless asked', () => {
    const { json, construct } = synth();
    expect(json.resource.aws_iam_role).toBeUndefined();
    expect(construct.installationRole).toBeUndefined();
  });

  interface TrustCase {
    readonly name: string;
    readonly trustedPrincipal?: string;
    readonly principal: Record<string, string>;
  }
  const trustCases: TrustCase[] = [
    { name: 'default: the account root', principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` } },
    { name: 'the stack service of the spec', trustedPrincipal: CLOUDFORMATION_SERVICE_PRINCIPAL, principal: { Service: 'cloudformation.amazonaws.com' } },
    { name: 'the role that runs terraform', trustedPrincipal: `arn:aws:iam::${ACCOUNT}:role/ci-deployer`, principal: { AWS: `arn:aws:iam::${ACCOUNT}:role/ci-deployer` } },
    { name: 'another account by id', trustedPrincipal: '210987654321', principal: { AWS: 'arn:aws:iam::210987654321:root' } },
  ];

  test.each(trustCases)('installation role trusts $name, carries every part and the product tag', ({ trustedPrincipal, principal }) => {
    const { json } = synth({ installationRole: { trustedPrincipal } });
    const roles = Object.values(json.resource.aws_iam_role);
    expect(roles).toHaveLength(1);
    const [role] = roles;
    expect(role.name).toBe('SvcPrevent-installation');
    expect(role.tags).toEqual({ product: 'svc-prevent' });
    expect(JSON.parse(role.assume_role_policy as string)).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: principal, Action: 'sts:AssumeRole' }],
    });
    const attachments = Object.values(json.resource.aws_iam_role_policy_attachment);
    const policyIds = Object.keys(json.resource.aws_iam_policy);
    expect(attachments.map((attachment) => attachment.policy_arn).sort()).toEqual(
      policyIds.map((id) => `\${aws_iam_policy.${id}.arn}`).sort(),
    );
    const roleId = Object.keys(json.resource.aws_iam_role)[0];
    expect(new Set(attachments.map((attachment) => attachment.role))).toEqual(new Set([`\${aws_iam_role.${roleId}.name}`]));
  });

  test('an unusable trusted principal is a typed error naming it', () => {
    expect(() => synth({ installationRole: { trustedPrincipal: 'ci-user' } })).toThrow(DeploymentPolicyPropError);
    expect(() => synth({ installationRole: { trustedPrincipal: 'ci-user' } })).toThrow(
      'stack/deployment: installationRole.trustedPrincipal = "ci-user": neither an IAM ARN',
    );
  });

  test.each([
    ['stackName', { stackName: 'AVeryLongStackName' }, 'AVeryLongStackName'],
    ['accountId', { accountId: '1234' }, '1234'],
    ['hostedZoneId', { hostedZoneId: 'example.com' }, 'example.com'],
  ])('rejects a malformed %s at synth with the prop and value', (prop, props, value) => {
    let caught: unknown;
    try {
      synth(props);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeploymentPolicyPropError);
    expect((caught as DeploymentPolicyPropError).prop).toBe(prop);
    expect((caught as DeploymentPolicyPropError).value).toBe(value);
  });

  test('accepts the account id as a deploy-time value and still splits within the limit', () => {
    const stack = new TerraformStack(Testing.app(), 'stack');
    new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const caller = new DataAwsCallerIdentity(stack, 'caller', {});
    const construct = new DeploymentPolicy(stack, 'deployment', {
      accountId: caller.accountId,
      hostedZoneId: ZONE,
      installationRole: {},
    });
    const json = JSON.parse(Testing.synth(stack)) as Synthesized;
    const texts = policies(json).map((policy) => policy.policy as string);
    expect(texts.length).toBe(construct.policies.length);
    expect(texts.join()).toContain('${data.aws_caller_identity.caller.account_id}');
    // Measured with a 12-digit stand-in: the real parts fit once Terraform fills in the account.
    for (const text of texts) {
      const filled = text.split('${data.aws_caller_identity.caller.account_id}').join(ACCOUNT);
      expect(JSON.stringify(JSON.parse(filled)).length).toBeLessThanOrEqual(MANAGED_POLICY_MAX_CHARACTERS);
    }
    const role = Object.values(json.resource.aws_iam_role)[0];
    expect(role.assume_role_policy).toContain('arn:aws:iam::${data.aws_caller_identity.caller.account_id}:root');
  });

  test('speaks the same stack tag and default name as ControlPlane', () => {
    expect(STACK_NAME_TAG_KEY).toBe(controlPlane.STACK_NAME_TAG_KEY);
    expect(DEFAULT_STACK_NAME).toBe(controlPlaneProps.DEFAULT_STACK_NAME);
  });
});
