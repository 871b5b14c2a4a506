import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { derToPem, generateCertificate } from '../../src/provider/protocol/certificate';
import { HandshakeRefusedError, MAGIC_COOKIE_VALUE, readPluginEnvironment } from '../../src/provider/protocol/handshake';
import { decodeMessage } from '../../src/provider/protocol/protobuf';
import { serveProvider } from '../../src/provider/protocol/serve';
import * as tfplugin6 from '../../src/provider/protocol/tfplugin6';
import { emptyProvider } from './fixtures/empty-provider';
import { bundleEmptyProvider, closeSession, connectGrpc, grpcCall, type ClientTls } from './helpers';
import { track } from '../support/child-processes';

const HANDSHAKE_LINE = /^1\|6\|unix\|(\/[^|]+)\|grpc\|([A-Za-z0-9+/]*)\n$/;

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'provider-wire-serve-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function capture(): { stream: NodeJS.WritableStream; text: () => string } {
  const chunks: string[] = [];
  const stream = { write: (chunk: string | Buffer) => chunks.push(String(chunk)) > 0 } as unknown as NodeJS.WritableStream;
  return { stream, text: () => chunks.join('') };
}

function terraformEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '5,6', ...extra };
}

describe('readPluginEnvironment', () => {
  const accepted = [
    { name: 'protocols 5,6', versions: '5,6' },
    { name: 'protocols in another order', versions: '6,5' },
    { name: 'only 6, with spaces', versions: ' 6 ' },
  ];
  test.each(accepted)('accepts $name', ({ versions }) => {
    expect(readPluginEnvironment(terraformEnv({ PLUGIN_PROTOCOL_VERSIONS: versions }))).toMatchObject({ plaintext: true });
  });

  const refused = [
    { name: 'no magic cookie', env: { PLUGIN_PROTOCOL_VERSIONS: '6' }, code: 'not_started_by_terraform' },
    { name: 'a wrong magic cookie', env: terraformEnv({ TF_PLUGIN_MAGIC_COOKIE: 'x' }), code: 'not_started_by_terraform' },
    { name: 'only protocol 5', env: terraformEnv({ PLUGIN_PROTOCOL_VERSIONS: '5' }), code: 'unsupported_protocol_version' },
    { name: 'protocol 16 (not 6)', env: terraformEnv({ PLUGIN_PROTOCOL_VERSIONS: '4,16' }), code: 'unsupported_protocol_version' },
    { name: 'no protocol versions', env: { TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE }, code: 'unsupported_protocol_version' },
  ];
  test.each(refused)('refuses $name', ({ env, code }) => {
    expect(() => readPluginEnvironment(env)).toThrow(expect.objectContaining({ code }));
  });

  const tlsCases = [
    { name: 'a client certificate means mutual TLS', env: { PLUGIN_CLIENT_CERT: 'PEM' }, expected: { plaintext: false, clientCertificatePem: 'PEM' } },
    { name: 'TF_DISABLE_PLUGIN_TLS wins over a certificate', env: { PLUGIN_CLIENT_CERT: 'PEM', TF_DISABLE_PLUGIN_TLS: '1' }, expected: { plaintext: true } },
    { name: 'no certificate means plain h2c, as in go-plugin', env: {}, expected: { plaintext: true } },
  ];
  test.each(tlsCases)('$name', ({ env, expected }) => {
    expect(readPluginEnvironment(terraformEnv(env))).toEqual(expected);
  });
});

