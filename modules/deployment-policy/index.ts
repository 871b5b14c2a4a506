/**
 * The spec's custom deployment policy (Authentication, item 6) for Terraform deployments of
 * the control plane: a construct, the pure document builder, and the command's entry point.
 * See help/deployment-policy.md.
 */
export {
  DeploymentPolicy,
  CLOUDFORMATION_SERVICE_PRINCIPAL,
  DEFAULT_PRODUCT_TAG_VALUE,
  PRODUCT_TAG_KEY,
  trustPrincipal,
} from './deployment-policy';
export type { DeploymentPolicyProps, InstallationRoleProps } from './deployment-policy';
export {
  deploymentPolicyDocument,
  MANAGED_POLICY_MAX_CHARACTERS,
  splitPolicyDocument,
  statementGroup,
  SPEC_AREAS,
  STACK_NAME_TAG_KEY,
  TERRAFORM_ONLY_ACTIONS,
  TERRAFORM_READ_SID_PREFIX,
  TERRAFORM_WRITE_SID_PREFIX,
} from './policy-document';
export type {
  DeploymentPolicyDocumentInput,
  PolicyDocument,
  PolicyStatement,
  SpecArea,
  TerraformOnlyAction,
} from './policy-document';
export { DeploymentPolicyPropError } from './errors';
export { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH, validateDeploymentPolicyValues } from './validation';
