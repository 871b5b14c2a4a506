/**
 * The API key and session tokens never appear in an error's message, cause chain, JSON form or
 * util.inspect output, nor in log events, whichever way the error came about.
 */
import { inspect } from 'node:util';
import { ManagementClient } from '../../src/api/client';
import { REDACTED, SecretRegistry, registerSecret } from '../../src/api/redaction';
import { ServiceError, TransportError, UnexpectedReplyError, ValidationError } from '../../src/api/errors';
import { startFakeService, withLogin, type FakeService } from './fake-service';

const API_KEY = 'redaction-key-Q9v!"quoted"/slash';
const TOKEN = 'redaction-token-5d8e2b71';

function allRenderings(error: unknown): string[] {
  const chain: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 10; depth += 1) {
    if (current instanceof Error) {
      chain.push(current.message, String(current.stack));
      // Fields callers read directly (serviceMessage, bodyExcerpt, value, ...) count too.
      chain.push(...Object.values(current).filter((field): field is string => typeof field === 'string'));
      current = current.cause;
    } else {
      chain.push(String(current));
      current = undefined;
    }
  }
  return [...chain, JSON.stringify(error), inspect(error, { depth: 10 }), String(error)];
}

function expectClean(error: unknown, secrets: string[] = [API_KEY, TOKEN]): void {
  for (const text of allRenderings(error)) {
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
      expect(text).not.toContain(encodeURIComponent(secret));
    }
  }
}

describe('SecretRegistry', () => {
  test.each([
    ['plain', 'key=abc123secret;', 'key=[REDACTED];'],
    ['several times', 'abc123secret abc123secret', '[REDACTED] [REDACTED]'],
    ['inside JSON', JSON.stringify({ api_token: 'abc123secret' }), '{"api_token":"[REDACTED]"}'],
    ['URL-encoded spelling', 'q=has%20space', 'q=[REDACTED]'],
    ['no secret', 'nothing to see', 'nothing to see'],
    ['longest first', 'abc123secret-and-more', '[REDACTED]'],
  ])('%s', (_name, input, expected) => {
    const registry = new SecretRegistry();
    registry.add('abc123secret');
    registry.add('has space');
    registry.add('abc123secret-and-more');
    registry.add('');
    registry.add(undefined);
    expect(registry.redact(input)).toBe(expected);
  });

  test('redactValue scrubs nested strings, keys and errors without touching the original', () => {
    const registry = new SecretRegistry();
    registry.add('s3cr3t-value');
    const original = { a: ['x s3cr3t-value'], 's3cr3t-value': 1, error: new Error('bad s3cr3t-value') };
    const copy = registry.redactValue(original) as Record<string, unknown>;
    expect(JSON.stringify(copy)).not.toContain('s3cr3t-value');
    expect((copy.error as Error).message).toBe(`bad ${REDACTED}`);
    expect(original.a[0]).toBe('x s3cr3t-value');
  });
});

describe('errors built with secrets in them', () => {
  beforeAll(() => {
    registerSecret(API_KEY);
    registerSecret(TOKEN);
  });

  test('message, cause chain, JSON and inspect of a TransportError', () => {
    const root = Object.assign(new Error(`socket closed while sending ${TOKEN}`), { code: 'ECONNRESET' });
    const middle = new Error(`request with key ${API_KEY} failed`, { cause: root });
    const error = new TransportError(`POST failed for ${API_KEY}`, 'ECONNRESET', { cause: middle, command: 'login' });
    expectClean(error);
    expect(error.message).toContain(REDACTED);
    expect((error.cause as Error).cause).toMatchObject({ code: 'ECONNRESET' });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'transport_failed', networkCode: 'ECONNRESET', command: 'login' });
  });

  test('an AggregateError cause is scrubbed in every inner error', () => {
    const aggregate = new AggregateError([new Error(`a ${TOKEN}`), new Error(`b ${API_KEY}`)], 'connect failed');
    const error = new TransportError('connect failed', 'ECONNREFUSED', { cause: aggregate });
    expectClean(error);
    expect(inspect(error, { depth: 10 })).toContain(REDACTED);
  });

  test('service, validation and unexpected-reply errors', () => {
    expectClean(new ServiceError(`echo ${TOKEN}`, { command: 'list_blacklist', requestId: `rid-${TOKEN}` }));
    expectClean(new ValidationError('apiKey', API_KEY, `apiKey ${API_KEY} is odd`));
    expectClean(new UnexpectedReplyError(`body was ${API_KEY}`, `excerpt ${TOKEN}`, { status: 502 }));
  });

  test('a non-Error cause (a string) is scrubbed', () => {
    expectClean(new ServiceError('x', { cause: `raw ${TOKEN}` }));
  });

  test('a secret registered after the error was built is still scrubbed from inspect output', () => {
    const late = 'late-secret-6a1f0c';
    const error = new ServiceError(`mentions ${late}`);
    registerSecret(late);
    expect(inspect(error)).not.toContain(late);
    expect(JSON.stringify(error)).not.toContain(late);
  });
});

describe('errors thrown by the client', () => {
  let service: FakeService;
  let client: ManagementClient;

  afterEach(async () => {
    await client.close();
    await service.close();
  });

  test('a reply that echoes the key and token is reported without them', async () => {
    service = await startFakeService(
      withLogin(TOKEN, (request) => ({ status: 502, body: `proxy saw ${request.rawBody} key=${encodeURIComponent(API_KEY)}` })),
    );
    client = new ManagementClient({ baseUrl: service.url, apiKey: API_KEY, tenant: 'acme', retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await client.listEntries('blacklist').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedReplyError);
    expect((error as Error).message).toContain(REDACTED);
    expectClean(error);
  });

  test('a service Error quoting the token is reported without it', async () => {
    service = await startFakeService(withLogin(TOKEN, () => ({ body: { Error: `Bad request for token ${TOKEN}` } })));
    client = new ManagementClient({ baseUrl: service.url, apiKey: API_KEY, tenant: 'acme' });
    const error = await client.auditEvents(3).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expectClean(error);
  });

  test('a network failure during login is reported without the key', async () => {
    service = await startFakeService(() => 'reset');
    client = new ManagementClient({ baseUrl: service.url, apiKey: API_KEY, tenant: 'acme', retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await client.login().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expectClean(error);
  });
});
