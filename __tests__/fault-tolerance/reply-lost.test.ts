/**
 * The hard fault: a write that lands on the server and whose reply is lost (the emulator's
 * opt-in kind `reset-after`). On the wire first, then through the ManagementClient: every write
 * retried after it landed converges (adds are upserts, deletes of an already-removed entry
 * count as done), with nothing lost and nothing duplicated.
 */
import { ManagementClient } from '../../src/api/client';
import type { ListName } from '../../src/api/types';
import { parseFaultSpec } from '../../src/emulator/faults';
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, WRITER_KEY, api, login, startTestEmulator } from '../emulator/helpers';

let emulator: RunningEmulator;
const issuedTokens: string[] = [];

let loseOneReplyOnly = false;

beforeEach(async () => {
  issuedTokens.length = 0;
  loseOneReplyOnly = false;
  emulator = await startTestEmulator({
    onTokenIssued: (token) => issuedTokens.push(token),
    // The request line is logged in the same turn as the reset, before any retry can arrive.
    log: (line) => {
      if (loseOneReplyOnly && line.includes('injected-fault-after-command')) emulator.setFaults(undefined);
    },
  });
});
afterEach(() => emulator.close());

function newClient(): ManagementClient {
  // Short waits: the point is the outcome of each retry, not the backoff.
  return new ManagementClient({ baseUrl: emulator.url, apiKey: WRITER_KEY, tenant: TENANT, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
}

describe('kind reset-after on the wire', () => {
  test('the command runs and its change is kept, then the connection is reset without a reply', async () => {
    const token = await login(emulator);
    emulator.setFaults({ rate: 1, kinds: ['reset-after'] });
    const failure = await api(emulator, 'lists', {
      command: 'new_blacklist',
      token,
      customer_name: TENANT,
      entry: { ip: '192.0.2.7', description: 'landed', created: 0 },
    }).then(
      () => undefined,
      (error: Error & { cause?: { code?: string } }) => error,
    );
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(failure?.cause?.code);
    emulator.setFaults(undefined);
    const listed = await api(emulator, 'lists', { command: 'list_blacklist', token, customer_name: TENANT });
    expect(listed.json).toEqual({ Ok: [{ ip: '192.0.2.7', description: 'landed', created: 0 }] });
    expect(emulator.stats()).toMatchObject({ faults: { 'reset-after': 1, reset: 0 }, byCommand: { new_blacklist: 1, list_blacklist: 1 } });
  });

  test('is opt-in: not among the default kinds, and the stats list it only once it happened', () => {
    expect(parseFaultSpec('rate=0.2').kinds).toEqual(['429', '500', '503', 'reset']);
    expect(parseFaultSpec('rate=0.2,kinds=429+reset-after').kinds).toEqual(['429', 'reset-after']);
    expect(emulator.stats().faults).toEqual({ 429: 0, 500: 0, 503: 0, reset: 0 });
  });

  test('onTokenIssued hands a test every session token, and only those', async () => {
    const first = await login(emulator);
    const second = await login(emulator);
    expect(issuedTokens).toEqual([first, second]);
  });
});

describe('the client converges when the reply to a landed write is lost', () => {
  const LIST: ListName = 'blacklist';
  let client: ManagementClient;
  beforeEach(() => {
    client = newClient();
  });
  afterEach(() => client.close());

  /** Faults only the next API request (after the client has its token). */
  async function loseNextReply(): Promise<void> {
    await client.login();
    loseOneReplyOnly = true;
    emulator.setFaults({ rate: 1, kinds: ['reset-after'] });
  }

  const cases: Array<[name: string, setup: (client: ManagementClient) => Promise<unknown>, write: (client: ManagementClient) => Promise<unknown>, expected: Array<{ ip: string; description: string }>, sent: Record<string, number>]> = [
    ['an add is sent again and stored once', async () => undefined, (c) => c.addEntry(LIST, { ip: '192.0.2.1', description: 'once' }), [{ ip: '192.0.2.1', description: 'once' }], { new_blacklist: 2 }],
    ['a delete is sent again and counts as done', (c) => c.addEntry(LIST, { ip: '192.0.2.2', description: '' }), (c) => c.deleteEntry(LIST, '192.0.2.2'), [], { delete_blacklist: 2 }],
    [
      'a bulk add is sent again and stores each entry once',
      async () => undefined,
      (c) => c.bulkAddEntries(LIST, [{ ip: '192.0.2.3', description: 'a' }, { ip: '192.0.2.4', description: 'b' }]),
      [{ ip: '192.0.2.3', description: 'a' }, { ip: '192.0.2.4', description: 'b' }],
      { bulk_new_blacklist: 2 },
    ],
    [
      'a bulk delete is sent again and succeeds',
      (c) => c.bulkAddEntries(LIST, [{ ip: '192.0.2.5' }, { ip: '192.0.2.6', description: 'kept' }]),
      (c) => c.bulkDeleteEntries(LIST, ['192.0.2.5']),
      [{ ip: '192.0.2.6', description: 'kept' }],
      { bulk_delete_blacklist: 2 },
    ],
  ];

  test.each(cases)('%s', async (_name, setup, write, expected, sent) => {
    await setup(client);
    emulator.resetStats();
    await loseNextReply();
    await write(client);
    emulator.setFaults(undefined);
    const stats = emulator.stats();
    expect(stats.faults['reset-after']).toBe(1);
    expect(stats.byCommand).toMatchObject(sent);
    expect(client.stats().retries).toBe(1);
    expect((await client.listEntries(LIST)).map(({ ip, description }) => ({ ip, description }))).toEqual(expected);
  });
});

describe('a fresh token that expires while the client backs off from another fault', () => {
  test('is renewed again instead of failing the call as "refused right after a fresh login"', async () => {
    const ttl = 60;
    await emulator.close();
    let step: 'idle' | 'fault-after-login' | 'expire-after-fault' = 'idle';
    emulator = await startTestEmulator({
      tokenTtlSeconds: ttl,
      // Log lines come in the same turn as the reply is sent, before the client's next attempt.
      log: (line) => {
        if (step === 'fault-after-login' && line.includes(' login Ok')) {
          step = 'expire-after-fault';
          emulator.setFaults({ rate: 1, kinds: ['503'] });
        } else if (step === 'expire-after-fault' && line.includes('injected-fault')) {
          step = 'idle';
          emulator.setFaults(undefined);
          emulator.advanceClock(ttl);
        }
      },
    });
    const client = newClient();
    try {
      await client.login();
      // The token expires; the add is refused, logs in again, meets a 503, and while it backs
      // off the fresh token expires too: a token error that is not "right after" the login.
      emulator.advanceClock(ttl);
      step = 'fault-after-login';
      await client.addEntry('blacklist', { ip: '192.0.2.9', description: 'after two renewals' });
      expect(client.stats()).toMatchObject({ logins: 3, reauthentications: 2, retries: 1 });
      expect(byIpOf(await client.listEntries('blacklist'))).toEqual({ '192.0.2.9': 'after two renewals' });
    } finally {
      await client.close();
    }
  });
});

function byIpOf(entries: ReadonlyArray<{ ip: string; description?: string }>): Record<string, string> {
  return Object.fromEntries(entries.map((entry) => [entry.ip, entry.description ?? '']));
}
