/**
 * The vocabulary of SecurityPolicy's policy rules (the cdk-nag v2 shape, like
 * modules/architecture-rules): a rule is a small pure function over what the policy declares
 * and what the stack's own infrastructure uses, answering compliant, not applicable or
 * non-compliant with one message per problem. The aspect (./aspect.ts) turns the messages into
 * annotations on the SecurityPolicy construct.
 */
import type { ParsedAddress } from '../../../src/address';
import { DENY_LIST_NAMES } from '../../../src/api/types';
import type { PolicyListName } from '../entries';

/** error fails synth; warning is printed. */
export type PolicyRuleLevel = 'error' | 'warning';

/** One literal entry of a list (entries given as tokens are unknown at synth and never reach a rule). */
export interface PolicyRuleEntry {
  readonly list: PolicyListName;
  /** As written. */
  readonly ip: string;
  readonly parsed: ParsedAddress;
  /** Where it was declared, e.g. `policy/blacklist.yaml:7: entries[2]`. */
  readonly where: string;
}

/** An address or range the stack's own infrastructure uses, and where it was found. */
export interface InfrastructureAddress {
  readonly parsed: ParsedAddress;
  /** e.g. `ownInfrastructure.sensorCidrs[0]` or `aws_vpc.main cidr_block`. */
  readonly what: string;
}

/** What a rule sees: the entries of every list of one policy, and the infrastructure it must not deny. */
export interface PolicyRuleContext {
  /** The literal entries of each list; an unmanaged list is empty. */
  readonly lists: Readonly<Record<PolicyListName, readonly PolicyRuleEntry[]>>;
  readonly infrastructure: readonly InfrastructureAddress[];
}

/** A rule's verdict: compliant, not applicable, or non-compliant with one message per finding. */
export type PolicyRuleResult =
  | { readonly compliance: 'compliant' }
  | { readonly compliance: 'not_applicable' }
  /** One message per problem; each names the entry, where it is declared, and the fix. */
  | { readonly compliance: 'non_compliant'; readonly messages: readonly string[] };

/** One policy rule: a stable id to acknowledge it by, a level, and a pure evaluate function. */
export interface PolicyRule {
  /** Stable id, shown in every finding and used to acknowledge it; never renumber. */
  readonly id: string;
  /** A few words, shown after the id. */
  readonly name: string;
  readonly level: PolicyRuleLevel;
  readonly evaluate: (context: PolicyRuleContext) => PolicyRuleResult;
}

/** The result of a rule that found nothing wrong. */
export const COMPLIANT: PolicyRuleResult = { compliance: 'compliant' };
/** The result of a rule that does not apply to this policy (e.g. none of its lists is set). */
export const NOT_APPLICABLE: PolicyRuleResult = { compliance: 'not_applicable' };

/** Compliant for no messages, else non-compliant with them. */
export function findings(messages: readonly string[]): PolicyRuleResult {
  return messages.length === 0 ? COMPLIANT : { compliance: 'non_compliant', messages };
}

/** Every literal entry of the given lists, in list order. */
export function entriesOf(context: PolicyRuleContext, lists: readonly PolicyListName[]): PolicyRuleEntry[] {
  return lists.flatMap((list) => context.lists[list]);
}

/** The lists that deny: blacklist and blocklist. */
export const DENY_LISTS: readonly PolicyListName[] = DENY_LIST_NAMES;

/** `blacklist entry "198.51.100.0/24" (policy/blacklist.yaml:3: entries[1])`. */
export function describeEntry(entry: PolicyRuleEntry): string {
  return `${entry.list} entry ${JSON.stringify(entry.ip)} (${entry.where})`;
}
