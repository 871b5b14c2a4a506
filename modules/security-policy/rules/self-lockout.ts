/**
 * SVC-POLICY-5: the blacklist and blocklist never deny what the stack's own infrastructure
 * uses: the control plane's egress addresses, the sensors' ranges, the VPC range, and literal
 * addresses of the stack's AWS resources (./infrastructure.ts). Blocking them cuts the
 * platform off from itself: scans and sensors fail, and the console may lock its operators out.
 * Overlap counts both ways (a blacklisted /24 around an Elastic IP, a blacklisted address
 * inside the VPC range).
 */
import { overlaps } from '../../../src/address-ranges';
import { DENY_LISTS, NOT_APPLICABLE, describeEntry, entriesOf, findings, type PolicyRuleContext, type PolicyRuleResult } from './rule';

export function checkSelfLockout(context: PolicyRuleContext): PolicyRuleResult {
  const denied = entriesOf(context, DENY_LISTS);
  if (denied.length === 0 || context.infrastructure.length === 0) return NOT_APPLICABLE;
  const messages: string[] = [];
  for (const deny of denied) {
    const hit = context.infrastructure.filter((own) => overlaps(deny.parsed, own.parsed));
    if (hit.length === 0) continue;
    messages.push(`${describeEntry(deny)} denies addresses of the stack's own infrastructure: ${hit.map((own) => `${own.parsed.canonical} (${own.what})`).join(', ')}. Remove or narrow the entry; blocking them cuts the platform off from itself.`);
  }
  return findings(messages);
}
