/**
 * SVC-POLICY-1: no list holds a catch-all range (`0.0.0.0/0`, `::/0`). On the blacklist or
 * blocklist it denies every user of the tenant; on the whitelist it exempts every address from
 * blocking, risk-based blocking included. Either way it is almost always a typo for a narrower
 * range.
 */
import { POLICY_LIST_NAMES } from '../entries';
import { NOT_APPLICABLE, describeEntry, entriesOf, findings, type PolicyRuleContext, type PolicyRuleResult } from './rule';

export function checkCatchAllRanges(context: PolicyRuleContext): PolicyRuleResult {
  const entries = entriesOf(context, POLICY_LIST_NAMES);
  if (entries.length === 0) return NOT_APPLICABLE;
  return findings(
    entries
      .filter((entry) => entry.parsed.prefixLength === 0)
      .map((entry) => {
        const effect = entry.list === 'whitelist' ? 'exempts every' : 'denies every';
        return `${describeEntry(entry)} is a catch-all range: it ${effect} ${entry.parsed.family === 'ipv4' ? 'IPv4' : 'IPv6'} address. List the addresses or ranges you mean instead.`;
      }),
  );
}
