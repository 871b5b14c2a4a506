/**
 * SVC-POLICY-4: an entry inside a broader entry of the same list adds nothing while the
 * broader one stays, and outlives it unnoticed when the broader one is removed. (The same
 * address twice is refused outright at synth: duplicate_policy_entry.)
 */
import { RangeIndex } from '../../../src/address-ranges';
import { POLICY_LIST_NAMES } from '../entries';
import { NOT_APPLICABLE, describeEntry, entriesOf, findings, type PolicyRuleContext, type PolicyRuleEntry, type PolicyRuleResult } from './rule';

export function checkRedundantEntries(context: PolicyRuleContext): PolicyRuleResult {
  if (entriesOf(context, POLICY_LIST_NAMES).length === 0) return NOT_APPLICABLE;
  const messages: string[] = [];
  for (const list of POLICY_LIST_NAMES) {
    const index = new RangeIndex<PolicyRuleEntry>();
    for (const entry of context.lists[list]) index.add(entry.parsed, entry);
    for (const entry of context.lists[list]) {
      const broader = index.containing(entry.parsed).filter((other) => other.parsed.prefixLength < entry.parsed.prefixLength);
      if (broader.length === 0) continue;
      messages.push(`${describeEntry(entry)} is already covered by ${broader.map((other) => `${JSON.stringify(other.ip)} (${other.where})`).join(', ')} on the same list. Remove it, or acknowledge the rule with the reason.`);
    }
  }
  return findings(messages);
}
