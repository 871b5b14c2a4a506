/**
 * Bulk calls are bounded by size as well as count, and descriptions by the shared rule
 * (src/description.ts), checked before anything is sent. Against the real emulator.
 */
import { ManagementClient, MAX_BULK_BODY_BYTES, splitIntoCalls } from '../../src/api/client';
import { ValidationError } from '../../src/api/errors';
import { MAX_DESCRIPTION_LENGTH, descriptionProblem } from '../../src/description';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';

const API_KEY = 'bulk-calls-test-key';
let emulator: RunningEmulator;
let client: ManagementClient;

beforeAll(async () => {
  emulator = await startEmulator({ seed: { tenants: [{ name: 'acme' }], users: [{ email: 'ops@acme.example', apiKey: API_KEY }] } });
  client = new ManagementClient({ baseUrl: emulator.url, apiKey: API_KEY, tenant: 'acme' });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('splitIntoCalls', () => {
  const items = (count: number, size: number) => Array.from({ length: count }, () => 'x'.repeat(size - 3));
  test.each<[string, string[], number, number, number[]]>([
    ['nothing: no calls', [], 1000, 1024, []],
    ['by count', items(2500, 10), 1000, 1_000_000, [1000, 1000, 500]],
    // Each item is 10 bytes of JSON plus a comma; 2 bytes for the brackets.
    ['by size', items(10, 10), 1000, 2 + 4 * 11, [4, 4, 2]],
    ['one item larger than the bound goes alone', ['x'.repeat(5000), 'y'], 1000, 1024, [1, 1]],
  ])('%s', (_name, input, maxItems, maxBytes, sizes) => {
    const calls = splitIntoCalls(input, maxItems, maxBytes);
    expect(calls.map((call) => call.length)).toEqual(sizes);
    expect(calls.flat()).toEqual(input);
    for (const call of calls.filter((each) => each.length > 1)) expect(Buffer.byteLength(JSON.stringify(call))).toBeLessThanOrEqual(maxBytes);
  });
});

test('1,000 entries whose JSON is over 4 MiB (the emulator refuses such a body) land in calls under 1 MiB', async () => {
  // U+1F6E1 is 4 bytes of UTF-8: 1,000 descriptions of 1,024 of them, about 4.1 MB with the rest of each entry.
  const description = '\u{1F6E1}'.repeat(MAX_DESCRIPTION_LENGTH);
  const entries = Array.from({ length: 1000 }, (_, index) => ({ ip: `10.9.${Math.floor(index / 250)}.${(index % 250) + 1}`, description }));
  emulator.resetStats();
  const result = await client.bulkAddEntries('blacklist', entries);
  expect(result.chunks).toBe(Math.ceil(1000 * (Buffer.byteLength(JSON.stringify(entries[0])) + 1) / MAX_BULK_BODY_BYTES));
  expect(emulator.stats().byCommand.bulk_new_blacklist).toBe(result.chunks);
  expect(await client.listEntries('blacklist')).toHaveLength(1000);
});

test('the emulator names a body over its size bound as such, not as too many entries', async () => {
  const response = await fetch(`${emulator.url}/svc_api/v2/lists`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ command: 'bulk_new_blacklist', token: 'x', entries: [{ ip: '10.0.0.1', description: 'z'.repeat(5 * 1024 * 1024) }] }),
  });
  const reply = (await response.json()) as { Error?: string };
  expect(reply.Error).toMatch(/^Request body too large: the emulator takes at most 4194304 bytes per call; split it into smaller calls$/);
});

describe('descriptions are checked before anything is sent', () => {
  test.each<[string, string, RegExp]>([
    ['over the limit', 'a'.repeat(MAX_DESCRIPTION_LENGTH + 1), /entries\[0\]\.description "a{100}"\.\.\. \(1025 characters\): is 1025 characters long; descriptions hold at most 1024/],
    ['an ESC sequence', 'scanner\u001b[31m', /entries\[0\]\.description "scanner\\u001b\[31m": holds the control character U\+001B at position 8/],
    ['a C1 control', 'a\u0085b', /U\+0085 at position 2/],
  ])('%s', async (_name, description, message) => {
    emulator.resetStats();
    const failure = await client.bulkAddEntries('whitelist', [{ ip: '192.0.2.1', description }]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect((failure as Error).message).toMatch(message);
    expect(emulator.stats().requests).toBe(0);
  });

  test.each<[string, string, boolean]>([
    ['empty', '', true],
    ['the longest allowed, in characters not bytes', 'é'.repeat(MAX_DESCRIPTION_LENGTH), true],
    ['a tab is a control character too', 'a\tb', false],
  ])('descriptionProblem: %s', (_name, text, fine) => {
    expect(descriptionProblem(text) === undefined).toBe(fine);
  });
});
