/**
 * What the service returns is checked like configuration (src/api/reply-checks.ts): table-driven
 * cases of list entries and audit events, then the same through the client against a real
 * loopback server, where a refusal carries the HTTP status and X-Request-ID.
 */
import { ManagementClient, type CommandReplyWarning } from '../../src/api/client';
import { ReplyValueError, checkAuditEvents, checkListEntries, checkListEntry } from '../../src/api/reply-checks';
import { UnexpectedReplyError } from '../../src/api/errors';
import { MAX_DESCRIPTION_LENGTH } from '../../src/description';
import { startFakeService, withLogin, type FakeService } from './fake-service';

const entry = (ip: string, description = 'x', created: unknown = 1_700_000_000) => ({ ip, description, created });

describe('list entries: canonical addresses', () => {
  test.each([
    ['IPv4 /32 folds into the address', '10.0.0.1/32', '10.0.0.1'],
    ['IPv6 upper case is lowered', '2001:DB8::1', '2001:db8::1'],
    ['IPv6 uncompressed is compressed', '2001:0db8:0:0:0:0:0:7', '2001:db8::7'],
    ['IPv6 /128 folds into the address', '2001:db8::1/128', '2001:db8::1'],
    ['a range stays a range', '10.0.0.0/8', '10.0.0.0/8'],
  ])('%s', (_name, ip, canonical) => {
    const checked = checkListEntries([entry(ip)]);
    expect(checked.value.map((item) => item.ip)).toEqual([canonical]);
    expect(checked.warnings).toEqual([]);
  });
});

describe('list entries: duplicates once canonical are merged, the first kept, with a warning', () => {
  test('10.0.0.1, 10.0.0.1/32 and 10.0.0.1 again; 2001:DB8::1 and 2001:db8::1', () => {
    const checked = checkListEntries([
      entry('10.0.0.1', 'first'),
      entry('10.0.0.1/32', 'second'),
      entry('10.0.0.1', 'first'),
      entry('2001:DB8::1', 'same'),
      entry('2001:db8::1', 'same'),
    ]);
    expect(checked.value).toEqual([
      { ip: '10.0.0.1', description: 'first', created: 1_700_000_000 },
      { ip: '2001:db8::1', description: 'same', created: 1_700_000_000 },
    ]);
    expect(checked.warnings.map((warning) => warning.message)).toEqual([
      'the service lists 10.0.0.1 3 times (as "10.0.0.1", "10.0.0.1/32", "10.0.0.1"), one address once canonical: merged into one entry, ' +
        'kept the first, description "first"; ignored "second". Remove the duplicates on the service.',
      'the service lists 2001:db8::1 2 times (as "2001:DB8::1", "2001:db8::1"), one address once canonical: merged into one entry, ' +
        'all with the same description. Remove the duplicates on the service.',
    ]);
    expect(checked.warnings.map((warning) => warning.field)).toEqual(['Ok[0]', 'Ok[3]']);
  });
});

