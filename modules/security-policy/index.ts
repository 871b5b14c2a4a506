/** The SecurityPolicy construct, its entry files, its config section and the wiring helpers. */
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
export { loadPolicyEntryFile } from './entry-files';
export { SecurityPolicy, type ChannelServiceProvider, type EntryMapToken, type PolicyEntryResource, type PolicyWholeListResource } from './security-policy';
export * from './config';
export { ControlPlaneEgress, type ControlPlaneEgressProps } from './control-plane-egress';
export { ChannelServiceProviderOutputs, type ChannelServiceProviderOutputsProps } from './saml-outputs';
export * from './rules';
export { SecurityPolicyRules, type PolicyRuleSubject } from './rules/aspect';
export { INFRASTRUCTURE_ATTRIBUTES } from './rules/infrastructure';
