/** The policy rules, in order. Ids are stable and used to acknowledge findings: never renumber. */
import { checkAllowDenyContradictions } from './allow-deny-contradiction';
import { checkBroadRanges } from './broad-range';
import { checkCatchAllRanges } from './catch-all-range';
import { checkRedundantEntries } from './redundant-entry';
import type { PolicyRule } from './rule';
import { checkSelfLockout } from './self-lockout';

export { BROAD_RANGE_THRESHOLDS, checkBroadRanges } from './broad-range';
export { checkCatchAllRanges } from './catch-all-range';
export { checkAllowDenyContradictions } from './allow-deny-contradiction';
export { checkRedundantEntries } from './redundant-entry';
export { checkSelfLockout } from './self-lockout';
export * from './rule';

/** SVC-POLICY-1 (error): a range that covers every address (`0.0.0.0/0`, `::/0`) on a list. */
export const CATCH_ALL_RANGE: PolicyRule = { id: 'SVC-POLICY-1', name: 'catch-all range', level: 'error', evaluate: checkCatchAllRanges };
/** SVC-POLICY-2 (warning): a range shorter than BROAD_RANGE_THRESHOLDS allows for its list and family. */
export const BROAD_RANGE: PolicyRule = { id: 'SVC-POLICY-2', name: 'broad range', level: 'warning', evaluate: checkBroadRanges };
/** SVC-POLICY-3 (warning): a whitelist entry overlapping a blacklist or blocklist entry. */
export const ALLOW_DENY_CONTRADICTION: PolicyRule = { id: 'SVC-POLICY-3', name: 'allowed and denied', level: 'warning', evaluate: checkAllowDenyContradictions };
/** SVC-POLICY-4 (warning): an entry another entry of the same list already covers. */
export const REDUNDANT_ENTRY: PolicyRule = { id: 'SVC-POLICY-4', name: 'redundant entry', level: 'warning', evaluate: checkRedundantEntries };
/** SVC-POLICY-5 (error): a denied address that the platform's own infrastructure uses. */
export const SELF_LOCKOUT: PolicyRule = { id: 'SVC-POLICY-5', name: 'self-lockout', level: 'error', evaluate: checkSelfLockout };

/** Every rule SecurityPolicyRules runs, in id order. */
export const POLICY_RULES: readonly PolicyRule[] = [CATCH_ALL_RANGE, BROAD_RANGE, ALLOW_DENY_CONTRADICTION, REDUNDANT_ENTRY, SELF_LOCKOUT];
