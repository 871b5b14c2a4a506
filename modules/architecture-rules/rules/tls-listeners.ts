/**
 * Spec rule 4: all traffic to control plane services is encrypted with TLS using
 * provider-issued certificates. Listeners speak HTTPS or TLS only, with an ACM certificate
 * and a security policy that refuses TLS below 1.2.
 */
import { IConstruct } from 'constructs';
import {
  COMPLIANT,
  NOT_APPLICABLE,
  RuleContext,
  RuleResult,
  combineProblems,
  nonCompliant,
} from '../findings';
import { isExpression, literalString, singleReference } from '../expressions';
import { TerraformElementView } from '../inventory';

const LISTENER_TYPES = ['aws_lb_listener', 'aws_alb_listener'];
const LISTENER_CERTIFICATE_TYPES = ['aws_lb_listener_certificate', 'aws_alb_listener_certificate'];
const ENCRYPTED_PROTOCOLS = ['HTTPS', 'TLS'];
const ACM_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/;
/** Elements whose attribute is the ARN of an ACM-issued certificate. */
const ACM_SOURCES: Readonly<Record<string, readonly string[]>> = {
  'aws_acm_certificate': ['arn', 'id'],
  'aws_acm_certificate_validation': ['certificate_arn', 'id'],
  'data.aws_acm_certificate': ['arn', 'id'],
};
/**
 * AWS names its TLS 1.2+ policies with TLS-1-2, TLS-1-3, TLS13-1-2, TLS13-1-3 or FS-1-2
 * (e.g. ELBSecurityPolicy-TLS13-1-2-2021-06); every other policy accepts TLS 1.0 or 1.1.
 */
const TLS12_POLICY = /(^|-)(TLS|TLS13|FS)-1-[23](-|$)/;

export function isTls12OrLaterPolicy(policy: string): boolean {
  return TLS12_POLICY.test(policy);
}

export function checkTlsListeners(node: IConstruct, context: RuleContext): RuleResult {
  const view = context.inventory.view(node);
  if (!view || view.kind !== 'resource') return NOT_APPLICABLE;
  if (LISTENER_TYPES.includes(view.type)) return checkListener(view, context);
  if (LISTENER_CERTIFICATE_TYPES.includes(view.type)) {
    const problem = certificateProblem(view, context);
    return problem ? nonCompliant(problem) : COMPLIANT;
  }
  return NOT_APPLICABLE;
}

function checkListener(view: TerraformElementView, context: RuleContext): RuleResult {
  const protocolValue = view.attributes.protocol;
  const protocol = literalString(protocolValue)?.toUpperCase();
  if (protocolValue === undefined || (protocol !== undefined && !ENCRYPTED_PROTOCOLS.includes(protocol))) {
    const given = protocolValue === undefined ? 'not set (defaults to HTTP)' : protocol;
    return nonCompliant(
      `${view.address} protocol is ${given}; control plane listeners must be HTTPS (or TLS on a ` +
        'network load balancer) with an ACM certificate. Remove plain listeners, including redirects.',
    );
  }
  const problems: string[] = [];
  const certificate = certificateProblem(view, context);
  if (certificate) problems.push(certificate);
  const policyValue = view.attributes.ssl_policy;
  const policy = literalString(policyValue);
  if (policyValue === undefined) {
    problems.push(
      `${view.address} has no ssl_policy, so AWS applies its default, which accepts TLS 1.0; ` +
        'set ssl_policy = "ELBSecurityPolicy-TLS13-1-2-2021-06" (or another TLS 1.2+ policy).',
    );
  } else if (policy !== undefined && !isTls12OrLaterPolicy(policy)) {
    problems.push(
      `${view.address} ssl_policy ${policy} accepts TLS versions below 1.2; use ` +
        '"ELBSecurityPolicy-TLS13-1-2-2021-06" or another TLS 1.2+ policy.',
    );
  }
  return combineProblems(
    problems.map((message) => ({ message })),
    'error',
  );
}

/** Why the element's certificate_arn is not a provider-issued (ACM) certificate, if it is not. */
function certificateProblem(view: TerraformElementView, context: RuleContext): string | undefined {
  const value = view.attributes.certificate_arn;
  if (value === undefined || value === '') {
    return `${view.address} has no certificate_arn; set it to an ACM certificate (aws_acm_certificate, DNS-validated).`;
  }
  const literal = literalString(value);
  if (literal !== undefined) {
    return ACM_CERTIFICATE_ARN.test(literal)
      ? undefined
      : `${view.address} certificate_arn ${literal} is not an ACM certificate ARN; use a certificate issued by ACM.`;
  }
  const reference = singleReference(value);
  if (!isExpression(value) || !reference) return undefined; // plan-time value: cannot tell
  const source = context.inventory.byAddress(reference.address);
  if (!source) return undefined;
  const key = source.kind === 'data' ? `data.${source.type}` : source.type;
  const attributes = ACM_SOURCES[key];
  if (attributes && attributes.includes(reference.attribute)) return undefined;
  return (
    `${view.address} certificate_arn comes from ${reference.address}.${reference.attribute}, ` +
    'which is not an ACM certificate; use aws_acm_certificate (or its aws_acm_certificate_validation).'
  );
}
