/**
 * `svc-prevent/security-policy`: the SecurityPolicy construct, its entry files, its config
 * section and the wiring helpers. Needs cdktf and constructs only: ControlPlaneEgress, which
 * reads the control plane's NAT gateways through the AWS provider, is in ./aws
 * (`svc-prevent/security-policy/aws`), so a team without @cdktf/provider-aws can import this.
 */
export * from './errors';
export * from './props';
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
export * from './config';
export { ChannelServiceProviderOutputs, type ChannelServiceProviderOutputsProps } from './saml-outputs';
export * from './rules';
export { SecurityPolicyRules, type PolicyRuleSubject } from './rules/aspect';
export { INFRASTRUCTURE_ATTRIBUTES } from './rules/infrastructure';
