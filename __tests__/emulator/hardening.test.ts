/**
 * The emulator is run by users (it is the embedded default), so it must hold against a web page,
 * a DNS-rebinding host and hostile client input: admin routes refuse browser-shaped requests,
 * unknown command names cannot grow memory or forge log lines, a failed login does not rewrite
 * the state file, and the clock moves forward by bounded steps only.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_CLOCK_ADVANCE_SECONDS } from '../../src/emulator/clock';
import { promisify } from 'node:util';
import { EmulatorConfigError } from '../../src/emulator/errors';
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, WRITER_KEY, api, login, postRaw, startTestEmulator } from './helpers';
import { commandOnPath, testRequiring } from '../support/requirements';

const execFileAsync = promisify(execFile);

let directory: string;
const running: RunningEmulator[] = [];
beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-emulator-hardening-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  fs.rmSync(directory, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startTestEmulator>[0] = {}): Promise<RunningEmulator> {
  const emulator = await startTestEmulator(options);
  running.push(emulator);
  return emulator;
}

/** A raw request with headers fetch would not let a test set (Host). */
function rawRequest(
  url: string,
  method: string,
  requestPath: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: { Error?: string } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${requestPath}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const RISK_BLOCK = JSON.stringify({ tenant: TENANT, ip: '203.0.113.5' });

describe('admin routes refuse what a browser or a rebinding host would send', () => {
  const refused: Array<[name: string, headers: Record<string, string>, status: number, pattern: RegExp]> = [
    ['a cross-site page (Origin)', { 'Content-Type': 'application/json', Origin: 'https://evil.example' }, 403, /refuse requests from web pages \(Origin "https:\/\/evil\.example"\)/],
    ['a same-looking Origin too', { 'Content-Type': 'application/json', Origin: 'http://127.0.0.1' }, 403, /Origin "http:\/\/127\.0\.0\.1"/],
    ['a DNS name in Host (rebinding)', { 'Content-Type': 'application/json', Host: 'rebind.evil.example:8080' }, 403, /not Host "rebind\.evil\.example:8080"/],
    ['a form post (text/plain)', { 'Content-Type': 'text/plain' }, 415, /need Content-Type: application\/json, got "text\/plain"/],
    ['a form post (urlencoded)', { 'Content-Type': 'application/x-www-form-urlencoded' }, 415, /got "application\/x-www-form-urlencoded"/],
    ['no Content-Type', {}, 415, /got none/],
  ];
  test.each(refused)('%s: refused, nothing blocked', async (_name, headers, status, pattern) => {
    const emulator = await start();
    const reply = await rawRequest(emulator.url, 'POST', '/_emulator/risk-block', headers, RISK_BLOCK);
    expect(reply.status).toBe(status);
    expect(reply.json.Error).toMatch(pattern);
    const token = await login(emulator);
    const lists = await Promise.all(['list_blocklist', 'list_blacklist'].map((command) => api(emulator, 'lists', { command, token, customer_name: TENANT })));
    for (const list of lists) expect(list.json).toEqual({ Ok: [] });
  });

  const allowed: Array<[name: string, host: (port: number) => string]> = [
    ['127.0.0.1 with port', (port) => `127.0.0.1:${port}`],
    ['localhost with port', (port) => `localhost:${port}`],
    ['LOCALHOST without port', () => 'LOCALHOST'],
    ['[::1] with port', (port) => `[::1]:${port}`],
    ['another IP address', () => '10.1.2.3:8080'],
  ];
  test.each(allowed)('Host %s is accepted', async (_name, host) => {
    const emulator = await start();
    const reply = await rawRequest(emulator.url, 'POST', '/_emulator/risk-block', { 'Content-Type': 'application/json; charset=utf-8', Host: host(emulator.port) }, RISK_BLOCK);
    expect(reply).toEqual({ status: 200, json: { list: 'blocklist', blocks: 1 } });
  });

  test('a GET needs no Content-Type but is refused with an Origin', async () => {
    const emulator = await start();
    expect((await rawRequest(emulator.url, 'GET', '/_emulator/stats', {})).status).toBe(200);
    expect((await rawRequest(emulator.url, 'GET', '/_emulator/stats', { Origin: 'https://evil.example' })).status).toBe(403);
  });
});

test('unknown command names do not grow the stats, and "constructor" is only a name', async () => {
  const emulator = await start();
  const long = 'x'.repeat(100_000);
  for (let index = 0; index < 50; index += 1) await api(emulator, 'lists', { command: `${long}${index}` });
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const reply = await api(emulator, 'customers', { command: name });
    expect(reply.status).toBe(200);
    expect(reply.json.Error).toMatch(new RegExp(`^Unknown command "${name}"`));
  }
  const stats = emulator.stats();
  expect(stats.byCommand).toEqual({});
  expect(stats.unknownCommands).toBe(54);
  expect(JSON.stringify(stats).length).toBeLessThan(500);
  // A known command counts normally after all that.
  await login(emulator);
  expect(emulator.stats().byCommand).toEqual({ login: 1 });
});

