/**
 * The request deadline covers the reply's headers and its whole body, and the retry deadline
 * bounds the whole call: a server that sends its headers and then one byte at a time (a
 * slow-loris reply, which undici's per-chunk bodyTimeout never trips) is cut off, against a real
 * loopback server. The trickled bodies are long enough to take minutes, so a client that waited
 * for them would fail these tests by jest's timeout, not by a timed assertion.
 */
import { ManagementClient, type ClientLogEvent } from '../../src/api/client';
import { TransportError } from '../../src/api/errors';
import { startFakeService, withLogin, type FakeService } from './fake-service';

jest.setTimeout(30_000);

const API_KEY = 'deadline-test-api-key-51c2e0';
/** A valid list reply that takes 10 minutes to arrive at one character every 200 ms. */
const SLOW_BODY = JSON.stringify({ Ok: [{ ip: '192.0.2.1', description: 'x'.repeat(3000), created: 1 }] });

let service: FakeService | undefined;
let client: ManagementClient | undefined;

afterEach(async () => {
  await client?.close();
  await service?.close();
  client = undefined;
  service = undefined;
});

async function trickling(options: { requestTimeoutMs: number; retry: Partial<import('../../src/api/retry').RetryPolicy> }, events: ClientLogEvent[] = []) {
  service = await startFakeService(withLogin('tok-1', () => ({ trickle: SLOW_BODY, everyMs: 200 })));
  client = new ManagementClient({
    baseUrl: service.url,
    apiKey: API_KEY,
    tenant: 'acme',
    random: () => 0,
    logger: (event) => events.push(event),
    ...options,
  });
  return { service, client };
}

test('a body trickled after the headers fails with the request timeout, naming the missing body', async () => {
  const { service, client } = await trickling({ requestTimeoutMs: 1_000, retry: { maxAttempts: 1 } });
  const error = (await client.listEntries('blacklist').catch((caught: unknown) => caught)) as TransportError;
  expect(error).toBeInstanceOf(TransportError);
  expect(error.networkCode).toBe('SVC_REQUEST_TIMEOUT');
  expect(error.message).toMatch(/list_blacklist: POST http:\/\/127\.0\.0\.1:\d+\/svc_api\/v2\/lists failed: SVC_REQUEST_TIMEOUT \(HTTP 200 headers but no complete body within 1 s; a request, headers and body together, may take at most 1 s\)/);
  // Some of the body came, not all of it: the client gave up part-way and closed the connection.
  const { sent } = service.trickles();
  expect(sent).toBeGreaterThan(0);
  expect(sent).toBeLessThan(SLOW_BODY.length);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(service.trickles().cutOff).toBe(1);
});

test('the retry deadline bounds the whole call: the second attempt gets only what is left of it', async () => {
  const events: ClientLogEvent[] = [];
  // Five attempts of 1 s each would fit the attempts; the 1.5 s deadline allows the first whole
  // and what is left to the second, and no third.
  const { service, client } = await trickling(
    { requestTimeoutMs: 1_000, retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 1_500 } },
    events,
  );
  const error = (await client.listEntries('blacklist').catch((caught: unknown) => caught)) as TransportError;
  expect(error).toBeInstanceOf(TransportError);
  expect(error.networkCode).toBe('SVC_REQUEST_TIMEOUT');
  expect(service.commands('list_blacklist')).toHaveLength(2);
  // The second attempt was given less than the request timeout: what remained of the deadline.
  expect(error.message).toMatch(/no complete body within 0\.\d+ s; a request, headers and body together, may take at most 1 s/);
  expect(events.filter((event) => event.type === 'give-up')).toHaveLength(1);
});

test('a server that never sends headers is cut off by the same deadline', async () => {
  service = await startFakeService(withLogin('tok-1', () => 'hang'));
  client = new ManagementClient({ baseUrl: service.url, apiKey: API_KEY, tenant: 'acme', requestTimeoutMs: 300, retry: { maxAttempts: 1 } });
  await expect(client.listEntries('blacklist')).rejects.toMatchObject({
    networkCode: 'SVC_REQUEST_TIMEOUT',
    message: expect.stringMatching(/\(no reply headers within 0\.3 s;/),
  });
});
