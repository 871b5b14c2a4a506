/**
 * `svc entries|audit|sso` against the real emulator over HTTP: every verb, import of YAML, JSON
 * and CSV through the bulk commands, hostile descriptions escaped, a bad key (exit 1, the key
 * never printed, also from the real bin/svc.js), an unreachable service, and bad input to every
 * command named in the error.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/pipeline/svc-cli';
import { planImport } from '../../src/pipeline/svc/entries-command';
import { csvCells } from '../../src/pipeline/svc/entry-import-file';
import { escapeUntrusted, forMarkdown, safeJson } from '../../src/pipeline/untrusted-text';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { startFakeService, withLogin } from '../api/fake-service';
import { track } from '../support/child-processes';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const KEY = 'svc-cli-test-key-4f1e';
const READER_KEY = 'svc-cli-test-reader-9c2a';
const REPOSITORY = path.resolve(__dirname, '..', '..');

let emulator: RunningEmulator;
let directory: string;

beforeEach(async () => {
  emulator = await startEmulator({
    seed: {
      tenants: [{ name: 'acme' }],
      channels: [{ name: 'main' }, { name: 'eu' }],
      users: [
        { email: 'ops@acme.example', apiKey: KEY, active: true, readOnly: false },
        { email: 'audit@acme.example', apiKey: READER_KEY, active: true, readOnly: true },
      ],
    },
  });
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-entries-'));
});

afterEach(async () => {
  await emulator.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function svc(argv: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { SVC_BASE_URL: emulator.url, SVC_TENANT: 'acme', SVC_API_KEY: KEY, SVC_MAX_RETRIES: '0', ...env },
    workingDirectory: directory,
  });
  return { code, stdout, stderr };
}

/** Writes through the raw API, as another tool or the console would: nothing checks the description. */
async function rawAdd(list: string, ip: string, description: string): Promise<void> {
  const post = async (area: string, body: unknown) => (await fetch(`${emulator.url}/svc_api/v2/${area}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, any>>;
  const token = (await post('login', { command: 'login', api_token: KEY })).Ok.token as string;
  const reply = await post('lists', { command: `new_${list}`, token, customer_name: 'acme', entry: { ip, description, created: 1_700_000_000 } });
  expect(reply.ok ?? reply.Ok).toBeDefined();
}

describe('svc entries against the emulator', () => {
  test('add, re-describe, get, list, delete: each says what it did', async () => {
    expect(await svc(['entries', 'add', 'blacklist', '203.0.113.9/32', '--description', 'scanner'])).toMatchObject({ code: 0, stdout: 'added 203.0.113.9 to the blacklist\n' });
    expect(await svc(['entries', 'add', 'blacklist', '203.0.113.9', '--description=scanner, SEC-1'])).toMatchObject({
      code: 0,
      stdout: '203.0.113.9 on the blacklist: description changed from "scanner" to "scanner, SEC-1"\n',
    });
    expect((await svc(['entries', 'add', 'blacklist', '203.0.113.9', '--description', 'scanner, SEC-1'])).stdout).toMatch(/already holds 203\.0\.113\.9 with that description; nothing changed/);
    const got = await svc(['entries', 'get', 'blacklist', '203.0.113.9', '--format', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ ip: '203.0.113.9', description: 'scanner, SEC-1' });
    const listed = await svc(['entries', 'list', 'blacklist']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^IP\s+CREATED\s+DESCRIPTION$/);
    expect(listed.stdout).toMatch(/^203\.0\.113\.9\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+scanner, SEC-1$/m);
    expect(await svc(['entries', 'delete', 'blacklist', '203.0.113.9'])).toMatchObject({ code: 0, stdout: 'removed 203.0.113.9 ("scanner, SEC-1") from the blacklist\n' });
    expect(await svc(['entries', 'delete', 'blacklist', '203.0.113.9'])).toMatchObject({ code: 1, stderr: 'svc entries: the blacklist holds no entry for 203.0.113.9; nothing removed\n' });
    expect(await svc(['entries', 'get', 'blacklist', '203.0.113.9'])).toMatchObject({ code: 1, stderr: 'svc entries: the blacklist holds no entry for 203.0.113.9\n' });
    expect(JSON.parse((await svc(['entries', 'list', 'blacklist', '--format', 'json'])).stdout)).toEqual([]);
  });

  test('descriptions written through the raw API reach the terminal escaped: no ESC, C1 or bidi control', async () => {
    await rawAdd('whitelist', '192.0.2.7', '\u001b[2J\u001b[H\u001b[32mNo changes.\u001b[0m\nline2 \u009b31m \u202egro.live');
    for (const format of ['text', 'json']) {
      const listed = await svc(['entries', 'list', 'whitelist', '--format', format]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
      expect(listed.stdout).not.toMatch(/^line2/m);
    }
    // The client escapes control and bidi characters at its boundary (src/api/reply-checks.ts), as visible text.
    expect((await svc(['entries', 'list', 'whitelist'])).stdout).toContain('\\u001b[2J\\u001b[H\\u001b[32mNo changes.\\u001b[0m\\u000aline2 \\u009b31m \\u202egro.live');
    // And says so on stderr, as the provider does: what is printed is not what the service holds.
    for (const argv of [['entries', 'list', 'whitelist'], ['entries', 'get', 'whitelist', '192.0.2.7', '--format', 'json']]) {
      const run = await svc(argv);
      expect(run.stderr).toMatch(/^svc: warning: (list|get)_whitelist for tenant "acme": .*192\.0\.2\.7's description holds control or bidirectional-override characters; they are shown escaped.*fix the entry on the service/m);
      expect(run.stderr).not.toMatch(/[\u001b\u009b\u202e]/);
    }
    // The JSON holds the same, escaped, text.
    expect(JSON.parse((await svc(['entries', 'list', 'whitelist', '--format', 'json'])).stdout)[0].description).toBe('\\u001b[2J\\u001b[H\\u001b[32mNo changes.\\u001b[0m\\u000aline2 \\u009b31m \\u202egro.live');
  });

  test('a reply with one address twice (non-canonical spellings) is merged, and stderr says so; stdout lists it once', async () => {
    // The emulator never answers so: a scripted stand-in for the service does.
    const service = await startFakeService(
      withLogin('fake-session-token', (request) =>
        request.body.command === 'list_blacklist'
          ? { body: { Ok: [{ ip: '192.0.2.1', description: 'first', created: 1_700_000_000 }, { ip: '192.0.2.1/32', description: 'second', created: 1_700_000_001 }] } }
          : { body: { Error: `not scripted: ${String(request.body.command)}` } },
      ),
    );
    try {
      const run = await svc(['entries', 'list', 'blacklist', '--format', 'json'], { SVC_BASE_URL: service.url });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ ip: '192.0.2.1', description: 'first' })]);
      expect(run.stderr).toMatch(/^svc: warning: list_blacklist for tenant "acme": .*one address once canonical: merged into one entry/m);
    } finally {
      await service.close();
    }
  });

  test('import: YAML, JSON and CSV through the bulk commands; a dry run exits 2 and changes nothing; --prune removes the rest', async () => {
    await svc(['entries', 'add', 'blocklist', '198.51.100.1', '--description', 'old']);
    await svc(['entries', 'add', 'blocklist', '198.51.100.99', '--description', 'not in the file']);
    fs.writeFileSync(path.join(directory, 'block.yaml'), 'entries:\n  - ip: 198.51.100.1\n    description: new\n  - ip: 198.51.100.2\n');
    const dry = await svc(['entries', 'import', 'blocklist', 'block.yaml', '--dry-run', '--prune']);
    expect(dry).toMatchObject({ code: 2 });
    expect(dry.stdout).toContain('2 entries in block.yaml for the blocklist: 1 to add, 1 to re-describe, 1 to remove, 0 unchanged');
    expect(dry.stdout).toContain('  ~ 198.51.100.1  old -> new');
    expect(dry.stdout).toContain('  - 198.51.100.99');
    expect(JSON.parse((await svc(['entries', 'list', 'blocklist', '--format', 'json'])).stdout)).toHaveLength(2);

    const done = await svc(['entries', 'import', 'blocklist', 'block.yaml', '--prune']);
    expect(done).toMatchObject({ code: 0 });
    expect(done.stdout).toContain('done: 1 added, 1 re-described, 1 removed on the blocklist');
    const after = JSON.parse((await svc(['entries', 'list', 'blocklist', '--format', 'json'])).stdout) as Array<{ ip: string; description: string }>;
    expect(after.map(({ ip, description }) => ({ ip, description })).sort((a, b) => a.ip.localeCompare(b.ip))).toEqual([
      { ip: '198.51.100.1', description: 'new' },
      { ip: '198.51.100.2', description: '' },
    ]);
    const audit = JSON.parse((await svc(['audit', '--limit', '20', '--format', 'json'])).stdout) as Array<{ action: string }>;
    expect(audit.length).toBeGreaterThan(2);

    fs.writeFileSync(path.join(directory, 'allow.json'), JSON.stringify([{ ip: '2001:DB8::1', description: 'office v6' }]));
    fs.writeFileSync(path.join(directory, 'allow.csv'), 'ip,description\n192.0.2.10,"partner, EU"\n192.0.2.0/28,range\n');
    expect((await svc(['entries', 'import', 'whitelist', 'allow.json'])).code).toBe(0);
    expect((await svc(['entries', 'import', 'whitelist', 'allow.csv'])).code).toBe(0);
    const again = await svc(['entries', 'import', 'whitelist', 'allow.csv', '--dry-run']);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('0 to add, 0 to re-describe, 0 to remove, 2 unchanged');
    const whitelist = JSON.parse((await svc(['entries', 'list', 'whitelist', '--format', 'json'])).stdout) as Array<{ ip: string; description: string }>;
    expect(Object.fromEntries(whitelist.map((entry) => [entry.ip, entry.description]))).toEqual({
      '2001:db8::1': 'office v6',
      '192.0.2.10': 'partner, EU',
      '192.0.2.0/28': 'range',
    });
  });

  test('import of 2,500 entries goes in bulk calls of at most 1,000', async () => {
    const lines = ['ip,description', ...Array.from({ length: 2500 }, (_, index) => `10.${Math.floor(index / 250)}.${index % 250}.1,bulk ${index}`)];
    fs.writeFileSync(path.join(directory, 'many.csv'), `${lines.join('\n')}\n`);
    const run = await svc(['entries', 'import', 'blacklist', 'many.csv']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('added: 2500/2500 (call 3 of 3)');
    expect(JSON.parse((await svc(['entries', 'list', 'blacklist', '--format', 'json'])).stdout)).toHaveLength(2500);
  });

  test('sso show: the tenant and the channels, with what the settings mean', async () => {
    const tenant = await svc(['sso', 'show', 'tenant']);
    expect(tenant).toMatchObject({ code: 0 });
    expect(tenant.stdout).toContain('tenant acme:\n  enabled            false\n');
    expect(tenant.stdout).toContain('SSO off: users sign in with their password');
    const channels = JSON.parse((await svc(['sso', 'show', 'channel', '--format', 'json'])).stdout) as Array<{ name: string }>;
    expect(channels.map((channel) => channel.name).sort()).toEqual(['eu', 'main']);
    expect(await svc(['sso', 'show', 'channel', 'nope'])).toMatchObject({ code: 1, stderr: 'svc sso: no channel named "nope"\n' });
  });

  test('entries of the blocklist show when they expire; get in text is the same table', async () => {
    expect((await svc(['entries', 'add', 'blocklist', '198.51.100.7', '--description', 'scanner'])).code).toBe(0);
    const listed = await svc(['entries', 'list', 'blocklist']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^IP +CREATED +EXPIRES +DESCRIPTION$/);
    expect(listed.stdout).toMatch(/^198\.51\.100\.7 +\d{4}-\d\d-\d\dT\S+ +\d{4}-\d\d-\d\dT\S+ +scanner$/m);
    const got = await svc(['entries', 'get', 'blocklist', '198.51.100.7']);
    expect(got).toMatchObject({ code: 0, stdout: listed.stdout });
    expect((await svc(['entries', 'list', 'whitelist'])).stdout).toBe('the whitelist is empty\n');
  });

  test('audit in text: a table of the newest events, and a note when the limit cut it; "--" ends the options', async () => {
    expect((await svc(['entries', 'add', 'blacklist', '--description', 'first', '--', '203.0.113.1'])).code).toBe(0);
    expect((await svc(['entries', 'add', 'blacklist', '203.0.113.2', '--description', 'second'])).code).toBe(0);
    const all = await svc(['audit']);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout.split('\n')[0]).toMatch(/^TIME +USER +EVENT +DESCRIPTION$/);
    expect(all.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+ +ops@acme\.example +Lists\/new_entry +.*203\.0\.113\.1/m);
    const one = await svc(['audit', '--limit', '1']);
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    expect(one.stdout).toContain('203.0.113.2');
    expect(one.stderr).toBe('(1 events shown; older ones exist or may exist: --limit up to 10000)\n');
  });

  test('svc help COMMAND and svc --help print the usage on stdout and exit 0', async () => {
    const help = await svc(['help', 'audit']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: svc audit/);
    const general = await svc(['--help']);
    expect(general).toMatchObject({ code: 0, stderr: '' });
    expect(general.stdout).toMatch(/^Usage: svc <command>/);
  });

  test('sso show: SSO on (required or not) says what it means; tenant and channel names that do not exist, and a service without channels, are named', async () => {
    const other = await startEmulator({
      seed: {
        tenants: [
          { name: 'acme', sso: { enabled: true, required: true, saml_metadata_url: 'https://idp.example/acme' } },
          { name: 'globex', sso: { enabled: true, required: false, saml_metadata_url: 'https://idp.example/globex' } },
        ],
        channels: [],
        users: [{ email: 'ops@acme.example', apiKey: KEY, active: true, readOnly: false }],
      },
    } as Parameters<typeof startEmulator>[0]);
    try {
      const env = { SVC_BASE_URL: other.url };
      const required = await svc(['sso', 'show', 'tenant'], env);
      expect(required).toMatchObject({ code: 0 });
      expect(required.stdout).toBe(
        'tenant acme:\n  enabled            true\n  required           true\n  saml_metadata_url  https://idp.example/acme\n' +
          '  SSO required: password sign-in to the dashboard is refused; everyone signs in through the identity provider\n',
      );
      expect((await svc(['sso', 'show', 'tenant', 'globex'], env)).stdout).toContain('  SSO on, not required: users may sign in through the identity provider or with their password\n');
      expect(await svc(['sso', 'show', 'tenant', 'initech'], env)).toMatchObject({ code: 1, stderr: 'svc sso: no tenant named "initech" is visible to this key\n' });
      expect(await svc(['sso', 'show', 'channel'], env)).toMatchObject({ code: 1, stderr: 'svc sso: the service lists no channels\n' });
    } finally {
      await other.close();
    }
  });

  test('a read-only key: reads work, a write fails naming the cause', async () => {
    expect((await svc(['entries', 'list', 'whitelist'], { SVC_API_KEY: READER_KEY })).code).toBe(0);
    const refused = await svc(['entries', 'add', 'whitelist', '192.0.2.1'], { SVC_API_KEY: READER_KEY });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/read-only/);
  });
});

test('the raw curl requests of help/client.md work as written', async () => {
  await svc(['entries', 'add', 'blacklist', '203.0.113.9', '--description', 'from svc']);
  const page = fs.readFileSync(path.join(REPOSITORY, 'help', 'client.md'), 'utf8');
  const block = /### The raw requests, with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(page)![1]!;
  const run = await new Promise<Run>((resolve) => {
    const child = track(spawn('bash', ['-euo', 'pipefail', '-c', block], { env: { PATH: process.env.PATH, SVC_BASE_URL: emulator.url, SVC_TENANT: 'acme', SVC_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('"description": "from svc"');
  expect(run.stdout).toContain('"Ok":"Blacklist entry for ip 203.0.113.9 removed"');
  expect(JSON.parse((await svc(['entries', 'list', 'blacklist', '--format', 'json'])).stdout)).toEqual([]);
});

describe('failures: exit 1, one clear line, never the key', () => {
  test('a bad key', async () => {
    const secret = 'not-the-key-7d1b9e';
    const run = await svc(['entries', 'list', 'blacklist'], { SVC_API_KEY: secret });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc entries: login refused for tenant "acme".*check SVC_API_KEY and SVC_TENANT="acme"/);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  test('an unreachable service', async () => {
    const closed = await startEmulator({ seed: { tenants: [{ name: 'acme' }], users: [] } });
    const url = closed.url;
    await closed.close();
    const run = await svc(['audit'], { SVC_BASE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ECONNREFUSED');
    expect(run.stderr).toContain(`check SVC_BASE_URL=${url}`);
  });

  test('the real bin/svc.js: a bad key exits 1 and prints no key; --help exits 0', async () => {
    const secret = 'bin-bad-key-31c5d';
    const spawned = (argv: string[], env: NodeJS.ProcessEnv) =>
      new Promise<Run>((resolve) => {
        const child = track(spawn(process.execPath, [path.join(REPOSITORY, 'bin', 'svc.js'), ...argv], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    const bad = await spawned(['entries', 'list', 'blacklist'], { SVC_BASE_URL: emulator.url, SVC_TENANT: 'acme', SVC_API_KEY: secret, SVC_MAX_RETRIES: '0' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/login refused/);
    expect(bad.stdout + bad.stderr).not.toContain(secret);
    const help = await spawned(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc <command>/);
    expect(help.stdout).toContain('entries');
  }, testTimeoutFor(STEP_BUDGET_MS.binCommand, STEP_BUDGET_MS.binCommand));

  const cases: Array<[name: string, argv: string[], env: Record<string, string | undefined>, message: RegExp]> = [
    ['no command', [], {}, /Usage: svc <command>/],
    ['an unknown command', ['frobnicate'], {}, /unknown command "frobnicate"/],
    ['entries with no verb', ['entries'], {}, /say what to do: svc entries list\|get\|add\|delete\|import/],
    ['an unknown verb', ['entries', 'purge', 'blacklist'], {}, /unknown verb "purge"/],
    ['no list', ['entries', 'list'], {}, /LIST is missing/],
    ['a list that is not one', ['entries', 'list', 'denylist'], {}, /LIST "denylist" is not a list; give one of blacklist, blocklist, whitelist/],
    ['no address', ['entries', 'get', 'blacklist'], {}, /IP is missing/],
    ['a bad address', ['entries', 'add', 'blacklist', '10.0.0.300'], {}, /IP "10.0.0.300" is not an IPv4 or IPv6 address.*octet 300/],
    ['host bits set', ['entries', 'delete', 'whitelist', '10.0.0.1/8'], {}, /IP "10.0.0.1\/8" is not an IPv4 or IPv6 address/],
    ['a control character in a description', ['entries', 'add', 'blacklist', '192.0.2.1', '--description', 'a\u001bb'], {}, /--description holds the control character U\+001B/],
    ['an extra argument', ['entries', 'list', 'blacklist', 'whitelist'], {}, /unexpected argument "whitelist"/],
    ['an unknown option', ['entries', 'list', 'blacklist', '--limit', '3'], {}, /unknown option "--limit"; run svc entries list --help/],
    ['a bad format', ['entries', 'list', 'blacklist', '--format', 'yaml'], {}, /--format "yaml": expected text, json/],
    ['an option without its value', ['entries', 'add', 'blacklist', '192.0.2.1', '--description'], {}, /--description needs a value/],
    ['a key on the command line', ['entries', 'list', 'blacklist', '--api-key=hunter2'], {}, /--api-key: svc takes the API key from SVC_API_KEY only/],
    ['import with no file', ['entries', 'import', 'blacklist'], {}, /FILE is missing/],
    ['import of a missing file', ['entries', 'import', 'blacklist', 'nope.yaml'], {}, /nope\.yaml: cannot be read \(ENOENT\)/],
    ['import of an unknown extension', ['entries', 'import', 'blacklist', 'list.txt'], {}, /has the extension "\.txt"; give a \.yaml, \.yml, \.json or \.csv file/],
    ['audit: a limit of 0', ['audit', '--limit', '0'], {}, /--limit "0": expected a whole number from 1 to 10000/],
    ['audit: a limit that is not a number', ['audit', '--limit=ten'], {}, /--limit "ten": expected a whole number/],
    ['sso without a verb', ['sso'], {}, /say what to do: svc sso show tenant\|channel/],
    ['sso show of something else', ['sso', 'show', 'user'], {}, /"user": say tenant or channel/],
    ['sso with another verb', ['sso', 'list'], {}, /unknown verb "list"; the one verb is show/],
    ['an option given twice', ['entries', 'list', 'blacklist', '--format', 'json', '--format=text'], {}, /--format is given twice; give it once/],
    ['a flag given a value', ['entries', 'import', 'blacklist', 'x.csv', '--dry-run=yes'], {}, /--dry-run is a flag and takes no value/],
    ['no base URL', ['entries', 'list', 'blacklist'], { SVC_BASE_URL: undefined }, /SVC_BASE_URL is not set/],
    ['a base URL that is not one', ['entries', 'list', 'blacklist'], { SVC_BASE_URL: 'svc.example.com' }, /SVC_BASE_URL is not an http\(s\) URL/],
    ['http:// to another host', ['entries', 'list', 'blacklist'], { SVC_BASE_URL: 'http://svc.example.com' }, /SVC_BASE_URL is http:\/\/ to svc\.example\.com.*SVC_ALLOW_INSECURE_HTTP=1/],
    ['credentials in the base URL', ['entries', 'list', 'blacklist'], { SVC_BASE_URL: 'https://admin:pw@svc.example.com' }, /SVC_BASE_URL holds a user name or password/],
    ['no tenant', ['audit'], { SVC_TENANT: '' }, /SVC_TENANT is not set/],
    ['no key', ['audit'], { SVC_API_KEY: undefined }, /SVC_API_KEY is not set; export the API key from your secret store/],
    ['bad retries', ['audit'], { SVC_MAX_RETRIES: 'many' }, /SVC_MAX_RETRIES "many": expected a whole number from 0 to 10/],
  ];
  test.each(cases)('%s', async (_name, argv, env, message) => {
    const run = await svc(argv, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stderr.split('\n').filter((line) => line.startsWith('    at '))).toEqual([]);
  });

  test('bad lines of an import file are named by file, line and field before anything is sent', async () => {
    const files: Array<[name: string, text: string, message: RegExp]> = [
      ['a.yaml', '- ip: 192.0.2.1\n- ip: 10.0.0.300\n', /a\.yaml:2: \[1\]\.ip: "10\.0\.0\.300" is not an IPv4/],
      ['b.json', '[{"ip": "192.0.2.1",}]', /b\.json:1: is not valid JSON/],
      ['c.csv', 'ip,description\n192.0.2.1,ok\n192.0.2.x,bad\n', /c\.csv:3: ip: "192\.0\.2\.x" is not an IPv4/],
      ['d.csv', '192.0.2.1,"unclosed\n', /d\.csv:1: a quoted field is not closed/],
      ['e.csv', 'ip,owner\n', /e\.csv:1: unknown column "owner"/],
      ['f.csv', '192.0.2.1,a\n192.0.2.1/32,b\n', /f\.csv:2: 192\.0\.2\.1\/32 is the same address as 192\.0\.2\.1 at \S*f\.csv:1/],
      ['g.csv', '192.0.2.1,a,b\n', /g\.csv:1: 3 fields; a line holds ip,description/],
      ['h.csv', '192.0.2.1,"quoted" then text\n', /h\.csv:1: text after the closing quote of column 2; quote the whole field/],
      ['i.csv', '192.0.2.1,say "hi"\n', /i\.csv:1: a quote inside an unquoted field \(column 2\)/],
      ['j.csv', 'description\nscanner\n', /j\.csv:1: the header has no ip column/],
      ['k.csv', 'ip,description\n,scanner\n', /k\.csv:2: ip is empty; every line needs an address/],
      ['l.csv', '192.0.2.1,"bell\u0007"\n', /l\.csv:1: description holds the control character U\+0007/],
    ];
    for (const [name, text, message] of files) {
      fs.writeFileSync(path.join(directory, name), text);
      const run = await svc(['entries', 'import', 'blacklist', name]);
      expect({ name, code: run.code }).toEqual({ name, code: 1 });
      expect(run.stderr).toMatch(message);
    }
    expect(JSON.parse((await svc(['entries', 'list', 'blacklist', '--format', 'json'])).stdout)).toEqual([]);
  });
});

describe('pieces', () => {
  test.each([
    ['plain', 'a,b', ['a', 'b']],
    ['quoted with a comma and a quote', '"a, ""b""",c', ['a, "b"', 'c']],
    ['an empty last field', 'a,', ['a', '']],
    ['one field', '192.0.2.1', ['192.0.2.1']],
  ])('csvCells: %s', (_name, line, cells) => expect(csvCells(line)).toEqual(cells));

  test('planImport: re-describes only what differs, prunes only with --prune', () => {
    const file = [
      { ip: '192.0.2.1', canonical: '192.0.2.1', description: 'same', where: 'f:1' },
      { ip: '192.0.2.2', canonical: '192.0.2.2', description: 'new text', where: 'f:2' },
      { ip: '192.0.2.3', canonical: '192.0.2.3', description: '', where: 'f:3' },
    ];
    const current = [
      { ip: '192.0.2.1', description: 'same', created: 1 },
      { ip: '192.0.2.2', description: 'old text', created: 1 },
      { ip: '192.0.2.9', description: 'other', created: 1 },
    ];
    expect(planImport(file, current, false)).toEqual({ add: [file[2]], redescribe: [{ entry: file[1], was: 'old text' }], unchanged: 1, remove: [] });
    expect(planImport(file, current, true).remove).toEqual(['192.0.2.9']);
  });

  test('escaping: terminal, Markdown and JSON', () => {
    expect(escapeUntrusted('a\u001b[2Jb\u009bc\u202ed\\u{41}')).toBe('a\\u{001B}[2Jb\\u{009B}c\\u{202E}d\\\\u{41}');
    expect(forMarkdown('x | <details> @team [a](b) `c` https://x.example')).toBe('x &#124; &lt;details&gt; &#64;team \\[a\\](b) \\`c\\` https&#58;//x.example');
    expect(safeJson({ d: '\u202e\u009b\n' }, 0)).toBe('{"d":"\\u202e\\u009b\\n"}');
    expect(JSON.parse(safeJson({ d: '\u202e\u009b\n' }))).toEqual({ d: '\u202e\u009b\n' });
  });
});