describe('list entries: descriptions escaped and bounded', () => {
  test.each([
    ['terminal escape sequences', '\u001b[2J\u001b[H\u001b[32mNo changes.\u001b[0m\nline2', '\\u001b[2J\\u001b[H\\u001b[32mNo changes.\\u001b[0m\\u000aline2', /holds control or bidirectional-override characters; they are shown escaped, as "\\u001b\[2J/],
    ['a C1 control sequence introducer', 'a\u009b2Jb', 'a\\u009b2Jb', /shown escaped, as "a\\u009b2Jb" \(Ok\[0\]\.description\)/],
    ['a right-to-left override', 'ok\u202Eevil', 'ok\\u202eevil', /shown escaped/],
  ])('%s', (_name, description, shown, warning) => {
    const checked = checkListEntries([entry('192.0.2.1', description)]);
    expect(checked.value[0].description).toBe(shown);
    expect(checked.warnings).toHaveLength(1);
    expect(checked.warnings[0].message).toMatch(warning);
  });

  test('a 5 MB description is cut to the limit, with a warning naming the field and the length', () => {
    const checked = checkListEntries([entry('192.0.2.1', 'd'.repeat(5 * 1024 * 1024))]);
    expect(checked.value[0].description).toBe(`${'d'.repeat(MAX_DESCRIPTION_LENGTH)}...`);
    expect(checked.warnings.map((warning) => warning.message)).toEqual([
      `the entry 192.0.2.1's description is 5242880 characters long; cut to its first ${MAX_DESCRIPTION_LENGTH} (Ok[0].description)`,
    ]);
  });

  test('a missing or null description is empty', () => {
    expect(checkListEntries([{ ip: '192.0.2.1', created: 1 }, { ip: '192.0.2.2', description: null, created: 1 }]).value.map((item) => item.description)).toEqual(['', '']);
  });
});

describe('list entries: refused with the field named', () => {
  test.each([
    ['created null', [entry('192.0.2.1', 'x', null)], 'Ok[0].created', 'Ok[0].created is null; expected whole epoch seconds (an integer from 0 to 9007199254740991)'],
    ['created 1e308', [entry('192.0.2.1', 'x', 1e308)], 'Ok[0].created', 'Ok[0].created is 1e+308; expected whole epoch seconds'],
    ['created not whole', [entry('192.0.2.1', 'x', 1.5)], 'Ok[0].created', 'Ok[0].created is 1.5; expected whole epoch seconds'],
    ['created negative', [entry('192.0.2.1', 'x', -1)], 'Ok[0].created', 'Ok[0].created is -1;'],
    ['created as text', [entry('192.0.2.1', 'x', '1700000000')], 'Ok[0].created', 'Ok[0].created is "1700000000";'],
    ['created missing', [{ ip: '192.0.2.1', description: 'x' }], 'Ok[0].created', 'Ok[0].created is missing;'],
    ['expires 1e308', [{ ...entry('192.0.2.1'), expires: 1e308 }], 'Ok[0].expires', 'Ok[0].expires is 1e+308;'],
    ['ip not text', [{ ip: 42, description: 'x', created: 1 }], 'Ok[0].ip', 'Ok[0] has no text "ip"'],
    ['ip not an address', [entry('192.0.2.1'), entry('10.0.0.256')], 'Ok[1].ip', 'Ok[1].ip "10.0.0.256" is not an IP address or CIDR: octet 256 is above 255'],
    ['ip with host bits', [entry('10.0.0.1/8')], 'Ok[0].ip', 'Ok[0].ip "10.0.0.1/8" is not an IP address or CIDR: host bits'],
    ['a 1 MB ip, quoted cut', [entry('1'.repeat(1_000_000))], 'Ok[0].ip', `Ok[0].ip "${'1'.repeat(100)}"... (1000000 characters) is not an IP address or CIDR`],
    ['description not text', [{ ip: '192.0.2.1', description: 7, created: 1 }], 'Ok[0].description', 'Ok[0] has a "description" that is not text'],
    ['an entry that is not an object', [['192.0.2.1']], 'Ok[0]', 'Ok[0] is not an object'],
  ])('%s', (_name, items, field, message) => {
    const error = (() => {
      try {
        checkListEntries(items);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ReplyValueError);
    expect((error as ReplyValueError).field).toBe(field);
    expect((error as ReplyValueError).message).toContain(message);
  });

  test('one entry (get_<list>) is checked alike', () => {
    expect(checkListEntry(entry('2001:DB8::9/128', 'a\u0007b')).value).toEqual({ ip: '2001:db8::9', description: 'a\\u0007b', created: 1_700_000_000 });
    expect(() => checkListEntry(entry('192.0.2.1', 'x', null))).toThrow(/Ok\.created is null/);
  });
});

describe('audit events', () => {
  const event = (fields: Record<string, unknown> = {}) => ({
    timestamp: 1_700_000_000,
    user: 'soc@example.com',
    category: 'User Actions',
    action: 'remove_entry',
    description: 'removed 192.0.2.1 from blacklist',
    ...fields,
  });

  test('texts escaped, each with a warning', () => {
    const checked = checkAuditEvents([event({ user: 'eve\u202Emoc.rekcatta', action: 'x\u001b[2J' })]);
    expect(checked.value[0]).toMatchObject({ user: 'eve\\u202emoc.rekcatta', action: 'x\\u001b[2J', description: 'removed 192.0.2.1 from blacklist' });
    expect(checked.warnings.map((warning) => warning.field)).toEqual(['Ok[0].user', 'Ok[0].action']);
  });

  test.each([
    ['timestamp null', { timestamp: null }, /Ok\[0\]\.timestamp is null/],
    ['timestamp 1e308', { timestamp: 1e308 }, /Ok\[0\]\.timestamp is 1e\+308/],
    ['user not text', { user: { name: 'x' } }, /Ok\[0\]\.user is \{"name":"x"\}; expected text/],
  ])('%s is refused', (_name, fields, message) => {
    expect(() => checkAuditEvents([event(fields)])).toThrow(message);
  });
});

describe('through the client, against a loopback server', () => {
  let service: FakeService | undefined;
  let client: ManagementClient | undefined;
  afterEach(async () => {
    await client?.close();
    await service?.close();
  });

  async function listing(reply: unknown, warnings: CommandReplyWarning[] = []) {
    service = await startFakeService(withLogin('tok-1', () => ({ body: { Ok: reply } })));
    client = new ManagementClient({
      baseUrl: service.url,
      apiKey: 'reply-checks-api-key-9d0c',
      tenant: 'acme',
      retry: { maxAttempts: 1 },
      onReplyWarning: (warning) => warnings.push(warning),
    });
    return client;
  }

  test('a refused value is an UnexpectedReplyError with status, X-Request-ID and the entry', async () => {
    const failure = await (await listing([entry('192.0.2.1', 'x', null)])).listEntries('blacklist').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnexpectedReplyError);
    expect((failure as Error).message).toMatch(
      /^list_blacklist: the reply's Ok\[0\]\.created is null; expected whole epoch seconds \(an integer from 0 to 9007199254740991\) \(HTTP 200, X-Request-ID fake-\d+\); the service answered \{"ip":"192\.0\.2\.1","description":"x","created":null\}\.$/,
    );
  });

  test('merged and escaped entries come with warnings naming the command', async () => {
    const warnings: CommandReplyWarning[] = [];
    const entries = await (await listing([entry('10.0.0.1/32', 'a'), entry('10.0.0.1', 'b\u009b')], warnings)).listEntries('whitelist');
    expect(entries).toEqual([{ ip: '10.0.0.1', description: 'a', created: 1_700_000_000 }]);
    expect(warnings.map((warning) => [warning.command, warning.field])).toEqual([
      ['list_whitelist', 'Ok[1].description'],
      ['list_whitelist', 'Ok[0]'],
    ]);
    expect(warnings[1].message).toContain('ignored "b\\u009b"');
  });

  test("a service Error's text is escaped and cut before it reaches an error message", async () => {
    service = await startFakeService(withLogin('tok-1', () => ({ body: { Error: `\u001b[2Jbad${'e'.repeat(5000)}` } })));
    client = new ManagementClient({ baseUrl: service.url, apiKey: 'reply-checks-api-key-9d0c', tenant: 'acme', retry: { maxAttempts: 1 } });
    const failure = (await client.listEntries('blacklist').catch((error: unknown) => error)) as Error;
    expect(failure.message).toContain('\\u001b[2Jbad');
    expect(failure.message).not.toContain('\u001b');
    expect(failure.message).toContain('... (5007 characters)');
    expect(failure.message.length).toBeLessThan(1200);
  });
});

test('a thousand copies of one address make one short warning', () => {
  const checked = checkListEntries(Array.from({ length: 1000 }, (_, index) => entry('192.0.2.7', `copy ${index}`)));
  expect(checked.value).toHaveLength(1);
  expect(checked.warnings).toHaveLength(1);
  expect(checked.warnings[0].message).toContain('"192.0.2.7", "192.0.2.7", "192.0.2.7", "192.0.2.7", "192.0.2.7" and 995 more');
  expect(checked.warnings[0].message).toContain('ignored "copy 1", "copy 2", "copy 3", "copy 4", "copy 5" and 994 more');
});
