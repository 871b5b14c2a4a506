/**
 * `svc-prevent/security-policy`: the SecurityPolicy construct, its props, entry files, its errors,
 * the SAML outputs and the policy rules. Needs cdktf and constructs only: ControlPlaneEgress,
 * which reads the control plane's NAT gateways through the AWS provider, is in ./aws
 * (`svc-prevent/security-policy/aws`), so a team without @cdktf/provider-aws can import this.
 *
 * A curated list, not `export *`: what is here is the public surface api/ reports and semver
 * covers (help/releasing.md#versioning). The repository's own app parses its config file with
 * ./config (parseSecurityPolicyConfig, svcProviderSettings) and the rules' check functions run
 * only inside the rules' aspect; both stay inside the package.
 */
export { SvcConstructError, type SvcConstructErrorDetails } from '../construct-error';
export { PolicyFileError, SecurityPolicyPropError, type EntrySource, type PolicyFileErrorCode, type SecurityPolicyPropErrorCode } from './errors';
export {
  POLICY_LIST_MODES,
  POLICY_LIST_RESOURCES,
  type OwnInfrastructure,
  type PolicyListMode,
  type PolicyListProps,
  type PolicyListResources,
  type SecurityPolicyProps,
  type SsoSettings,
} from './props';
export {
  POLICY_LIST_NAMES,
  entryResourceName,
  type AddedPolicyEntry,
  type CheckedEntry,
  type PolicyEntry,
  type PolicyListName,
} from './entries';
export { loadPolicyEntryFile } from './entries';
export { SecurityPolicy, type ChannelServiceProvider, type EntryMapToken, type PolicyEntryResource, type PolicyWholeListResource } from './security-policy';
export { ChannelServiceProviderOutputs, type ChannelServiceProviderOutputsProps } from './saml-outputs';
export {
  ALLOW_DENY_CONTRADICTION,
  BROAD_RANGE,
  BROAD_RANGE_THRESHOLDS,
  CATCH_ALL_RANGE,
  POLICY_RULES,
  REDUNDANT_ENTRY,
  SELF_LOCKOUT,
} from './rules';
export {
  COMPLIANT,
  DENY_LISTS,
  NOT_APPLICABLE,
  describeEntry,
  entriesOf,
  findings,
  type InfrastructureAddress,
  type PolicyRule,
  type PolicyRuleContext,
  type PolicyRuleEntry,
  type PolicyRuleLevel,
  type PolicyRuleResult,
} from './rules/rule';
export { SecurityPolicyRules, type PolicyRuleSubject } from './rules/aspect';
export { INFRASTRUCTURE_ATTRIBUTES } from './rules/infrastructure';
/** Types the rules' signatures use (PolicyRuleEntry.parsed, BROAD_RANGE_THRESHOLDS). */
export type { AddressFamily, ParsedAddress } from '../../src/address';
