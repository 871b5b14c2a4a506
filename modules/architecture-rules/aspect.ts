/**
 * The Aspect that runs every architecture rule over a construct tree and reports findings
 * through cdktf Annotations. Errors make `app.synth()` throw and `cdktf synth` fail; warnings
 * and info are printed. A rule that throws is reported as an error finding naming the rule,
 * so one broken rule cannot hide the others or crash synth with a stack trace.
 */
import { IConstruct } from 'constructs';
import { Annotations, Aspects, IAspect, TerraformStack } from 'cdktf';
import { ArchitectureRule, FindingSeverity, RuleContext, RuleResult } from './findings';
import { TerraformInventory } from './inventory';
import {
  ArchitectureRulesOptions,
  ResolvedArchitectureRulesOptions,
  resolveArchitectureRulesOptions,
} from './options';
import { ARCHITECTURE_RULES } from './rules';

/** ArchitectureRulesOptions plus which rules to run. */
export interface ArchitectureRulesProps extends ArchitectureRulesOptions {
  /**
   * The rules to run.
   * @default ARCHITECTURE_RULES (spec rules 1-6)
   */
  readonly rules?: readonly ArchitectureRule[];
}

/**
 * The spec's architecture rules as a cdktf Aspect: add it to a stack and every construct is
 * checked at synth. Findings go to cdktf Annotations: errors fail synth, warnings and info are
 * printed; a rule that throws becomes an error finding naming the rule. Bad options raise
 * ArchitectureRulesOptionError. See help/architecture-rules.md.
 */
export class ArchitectureRules implements IAspect {
  /** The rules this aspect runs, in order. */
  readonly rules: readonly ArchitectureRule[];
  private readonly options: ResolvedArchitectureRulesOptions;
  private readonly inventories = new WeakMap<TerraformStack, TerraformInventory>();
  /** Rule ids already run per construct: synth may invoke aspects more than once. */
  private readonly evaluated = new WeakMap<IConstruct, Set<string>>();

  /** Throws ArchitectureRulesOptionError for a malformed literal option. */
  constructor(props: ArchitectureRulesProps = {}) {
    this.options = resolveArchitectureRulesOptions(props);
    this.rules = props.rules ?? ARCHITECTURE_RULES;
  }

  /** Runs every rule on one construct (cdktf calls this for each construct of the tree); findings become Annotations. */
  visit(node: IConstruct): void {
    const stack = TerraformStack.of(node);
    const context: RuleContext = {
      inventory: this.inventoryFor(stack),
      options: this.options,
      isScopeRoot: Aspects.of(node).all.includes(this),
    };
    const done = this.evaluated.get(node) ?? new Set<string>();
    this.evaluated.set(node, done);
    for (const rule of this.rules) {
      if (done.has(rule.id)) continue;
      done.add(rule.id);
      this.run(rule, node, context);
    }
  }

  private run(rule: ArchitectureRule, node: IConstruct, context: RuleContext): void {
    let result: RuleResult;
    // Deliberate boundary: a rule's own bug becomes a finding instead of crashing synth.
    try {
      result = rule.evaluate(node, context);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      report(
        node,
        'error',
        `[${rule.id} ${rule.title}] the rule failed while checking ${node.node.path}: ${reason}. ` +
          'This is a defect in the rule, not necessarily in your stack; report it, and check this ' +
          'rule by hand until it is fixed.',
      );
      return;
    }
    if (result.compliance !== 'non_compliant') return;
    report(node, result.severity ?? rule.severity, `[${rule.id} ${rule.title}] ${result.message}`);
  }

  private inventoryFor(stack: TerraformStack): TerraformInventory {
    let inventory = this.inventories.get(stack);
    if (!inventory) {
      inventory = new TerraformInventory(stack);
      this.inventories.set(stack, inventory);
    }
    return inventory;
  }
}

function report(node: IConstruct, severity: FindingSeverity, message: string): void {
  const annotations = Annotations.of(node);
  if (severity === 'error') annotations.addError(message);
  else if (severity === 'warning') annotations.addWarning(message);
  else annotations.addInfo(message);
}
