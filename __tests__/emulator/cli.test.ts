/** The svc-emulator command, as a child process and through its argument parser. */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { FLAGS, emulatorOptions, exposureWarning, helpText, main, parseArguments, CliUsageError, type CliIo } from '../../src/emulator/cli';
import { ADMIN_ROUTES } from '../../src/emulator/routes/admin';
import { track } from '../support/child-processes';

const BIN = path.resolve(__dirname, '../../bin/svc-emulator.js');
const LISTENING = /^svc-emulator listening on http:\/\/127\.0\.0\.1:(\d+)$/;

let directory: string;
beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-emulator-cli-'));
});
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Finished> {
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NODE_OPTIONS: '' } }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Started {
  child: ChildProcessWithoutNullStreams;
  firstLine: string;
  url: string;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<Finished>;
}

/** Starts the emulator and resolves with its first stdout line (or rejects with its stderr). */
function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = track(spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NODE_OPTIONS: '', ...env } }));
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (firstLine) => {
      stdout += `${firstLine}\n`;
      lines.on('line', (line) => (stdout += `${line}\n`));
      resolve({
        child,
        firstLine,
        url: firstLine.replace('svc-emulator listening on ', ''),
        stderr: () => stderr,
        stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
          child.kill(signal);
          const code = await closed;
          return { code, stdout, stderr };
        },
      });
    });
    void closed.then((code) => reject(new Error(`svc-emulator exited (${code}) before listening: ${stderr}`)));
  });
}

async function post(url: string, area: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${url}/svc_api/v2/${area}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as Record<string, any>;
}

test('quick flags: the first stdout line is exact, the contract is served, SIGTERM stops it cleanly', async () => {
  const emulator = await start(['--port', '0', '--tenant', 'acme', '--api-key', 'k1-secret-value']);
  expect(emulator.firstLine).toMatch(LISTENING);
  const login = await post(emulator.url, 'login', { command: 'login', api_token: 'k1-secret-value' });
  expect(login).toEqual({ Ok: { status: true, token: expect.any(String) } });
  const token = login.Ok.token as string;
  const added = await post(emulator.url, 'lists', { command: 'new_blacklist', token, customer_name: 'acme', entry: { ip: '192.0.2.1', description: '', created: 0 } });
  expect(added).toEqual({ ok: 'Blacklist entry for ip 192.0.2.1 added' });
  const channels = await post(emulator.url, 'channels', { command: 'list', token });
  expect(channels.Ok).toEqual([expect.objectContaining({ name: 'main' })]);

  const finished = await emulator.stop();
  expect(finished.code).toBe(0);
  expect(finished.stdout).toBe(`${emulator.firstLine}\n`);
  expect(finished.stderr).toContain('POST /svc_api/v2/lists new_blacklist');
  expect(finished.stderr).toContain('SIGTERM received');
  expect(finished.stderr).not.toContain('k1-secret-value');
  expect(finished.stderr).not.toContain(token);
  expect(finished.stderr).not.toContain('WARNING');
});

test('--api-key-file and SVC_EMULATOR_API_KEY seed the key without it on the command line', async () => {
  const keyFile = path.join(directory, 'quick-key.txt');
  fs.writeFileSync(keyFile, 'k-file-secret-value\n');
  const fromFile = await start(['--port', '0', '--quiet', '--tenant', 'acme', '--api-key-file', keyFile]);
  const fromEnvironment = await start(['--port', '0', '--quiet', '--tenant', 'acme'], { SVC_EMULATOR_API_KEY: 'k-env-secret-value' });
  for (const [emulator, key] of [[fromFile, 'k-file-secret-value'], [fromEnvironment, 'k-env-secret-value']] as const) {
    expect(await post(emulator.url, 'login', { command: 'login', api_token: key })).toEqual({ Ok: { status: true, token: expect.any(String) } });
    expect(execFileSync('ps', ['-o', 'args=', '-p', String(emulator.child.pid)], { encoding: 'utf8' })).not.toContain(key);
    const finished = await emulator.stop();
    expect(finished.code).toBe(0);
    expect(finished.stderr).not.toContain(key);
  }
});

