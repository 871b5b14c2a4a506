/**
 * SVC-POLICY-3: an address or range on the whitelist that is also denied, wholly or in part, by
 * the blacklist or blocklist (a /32 inside a blacklisted /24 counts, and so does a whitelisted
 * /24 around a blacklisted address). A warning, not an error: "deny the range except this
 * partner" is a legitimate intent, but more often one of the two entries is stale. Say which
 * with an acknowledgement.
 */
import { RangeIndex, contains } from '../../../src/address-ranges';
import { NOT_APPLICABLE, DENY_LISTS, describeEntry, entriesOf, findings, type PolicyRuleContext, type PolicyRuleEntry, type PolicyRuleResult } from './rule';

export function checkAllowDenyContradictions(context: PolicyRuleContext): PolicyRuleResult {
  const allowed = context.lists.whitelist;
  const denied = entriesOf(context, DENY_LISTS);
  if (allowed.length === 0 || denied.length === 0) return NOT_APPLICABLE;
  const allowIndex = new RangeIndex<PolicyRuleEntry>();
  for (const entry of allowed) allowIndex.add(entry.parsed, entry);
  const denyIndex = new RangeIndex<PolicyRuleEntry>();
  for (const entry of denied) denyIndex.add(entry.parsed, entry);

  const messages: string[] = [];
  for (const allow of allowed) {
    for (const deny of denyIndex.containing(allow.parsed)) {
      const how = contains(allow.parsed, deny.parsed) ? 'is the same as' : 'lies inside';
      messages.push(`${describeEntry(allow)} ${how} ${describeEntry(deny)}: the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason.`);
    }
  }
  for (const deny of denied) {
    // Equal ranges were reported above.
    for (const allow of allowIndex.containing(deny.parsed).filter((entry) => entry.parsed.prefixLength < deny.parsed.prefixLength)) {
      messages.push(`${describeEntry(allow)} contains ${describeEntry(deny)}: the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason.`);
    }
  }
  return findings(messages);
}
