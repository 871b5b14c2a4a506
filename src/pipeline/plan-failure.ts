/**
 * Why terraform could not plan a stack, from its diagnostics (the text of `init` or `plan`,
 * boxed or -no-color): "unreachable" (the provider registry, the AWS credentials or the API
 * endpoint cannot be reached from here) or anything else. The drift check's --skip-unreachable
 * skips only the first kind: a refused key, a configuration error or an invalid value is a
 * broken check, and a pipeline must fail on it.
 */
import { EARLIER_LOGIN_FAILURE_SUMMARY } from '../diagnostic-summaries';

/** What could not be reached; shown in the drift check's "skipped" line. */
export type UnreachableReason = 'provider registry not reachable' | 'no AWS credentials' | 'endpoint not reachable';

export interface TerraformDiagnostic {
  /** The text after `Error: `. */
  readonly summary: string;
  /** The rest of the diagnostic, joined into one line. */
  readonly detail: string;
}

/** terraform's output as plain lines: the box drawing of its diagnostics (│ ╷ ╵, absent with -no-color) and indentation removed. */
export function terraformOutputLines(output: string): string[] {
  return output.split('\n').map((line) => line.replace(/^[\s│╷╵]+/, '').trimEnd());
}

/** The error diagnostics of terraform's output, in order (warnings are left out). */
export function errorDiagnostics(output: string): TerraformDiagnostic[] {
  const lines = terraformOutputLines(output);
  const found: Array<{ summary: string; detail: string[] }> = [];
  let current: { summary: string; detail: string[] } | undefined;
  for (const line of lines) {
    if (line.startsWith('Error: ')) {
      current = { summary: line.slice('Error: '.length), detail: [] };
      found.push(current);
    } else if (line.startsWith('Warning: ')) {
      current = undefined;
    } else if (current !== undefined && line !== '') {
      current.detail.push(line);
    }
  }
  return found.map(({ summary, detail }) => ({ summary, detail: detail.join(' ') }));
}

/**
 * A refusal by the other side: it was reached and said no. Checked first, so a message that
 * also mentions the network (an AWS SDK error chain) is never taken for unreachable.
 */
const REFUSED = [
  /Login to the svc management API failed/,
  /The svc management API refused/,
  /StatusCode: 4\d\d/,
  /\b(InvalidClientTokenId|UnrecognizedClientException|SignatureDoesNotMatch|AccessDenied\w*|ExpiredToken\w*|InvalidAccessKeyId|AuthFailure|UnauthorizedOperation)\b/,
  /\b(401|403) (Unauthorized|Forbidden)\b/,
];

/** Failures of the network path itself: refused connection, no DNS answer, timeout, no route. */
const NETWORK = [
  /could not connect to/i,
  /no such host/,
  /connection refused/,
  /i\/o timeout/,
  /TLS handshake timeout/,
  /network is unreachable/,
  /no route to host/,
  /context deadline exceeded/,
  /Client\.Timeout exceeded/,
  // Node's and undici's codes, as the svc provider's transport errors name them.
  /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|UND_ERR_SOCKET)\b/,
];

const PROVIDER_INSTALLATION = /^(Failed to query available provider packages|Failed to install provider|Failed to resolve provider packages|Failed to install provider from shared cache)/;

/** Why one error diagnostic means "cannot be reached", or null when it is any other failure. */
export function unreachableReason(diagnostic: TerraformDiagnostic): UnreachableReason | null {
  const text = `${diagnostic.summary} ${diagnostic.detail}`;
  if (REFUSED.some((pattern) => pattern.test(text))) return null;
  // The AWS provider found no credentials at all (its IMDS lookup comes as a second diagnostic).
  if (/^No valid credential sources found/.test(diagnostic.summary)) return 'no AWS credentials';
  if (/no EC2 IMDS role found/.test(text)) return 'no AWS credentials';
  // svc-prevent/svc is never on the public registry: looking for it there means the CLI config
  // hides the svc mirror, a setup error however the registry answers.
  if (PROVIDER_INSTALLATION.test(diagnostic.summary) && /svc-prevent\/svc/.test(diagnostic.detail)) return null;
  const network = NETWORK.some((pattern) => pattern.test(text));
  if (!network) return null;
  return PROVIDER_INSTALLATION.test(diagnostic.summary) ? 'provider registry not reachable' : 'endpoint not reachable';
}

/**
 * The provider reports a failed login in full once and gives every other resource a short
 * follow-on note (terraform prints them in any order): readers look at the cause.
 */
export function isFollowOnDiagnostic(summary: string): boolean {
  return summary.startsWith(EARLIER_LOGIN_FAILURE_SUMMARY);
}

/**
 * Why terraform's failed run means the stack cannot be reached, or null when it failed for
 * another reason (or said nothing terraform-like): every error diagnostic must be unreachable.
 */
export function unreachableStack(output: string): UnreachableReason | null {
  const all = errorDiagnostics(output);
  const causes = all.filter((diagnostic) => !isFollowOnDiagnostic(diagnostic.summary));
  const diagnostics = causes.length > 0 ? causes : all;
  if (diagnostics.length === 0) return null;
  const reasons = diagnostics.map(unreachableReason);
  if (reasons.some((reason) => reason === null)) return null;
  return reasons[0];
}
