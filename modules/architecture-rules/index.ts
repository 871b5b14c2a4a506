/**
 * Synth-time architecture rules (spec "Architectural rules" 1-6) for the control plane:
 *
 *   Aspects.of(scope).add(new ArchitectureRules({ vpcCidr: '10.0.0.0/16', sensorCidrs: [...] }));
 *
 * Findings are cdktf Annotations on the offending construct: errors fail `app.synth()` and
 * `cdktf synth`; warnings and info are printed. See help/architecture-rules.md.
 */
export { ArchitectureRules } from './aspect';
export type { ArchitectureRulesProps } from './aspect';
export { ArchitectureRulesOptionError, resolveArchitectureRulesOptions } from './options';
export type { ArchitectureRulesOptions, ResolvedArchitectureRulesOptions } from './options';
export { COMPLIANT, NOT_APPLICABLE, nonCompliant } from './findings';
export type {
  ArchitectureRule,
  FindingSeverity,
  RuleContext,
  RuleFunction,
  RuleResult,
} from './findings';
export { TerraformInventory } from './inventory';
export type { TerraformElementView } from './inventory';
export * from './rules';