describe('serveProvider in-process', () => {
  test('without the magic cookie: a message for a human on stderr, nothing on stdout, exit 1', async () => {
    const stdout = capture();
    const stderr = capture();
    const exitCodes: number[] = [];
    const serving = serveProvider(emptyProvider, {
      env: { PLUGIN_PROTOCOL_VERSIONS: '6' },
      stdout: stdout.stream,
      stderr: stderr.stream,
      exit: (code) => exitCodes.push(code),
      handleSignals: false,
    });
    await expect(serving).rejects.toBeInstanceOf(HandshakeRefusedError);
    expect(exitCodes).toEqual([1]);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toContain('This binary is a plugin for terraform');
    expect(stderr.text()).toContain('TF_CLI_CONFIG_FILE=');
    expect(stderr.text()).toContain('help/provider.md');
  });

  test('with TLS: one handshake line, the certificate it names is the one served, Shutdown exits 0', async () => {
    const clientCertificate = generateCertificate();
    const stdout = capture();
    const exitCodes: number[] = [];
    const handle = await serveProvider(emptyProvider, {
      env: terraformEnv({ PLUGIN_CLIENT_CERT: clientCertificate.certificatePem, TMPDIR: directory, PLUGIN_UNIX_SOCKET_DIR: directory }),
      stdout: stdout.stream,
      stderr: capture().stream,
      exit: (code) => exitCodes.push(code),
      handleSignals: false,
    });
    const match = HANDSHAKE_LINE.exec(stdout.text());
    expect(match).not.toBeNull();
    const [, socketPath, certificateField] = match!;
    expect(socketPath).toBe(handle.socketPath);
    expect(dirname(socketPath!).startsWith(directory)).toBe(true);
    expect(certificateField).not.toMatch(/=$/);
    const serverCertificateDer = Buffer.from(certificateField!, 'base64');
    expect(new X509Certificate(serverCertificateDer).checkHost('localhost')).toBe('localhost');

    const clientTls: ClientTls = {
      serverCertificatePem: derToPem(serverCertificateDer),
      clientCertificatePem: clientCertificate.certificatePem,
      clientPrivateKeyPem: clientCertificate.privateKeyPem,
    };
    const session = connectGrpc(socketPath!, clientTls);
    const schema = await grpcCall(session, '/tfplugin6.Provider/GetProviderSchema', Buffer.alloc(0));
    expect(schema.grpcStatus).toBe(0);
    expect(decodeMessage(tfplugin6.GetProviderSchemaResponse, schema.body)).toMatchObject({
      provider: { block: { attributes: [] } },
      serverCapabilities: { getProviderSchemaOptional: true },
    });
    const unimplemented = await grpcCall(session, '/tfplugin6.Provider/MoveResourceState', Buffer.alloc(0));
    expect(unimplemented.grpcStatus).toBe(12);

    expect(exitCodes).toEqual([]);
    const shutdown = await grpcCall(session, '/plugin.GRPCController/Shutdown', Buffer.alloc(0));
    expect(shutdown).toMatchObject({ grpcStatus: 0, body: Buffer.alloc(0) });
    await handle.closed;
    await closeSession(session);
    expect(exitCodes).toEqual([0]);
    expect(existsSync(dirname(socketPath!))).toBe(false);
    expect(stdout.text()).toBe(handle.handshakeLine);
  });

  test('with TF_DISABLE_PLUGIN_TLS: the certificate field is empty and plain h2c is served', async () => {
    const stdout = capture();
    const handle = await serveProvider(emptyProvider, {
      env: terraformEnv({ TF_DISABLE_PLUGIN_TLS: '1', PLUGIN_CLIENT_CERT: generateCertificate().certificatePem, PLUGIN_UNIX_SOCKET_DIR: directory }),
      stdout: stdout.stream,
      stderr: capture().stream,
      exit: () => undefined,
      handleSignals: false,
    });
    expect(stdout.text()).toBe(`1|6|unix|${handle.socketPath}|grpc|\n`);
    const session = connectGrpc(handle.socketPath);
    const reply = await grpcCall(session, '/tfplugin6.Provider/StopProvider', Buffer.alloc(0));
    await closeSession(session);
    expect(reply.grpcStatus).toBe(0);
    await handle.shutdown(0);
    expect(existsSync(dirname(handle.socketPath))).toBe(false);
  });

  test('a ready reply is sent as it is for a request with no fields, without calling the service; any other call reaches the service', async () => {
    const ready = Buffer.from('ready-made schema reply');
    const called: string[] = [];
    const asked: string[] = [];
    const service = new Proxy(emptyProvider, {
      get: (target, method: keyof typeof emptyProvider) => {
        called.push(String(method));
        return target[method];
      },
    });
    const handle = await serveProvider(service, {
      env: terraformEnv({ TF_DISABLE_PLUGIN_TLS: '1', PLUGIN_UNIX_SOCKET_DIR: directory }),
      stdout: capture().stream,
      stderr: capture().stream,
      exit: () => undefined,
      handleSignals: false,
      readyReply: (rpcName) => {
        asked.push(rpcName);
        return rpcName === 'GetProviderSchema' ? ready : undefined;
      },
    });
    const session = connectGrpc(handle.socketPath);
    const schema = await grpcCall(session, '/tfplugin6.Provider/GetProviderSchema', Buffer.alloc(0));
    expect(schema).toMatchObject({ grpcStatus: 0, body: ready });
    expect(called).toEqual([]);
    // No ready reply for it: the service answers.
    const stop = await grpcCall(session, '/tfplugin6.Provider/StopProvider', Buffer.alloc(0));
    expect(stop.grpcStatus).toBe(0);
    expect(called).toEqual(['stopProvider']);
    // A request with fields is never answered from a ready reply (it is not even asked for one).
    const withFields = await grpcCall(session, '/tfplugin6.Provider/GetProviderSchema', Buffer.from([0x0a, 0x00]));
    expect(withFields.grpcStatus).toBe(0);
    expect(decodeMessage(tfplugin6.GetProviderSchemaResponse, withFields.body)).toMatchObject({ serverCapabilities: { getProviderSchemaOptional: true } });
    expect(called).toEqual(['stopProvider', 'getProviderSchema']);
    expect(asked).toEqual(['GetProviderSchema', 'StopProvider']);
    await closeSession(session);
    await handle.shutdown(0);
  });
});

