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
    const found = stackNameProblem(stackName);
    if (found) throw new DeploymentPolicyPropError(labels.stackName, stackName, `it ${found.problem}; ${found.fix}`);
  }
  if (known(accountId) && !ACCOUNT_ID.test(accountId)) {
    throw new DeploymentPolicyPropError(labels.accountId, accountId, 'an AWS account id is exactly 12 digits');
  }
  if (known(hostedZoneId) && !HOSTED_ZONE_ID_PATTERN.test(hostedZoneId)) {
    throw new DeploymentPolicyPropError(
      labels.hostedZoneId,
      hostedZoneId,
      `a Route53 hosted zone id looks like ${HOSTED_ZONE_ID_EXAMPLE} (upper case, without /hostedzone/)`,
    );
  }
  if (known(region) && region !== '*' && !REGION.test(region)) {
    throw new DeploymentPolicyPropError(labels.region, region, 'give a region name such as eu-west-1, or * for every region');
  }
  if (known(partition) && !PARTITION.test(partition)) {
    throw new DeploymentPolicyPropError(labels.partition, partition, 'give a partition such as aws, aws-cn or aws-us-gov');
  }
}
