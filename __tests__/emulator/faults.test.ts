/** Fault injection: each kind observed on the wire, the flag syntax, seeded determinism. */
import { EmulatorConfigError } from '../../src/emulator/errors';
import { FaultInjector, parseFaultSpec, type FaultKind } from '../../src/emulator/faults';
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, api, login, postRaw, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let token: string;

beforeEach(async () => {
  emulator = await startTestEmulator();
  token = await login(emulator);
  emulator.resetStats();
});
afterEach(() => emulator.close());

const addEntry = () =>
  api(emulator, 'lists', { command: 'new_blacklist', token, customer_name: TENANT, entry: { ip: '192.0.2.50', description: '', created: 0 } });

const httpFaults: Array<[kind: FaultKind, status: number, check: (reply: Awaited<ReturnType<typeof api>>) => void]> = [
  ['429', 429, (reply) => expect(reply.headers.get('retry-after')).toBe('0')],
  ['500', 500, (reply) => expect(reply.headers.get('content-type')).toMatch(/^text\/plain/)],
  ['503', 503, (reply) => expect(Object.keys(reply.json)).toEqual(['message'])],
];
test.each(httpFaults)('kind %s answers HTTP %s without Ok/Error, with X-Request-ID, and changes nothing', async (kind, status, check) => {
  emulator.setFaults({ rate: 1, kinds: [kind], retryAfterSeconds: 0 });
  const reply = await addEntry();
  expect(reply.status).toBe(status);
  expect(reply.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(reply.json).not.toHaveProperty('Ok');
  expect(reply.json).not.toHaveProperty('Error');
  check(reply);
  emulator.setFaults(undefined);
  expect((await api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT })).json).toEqual({ Ok: [] });
  expect(emulator.stats().faults[kind]).toBe(1);
});

test('429 carries Retry-After of the configured seconds (default 1)', async () => {
  emulator.setFaults({ rate: 1, kinds: ['429'] });
  expect((await addEntry()).headers.get('retry-after')).toBe('1');
  emulator.setFaults({ rate: 1, kinds: ['429'], retryAfterSeconds: 7 });
  expect((await addEntry()).headers.get('retry-after')).toBe('7');
});

test('kind reset destroys the connection without a reply, and changes nothing', async () => {
  emulator.setFaults({ rate: 1, kinds: ['reset'] });
  const failure = await addEntry().then(
    () => undefined,
    (error: Error & { cause?: { code?: string } }) => error,
  );
  // fetch's TypeError comes from another realm than jest's, so check by name, not instanceof.
  expect(failure?.name).toBe('TypeError');
  expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(failure?.cause?.code);
  emulator.setFaults(undefined);
  expect((await api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT })).json).toEqual({ Ok: [] });
  expect(emulator.stats()).toMatchObject({ requests: 2, faults: { reset: 1 }, byCommand: { list_blacklist: 1 } });
});

test('admin routes are never faulted, and the faults route sets and reports settings', async () => {
  const set = await postRaw(emulator.url, '/_emulator/faults', { rate: 1, kinds: ['500'], latencyMs: 0, seed: 3 });
  expect(set.json).toEqual({ rate: 1, kinds: ['500'], retryAfterSeconds: 1, latencyMs: 0, seed: 3 });
  expect((await fetch(`${emulator.url}/_emulator/health`)).status).toBe(200);
  expect((await addEntry()).status).toBe(500);
  expect((await postRaw(emulator.url, '/_emulator/faults', { rate: 0 })).json).toMatchObject({ rate: 0 });
  expect((await addEntry()).json).toEqual({ ok: 'Blacklist entry for ip 192.0.2.50 added' });
  const refused = await postRaw(emulator.url, '/_emulator/faults', { rate: 2 });
  expect(refused.status).toBe(400);
  expect(refused.json.Error).toMatch(/rate must be a number from 0 to 1/);
});

test('the settings GET reports can be posted back unchanged', async () => {
  emulator.setFaults({ rate: 0.5, kinds: ['503'] });
  const reported = await (await fetch(`${emulator.url}/_emulator/faults`)).json();
  const posted = await postRaw(emulator.url, '/_emulator/faults', reported);
  expect(posted.status).toBe(200);
  expect(posted.json).toEqual(reported);
});

test('latency is added to API requests (lower bound only)', async () => {
  emulator.setFaults({ rate: 0, latencyMs: 60 });
  const started = Date.now();
  await addEntry();
  expect(Date.now() - started).toBeGreaterThanOrEqual(55);
});

test('with a seed, the same settings pick the same faults, near the rate', () => {
  const picks = (seed: number) => {
    const injector = new FaultInjector({ rate: 0.2, seed });
    return Array.from({ length: 2000 }, () => injector.pick() ?? 'none');
  };
  const first = picks(7);
  expect(picks(7)).toEqual(first);
  expect(picks(8)).not.toEqual(first);
  const faulted = first.filter((pick) => pick !== 'none');
  expect(faulted.length).toBeGreaterThan(300);
  expect(faulted.length).toBeLessThan(500);
  for (const kind of ['429', '500', '503', 'reset']) expect(faulted).toContain(kind);
});

describe('--faults syntax', () => {
  const valid: Array<[name: string, spec: string, expected: Record<string, unknown>]> = [
    ['short form, every key', 'rate=0.2,kinds=429+500+503+reset,latency=20,retry-after=0,seed=7',
      { rate: 0.2, kinds: ['429', '500', '503', 'reset'], latencyMs: 20, retryAfterSeconds: 0, seed: 7 }],
    ['rate alone: all kinds, defaults', 'rate=0.5', { rate: 0.5, kinds: ['429', '500', '503', 'reset'], latencyMs: 0, retryAfterSeconds: 1, seed: null }],
    ['one kind', 'rate=1,kinds=reset', { rate: 1, kinds: ['reset'] }],
    ['JSON form', '{"rate":0.1,"kinds":["503"],"retryAfterSeconds":2}', { rate: 0.1, kinds: ['503'], retryAfterSeconds: 2 }],
  ];
  test.each(valid)('%s', (_name, spec, expected) => {
    expect(parseFaultSpec(spec)).toMatchObject(expected);
  });

  const invalid: Array<[name: string, spec: string, pattern: RegExp]> = [
    ['rate above 1', 'rate=1.5', /rate must be a number from 0 to 1/],
    ['rate not a number', 'rate=lots', /rate must be a number from 0 to 1 .*got "lots"/],
    ['no rate', 'kinds=429', /needs rate=/],
    ['unknown kind', 'rate=0.1,kinds=429+418', /kind "418" is unknown/],
    ['unknown key', 'rate=0.1,colour=red', /not key=value with key one of/],
    ['an inherited name as key', 'rate=0.1,toString=3', /part "toString=3" is not key=value with key one of/],
    ['negative latency', 'rate=0.1,latency=-5', /latencyMs must be a whole number/],
    ['broken JSON', '{"rate":', /not valid JSON/],
    ['unknown JSON setting', '{"rate":0.1,"burst":3}', /unknown setting "burst"/],
  ];
  test.each(invalid)('%s is refused', (_name, spec, pattern) => {
    expect(() => parseFaultSpec(spec)).toThrow(EmulatorConfigError);
    expect(() => parseFaultSpec(spec)).toThrow(pattern);
  });
});