test('a SIGTERM sent the moment the listening line arrives still shuts down cleanly (exit 0)', async () => {
  const emulator = await start(['--port', '0', '--quiet']);
  const finished = await emulator.stop('SIGTERM');
  expect(finished.code).toBe(0);
});

test('--config, --state-file, --token-ttl and --faults are wired, and state survives a restart', async () => {
  const config = path.join(directory, 'seed.json');
  const stateFile = path.join(directory, 'cli-state.json');
  fs.writeFileSync(config, JSON.stringify({
    tenants: [{ name: 'globex' }],
    users: [{ email: 'ro@globex.example', apiKey: 'ro-key', readOnly: true }, { email: 'rw@globex.example', apiKey: 'rw-key' }],
  }));
  const args = ['--port=0', '--config', config, '--state-file', stateFile, '--token-ttl', '60', '--faults', 'rate=0', '--quiet'];
  const first = await start(args);
  const token = (await post(first.url, 'login', { command: 'login', api_token: 'rw-key' })).Ok.token;
  await post(first.url, 'lists', { command: 'new_whitelist', token, customer_name: 'globex', entry: { ip: '192.0.2.7', description: 'kept', created: 0 } });
  const readOnlyToken = (await post(first.url, 'login', { command: 'login', api_token: 'ro-key' })).Ok.token;
  expect(await post(first.url, 'lists', { command: 'delete_whitelist', token: readOnlyToken, customer_name: 'globex', ip: '192.0.2.7' })).toEqual({
    Error: 'Permission denied: read-only user',
  });
  const faults = (await (await fetch(`${first.url}/_emulator/faults`)).json()) as { rate: number };
  expect(faults.rate).toBe(0);
  await fetch(`${first.url}/_emulator/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"advanceSeconds":61}' });
  expect(await post(first.url, 'lists', { command: 'list_whitelist', token, customer_name: 'globex' })).toEqual({
    Error: 'Token Expired. Please re-authenticate.',
  });
  const stopped = await first.stop();
  expect(stopped.code).toBe(0);
  // --quiet drops request lines; the shutdown notice stays.
  expect(stopped.stderr).not.toContain('/svc_api/');

  const second = await start(args);
  const again = (await post(second.url, 'login', { command: 'login', api_token: 'rw-key' })).Ok.token;
  expect(await post(second.url, 'lists', { command: 'list_whitelist', token: again, customer_name: 'globex' })).toEqual({
    Ok: [{ ip: '192.0.2.7', description: 'kept', created: 0 }],
  });
  expect((await second.stop()).code).toBe(0);
});

test('--host 0.0.0.0 starts with a warning that the emulator is exposed', async () => {
  const emulator = await start(['--port', '0', '--host', '0.0.0.0', '--quiet']);
  expect(emulator.firstLine).toMatch(/^svc-emulator listening on http:\/\/0\.0\.0\.0:\d+$/);
  const finished = await emulator.stop();
  expect(finished.stderr).toContain('svc-emulator: WARNING: listening on 0.0.0.0 exposes the emulator to every network this machine is on');
  expect(finished.stderr).toContain('need no token');
});

test.each([
  ['127.0.0.1', false],
  ['127.0.0.2', false],
  ['::1', false],
  ['localhost', false],
  ['::', true],
  ['192.0.2.10', true],
])('exposure warning for --host %s: %s', (host, warns) => {
  expect(exposureWarning(host) !== undefined).toBe(warns);
});

test('--help lists every flag and exits 0', async () => {
  const finished = await run(['--help']);
  expect(finished.code).toBe(0);
  for (const flag of FLAGS) expect(finished.stdout).toContain(flag.name);
  for (const name of ['--port', '--host', '--config', '--tenant', '--api-key', '--token-ttl', '--faults', '--state-file']) {
    expect(finished.stdout).toContain(name);
  }
  expect(finished.stdout).toContain('/_emulator/risk-block');
});

test('--help and help/emulator.md name every flag and every admin route the server has', () => {
  const page = fs.readFileSync(path.join(__dirname, '..', '..', 'help', 'emulator.md'), 'utf8');
  const help = helpText();
  for (const flag of FLAGS) expect(page).toContain(`| \`${flag.name}`);
  for (const route of ADMIN_ROUTES) {
    const [method, routePath] = route.split(' ');
    expect(help).toContain(routePath);
    // e.g. "GET|POST /_emulator/clock," covers both GET and POST of that path.
    expect(help).toMatch(new RegExp(`${method}(\\|[A-Z]+)* ${routePath}[,.]`));
    expect(page).toContain(`| \`${route}\``);
  }
});

