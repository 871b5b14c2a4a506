/** The one error DeploymentPolicy and its command raise for a bad input value. */
export class DeploymentPolicyPropError extends Error {
  /** Stable: branch on it, never on the message. */
  readonly code = 'invalid_deployment_policy_prop';
  /** What is wrong and how to fix it, as one sentence. */
  constructor(
    /** The prop (or command-line flag) that was wrong, e.g. `accountId` or `--account-id`. */
    readonly prop: string,
    readonly value: string,
    readonly reason: string,
  ) {
    super(`${prop} = ${JSON.stringify(value)} is invalid: ${reason}`);
    this.name = 'DeploymentPolicyPropError';
  }
}
