/** The audit log: event shape, newest first, `limit` honoured, list named in descriptions. */
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, api, session, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let call: Awaited<ReturnType<typeof session>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
  call = await session(emulator);
  await call.lists('new_whitelist', { entry: { ip: '192.0.2.1', description: 'a', created: 0 } });
  emulator.advanceClock(5);
  await call.lists('new_blacklist', { entry: { ip: '192.0.2.2', description: 'b', created: 0 } });
  await call.lists('new_blacklist', { entry: { ip: '192.0.2.2', description: 'b2', created: 0 } });
  emulator.advanceClock(5);
  await call.lists('bulk_new_blocklist', { entries: [{ ip: '192.0.2.3', description: '', created: 0 }, { ip: '192.0.2.4', description: '', created: 0 }] });
  await call.lists('delete_whitelist', { ip: '192.0.2.1' });
});
afterAll(() => emulator.close());

test('events are newest first, one per entry, with the list named', async () => {
  const events = (await call.logs(100)).json.Ok as Array<Record<string, unknown>>;
  expect(events.map((event) => [event.action, event.description])).toEqual([
    ['remove_entry', '192.0.2.1 removed from whitelist'],
    ['new_entry', '192.0.2.4 added to blocklist'],
    ['new_entry', '192.0.2.3 added to blocklist'],
    ['new_entry', '192.0.2.2 added to blacklist'],
    ['new_entry', '192.0.2.2 added to blacklist'],
    ['new_entry', '192.0.2.1 added to whitelist'],
  ]);
  const timestamps = events.map((event) => event.timestamp as number);
  expect([...timestamps].sort((a, b) => b - a)).toEqual(timestamps);
  expect(timestamps[0] - timestamps[timestamps.length - 1]).toBeGreaterThanOrEqual(10);
  for (const event of events) {
    expect(event).toEqual({
      timestamp: expect.any(Number),
      user: 'ops@acme.example',
      category: 'Lists',
      action: expect.stringMatching(/^(new|remove)_entry$/),
      description: expect.any(String),
    });
  }
});

const limits: Array<[name: string, limit: number, count: number]> = [
  ['limit 1 gives the newest only', 1, 1],
  ['limit 3', 3, 3],
  ['limit above the count gives all', 50, 6],
  ['limit 0 gives none', 0, 0],
];
test.each(limits)('%s', async (_name, limit, count) => {
  const events = (await call.logs(limit)).json.Ok as Array<Record<string, unknown>>;
  expect(events).toHaveLength(count);
  if (count > 0) expect(events[0].action).toBe('remove_entry');
});

test('an invalid limit is an Error naming it', async () => {
  const reply = await api(emulator, 'logs', { command: 'audit_events', token: call.token, customer_name: TENANT, limit: -1 });
  expect(reply.json.Error).toMatch(/^Invalid limit: -1/);
});

test('each tenant has its own log', async () => {
  const reply = await api(emulator, 'logs', { command: 'audit_events', token: call.token, customer_name: 'globex', limit: 10 });
  expect(reply.json).toEqual({ Ok: [] });
});