const badInvocations: Array<[name: string, args: string[], pattern: RegExp]> = [
  ['port not a number', ['--port', 'abc'], /--port must be a whole number from 0 to 65535, got "abc"/],
  ['unknown flag', ['--colour', 'red'], /unknown flag "--colour"/],
  ['bad faults spec', ['--faults', 'rate=2'], /--faults rate must be a number from 0 to 1/],
];
test.each(badInvocations)('%s: a clear error on stderr, exit 2, nothing on stdout', async (_name, args, pattern) => {
  const finished = await run(args);
  expect(finished.code).toBe(2);
  expect(finished.stdout).toBe('');
  expect(finished.stderr).toMatch(pattern);
  expect(finished.stderr).toContain('svc-emulator --help');
});

test('a config file that fails validation exits 2 naming the file and field', async () => {
  const config = path.join(directory, 'bad-seed.json');
  fs.writeFileSync(config, JSON.stringify({ tenants: [{ name: 'a', active: 'yes' }] }));
  const finished = await run(['--port', '0', '--config', config]);
  expect(finished.code).toBe(2);
  expect(finished.stderr).toContain(`${config}: tenants[0].active must be a boolean`);
});

test('a port in use exits 1 with a message naming it', async () => {
  const holder = await start(['--port', '0', '--quiet']);
  const port = holder.url.split(':').pop() as string;
  const finished = await run(['--port', port]);
  expect(finished.code).toBe(1);
  expect(finished.stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`));
  const stopped = await holder.stop('SIGINT');
  expect(stopped.code).toBe(0);
  expect(stopped.stderr).toContain('SIGINT received');
});

describe('argument parsing', () => {
  const valid: Array<[name: string, args: string[], expected: Record<string, unknown>]> = [
    ['defaults', [], { port: 8080, host: '127.0.0.1', tokenTtlSeconds: 1800, quiet: false }],
    ['--flag value and --flag=value', ['--port', '0', '--token-ttl=90'], { port: 0, tokenTtlSeconds: 90 }],
    ['quick seed', ['--tenant', 'acme', '--api-key', 'k1'], { tenant: 'acme', apiKey: 'k1' }],
    ['faults short form', ['--faults', 'rate=0.2,kinds=429+reset,seed=7'], { faults: expect.objectContaining({ rate: 0.2, kinds: ['429', 'reset'], seed: 7 }) }],
    ['start time', ['--start-time', '1700000000'], { startTime: 1_700_000_000 }],
  ];
  test.each(valid)('%s', (_name, args, expected) => {
    const parsed = parseArguments(args);
    expect(parsed.kind).toBe('run');
    if (parsed.kind === 'run') expect(parsed.settings).toMatchObject(expected);
  });

  const invalid: Array<[name: string, args: string[], pattern: RegExp]> = [
    ['port above 65535', ['--port', '70000'], /--port must be a whole number from 0 to 65535, got "70000"/],
    ['negative port', ['--port', '-1'], /--port must be a whole number/],
    ['token TTL zero', ['--token-ttl', '0'], /--token-ttl must be a whole number from 1/],
    ['token TTL fraction', ['--token-ttl', '1.5'], /--token-ttl must be a whole number/],
    ['missing value', ['--config'], /--config needs a value <file>/],
    ['flag instead of value', ['--state-file', '--quiet'], /--state-file needs a value/],
    ['empty value', ['--host='], /--host needs a non-empty value/],
    ['value for a switch', ['--quiet=yes'], /--quiet takes no value/],
    ['api key without tenant', ['--api-key', 'k1'], /--api-key needs --tenant/],
    ['tenant without a key (none in the environment either)', ['--tenant', 'acme'], /--tenant needs --api-key <key>, --api-key-file <file> or SVC_EMULATOR_API_KEY/],
    ['api key file without tenant', ['--api-key-file', 'key.txt'], /--api-key-file needs --tenant/],
    ['both key flags', ['--tenant', 'acme', '--api-key', 'k1', '--api-key-file', 'key.txt'], /give the key once: --api-key or --api-key-file, not both/],
    ['positional argument', ['serve'], /unknown flag "serve"/],
  ];
  test.each(invalid)('%s is refused', (_name, args, pattern) => {
    expect(() => parseArguments(args, {})).toThrow(CliUsageError);
    expect(() => parseArguments(args, {})).toThrow(pattern);
  });

  const keySources: Array<[name: string, args: string[], env: NodeJS.ProcessEnv, expected: Record<string, unknown>]> = [
    ['SVC_EMULATOR_API_KEY gives the key to --tenant', ['--tenant', 'acme'], { SVC_EMULATOR_API_KEY: 'k-env' }, { tenant: 'acme', apiKey: 'k-env' }],
    ['--api-key wins over the environment', ['--tenant', 'acme', '--api-key', 'k-flag'], { SVC_EMULATOR_API_KEY: 'k-env' }, { apiKey: 'k-flag' }],
    ['--api-key-file wins over the environment (read at start)', ['--tenant', 'acme', '--api-key-file', 'key.txt'], { SVC_EMULATOR_API_KEY: 'k-env' }, { apiKey: null, apiKeyFile: 'key.txt' }],
    ['without --tenant the environment is not used', [], { SVC_EMULATOR_API_KEY: 'k-env' }, { tenant: null, apiKey: null }],
  ];
  test.each(keySources)('%s', (_name, args, env, expected) => {
    const parsed = parseArguments(args, env);
    expect(parsed.kind).toBe('run');
    // null: not set.
    if (parsed.kind === 'run') for (const [name, value] of Object.entries(expected)) expect([name, parsed.settings[name as keyof typeof parsed.settings]]).toEqual([name, value ?? undefined]);
  });

  test('--api-key-file: the first line is the key; an empty or missing file is refused without showing its content', () => {
    const settings = (args: string[]) => {
      const parsed = parseArguments(args, {});
      if (parsed.kind !== 'run') throw new Error('expected run');
      return parsed.settings;
    };
    const keyFile = path.join(directory, 'api-key.txt');
    fs.writeFileSync(keyFile, '  k-from-file  \nsecond line ignored\n');
    const options = emulatorOptions(settings(['--tenant', 'acme', '--api-key-file', keyFile]), () => undefined);
    expect(options.seed?.users).toEqual([expect.objectContaining({ apiKey: 'k-from-file' })]);

    const blank = path.join(directory, 'blank-key.txt');
    fs.writeFileSync(blank, '\nnot-the-first-line-secret\n');
    expect(() => emulatorOptions(settings(['--tenant', 'acme', '--api-key-file', blank]), () => undefined)).toThrow(`--api-key-file ${blank} has no key on its first line; write the key there`);
    const missing = path.join(directory, 'no-such-key.txt');
    expect(() => emulatorOptions(settings(['--tenant', 'acme', '--api-key-file', missing]), () => undefined)).toThrow(`--api-key-file ${missing} cannot be read (ENOENT); check the path`);
  });

  test('-h and --help ask for help', () => {
    expect(parseArguments(['-h'])).toEqual({ kind: 'help' });
    expect(parseArguments(['--port', '0', '--help'])).toEqual({ kind: 'help' });
  });
});

describe('main in-process (the same entry bin/svc-emulator.js runs)', () => {
  function io(): CliIo & { out: string[]; err: string[]; exited: Promise<number> } {
    let exit!: (code: number) => void;
    const exited = new Promise<number>((resolve) => (exit = resolve));
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, exited, stdout: (line) => out.push(line), stderr: (line) => err.push(line), exit };
  }

  test('--help: the help text, exit 0; a usage error: exit 2 pointing at --help', async () => {
    const help = io();
    await main(['--help'], help);
    expect(await help.exited).toBe(0);
    expect(help.out).toEqual([helpText()]);
    const usage = io();
    await main(['--port', 'abc'], usage);
    expect(await usage.exited).toBe(2);
    expect(usage.err).toEqual(['svc-emulator: --port must be a whole number from 0 to 65535, got "abc"\nRun "svc-emulator --help" for every flag.']);
  });

  test.each([
    ['a --config file that does not exist', (dir: string) => ['--config', path.join(dir, 'missing.json')], (dir: string) => `svc-emulator: --config ${path.join(dir, 'missing.json')} cannot be read (ENOENT)`],
    ['a --config file that is not JSON', (dir: string) => ['--config', path.join(dir, 'not-json.json')], (dir: string) => `svc-emulator: --config ${path.join(dir, 'not-json.json')} is not valid JSON: `],
  ])('%s: exit 2, the file named', async (_name, argv, message) => {
    fs.writeFileSync(path.join(directory, 'not-json.json'), '{ tenants');
    const run = io();
    await main(['--port', '0', '--quiet', ...argv(directory)], run);
    expect(await run.exited).toBe(2);
    expect(run.err).toHaveLength(1);
    expect(run.err[0]!.startsWith(message(directory))).toBe(true);
  });

  test('a state file that is not the emulator\'s: exit 1, the file named', async () => {
    const stateFile = path.join(directory, 'foreign-state.json');
    fs.writeFileSync(stateFile, '{"something": "else"}');
    const run = io();
    await main(['--port', '0', '--quiet', '--state-file', stateFile], run);
    expect(await run.exited).toBe(1);
    expect(run.err.join('\n')).toContain(stateFile);
  });

  test('starts with --config, --host and --quiet, prints the listening line, serves, and SIGTERM stops it with exit 0', async () => {
    const config = path.join(directory, 'in-process-seed.json');
    fs.writeFileSync(config, JSON.stringify({ tenants: [{ name: 'globex' }], users: [{ email: 'rw@globex.example', apiKey: 'in-process-key' }] }));
    const before = { int: process.listeners('SIGINT'), term: process.listeners('SIGTERM') };
    const run = io();
    await main(['--port', '0', '--host', '127.0.0.1', '--config', config, '--quiet'], run);
    const added = { int: process.listeners('SIGINT').filter((listener) => !before.int.includes(listener)), term: process.listeners('SIGTERM').filter((listener) => !before.term.includes(listener)) };
    try {
      expect(run.out).toHaveLength(1);
      const url = LISTENING.exec(run.out[0]!)![0].replace('svc-emulator listening on ', '');
      const login = await (await fetch(`${url}/svc_api/v2/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ command: 'login', api_token: 'in-process-key' }) })).json();
      expect(login).toMatchObject({ Ok: { status: true } });
      expect(run.err).toEqual([]);
      expect(added.term).toHaveLength(1);
      (added.term[0] as (signal: string) => void)('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(run.err).toEqual(['svc-emulator: SIGTERM received, shutting down']);
    } finally {
      for (const listener of added.int) process.removeListener('SIGINT', listener as () => void);
      for (const listener of added.term) process.removeListener('SIGTERM', listener as () => void);
    }
  });
});
