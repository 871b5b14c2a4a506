/**
 * SVC-POLICY-2: ranges broader than a threshold per list and address family get a warning. A
 * broad deny range blocks bystanders (a /8 is sixteen million addresses, a whole provider's
 * customers); a broad allow range exempts them from risk-based blocking. Thresholds are
 * stricter for the whitelist, where a mistake is silent. Catch-all ranges are SVC-POLICY-1's.
 */
import type { AddressFamily } from '../../../src/address';
import { POLICY_LIST_NAMES, type PolicyListName } from '../entries';
import { NOT_APPLICABLE, describeEntry, entriesOf, findings, type PolicyRuleContext, type PolicyRuleResult } from './rule';

/** The shortest prefix length allowed without a warning, per list and family. */
export const BROAD_RANGE_THRESHOLDS: Readonly<Record<PolicyListName, Readonly<Record<AddressFamily, number>>>> = {
  blacklist: { ipv4: 8, ipv6: 32 },
  blocklist: { ipv4: 8, ipv6: 32 },
  whitelist: { ipv4: 16, ipv6: 48 },
};

export function checkBroadRanges(context: PolicyRuleContext): PolicyRuleResult {
  const entries = entriesOf(context, POLICY_LIST_NAMES);
  if (entries.length === 0) return NOT_APPLICABLE;
  return findings(
    entries
      .filter((entry) => entry.parsed.prefixLength > 0 && entry.parsed.prefixLength < BROAD_RANGE_THRESHOLDS[entry.list][entry.parsed.family])
      .map((entry) => {
        const threshold = BROAD_RANGE_THRESHOLDS[entry.list][entry.parsed.family];
        const effect = entry.list === 'whitelist' ? 'exempts from blocking' : 'denies';
        return `${describeEntry(entry)} is broader than /${threshold}, the widest ${entry.parsed.family === 'ipv4' ? 'IPv4' : 'IPv6'} range expected on the ${entry.list}: it ${effect} ${addressCount(entry.parsed.family, entry.parsed.prefixLength)} addresses. Narrow it, or acknowledge the rule with the reason.`;
      }),
  );
}

/** `16777216` for an IPv4 /8; `2^96` for an IPv6 /32. */
function addressCount(family: AddressFamily, prefixLength: number): string {
  const hostBits = (family === 'ipv4' ? 32 : 128) - prefixLength;
  return hostBits <= 32 ? String(2 ** hostBits) : `2^${hostBits}`;
}
