/**
 * The stack-name rules every construct here shares. The stack name prefixes every resource
 * name, parameter path and tag of a control plane, is the `<stack-prefix>` of the deployment
 * policy, and (in lower case) is a DNS label of the service hostnames, which the sensor
 * script derives the same way. Keeping the rules in one place keeps those in step: a name
 * the policy accepts is a name the control plane can deploy, and the reverse.
 *
 * Each construct wraps a problem found here in its own typed error, naming its own prop.
 */

/** The stack name the vendor's template uses when the user keeps the default. */
export const DEFAULT_STACK_NAME = 'SvcPrevent';

/** Spec, Limits: a non-default stack name ends up in length-limited tags. */
export const MAX_STACK_NAME_LENGTH = 14;

/** Tag key that carries the stack name on every taggable control plane resource. */
export const STACK_NAME_TAG_KEY = 'svc:stack-name';

/**
 * Starts with a letter (the template engine's rule), holds letters, digits and hyphens (IAM,
 * load balancer and target group names), and ends with a letter or digit: in lower case it is
 * a DNS label of `<service>.<stack>.<zone>`, and ACM refuses a certificate for a name with a
 * label that ends with a hyphen.
 */
const STACK_NAME = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** Prefixes AWS reserves in names that begin with the stack name (checked in any case). */
const RESERVED_PREFIXES: readonly { readonly prefix: string; readonly why: string }[] = [
  { prefix: 'internal-', why: 'the load balancer is named <stack name>-lb, and AWS refuses load balancer names that start so' },
  { prefix: 'sg-', why: 'security groups are named <stack name>-..., and AWS refuses security group names that start so' },
];

/** Why a stack name is refused: a character or shape AWS or DNS refuses, or longer than 14. */
export type StackNameProblemCode = 'stack_name_invalid' | 'stack_name_too_long';

export interface StackNameProblem {
  readonly code: StackNameProblemCode;
  /** What is wrong, in a few words. */
  readonly problem: string;
  /** How to fix it. */
  readonly fix: string;
}

/** Why `name` cannot be a stack name, or undefined when it can. Callers skip tokens. */
export function stackNameProblem(name: string): StackNameProblem | undefined {
  if (name === DEFAULT_STACK_NAME) return undefined;
  if (!STACK_NAME.test(name)) {
    return {
      code: 'stack_name_invalid',
      problem:
        'must start with a letter, hold only letters, digits and hyphens, and end with a letter or digit ' +
        '(it prefixes every resource name and, in lower case, is a DNS label of the service hostnames)',
      fix: `rename it, e.g. ${DEFAULT_STACK_NAME}2`,
    };
  }
  const reserved = RESERVED_PREFIXES.find(({ prefix }) => name.toLowerCase().startsWith(prefix));
  if (reserved) {
    return {
      code: 'stack_name_invalid',
      problem: `must not start with "${reserved.prefix}": ${reserved.why}`,
      fix: `rename it, e.g. ${DEFAULT_STACK_NAME}2`,
    };
  }
  if (name.length > MAX_STACK_NAME_LENGTH) {
    return {
      code: 'stack_name_too_long',
      problem:
        `has ${name.length} characters; a stack name other than ${DEFAULT_STACK_NAME} must be ` +
        `${MAX_STACK_NAME_LENGTH} characters or fewer (it is used in length-limited tags)`,
      fix: `shorten it to ${MAX_STACK_NAME_LENGTH} characters or fewer, or use the default ${DEFAULT_STACK_NAME}`,
    };
  }
  return undefined;
}

/**
 * Route 53 hosted zone ids: Z and upper-case letters and digits, at most 32 characters, as
 * Route 53 shows them (without `/hostedzone/`). The id goes into the deployment policy's ARNs
 * and the control plane's zone lookup, so both check it the same way.
 */
export const HOSTED_ZONE_ID_PATTERN = /^Z[0-9A-Z]{1,31}$/;

/** An example for error messages. */
export const HOSTED_ZONE_ID_EXAMPLE = 'Z0123456789ABCDEFGHIJ';

/**
 * `<service>.<stack name in lower case>.<zone>`: the DNS name of a control plane service.
 * The sensor script (`run-svc-sensor.sh -s`) derives the analyzer's name the same way.
 */
export function serviceHostname(service: string, stackName: string, hostedZoneName: string): string {
  return `${service}.${stackName.toLowerCase()}.${hostedZoneName}`;
}
