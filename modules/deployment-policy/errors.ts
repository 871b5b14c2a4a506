import { SvcConstructError } from '../construct-error';

/** The `code` of a DeploymentPolicyPropError. */
export type DeploymentPolicyPropErrorCode = 'invalid_deployment_policy_prop';

/**
 * The one error DeploymentPolicy, deploymentPolicyDocument and the `svc-deployment-policy`
 * command raise for a bad input value: the construct path (the command's name, or
 * `deploymentPolicyDocument`, outside a construct), the prop (a flag for the command), the value,
 * what is wrong and how to fix it.
 */
export class DeploymentPolicyPropError extends SvcConstructError<DeploymentPolicyPropErrorCode> {
  /** The details, without the code (there is one). */
  constructor(details: { constructPath: string; prop: string; value: string; problem: string; fix: string }) {
    super({ code: 'invalid_deployment_policy_prop', ...details });
  }

  /**
   * What is wrong and how to fix it, in one text.
   * @deprecated read `problem` and `fix`.
   */
  get reason(): string {
    return `${this.problem}; ${this.fix}`;
  }
}
