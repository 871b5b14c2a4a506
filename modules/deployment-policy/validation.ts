/**
 * Input checks shared by the construct and the command. Every value ends up inside IAM ARNs,
 * so a stray `*` or `?` would silently widen the policy: refuse anything unexpected.
 */
import { Token } from 'cdktf';
import { DeploymentPolicyPropError } from './errors';

export const DEFAULT_STACK_NAME = 'SvcPrevent';
/** Spec, Limits: a non-default stack name ends up in length-limited tags. */
export const MAX_STACK_NAME_LENGTH = 14;

const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;
const ACCOUNT_ID = /^\d{12}$/;
/** Route53 zone ids: Z followed by upper-case letters and digits, at most 32 characters. */
const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const PARTITION = /^aws(-[a-z]+)*$/;

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
}

/** Prop names as the caller knows them: construct props by default, flags for the command. */
export type PropLabels = Record<keyof DeploymentPolicyValues, string>;

export const CONSTRUCT_PROP_LABELS: PropLabels = {
  stackName: 'stackName',
  accountId: 'accountId',
  hostedZoneId: 'hostedZoneId',
  region: 'region',
  partition: 'partition',
};

export function validateDeploymentPolicyValues(
  values: DeploymentPolicyValues,
  labels: PropLabels = CONSTRUCT_PROP_LABELS,
): void {
  const { stackName, accountId, hostedZoneId, region, partition } = values;
  if (known(stackName)) {
    if (!STACK_NAME.test(stackName)) {
      throw new DeploymentPolicyPropError(
        labels.stackName,
        stackName,
        'use letters, digits and hyphens, starting with a letter (it prefixes every resource name)',
      );
    }
    if (stackName !== DEFAULT_STACK_NAME && stackName.length > MAX_STACK_NAME_LENGTH) {
      throw new DeploymentPolicyPropError(
        labels.stackName,
        stackName,
        `a stack name other than ${DEFAULT_STACK_NAME} must be ${MAX_STACK_NAME_LENGTH} characters or fewer ` +
          `(this one has ${stackName.length})`,
      );
    }
  }
  if (known(accountId) && !ACCOUNT_ID.test(accountId)) {
    throw new DeploymentPolicyPropError(labels.accountId, accountId, 'an AWS account id is exactly 12 digits');
  }
  if (known(hostedZoneId) && !HOSTED_ZONE_ID.test(hostedZoneId)) {
    throw new DeploymentPolicyPropError(
      labels.hostedZoneId,
      hostedZoneId,
      'a Route53 hosted zone id looks like Z0123456789ABCDEFGHIJ (upper case, without /hostedzone/)',
    );
  }
  if (known(region) && region !== '*' && !REGION.test(region)) {
    throw new DeploymentPolicyPropError(labels.region, region, 'give a region name such as eu-west-1, or * for every region');
  }
  if (known(partition) && !PARTITION.test(partition)) {
    throw new DeploymentPolicyPropError(labels.partition, partition, 'give a partition such as aws, aws-cn or aws-us-gov');
  }
}
