/**
 * startEmulatorProcess: the real `svc-emulator` executable as a child process. Each case
 * starts a Node process (bin/svc-emulator.js), so the cases share processes where they can.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManagementClient } from '../../src/api/client';
import { EmulatorProcessError, startEmulatorProcess, type EmulatorProcess } from '../../src/emulator/child-process';

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-emulator-child-'));
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function health(url: string): Promise<unknown> {
  const response = await fetch(`${url}/_emulator/health`);
  return await response.json();
}

async function startFailure(options: Parameters<typeof startEmulatorProcess>[0]): Promise<EmulatorProcessError> {
  const outcome = await startEmulatorProcess(options).then(
    async (running) => {
      await running.kill();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(EmulatorProcessError);
  return outcome as EmulatorProcessError;
}

describe('a started emulator process', () => {
  let running: EmulatorProcess;
  const forwarded: string[] = [];

  beforeAll(async () => {
    running = await startEmulatorProcess({
      args: ['--tenant', 'acme', '--state-file', 'state.json'],
      apiKey: 'child-key-1',
      cwd: scratch,
      onStderr: (text) => forwarded.push(text),
    });
  });
  afterAll(async () => {
    await running.kill();
  });

  it('reports the URL and port of its first stdout line, on a free loopback port', async () => {
    expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
    expect(running.port).toBeGreaterThan(0);
    expect(await health(running.url)).toEqual({ ok: true });
  });

  it('passes the flags, the key and the working directory on (quick seed, relative state file)', async () => {
    const client = new ManagementClient({ baseUrl: running.url, apiKey: 'child-key-1', tenant: 'acme' });
    await client.addEntry('blacklist', { ip: '192.0.2.1', description: 'from the child-process test' });
    expect((await client.listEntries('blacklist')).map((entry) => entry.ip)).toEqual(['192.0.2.1']);
    await client.close();
    expect(fs.existsSync(path.join(scratch, 'state.json'))).toBe(true);
  });

  it('keeps the apiKey off the command line (ps shows the flags, not the key)', () => {
    const commandLine = execFileSync('ps', ['-o', 'args=', '-p', String(running.child.pid)], { encoding: 'utf8' });
    expect(commandLine).toContain('--tenant acme');
    expect(commandLine).not.toContain('child-key-1');
  });

  it('keeps reading stderr: request lines reach onStderr and stderr()', () => {
    expect(forwarded.join('')).toContain('new_blacklist');
    expect(running.stderr()).toContain('new_blacklist');
  });

  it('stop() sends SIGTERM and resolves once the emulator has exited 0 and its port is closed', async () => {
    await running.stop();
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.stderr()).toContain('SIGTERM received, shutting down');
    await expect(health(running.url)).rejects.toThrow();
    await running.stop(); // a second stop is harmless
  });
});

describe('failures', () => {
  it.each([
    { name: 'a bad flag value (exit 2)', args: ['--token-ttl', '0'], message: /exited with code 2 before it was listening; its stderr:\n.*--token-ttl must be a whole number/ },
    { name: 'a missing seed file (exit 2)', args: ['--config', 'no-such-seed.json'], message: /exited with code 2 before it was listening; its stderr:\n.*no-such-seed\.json/ },
  ])('rejects with the child stderr on $name', async ({ args, message }) => {
    const error = await startFailure({ args, cwd: scratch });
    expect(error.message).toMatch(message);
  });

  it('passes the environment on: a NODE_OPTIONS preload that fails stops the start, and its message is reported', async () => {
    const preload = path.join(scratch, 'fail-preload.js');
    fs.writeFileSync(preload, 'process.stderr.write("preload says no\\n"); process.exit(7);\n');
    const error = await startFailure({ env: { ...process.env, NODE_OPTIONS: `--require ${preload}` } });
    expect(error.message).toMatch(/exited with code 7 before it was listening; its stderr:\npreload says no/);
  });

  it('rejects when the first stdout line is not the listening line, and kills the child', async () => {
    const preload = path.join(scratch, 'chatty-preload.js');
    fs.writeFileSync(preload, 'process.stdout.write("hello from a preload\\n");\n');
    const error = await startFailure({ env: { ...process.env, NODE_OPTIONS: `--require ${preload}` } });
    expect(error.message).toBe('svc-emulator printed an unexpected first line: "hello from a preload"');
  });

  it('stop() kills hard and fails when the emulator outlives the grace period after SIGTERM', async () => {
    const preload = path.join(scratch, 'stubborn-preload.js');
    // The emulator exits through process.exit after SIGTERM; this one cannot, and a timer keeps it alive.
    fs.writeFileSync(preload, 'process.exit = () => undefined; setInterval(() => undefined, 1000);\n');
    const running = await startEmulatorProcess({ args: ['--quiet'], stopGraceMs: 200, env: { ...process.env, NODE_OPTIONS: `--require ${preload}` } });
    await expect(running.stop()).rejects.toThrow(/did not exit within 200 ms of SIGTERM and was killed; its stderr:\n.*SIGTERM received/);
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('kill() ends the emulator with SIGKILL', async () => {
    const running = await startEmulatorProcess({ args: ['--quiet'] });
    await running.kill();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
