/** Every list command for all three lists, upsert, canonical addresses and bulk rules, sent raw. */
import { LIST_NAMES, capitalise, type ListName } from '../../src/emulator/model';
import type { RunningEmulator } from '../../src/emulator/server';
import { session, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let call: Awaited<ReturnType<typeof session>>;

beforeEach(async () => {
  emulator = await startTestEmulator();
  call = await session(emulator);
});
afterEach(() => emulator.close());

const entry = (ip: string, description = 'test') => ({ ip, description, created: 1_700_000_000 });

describe.each(LIST_NAMES.map((list) => [list]))('%s', (list: ListName) => {
  const title = capitalise(list);

  test('new, get, list, delete round trip', async () => {
    expect((await call.lists(`new_${list}`, { entry: entry('192.0.2.10', 'first') })).json).toEqual({
      ok: `${title} entry for ip 192.0.2.10 added`,
    });
    const got = (await call.lists(`get_${list}`, { ip: '192.0.2.10' })).json.Ok as Record<string, unknown>;
    expect(got).toMatchObject({ ip: '192.0.2.10', description: 'first', created: 1_700_000_000 });
    if (list === 'blocklist') expect(got.expires).toBe(emulator.now() + 1800);
    else expect(got).not.toHaveProperty('expires');

    const listed = (await call.lists(`list_${list}`)).json.Ok as unknown[];
    expect(listed).toEqual([got]);

    expect((await call.lists(`delete_${list}`, { ip: '192.0.2.10' })).json).toEqual({
      Ok: `${title} entry for ip 192.0.2.10 removed`,
    });
    expect((await call.lists(`get_${list}`, { ip: '192.0.2.10' })).json).toEqual({
      Error: `${title} entry for ip 192.0.2.10 not found`,
    });
    expect((await call.lists(`delete_${list}`, { ip: '192.0.2.10' })).json).toEqual({
      Error: `${title} entry for ip 192.0.2.10 not found`,
    });
  });

  test('new_ on a listed ip replaces the description (upsert), no duplicate', async () => {
    await call.lists(`new_${list}`, { entry: entry('2001:db8::1', 'old') });
    await call.lists(`new_${list}`, { entry: entry('2001:DB8:0::1/128', 'new') });
    const listed = (await call.lists(`list_${list}`)).json.Ok as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ ip: '2001:db8::1', description: 'new' });
  });

  test('bulk_new_ and bulk_delete_ (absent ips skipped)', async () => {
    const entries = [entry('10.0.0.0/8'), entry('10.1.2.3'), entry('2001:db8:abcd::/48')];
    expect((await call.lists(`bulk_new_${list}`, { entries })).json).toEqual({ Ok: '3 entries added' });
    expect(((await call.lists(`list_${list}`)).json.Ok as unknown[]).length).toBe(3);
    const reply = await call.lists(`bulk_delete_${list}`, { ips: ['10.0.0.0/8', '10.1.2.3/32', '203.0.113.1'] });
    expect(reply.json).toEqual({ Ok: '2 entries removed' });
    expect((await call.lists(`list_${list}`)).json.Ok).toEqual([expect.objectContaining({ ip: '2001:db8:abcd::/48' })]);
  });

  test('bulk_new_ of exactly 1000 is accepted, 1001 refused', async () => {
    const thousand = Array.from({ length: 1000 }, (_, index) => entry(`10.9.${Math.floor(index / 256)}.${index % 256}`));
    expect((await call.lists(`bulk_new_${list}`, { entries: thousand })).json).toEqual({ Ok: '1000 entries added' });
    const tooMany = [...thousand, entry('10.8.0.1')];
    expect((await call.lists(`bulk_new_${list}`, { entries: tooMany })).json).toEqual({ Error: 'Too many entries: 1001 (max 1000)' });
    const ips = tooMany.map((item) => item.ip);
    expect((await call.lists(`bulk_delete_${list}`, { ips })).json).toEqual({ Error: 'Too many entries: 1001 (max 1000)' });
    expect(((await call.lists(`list_${list}`)).json.Ok as unknown[]).length).toBe(1000);
  });

  test('bulk_delete_ with one invalid ip removes nothing', async () => {
    await call.lists(`bulk_new_${list}`, { entries: [entry('192.0.2.1'), entry('192.0.2.2')] });
    const reply = await call.lists(`bulk_delete_${list}`, { ips: ['192.0.2.1', '192.0.2.300'] });
    expect(reply.json).toEqual({ Error: 'Invalid IP address or CIDR: 192.0.2.300' });
    expect(((await call.lists(`list_${list}`)).json.Ok as unknown[]).length).toBe(2);
  });

  test('bulk_new_ with one invalid entry adds nothing', async () => {
    const reply = await call.lists(`bulk_new_${list}`, { entries: [entry('192.0.2.1'), entry('192.0.2.1/24'), entry('192.0.2.2')] });
    expect(reply.json).toEqual({ Error: 'Invalid IP address or CIDR: 192.0.2.1/24' });
    expect((await call.lists(`list_${list}`)).json).toEqual({ Ok: [] });
    expect((await call.logs(10)).json).toEqual({ Ok: [] });
  });
});

