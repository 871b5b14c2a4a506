/**
 * `svc-prevent/security-policy/aws`: the part of the security policy that reads AWS (the
 * control plane's NAT gateways, whose public addresses join the whitelist). Apart from
 * `svc-prevent/security-policy` because it loads @cdktf/provider-aws, an optional peer.
 */
export { ControlPlaneEgress, type ControlPlaneEgressProps } from './control-plane-egress';
