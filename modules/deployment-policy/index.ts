/**
 * The spec's custom deployment policy (Authentication, item 6) for Terraform deployments of
 * the control plane: the construct, and the pure document builder for those who attach the
 * policy another way. See help/deployment-policy.md.
 *
 * A curated list, not `export *`: the construct, its props and error, the document and its
 * split, the constants its props and outputs refer to, and the Terraform-only actions with
 * their reasons (for a security review). How statements are grouped (Sid prefixes, the spec's
 * areas), the trust-principal helper and the value checks the command shares stay inside the
 * package; api/ reports what semver covers (help/releasing.md).
 */
export {
  DeploymentPolicy,
  CLOUDFORMATION_SERVICE_PRINCIPAL,
  DEFAULT_PRODUCT_TAG_VALUE,
  PRODUCT_TAG_KEY,
  type DeploymentPolicyProps,
  type InstallationRoleProps,
} from './deployment-policy';
export {
  deploymentPolicyDocument,
  splitPolicyDocument,
  MANAGED_POLICY_MAX_CHARACTERS,
  STACK_NAME_TAG_KEY,
  TERRAFORM_ONLY_ACTIONS,
  type DeploymentPolicyDocumentInput,
  type PolicyDocument,
  type PolicyStatement,
  type TerraformOnlyAction,
} from './policy-document';
export { DeploymentPolicyPropError, type DeploymentPolicyPropErrorCode } from './errors';
export { SvcConstructError, type SvcConstructErrorDetails } from '../construct-error';
export { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH } from '../stack-naming';
