/** The policy rules as the pure functions they are: edge cases and large lists, without synth. */
import { parseAddress } from '../../src/address';
import { POLICY_RULES, type PolicyRuleContext, type PolicyRuleEntry, type PolicyRuleResult } from '../../modules/security-policy';
// The rules' check functions run inside the rules' aspect; the package does not export them.
import { checkAllowDenyContradictions, checkCatchAllRanges, checkRedundantEntries, checkSelfLockout } from '../../modules/security-policy/rules';
import type { PolicyListName } from '../../modules/security-policy';

function entry(list: PolicyListName, ip: string, index = 0): PolicyRuleEntry {
  return { list, ip, parsed: parseAddress(ip), where: `${list}[${index}]` };
}

function context(lists: Partial<Record<PolicyListName, string[]>>, infrastructure: string[] = []): PolicyRuleContext {
  const of = (list: PolicyListName) => (lists[list] ?? []).map((ip, index) => entry(list, ip, index));
  return {
    lists: { blacklist: of('blacklist'), blocklist: of('blocklist'), whitelist: of('whitelist') },
    infrastructure: infrastructure.map((ip) => ({ parsed: parseAddress(ip), what: 'test' })),
  };
}

const count = (result: PolicyRuleResult) => (result.compliance === 'non_compliant' ? result.messages.length : result.compliance);

describe('the rule pack', () => {
  test('has five rules with stable ids, in order', () => {
    expect(POLICY_RULES.map((rule) => [rule.id, rule.name, rule.level])).toEqual([
      ['SVC-POLICY-1', 'catch-all range', 'error'],
      ['SVC-POLICY-2', 'broad range', 'warning'],
      ['SVC-POLICY-3', 'allowed and denied', 'warning'],
      ['SVC-POLICY-4', 'redundant entry', 'warning'],
      ['SVC-POLICY-5', 'self-lockout', 'error'],
    ]);
  });

  test.each(POLICY_RULES.map((rule) => [rule.id, rule]))('%s is not applicable to a policy without entries', (_id, rule) => {
    expect(rule.evaluate(context({}, ['10.0.0.0/16']))).toEqual({ compliance: 'not_applicable' });
  });
});

describe('edge cases', () => {
  test.each([
    ['an IPv4-mapped IPv6 address is not its IPv4 address', checkAllowDenyContradictions, context({ blacklist: ['192.0.2.1'], whitelist: ['::ffff:192.0.2.1'] }), 'compliant'],
    ['self-lockout needs known infrastructure', checkSelfLockout, context({ blacklist: ['0.0.0.0/0'] }), 'not_applicable'],
    ['self-lockout ignores the whitelist', checkSelfLockout, context({ whitelist: ['10.0.0.0/8'] }, ['10.0.0.0/16']), 'not_applicable'],
    ['a /0 of each family on one list', checkCatchAllRanges, context({ blocklist: ['0.0.0.0/0', '::/0'] }), 2],
    ['redundancy is per list, not across lists', checkRedundantEntries, context({ blacklist: ['10.0.0.0/8'], blocklist: ['10.1.2.3'] }), 'compliant'],
  ])('%s', (_name, rule, given, expected) => {
    expect(count(rule(given))).toEqual(expected);
  });
});

describe('large lists', () => {
  // 40,000 addresses under 200 /24 ranges, and a whitelist of 2,000 addresses.
  const addresses = Array.from({ length: 40_000 }, (_, index) => `10.${Math.floor(index / 200) % 200}.${index % 200}.${Math.floor(index / 40_000 * 250)}`);
  const unique = [...new Set(addresses)];
  const ranges = Array.from({ length: 200 }, (_, index) => `10.${index}.0.0/24`);
  const allowed = Array.from({ length: 2_000 }, (_, index) => `172.16.${Math.floor(index / 250)}.${index % 250}`);

  // Pairwise, 40,000 x 40,000 comparisons take minutes and would run into the test's timeout; the
  // index takes about a second. Its speed is not asserted here (speed is the bench's).
  test('are checked: addresses under the ranges are reported redundant, none contradicts the whitelist', () => {
    const given = context({ blacklist: [...ranges, ...unique], whitelist: allowed });
    expect(count(checkRedundantEntries(given))).toBeGreaterThan(0);
    expect(count(checkAllowDenyContradictions(given))).toBe('compliant');
  }, 60_000);
});
