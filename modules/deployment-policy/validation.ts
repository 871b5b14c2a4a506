/**
 * Input checks shared by the construct and the command. Every value ends up inside IAM ARNs,
 * so a stray `*` or `?` would silently widen the policy: refuse anything unexpected.
 */
import { Token } from 'cdktf';
import { HOSTED_ZONE_ID_EXAMPLE, HOSTED_ZONE_ID_PATTERN, stackNameProblem } from '../stack-naming';
import { DeploymentPolicyPropError } from './errors';

// The stack-name rules live in modules/stack-naming.ts, shared with ControlPlane.
export { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH } from '../stack-naming';

const ACCOUNT_ID = /^\d{12}$/;
// Two letters (eu-west-1), or four for the European Sovereign Cloud (eusc-de-east-1).
const REGION = /^[a-z]{2}(?:[a-z]{2})?(-[a-z]+)+-\d{1,2}$/;
const PARTITION = /^aws(-[a-z]+)*$/;
// SSM parameter names: letters, digits, `_.-/` (no `*` or `?`, which would widen the grant).
const PARAMETER_NAME = /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
/** Longer names would push the policy part over IAM's size limit; SSM image parameters are far shorter. */
export const MAX_INSTANCE_IMAGE_PARAMETER_LENGTH = 128;

/** Values only known at deploy time (tokens) are left to AWS to check. */
function known(value: string | undefined): value is string {
  return value !== undefined && !Token.isUnresolved(value);
}

export interface DeploymentPolicyValues {
  readonly stackName: string;
  readonly accountId: string;
  readonly hostedZoneId: string;
  readonly region: string;
  readonly partition: string;
  readonly instanceImageParameter: string;
}

/** Prop names as the caller knows them: construct props by default, flags for the command. */
export type PropLabels = Record<keyof DeploymentPolicyValues, string>;

/** Where a bad value is reported: the construct path (or the command's name) and the names of its props. */
export interface PropNaming {
  readonly constructPath: string;
  readonly labels: PropLabels;
}

export const CONSTRUCT_PROP_LABELS: PropLabels = {
  stackName: 'stackName',
  accountId: 'accountId',
  hostedZoneId: 'hostedZoneId',
  region: 'region',
  partition: 'partition',
  instanceImageParameter: 'instanceImageParameter',
};

export function validateDeploymentPolicyValues(values: DeploymentPolicyValues, naming: PropNaming): void {
  const { stackName, accountId, hostedZoneId, region, partition, instanceImageParameter } = values;
  const { constructPath, labels } = naming;
  const fail = (prop: keyof DeploymentPolicyValues, problem: string, fix: string) =>
    new DeploymentPolicyPropError({ constructPath, prop: labels[prop], value: values[prop], problem, fix });
  if (known(stackName)) {
    const found = stackNameProblem(stackName);
    if (found) throw fail('stackName', `it ${found.problem}`, found.fix);
  }
  if (known(accountId) && !ACCOUNT_ID.test(accountId)) {
    throw fail('accountId', 'an AWS account id is exactly 12 digits', 'give the 12 digits of the account, e.g. 123456789012');
  }
  if (known(hostedZoneId) && !HOSTED_ZONE_ID_PATTERN.test(hostedZoneId)) {
    throw fail(
      'hostedZoneId',
      `a Route53 hosted zone id looks like ${HOSTED_ZONE_ID_EXAMPLE} (upper case, without /hostedzone/)`,
      `give the id Route53 shows for the hosted zone, e.g. ${HOSTED_ZONE_ID_EXAMPLE}`,
    );
  }
  if (known(region) && region !== '*' && !REGION.test(region)) {
    throw fail('region', 'not a region name', 'give a region name such as eu-west-1, or * for every region');
  }
  if (known(partition) && !PARTITION.test(partition)) {
    throw fail('partition', 'not an AWS partition', 'give a partition such as aws, aws-cn or aws-us-gov');
  }
  // Measured for IAM's size limit at synth, so it must be known then.
  if (Token.isUnresolved(instanceImageParameter)) {
    throw fail('instanceImageParameter', 'a deploy-time value (token) cannot be measured against IAM\'s size limit', 'give the parameter name as a literal');
  }
  if (instanceImageParameter.length > MAX_INSTANCE_IMAGE_PARAMETER_LENGTH || !PARAMETER_NAME.test(instanceImageParameter)) {
    throw fail(
      'instanceImageParameter',
      `not an SSM parameter name of at most ${MAX_INSTANCE_IMAGE_PARAMETER_LENGTH} characters (letters, digits, _ . - and /, no wildcards)`,
      'give the name ControlPlane reads the image from, e.g. /aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64',
    );
  }
}
