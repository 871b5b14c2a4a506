/**
 * The vocabulary every architecture rule speaks (the cdk-nag v2 shape): a rule is a small
 * pure function that looks at one construct and answers compliant, non-compliant (with a
 * message naming the resource and the fix) or not applicable.
 */
import { IConstruct } from 'constructs';
import { TerraformInventory } from './inventory';
import { ResolvedArchitectureRulesOptions } from './options';

/** How a non-compliant finding is reported: error fails synth, warning and info do not. */
export type FindingSeverity = 'error' | 'warning' | 'info';

export type RuleResult =
  | { readonly compliance: 'compliant' }
  | { readonly compliance: 'not_applicable' }
  | {
      readonly compliance: 'non_compliant';
      /** Names the resource, what is wrong, and how to fix it. */
      readonly message: string;
      /** Overrides the rule's default severity for this one finding. */
      readonly severity?: FindingSeverity;
    };

/** What a rule may look at besides the construct itself. */
export interface RuleContext {
  /** Resolved Terraform attributes of every element in the construct's stack. */
  readonly inventory: TerraformInventory;
  readonly options: ResolvedArchitectureRulesOptions;
  /** True for the construct the aspect was added to: scope-wide rules report there, once. */
  readonly isScopeRoot: boolean;
}

export type RuleFunction = (node: IConstruct, context: RuleContext) => RuleResult;

export interface ArchitectureRule {
  /** Stable id, shown in every finding; do not renumber. */
  readonly id: string;
  /** The spec's architectural rule number (1-6). */
  readonly specRule: number;
  readonly title: string;
  readonly severity: FindingSeverity;
  readonly evaluate: RuleFunction;
}

export const COMPLIANT: RuleResult = { compliance: 'compliant' };
export const NOT_APPLICABLE: RuleResult = { compliance: 'not_applicable' };

export function nonCompliant(message: string, severity?: FindingSeverity): RuleResult {
  return severity === undefined
    ? { compliance: 'non_compliant', message }
    : { compliance: 'non_compliant', message, severity };
}

const SEVERITY_ORDER: readonly FindingSeverity[] = ['info', 'warning', 'error'];

/** Folds several problems of one construct into one result, at the worst severity found. */
export function combineProblems(
  problems: readonly { message: string; severity?: FindingSeverity }[],
  defaultSeverity: FindingSeverity,
): RuleResult {
  if (problems.length === 0) return COMPLIANT;
  const worst = problems
    .map((problem) => problem.severity ?? defaultSeverity)
    .reduce((a, b) => (SEVERITY_ORDER.indexOf(a) >= SEVERITY_ORDER.indexOf(b) ? a : b));
  const message = problems.map((problem) => problem.message).join(' Also: ');
  return worst === defaultSeverity ? nonCompliant(message) : nonCompliant(message, worst);
}
