import { SvcConstructError } from '../construct-error';

/**
 * The `code` of a DeploymentPolicyPropError: a bad value, or a name (an output, a managed
 * policy's or the role's name) another construct of the same stack already declared.
 */
export type DeploymentPolicyPropErrorCode = 'invalid_deployment_policy_prop' | 'deployment_policy_name_clash';

/**
 * The one error DeploymentPolicy, deploymentPolicyDocument and the `svc-deployment-policy`
 * command raise for a bad input value: the construct path (the command's name, or
 * `deploymentPolicyDocument`, outside a construct), the prop (a flag for the command), the value,
 * what is wrong and how to fix it.
 */
export class DeploymentPolicyPropError extends SvcConstructError<DeploymentPolicyPropErrorCode> {
  /** The details; the code is `invalid_deployment_policy_prop` unless given. */
  constructor(details: { constructPath: string; prop: string; value: unknown; problem: string; fix: string; code?: DeploymentPolicyPropErrorCode }) {
    super({ ...details, code: details.code ?? 'invalid_deployment_policy_prop' });
  }

  /**
   * What is wrong and how to fix it, in one text.
   * @deprecated read `problem` and `fix`.
   */
  get reason(): string {
    return `${this.problem}; ${this.fix}`;
  }
}
