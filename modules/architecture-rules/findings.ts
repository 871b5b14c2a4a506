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

/**
 * What a rule answers for one construct: compliant, not applicable (the construct is not what
 * the rule looks at, or its values are only known at plan time), or non-compliant with a
 * message. Build it with COMPLIANT, NOT_APPLICABLE and nonCompliant.
 */
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
  /** The aspect's options, validated, with plan-time values (tokens) left out. */
  readonly options: ResolvedArchitectureRulesOptions;
  /** True for the construct the aspect was added to: scope-wide rules report there, once. */
  readonly isScopeRoot: boolean;
}

/** A rule's check: a pure function of one construct and the context; it may throw (the aspect reports that as a defect of the rule). */
export type RuleFunction = (node: IConstruct, context: RuleContext) => RuleResult;

/** One rule of the pack: what `ArchitectureRulesProps.rules` lists. */
export interface ArchitectureRule {
  /** Stable id, shown in every finding; do not renumber. */
  readonly id: string;
  /** The spec's architectural rule number (1-6). */
  readonly specRule: number;
  /** A few words, shown after the id in every finding, e.g. `multi-AZ placement`. */
  readonly title: string;
  /** The severity of its findings unless a result overrides it. */
  readonly severity: FindingSeverity;
  /** The check, run once per construct of the tree the aspect visits. */
  readonly evaluate: RuleFunction;
}

/** The construct follows the rule. */
export const COMPLIANT: RuleResult = { compliance: 'compliant' };
/** The rule does not look at this construct, or cannot tell before plan. */
export const NOT_APPLICABLE: RuleResult = { compliance: 'not_applicable' };

/**
 * A finding: `message` names the resource, what is wrong and how to fix it; `severity`
 * overrides the rule's own for this finding only.
 */
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
