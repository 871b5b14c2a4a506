/**
 * `svc-prevent`: the public API in one import. It loads every construct, so it needs the AWS
 * provider bindings (@cdktf/provider-aws); a team that uses only the security policy imports
 * `svc-prevent/security-policy` and `svc-prevent/provider`, which do not.
 *
 *   svc-prevent/security-policy       SecurityPolicy, entry files, policy rules
 *   svc-prevent/security-policy/aws   ControlPlaneEgress (needs @cdktf/provider-aws)
 *   svc-prevent/control-plane         ControlPlane (needs @cdktf/provider-aws)
 *   svc-prevent/deployment-policy     DeploymentPolicy (needs @cdktf/provider-aws)
 *   svc-prevent/architecture-rules    the ArchitectureRules aspect
 *   svc-prevent/provider              SvcProvider, every resource and data source, prepareStacksForSvcProvider
 *   svc-prevent/client                ManagementClient
 *
 * See help/own-cdktf-project.md.
 */
export * from './security-policy';
export * from './security-policy/aws';
export * from './control-plane';
export * from './deployment-policy';
export * from './provider';
export { ArchitectureRules, ArchitectureRulesOptionError, type ArchitectureRulesOptionErrorCode, type ArchitectureRulesOptions, type ArchitectureRulesProps } from './architecture-rules';
export { ManagementClient, ManagementApiError, type ManagementClientOptions, type ManagementErrorCode } from '../src/api';
/**
 * The architecture rules and the client entry points whole, under a name: some of their names
 * are taken at the top level (the rule helpers COMPLIANT and NOT_APPLICABLE of the security
 * policy's rules, the client's SsoSettings).
 */
export * as architectureRules from './architecture-rules';
export * as client from '../src/api';
