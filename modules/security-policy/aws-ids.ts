/** The shapes of the AWS ids the egress wiring takes, shared by the construct and the config parser. */

/** `nat-` and 8 or 17 hex digits, e.g. nat-0123456789abcdef0. */
export const NAT_GATEWAY_ID = /^nat-[0-9a-f]{8}([0-9a-f]{9})?$/;
/** `vpc-` and 8 or 17 hex digits, e.g. vpc-0123456789abcdef0. */
export const VPC_ID = /^vpc-[0-9a-f]{8}([0-9a-f]{9})?$/;
