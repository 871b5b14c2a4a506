/**
 * The retry decision, as one pure function: given what happened on an attempt, how long we have
 * been at it and the policy, say whether to wait and try again, log in again, or give up and why.
 * No clock, no timers and no randomness of its own (both come in as inputs), so every rule is a
 * row in a table test.
 */

/** How a backoff is randomised: `full` waits between 0 and the backoff, `equal` between half of it and all of it. */
export type JitterMode = 'full' | 'equal';

/** When the client repeats a failed call, and how long it waits; give overrides in `ManagementClientOptions.retry`. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly maxAttempts: number;
  /** Backoff before the second attempt; doubles per attempt. */
  readonly baseDelayMs: number;
  /** Ceiling of one backoff (a Retry-After from the server may exceed it). */
  readonly maxDelayMs: number;
  /**
   * The whole call, retries and waits included, ends within this many ms of the first attempt's
   * start: no attempt starts later, and an attempt is given no more than what is left.
   */
  readonly deadlineMs: number;
  /** How each backoff is randomised. */
  readonly jitter: JitterMode;
}

/** 6 attempts, 200 ms doubling to at most 5 s per wait, all within 60 s, full jitter. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  deadlineMs: 60_000,
  jitter: 'full',
};

/** What the service said about a call, reduced to what the retry rules need. */
export type ServiceErrorKind = 'token' | 'permission' | 'not-found' | 'other';

export type AttemptOutcome =
  /** An HTTP reply without `Ok`/`ok`/`Error` (429, 5xx, or garbage with any status). */
  | { readonly kind: 'http'; readonly status: number; readonly retryAfter?: string }
  /** No HTTP reply: the code of the network error (ECONNRESET, UND_ERR_SOCKET, ...). */
  | { readonly kind: 'network'; readonly code: string }
  /** The service answered `{"Error": ...}`. */
  | { readonly kind: 'service-error'; readonly errorKind: ServiceErrorKind };

export interface RetryInput {
  /** The attempt that just failed, 1 for the first. */
  readonly attempt: number;
  /** Ms since the first attempt started. */
  readonly elapsedMs: number;
  readonly outcome: AttemptOutcome;
  /** Whether this call logged in again after a token error, with no other failure since. */
  readonly reauthenticated: boolean;
  /** Wall clock in epoch ms, only to read a Retry-After given as an HTTP date. */
  readonly nowMs: number;
}

export type RetryDecision =
  | { readonly action: 'retry'; readonly delayMs: number; readonly reason: string }
  | { readonly action: 'reauthenticate'; readonly reason: string }
  | { readonly action: 'give-up'; readonly reason: string };

/** Network error codes after which the same request may simply be sent again. */
export const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  // The transport's own: no complete reply within the request timeout (transport.ts).
  'SVC_REQUEST_TIMEOUT',
]);

/** Reads Retry-After as delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  if (Number.isNaN(dateMs) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, dateMs - nowMs);
}

/** Capped exponential backoff with jitter; `random` returns a number in [0, 1). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const share = Math.min(Math.max(random(), 0), 1);
  const delay = policy.jitter === 'full' ? ceiling * share : ceiling / 2 + (ceiling / 2) * share;
  return Math.floor(delay);
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

export function decideRetry(input: RetryInput, policy: RetryPolicy, random: () => number): RetryDecision {
  const { outcome } = input;

  if (outcome.kind === 'service-error') {
    if (outcome.errorKind === 'token') {
      return input.reauthenticated
        ? { action: 'give-up', reason: 'token refused again right after a fresh login' }
        : { action: 'reauthenticate', reason: 'session token expired or unknown' };
    }
    if (outcome.errorKind === 'permission') {
      return { action: 'give-up', reason: 'permission denied; retrying cannot help' };
    }
    return { action: 'give-up', reason: `the service refused the call (${outcome.errorKind})` };
  }

  if (outcome.kind === 'http' && !isRetryableStatus(outcome.status)) {
    return { action: 'give-up', reason: `HTTP ${outcome.status} is not retryable` };
  }
  if (outcome.kind === 'network' && !RETRYABLE_NETWORK_CODES.has(outcome.code)) {
    return { action: 'give-up', reason: `network error ${outcome.code} is not retryable` };
  }

  const what = outcome.kind === 'http' ? `HTTP ${outcome.status}` : outcome.code;
  if (input.attempt >= policy.maxAttempts) {
    return { action: 'give-up', reason: `${what} after ${input.attempt} of ${policy.maxAttempts} attempts` };
  }

  const retryAfterMs =
    outcome.kind === 'http' && outcome.status === 429 ? parseRetryAfter(outcome.retryAfter, input.nowMs) : undefined;
  const delayMs = retryAfterMs ?? backoffDelay(input.attempt, policy, random);
  const remainingMs = policy.deadlineMs - input.elapsedMs;
  if (delayMs > remainingMs) {
    // Waiting past the deadline only to fail later helps nobody; a server-given wait is
    // honoured, never shortened.
    return {
      action: 'give-up',
      reason: `${what}; waiting ${delayMs} ms would pass the ${policy.deadlineMs} ms deadline`,
    };
  }
  return {
    action: 'retry',
    delayMs,
    reason: retryAfterMs === undefined ? `${what}; backing off` : `${what}; server asked to wait (Retry-After)`,
  };
}