test('a command name with a newline cannot forge a log line', async () => {
  const lines: string[] = [];
  const emulator = await start({ log: (line) => lines.push(line) });
  const forged = 'x\nPOST /svc_api/v2/lists delete_blacklist -> 200 1ms request-id=forged\u2028\u001b[2J';
  await api(emulator, 'lists', { command: forged });
  const text = lines.join('\n');
  expect(text.split('\n')).toHaveLength(lines.length);
  expect(text).not.toMatch(/^POST \/svc_api\/v2\/lists delete_blacklist/m);
  expect(text).not.toContain('\u001b');
  expect(text).not.toContain('\u2028');
  expect(text).toContain('"x\\nPOST /svc_api/v2/lists delete_blacklist');
});

test('a failed login leaves the state file alone; a good one saves the session', async () => {
  const stateFile = path.join(directory, 'state.json');
  const emulator = await start({ stateFile });
  const before = fs.statSync(stateFile);
  const content = fs.readFileSync(stateFile, 'utf8');
  for (let index = 0; index < 20; index += 1) {
    expect((await api(emulator, 'login', { command: 'login', api_token: `wrong-${index}` })).json).toEqual({ Ok: { status: false } });
  }
  const after = fs.statSync(stateFile);
  expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  expect(fs.readFileSync(stateFile, 'utf8')).toBe(content);
  await login(emulator, WRITER_KEY);
  expect(fs.readFileSync(stateFile, 'utf8')).not.toBe(content);
});

describe('the clock moves forward by bounded steps', () => {
  test('the admin route refuses more than ten years and leaves the clock', async () => {
    const emulator = await start();
    const before = emulator.now();
    const reply = await postRaw(emulator.url, '/_emulator/clock', { advanceSeconds: MAX_CLOCK_ADVANCE_SECONDS + 1 });
    expect(reply.status).toBe(400);
    expect(reply.json.Error).toBe(`advanceSeconds must be a number from 0 to ${MAX_CLOCK_ADVANCE_SECONDS} (ten years; the clock only moves forward), got ${MAX_CLOCK_ADVANCE_SECONDS + 1}`);
    expect(emulator.now() - before).toBeLessThan(5);
    expect((await postRaw(emulator.url, '/_emulator/clock', { advanceSeconds: MAX_CLOCK_ADVANCE_SECONDS })).status).toBe(200);
  });

  test('no step passes 9999-12-31, through the library either', async () => {
    const emulator = await start({ startTime: 253_402_300_000 });
    expect(() => emulator.advanceClock(800)).toThrow(EmulatorConfigError);
    expect(() => emulator.advanceClock(800)).toThrow(/passes 253402300799 \(9999-12-31\)/);
    expect(() => emulator.advanceClock(799)).not.toThrow();
  });

  test('a start time past 9999 is refused at start', async () => {
    await expect(startTestEmulator({ startTime: 1e15 })).rejects.toThrow(/startTime must be epoch seconds from 0 to 253402300799 \(9999-12-31\), got 1000000000000000/);
  });
});

testRequiring([commandOnPath('curl')])('the curl lines help/ gives for admin routes pass the guard (run with curl)', async () => {
  const lines = ['help/emulator.md', 'help/provider.md'].flatMap((page) =>
    fs.readFileSync(path.resolve(__dirname, '../..', page), 'utf8').split('\n').filter((line) => /^curl .*\/_emulator\//.test(line)),
  );
  expect(lines).toHaveLength(2);
  const emulator = await start();
  const before = emulator.now();
  for (const line of lines) {
    // Asynchronous: the emulator answers from this process's event loop.
    const { stdout } = await execFileAsync('bash', ['-c', line.replaceAll('127.0.0.1:8080', `127.0.0.1:${emulator.port}`)], { timeout: 10_000, killSignal: 'SIGKILL' });
    expect(JSON.parse(stdout)).not.toHaveProperty('Error');
  }
  expect(emulator.now() - before).toBeGreaterThanOrEqual(3600);
  expect(emulator.riskBlock(TENANT, '203.0.113.77').blocks).toBe(2);
});
