/**
 * The Aspect that runs the policy rules over every SecurityPolicy of a stack and reports
 * findings as cdktf Annotations on the policy: errors make `app.synth()` throw and
 * `cdktf synth` fail, warnings are printed. An acknowledged rule's findings become info
 * annotations carrying the recorded reason, so the suppression shows in the synth output.
 * A rule that throws is reported as an error naming the rule, so it cannot hide the others.
 *
 * SecurityPolicy registers itself (SecurityPolicyRules.of(stack).register): one aspect per
 * stack, added to the stack, so the rules see the stack's own infrastructure as well.
 */
import { Annotations, Aspects, TerraformStack, type IAspect } from 'cdktf';
import type { IConstruct } from 'constructs';
import { parseAddress } from '../../../src/address';
import { TerraformInventory } from '../../architecture-rules/inventory';
import { POLICY_LIST_NAMES, type CheckedEntry, type PolicyListName } from '../entries';
import { describeSource } from '../errors';
import { stackInfrastructure } from './infrastructure';
import { POLICY_RULES } from './index';
import type { InfrastructureAddress, PolicyRule, PolicyRuleContext, PolicyRuleEntry, PolicyRuleResult } from './rule';

/** What the aspect needs of a SecurityPolicy, read at synth (after every addEntries call). */
export interface PolicyRuleSubject {
  entries(list: PolicyListName): readonly CheckedEntry[];
  /** Addresses the policy was told its infrastructure uses (ownInfrastructure). */
  readonly infrastructure: readonly InfrastructureAddress[];
  /** Reason by rule id. */
  readonly acknowledgements: ReadonlyMap<string, string>;
}

const ASPECTS = new WeakMap<TerraformStack, SecurityPolicyRules>();

/** The Aspect that runs POLICY_RULES over every SecurityPolicy of a stack: errors fail synth, warnings print, acknowledged findings become info. */
export class SecurityPolicyRules implements IAspect {
  /** The stack's aspect, added to the stack on first use. */
  static of(stack: TerraformStack): SecurityPolicyRules {
    let aspect = ASPECTS.get(stack);
    if (aspect === undefined) {
      aspect = new SecurityPolicyRules(stack);
      Aspects.of(stack).add(aspect);
      ASPECTS.set(stack, aspect);
    }
    return aspect;
  }

  private readonly subjects = new Map<IConstruct, PolicyRuleSubject>();
  /** Synth may invoke aspects more than once; each policy is checked once. */
  private readonly checked = new WeakSet<IConstruct>();
  private stackAddresses: InfrastructureAddress[] | undefined;

  /** The rules run on every registered policy, in order. */
  readonly rules: readonly PolicyRule[] = POLICY_RULES;

  private constructor(private readonly stack: TerraformStack) {}

  /** Checks `policy` at synth, reading what it declares through `subject`. */
  register(policy: IConstruct, subject: PolicyRuleSubject): void {
    this.subjects.set(policy, subject);
  }

  /** Called by cdktf for every construct of the stack; runs the rules on registered policies. */
  visit(node: IConstruct): void {
    const subject = this.subjects.get(node);
    if (subject === undefined || this.checked.has(node)) return;
    this.checked.add(node);
    const context = this.contextOf(subject);
    for (const rule of this.rules) this.run(rule, node, context, subject.acknowledgements.get(rule.id));
  }

  private contextOf(subject: PolicyRuleSubject): PolicyRuleContext {
    this.stackAddresses ??= stackInfrastructure(new TerraformInventory(this.stack));
    const lists = Object.fromEntries(POLICY_LIST_NAMES.map((list) => [list, literalEntries(list, subject.entries(list))])) as Record<PolicyListName, PolicyRuleEntry[]>;
    return { lists, infrastructure: [...subject.infrastructure, ...this.stackAddresses] };
  }

  private run(rule: PolicyRule, node: IConstruct, context: PolicyRuleContext, acknowledged: string | undefined): void {
    const title = `[${rule.id} ${rule.name}]`;
    let result: PolicyRuleResult;
    // Deliberate boundary: a rule's own bug becomes a finding instead of crashing synth.
    try {
      result = rule.evaluate(context);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      Annotations.of(node).addError(
        `${title} the rule failed while checking ${node.node.path}: ${reason}. This is a defect in the rule, not necessarily in your policy; report it, and check this rule by hand until it is fixed.`,
      );
      return;
    }
    if (result.compliance !== 'non_compliant') return;
    for (const message of result.messages) {
      if (acknowledged !== undefined) Annotations.of(node).addInfo(`${title} acknowledged (${acknowledged}): ${message}`);
      else if (rule.level === 'error') Annotations.of(node).addError(`${title} ${message}`);
      else Annotations.of(node).addWarning(`${title} ${message}`);
    }
  }
}

/** Entries given as tokens are unknown at synth: the rules skip them. */
function literalEntries(list: PolicyListName, entries: readonly CheckedEntry[]): PolicyRuleEntry[] {
  return entries.flatMap((entry) =>
    entry.canonical === undefined ? [] : [{ list, ip: entry.ip, parsed: parseAddress(entry.canonical), where: describeSource(entry.source) }],
  );
}