describe('the bundled provider process', () => {
  let executable: string;
  let socketParent: string;
  beforeAll(() => {
    executable = bundleEmptyProvider(mkdtempSync(join(directory, 'bin-')));
    socketParent = mkdtempSync(join(directory, 'sockets-'));
  });

  const processEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    TMPDIR: socketParent,
    ...extra,
  });

  test('run by hand (no cookie): exits 1, explains itself on stderr, prints nothing on stdout', () => {
    const result = spawnSync(executable, [], { env: processEnv(), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('This binary is a plugin for terraform');
    expect(result.stderr).toContain('help/provider.md');
  });

  test('run by a client of protocol 5 only: exits 1 naming the versions, prints nothing on stdout', () => {
    const result = spawnSync(executable, [], { env: processEnv(terraformEnv({ PLUGIN_PROTOCOL_VERSIONS: '5' })), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('PLUGIN_PROTOCOL_VERSIONS is "5"');
  });

  interface Started {
    readonly child: ChildProcess;
    readonly line: string;
    readonly stdout: () => string;
    readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  }

  function start(extra: NodeJS.ProcessEnv): Promise<Started> {
    const child = track(spawn(executable, [], { env: processEnv(terraformEnv(extra)), stdio: ['pipe', 'pipe', 'pipe'] }));
    let stdout = '';
    child.stderr!.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve({ child, line: stdout, stdout: () => stdout, exited });
      });
      void exited.then(({ code }) => reject(new Error(`provider exited with ${code} before its handshake`)));
    });
  }

  test('prints exactly the handshake line, ignores SIGINT, and exits 0 after replying to Shutdown', async () => {
    const clientCertificate = generateCertificate();
    const started = await start({ PLUGIN_CLIENT_CERT: clientCertificate.certificatePem });
    const match = HANDSHAKE_LINE.exec(started.line);
    expect(match).not.toBeNull();
    const socketPath = match![1]!;
    const clientTls: ClientTls = {
      serverCertificatePem: derToPem(Buffer.from(match![2]!, 'base64')),
      clientCertificatePem: clientCertificate.certificatePem,
      clientPrivateKeyPem: clientCertificate.privateKeyPem,
    };
    const session = connectGrpc(socketPath, clientTls);
    expect((await grpcCall(session, '/tfplugin6.Provider/GetMetadata', Buffer.alloc(0))).grpcStatus).toBe(0);

    // Ctrl-C in terraform reaches the whole process group; the provider keeps serving.
    started.child.kill('SIGINT');
    expect((await grpcCall(session, '/tfplugin6.Provider/StopProvider', Buffer.alloc(0))).grpcStatus).toBe(0);

    const shutdown = await grpcCall(session, '/plugin.GRPCController/Shutdown', Buffer.alloc(0));
    expect(shutdown.grpcStatus).toBe(0);
    expect(await started.exited).toEqual({ code: 0, signal: null });
    session.destroy();
    expect(started.stdout()).toBe(started.line);
    expect(existsSync(dirname(socketPath))).toBe(false);
  });

  test('SIGTERM ends it and removes its socket directory', async () => {
    const started = await start({ TF_DISABLE_PLUGIN_TLS: '1' });
    const match = HANDSHAKE_LINE.exec(started.line);
    expect(match?.[2]).toBe('');
    started.child.kill('SIGTERM');
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(dirname(match![1]!))).toBe(false);
  });

  test('when its parent dies without a Shutdown, it exits on its own and removes its socket directory', async () => {
    const handshakeFile = join(directory, 'orphan-handshake.txt');
    // `exec sleep` keeps the shell's pid, so the sleeping process is the provider's parent.
    const parent = track(spawn('sh', ['-c', '"$1" >"$2" 2>/dev/null & echo $!; exec sleep 60', 'sh', executable, handshakeFile], {
      env: processEnv(terraformEnv({ TF_DISABLE_PLUGIN_TLS: '1' })),
      stdio: ['ignore', 'pipe', 'ignore'],
    }));
    const providerPid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    const line = await waitFor(() => {
      const text = existsSync(handshakeFile) ? readFileSync(handshakeFile, 'utf8') : '';
      return text.includes('\n') ? text : undefined;
    });
    const socketPath = HANDSHAKE_LINE.exec(line)![1]!;
    try {
      parent.kill('SIGKILL');
      await waitFor(() => (isAlive(providerPid) ? undefined : true));
      expect(existsSync(dirname(socketPath))).toBe(false);
    } finally {
      if (isAlive(providerPid)) process.kill(providerPid, 'SIGKILL');
    }
  });

  test("the provider's entry point imports the console guard before any other module", () => {
    const source = readFileSync(join(__dirname, '../../src/provider/main.ts'), 'utf8');
    const imports = [...source.matchAll(/^import .*?['"]([^'"]+)['"];$/gm)].map((match) => match[1]);
    expect(imports[0]).toBe('./console-guard');
  });

  /** Kills what a failed test left running (a passing test's process has exited by then). */
  const afterStop: Array<() => void> = [];
  afterEach(() => afterStop.splice(0).forEach((stop) => stop()));

  test('console output from any module goes to stderr (stdout holds only the handshake line); an unhandled rejection is logged, redacted, and serving goes on', async () => {
    const noisy = bundleEmptyProvider(mkdtempSync(join(directory, 'noisy-bin-')), 'noisy-provider.ts');
    const child = track(spawn(noisy, [], { env: processEnv(terraformEnv({ TF_DISABLE_PLUGIN_TLS: '1' })), stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    void exited.then((code) => (exitCode = code));
    afterStop.push(() => child.kill('SIGKILL'));
    const line = await waitFor(() => {
      if (exitCode !== undefined) throw new Error(`the provider exited with ${exitCode} before its handshake: ${stderr}`);
      return stdout.includes('\n') ? stdout.slice(0, stdout.indexOf('\n') + 1) : undefined;
    });
    const match = HANDSHAKE_LINE.exec(line);
    expect(match).not.toBeNull();
    const session = connectGrpc(match![1]!);
    expect((await grpcCall(session, '/tfplugin6.Provider/GetMetadata', Buffer.alloc(0))).grpcStatus).toBe(0);
    // The first call left a rejected promise unhandled: the provider logs it and keeps serving.
    await waitFor(() => (stderr.includes('a background task failed') ? true : undefined));
    expect((await grpcCall(session, '/tfplugin6.Provider/GetMetadata', Buffer.alloc(0))).grpcStatus).toBe(0);
    expect((await grpcCall(session, '/plugin.GRPCController/Shutdown', Buffer.alloc(0))).grpcStatus).toBe(0);
    expect(await exited).toBe(0);
    expect(stderr).toContain('background refresh failed for key [REDACTED]');
    expect(stderr).not.toContain('sk-noisy-0123456789');
    session.destroy();
    expect(stdout).toBe(line);
    expect(stderr).toContain('noisy-dependency: loaded');
    expect(stderr).toContain('noisy-dependency: info while loading');
    expect(stderr).toContain('noisy-dependency: called');
  });

  afterAll(() => {
    // every process removed its own socket directory
    expect(readdirSync(socketParent)).toEqual([]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Polls until `check` returns a value; the test's own timeout bounds the wait. */
async function waitFor<T>(check: () => T | undefined): Promise<T> {
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
