/**
 * The bench's start-up floor (scripts/bench/handshake-floor.js) made into a single executable
 * of the release's Node by makeSingleExecutable, as `npm run bench` makes it: it starts with no
 * node on PATH, prints a go-plugin handshake line, and its server really does mutual TLS (a
 * floor without TLS would make the provider's start look worse than it is). bench.test.ts
 * checks the figure; this checks what it times.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { DEFAULT_CACHE_DIR, fetchNode, makeSingleExecutable } from '../../scripts/release/build';
import { generateCertificate } from '../../src/provider/protocol/certificate';

const repository = path.resolve(__dirname, '..', '..');
jest.setTimeout(120_000);

let scratch: string;
let floor: string;
let child: ChildProcess | undefined;
const server = generateCertificate();
const client = generateCertificate({ hostname: 'terraform' });

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-floor-test-'));
  floor = path.join(scratch, 'handshake-floor');
  // The release's pinned Node, from where npm run release keeps it.
  makeSingleExecutable(fetchNode(process.arch as 'x64' | 'arm64', DEFAULT_CACHE_DIR), path.join(repository, 'scripts', 'bench', 'handshake-floor.js'), floor);
});

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    const closed = new Promise((resolve) => child?.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Resolves once the server answers a PING over mutual TLS; rejects on any session or socket error, or a close before the answer. */
function ping(socketPath: string, certificate?: { cert: string; key: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = http2.connect('https://localhost', {
      createConnection: () => tls.connect({ path: socketPath, servername: 'localhost', ca: server.certificatePem, ALPNProtocols: ['h2'], ...certificate }),
    });
    session.once('error', (error) => {
      session.destroy();
      reject(error);
    });
    session.once('close', () => reject(new Error('the server closed the connection')));
    // A PING sent before the session is up is cancelled, not queued.
    session.once('connect', () =>
      session.ping((error) => {
        session.close();
        if (error) reject(error);
        else resolve();
      }),
    );
  });
}

test('starts with no node on PATH, prints a handshake line, and accepts only the client certificate it was given', async () => {
  const started = spawn(floor, [], {
    env: {
      PATH: '/nonexistent',
      PLUGIN_UNIX_SOCKET_DIR: scratch,
      PLUGIN_CLIENT_CERT: client.certificatePem,
      SVC_BENCH_FLOOR_KEY: server.privateKeyPem,
      SVC_BENCH_FLOOR_CERT: server.certificatePem,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  const line = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    started.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
    });
    started.once('exit', (code) => reject(new Error(`the floor exited (${code}) before its line: ${stderr}`)));
  });
  const [core, protocol, network, socketPath, wire] = line.split('|');
  expect([core, protocol, network, wire]).toEqual(['1', '6', 'unix', 'grpc']);
  expect(path.dirname(path.dirname(socketPath))).toBe(scratch);

  await expect(ping(socketPath, { cert: client.certificatePem, key: client.privateKeyPem })).resolves.toBeUndefined();
  await expect(ping(socketPath)).rejects.toThrow();
  const stranger = generateCertificate({ hostname: 'stranger' });
  await expect(ping(socketPath, { cert: stranger.certificatePem, key: stranger.privateKeyPem })).rejects.toThrow();

  const exited = new Promise<number | null>((resolve) => started.once('exit', resolve));
  started.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(fs.existsSync(path.dirname(socketPath))).toBe(false);
});

test('refuses to start without the variables the bench sets, and says which', () => {
  const run = spawnSync(floor, [], { env: { PATH: '/nonexistent' }, encoding: 'utf8' });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('PLUGIN_UNIX_SOCKET_DIR, PLUGIN_CLIENT_CERT, SVC_BENCH_FLOOR_KEY and SVC_BENCH_FLOOR_CERT must be set');
});
