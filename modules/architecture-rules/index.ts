/**
 * Synth-time architecture rules (spec "Architectural rules" 1-6) for the control plane:
 *
 *   Aspects.of(scope).add(new ArchitectureRules({ vpcCidr: '10.0.0.0/16', sensorCidrs: [...] }));
 *
 * Findings are cdktf Annotations on the offending construct: errors fail `app.synth()` and
 * `cdktf synth`; warnings and info are printed. See help/architecture-rules.md.
 *
 * A curated list, not `export *`: the aspect, its props and error, the six rules (to pick or
 * extend the pack) and what a rule of one's own is written with. The rules' check functions,
 * the option resolver and the TLS policy test stay inside the package: a rule's behaviour is
 * reached through its `evaluate`, and api/ reports what semver covers (help/releasing.md).
 */
export { ArchitectureRules, type ArchitectureRulesProps } from './aspect';
export { ArchitectureRulesOptionError, type ArchitectureRulesOptionErrorCode, type ArchitectureRulesOptions, type ResolvedArchitectureRulesOptions } from './options';
export {
  COMPLIANT,
  NOT_APPLICABLE,
  nonCompliant,
  type ArchitectureRule,
  type FindingSeverity,
  type RuleContext,
  type RuleFunction,
  type RuleResult,
} from './findings';
export { SvcConstructError, type SvcConstructErrorDetails } from '../construct-error';
export type { TerraformInventory, TerraformElementView } from './inventory';
export {
  ARCHITECTURE_RULES,
  AUTO_SCALING_GROUPS,
  MULTI_AZ_PLACEMENT,
  PRIVATE_PLACEMENT,
  SCANNER_INGRESS,
  SENSOR_CONNECTIVITY,
  TLS_LISTENERS,
} from './rules';
