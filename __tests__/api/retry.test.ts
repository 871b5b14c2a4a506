import {
  backoffDelay,
  decideRetry,
  parseRetryAfter,
  type AttemptOutcome,
  type RetryDecision,
  type RetryPolicy,
} from '../../src/api/retry';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, deadlineMs: 10_000, jitter: 'full' };
const NOW = Date.UTC(2026, 10, 23, 8, 0, 0);

interface Case {
  name: string;
  outcome: AttemptOutcome;
  attempt?: number;
  elapsedMs?: number;
  reauthenticated?: boolean;
  policy?: Partial<RetryPolicy>;
  random?: number;
  expected: Partial<RetryDecision> & { action: RetryDecision['action'] };
  reasonIncludes?: string;
}

const cases: Case[] = [
  // rate limiting
  { name: '429 with Retry-After seconds waits exactly that long', outcome: { kind: 'http', status: 429, retryAfter: '3' }, expected: { action: 'retry', delayMs: 3_000 } },
  { name: '429 with Retry-After 0 retries at once', outcome: { kind: 'http', status: 429, retryAfter: '0' }, expected: { action: 'retry', delayMs: 0 } },
  {
    name: '429 with Retry-After as an HTTP date waits until then',
    outcome: { kind: 'http', status: 429, retryAfter: new Date(NOW + 4_000).toUTCString() },
    expected: { action: 'retry', delayMs: 4_000 },
  },
  {
    name: '429 with an HTTP date in the past retries at once',
    outcome: { kind: 'http', status: 429, retryAfter: new Date(NOW - 60_000).toUTCString() },
    expected: { action: 'retry', delayMs: 0 },
  },
  { name: '429 without Retry-After backs off', outcome: { kind: 'http', status: 429 }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: '429 with an unreadable Retry-After backs off', outcome: { kind: 'http', status: 429, retryAfter: 'soon' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  {
    name: '429 whose Retry-After passes the deadline gives up now',
    outcome: { kind: 'http', status: 429, retryAfter: '30' },
    elapsedMs: 1_000,
    expected: { action: 'give-up' },
    reasonIncludes: 'deadline',
  },
  {
    name: 'Retry-After above maxDelay is still honoured within the deadline',
    outcome: { kind: 'http', status: 429, retryAfter: '5' },
    expected: { action: 'retry', delayMs: 5_000 },
  },
  // server errors
  { name: '500 backs off', outcome: { kind: 'http', status: 500 }, random: 0.999, expected: { action: 'retry', delayMs: 99 } },
  { name: '503 backs off', outcome: { kind: 'http', status: 503 }, random: 0, expected: { action: 'retry', delayMs: 0 } },
  { name: '502 backs off', outcome: { kind: 'http', status: 502 }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: '503 ignores Retry-After (only 429 carries it here)', outcome: { kind: 'http', status: 503, retryAfter: '9' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'backoff doubles per attempt', outcome: { kind: 'http', status: 500 }, attempt: 3, random: 0.5, expected: { action: 'retry', delayMs: 200 } },
  { name: 'backoff is capped at maxDelay', outcome: { kind: 'http', status: 500 }, attempt: 4, random: 0.999, policy: { maxAttempts: 10, baseDelayMs: 400 }, expected: { action: 'retry', delayMs: 999 } },
  { name: 'equal jitter keeps at least half the backoff', outcome: { kind: 'http', status: 500 }, random: 0, policy: { jitter: 'equal' }, expected: { action: 'retry', delayMs: 50 } },
  { name: 'equal jitter tops out at the full backoff', outcome: { kind: 'http', status: 500 }, attempt: 2, random: 0.999, policy: { jitter: 'equal' }, expected: { action: 'retry', delayMs: 199 } },
  { name: '500 on the last attempt gives up', outcome: { kind: 'http', status: 500 }, attempt: 5, expected: { action: 'give-up' }, reasonIncludes: '5 of 5' },
  { name: 'maxAttempts 1 never retries', outcome: { kind: 'http', status: 503 }, attempt: 1, policy: { maxAttempts: 1 }, expected: { action: 'give-up' } },
  { name: 'backoff that would pass the deadline gives up', outcome: { kind: 'http', status: 500 }, elapsedMs: 9_990, random: 0.5, expected: { action: 'give-up' }, reasonIncludes: 'deadline' },
  { name: 'backoff ending exactly at the deadline still retries', outcome: { kind: 'http', status: 500 }, elapsedMs: 9_950, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  // other HTTP statuses
  { name: '200 without Ok/Error is not retried', outcome: { kind: 'http', status: 200 }, expected: { action: 'give-up' }, reasonIncludes: 'HTTP 200' },
  { name: '400 is not retried', outcome: { kind: 'http', status: 400 }, expected: { action: 'give-up' } },
  { name: '404 is not retried', outcome: { kind: 'http', status: 404 }, expected: { action: 'give-up' } },
  // network
  { name: 'connection reset is retried', outcome: { kind: 'network', code: 'ECONNRESET' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'connection refused is retried', outcome: { kind: 'network', code: 'ECONNREFUSED' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'undici socket closed is retried', outcome: { kind: 'network', code: 'UND_ERR_SOCKET' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'headers timeout is retried', outcome: { kind: 'network', code: 'UND_ERR_HEADERS_TIMEOUT' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'connect timeout is retried', outcome: { kind: 'network', code: 'UND_ERR_CONNECT_TIMEOUT' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'ETIMEDOUT is retried', outcome: { kind: 'network', code: 'ETIMEDOUT' }, random: 0.5, expected: { action: 'retry', delayMs: 50 } },
  { name: 'unknown host is not retried', outcome: { kind: 'network', code: 'ENOTFOUND' }, expected: { action: 'give-up' }, reasonIncludes: 'ENOTFOUND' },
  { name: 'a TLS certificate error is not retried', outcome: { kind: 'network', code: 'CERT_HAS_EXPIRED' }, expected: { action: 'give-up' } },
  { name: 'reset on the last attempt gives up', outcome: { kind: 'network', code: 'ECONNRESET' }, attempt: 5, expected: { action: 'give-up' } },
  // service Error replies
  { name: 'token error asks for a re-login', outcome: { kind: 'service-error', errorKind: 'token' }, expected: { action: 'reauthenticate' } },
  { name: 'token error after a re-login gives up', outcome: { kind: 'service-error', errorKind: 'token' }, reauthenticated: true, expected: { action: 'give-up' } },
  { name: 'token error on the last attempt still re-logs in once', outcome: { kind: 'service-error', errorKind: 'token' }, attempt: 5, expected: { action: 'reauthenticate' } },
  { name: 'permission error is never retried', outcome: { kind: 'service-error', errorKind: 'permission' }, expected: { action: 'give-up' }, reasonIncludes: 'permission' },
  { name: 'not-found is never retried', outcome: { kind: 'service-error', errorKind: 'not-found' }, expected: { action: 'give-up' } },
  { name: 'any other service Error is never retried', outcome: { kind: 'service-error', errorKind: 'other' }, expected: { action: 'give-up' } },
];

describe('decideRetry', () => {
  test.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const decision = decideRetry(
      {
        attempt: testCase.attempt ?? 1,
        elapsedMs: testCase.elapsedMs ?? 0,
        outcome: testCase.outcome,
        reauthenticated: testCase.reauthenticated ?? false,
        nowMs: NOW,
      },
      { ...policy, ...testCase.policy },
      () => testCase.random ?? 0.5,
    );
    expect(decision).toMatchObject(testCase.expected);
    expect(decision.reason.length).toBeGreaterThan(0);
    if (testCase.reasonIncludes) expect(decision.reason).toContain(testCase.reasonIncludes);
  });
});

describe('parseRetryAfter', () => {
  test.each([
    ['delta seconds', '2', 2_000],
    ['zero', '0', 0],
    ['surrounding blanks', ' 7 ', 7_000],
    ['HTTP date', new Date(NOW + 10_000).toUTCString(), 10_000],
    ['absent', undefined, undefined],
    ['negative number', '-1', undefined],
    ['fraction', '1.5', undefined],
    ['garbage', 'later', undefined],
  ] as const)('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('backoffDelay', () => {
  test('never exceeds maxDelay however many attempts', () => {
    for (let attempt = 1; attempt <= 60; attempt += 1) {
      expect(backoffDelay(attempt, policy, () => 0.999999)).toBeLessThanOrEqual(policy.maxDelayMs);
    }
  });
  test('full jitter can reach zero, equal jitter cannot', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, { ...policy, jitter: 'equal' }, () => 0)).toBe(200);
  });
});