describe('addresses are stored canonically', () => {
  const cases: Array<[name: string, sent: string, stored: string]> = [
    ['IPv4 /32 equals the bare address', '203.0.113.5/32', '203.0.113.5'],
    ['IPv6 upper case and long form compress', '2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['IPv6 /128 equals the bare address', '2001:db8::2/128', '2001:db8::2'],
    ['IPv4 range keeps its prefix', '198.51.100.0/24', '198.51.100.0/24'],
    ['IPv4-mapped IPv6 keeps the dotted tail', '::FFFF:192.0.2.1', '::ffff:192.0.2.1'],
  ];
  test.each(cases)('%s: %s -> %s', async (_name, sent, stored) => {
    const added = await call.lists('new_blacklist', { entry: entry(sent) });
    expect(added.json).toEqual({ ok: `Blacklist entry for ip ${stored} added` });
    expect((await call.lists('get_blacklist', { ip: stored })).json.Ok).toMatchObject({ ip: stored });
    expect((await call.lists('get_blacklist', { ip: sent })).json.Ok).toMatchObject({ ip: stored });
  });

  const invalid: Array<[name: string, value: unknown, message: string]> = [
    ['host bits set', '10.0.0.1/8', 'Invalid IP address or CIDR: 10.0.0.1/8'],
    ['not an address', 'example.com', 'Invalid IP address or CIDR: example.com'],
    ['octet above 255', '10.0.0.256', 'Invalid IP address or CIDR: 10.0.0.256'],
    ['empty', '', 'Invalid IP address or CIDR: '],
    ['a number, not a string', 17, 'Invalid IP address or CIDR: 17'],
  ];
  test.each(invalid)('%s is refused with the contract message', async (_name, value, message) => {
    expect((await call.lists('new_whitelist', { entry: { ip: value, description: '' } })).json).toEqual({ Error: message });
    expect((await call.lists('delete_whitelist', { ip: value })).json).toEqual({ Error: message });
    expect((await call.lists('list_whitelist')).json).toEqual({ Ok: [] });
  });
});

describe('request mistakes get an Error naming the problem', () => {
  const cases: Array<[name: string, command: string, fields: Record<string, unknown>, pattern: RegExp]> = [
    ['unknown command', 'new_greylist', {}, /Unknown command "new_greylist" for \/svc_api\/v2\/lists/],
    ['unknown tenant', 'list_blacklist', { customer_name: 'nobody' }, /^Unknown customer: nobody/],
    ['missing tenant', 'list_blacklist', { customer_name: undefined }, /^Missing field: customer_name/],
    ['missing entry', 'new_blacklist', {}, /^Missing field: entry/],
    ['description not a string', 'new_blacklist', { entry: { ip: '192.0.2.1', description: 5 } }, /entry\.description must be a string/],
    ['entries not an array', 'bulk_new_blacklist', { entries: 'x' }, /^Missing field: entries/],
    ['bad entry inside a bulk call', 'bulk_new_blacklist', { entries: [null] }, /entries\[0\] must be an object/],
    ['get without ip', 'get_blacklist', {}, /^Missing field: ip/],
    ['entry without ip', 'new_blacklist', { entry: { description: 'x' } }, /^Missing field: entry\.ip/],
    ['bulk delete with a null ip', 'bulk_delete_blacklist', { ips: ['192.0.2.1', null] }, /^Invalid IP address or CIDR: null$/],
  ];
  test.each(cases)('%s', async (_name, command, fields, pattern) => {
    const reply = await call.lists(command, fields);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json)).toEqual(['Error']);
    expect(reply.json.Error).toMatch(pattern);
  });

  test('an unknown tenant is never worded "not found" (clients read that as an absent entry)', async () => {
    const reply = await call.lists('get_blacklist', { customer_name: 'nobody', ip: '192.0.2.1' });
    expect(String(reply.json.Error)).not.toMatch(/not found/i);
  });
});

test('lists are per tenant', async () => {
  await call.lists('new_blacklist', { entry: entry('192.0.2.77') });
  const other = await call.lists('list_blacklist', { customer_name: 'globex' });
  expect(other.json).toEqual({ Ok: [] });
});
