import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact, registerSecret } from '../../src/api/redaction';
import { generateCertificate } from '../../src/provider/protocol/certificate';
import {
  GrpcServer,
  GrpcStatus,
  decodeGrpcMessage,
  encodeGrpcMessage,
  frameMessage,
  type UnaryRoute,
} from '../../src/provider/protocol/grpc-server';
import { createLogger } from '../../src/provider/protocol/log';
import { closeSession, connectGrpc, grpcCall, type ClientTls } from './helpers';

const SECRET = 'sk-wire-test-4b1d0a9e';
registerSecret(SECRET);

/** Log lines go here instead of the test output; some tests read them. */
const logLines: string[] = [];
const logger = createLogger({ write: (line: string) => logLines.push(line) } as unknown as NodeJS.WritableStream, 'trace', redact);

let afterReplyCalls = 0;
const routes = new Map<string, UnaryRoute>([
  ['/test.Echo/Echo', { handle: async (request) => Buffer.concat([Buffer.from('echo:'), request]) }],
  [
    '/test.Echo/Fail',
    {
      handle: async () => {
        throw new Error(`database said no to key ${SECRET} (100% sure)`);
      },
    },
  ],
  [
    '/test.Echo/Then',
    {
      handle: async () => Buffer.alloc(0),
      afterReply: () => {
        afterReplyCalls++;
      },
    },
  ],
]);

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'provider-wire-grpc-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('grpc-message percent-encoding', () => {
  const cases = [
    { name: 'plain ASCII is kept', text: 'method not found', encoded: 'method not found' },
    { name: 'percent is escaped', text: '100%', encoded: '100%25' },
    { name: 'newline and non-ASCII are escaped as UTF-8 bytes', text: 'a\nü', encoded: 'a%0A%C3%BC' },
  ];
  test.each(cases)('$name', ({ text, encoded }) => {
    expect(encodeGrpcMessage(text)).toBe(encoded);
    expect(decodeGrpcMessage(encoded)).toBe(text);
  });
});

describe.each([
  { mode: 'mutual TLS', tls: true },
  { mode: 'plain h2c', tls: false },
])('unary calls over a unix socket ($mode)', ({ tls }) => {
  const serverCertificate = generateCertificate();
  const clientCertificate = generateCertificate();
  const clientTls: ClientTls | undefined = tls
    ? {
        serverCertificatePem: serverCertificate.certificatePem,
        clientCertificatePem: clientCertificate.certificatePem,
        clientPrivateKeyPem: clientCertificate.privateKeyPem,
      }
    : undefined;
  let server: GrpcServer;
  let socketPath: string;

  beforeAll(async () => {
    socketPath = join(directory, `${tls ? 'tls' : 'plain'}.sock`);
    server = new GrpcServer({
      routes,
      logger,
      redact,
      ...(tls
        ? {
            tls: {
              certificatePem: serverCertificate.certificatePem,
              privateKeyPem: serverCertificate.privateKeyPem,
              clientCaPem: clientCertificate.certificatePem,
            },
          }
        : {}),
    });
    await server.listen(socketPath);
  });
  afterAll(() => server.close());

  async function call(path: string, message: Buffer, options?: Parameters<typeof grpcCall>[3]) {
    const session = connectGrpc(socketPath, clientTls);
    try {
      return await grpcCall(session, path, message, options);
    } finally {
      await closeSession(session);
    }
  }

  test('a routed call answers with the message and grpc-status 0 in the trailers', async () => {
    const reply = await call('/test.Echo/Echo', Buffer.from('hi'));
    expect(reply).toMatchObject({ httpStatus: 200, contentType: 'application/grpc', grpcStatus: 0, trailersOnly: false });
    expect(reply.body.toString()).toBe('echo:hi');
  });

  test('an empty request message is a valid call', async () => {
    const reply = await call('/test.Echo/Echo', Buffer.alloc(0));
    expect(reply.body.toString()).toBe('echo:');
  });

  test('calls share one connection', async () => {
    const session = connectGrpc(socketPath, clientTls);
    const replies = await Promise.all(
      ['a', 'b', 'c'].map((text) => grpcCall(session, '/test.Echo/Echo', Buffer.from(text))),
    );
    await closeSession(session);
    expect(replies.map((reply) => reply.body.toString())).toEqual(['echo:a', 'echo:b', 'echo:c']);
  });

  const statusCases = [
    { name: 'an unknown method', path: '/tfplugin6.Provider/OpenEphemeralResource', status: GrpcStatus.UNIMPLEMENTED, text: 'not implemented' },
    { name: "go-plugin's stdio stream", path: '/plugin.GRPCStdio/StreamStdio', status: GrpcStatus.UNIMPLEMENTED, text: 'StreamStdio' },
    { name: 'a health check', path: '/grpc.health.v1.Health/Check', status: GrpcStatus.UNIMPLEMENTED, text: 'not implemented' },
    { name: 'a throwing handler', path: '/test.Echo/Fail', status: GrpcStatus.INTERNAL, text: 'database said no to key [REDACTED] (100% sure)' },
  ];
  test.each(statusCases)('$name: trailers-only grpc-status $status', async ({ path, status, text }) => {
    const reply = await call(path, Buffer.from('x'));
    expect(reply).toMatchObject({ httpStatus: 200, contentType: 'application/grpc', grpcStatus: status, trailersOnly: true });
    expect(reply.grpcMessage).toContain(text);
    expect(reply.body).toHaveLength(0);
  });

  test('the secret in a handler error reaches neither the caller nor the log', async () => {
    const reply = await call('/test.Echo/Fail', Buffer.alloc(0));
    expect(reply.grpcMessage).not.toContain(SECRET);
    const logged = logLines.filter((line) => line.includes('/test.Echo/Fail failed'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('')).not.toContain(SECRET);
    expect(logged.every((line) => line.startsWith('[ERROR] svc: '))).toBe(true);
  });

  test('a compressed message is refused as UNIMPLEMENTED', async () => {
    const reply = await call('/test.Echo/Echo', Buffer.from('x'), { compressedFlag: true });
    expect(reply).toMatchObject({ grpcStatus: GrpcStatus.UNIMPLEMENTED, trailersOnly: true });
    expect(reply.grpcMessage).toContain('compressed');
  });

  test('a request that is not gRPC gets HTTP 415', async () => {
    const reply = await call('/test.Echo/Echo', Buffer.from('x'), { contentType: 'application/json' });
    expect(reply.httpStatus).toBe(415);
    expect(reply.grpcStatus).toBeUndefined();
  });

  test('afterReply runs once the reply is sent', async () => {
    const before = afterReplyCalls;
    const reply = await call('/test.Echo/Then', Buffer.alloc(0));
    expect(reply.grpcStatus).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(afterReplyCalls).toBe(before + 1);
  });
});

describe('mutual TLS refuses clients without the expected certificate', () => {
  const serverCertificate = generateCertificate();
  const clientCertificate = generateCertificate();
  const strangerCertificate = generateCertificate();
  let server: GrpcServer;
  let socketPath: string;

  beforeAll(async () => {
    socketPath = join(directory, 'refuse.sock');
    server = new GrpcServer({
      routes,
      logger,
      tls: {
        certificatePem: serverCertificate.certificatePem,
        privateKeyPem: serverCertificate.privateKeyPem,
        clientCaPem: clientCertificate.certificatePem,
      },
    });
    await server.listen(socketPath);
  });
  afterAll(() => server.close());

  const cases = [
    { name: 'no client certificate', client: {} },
    {
      name: 'a certificate the server was not told to trust',
      client: { clientCertificatePem: strangerCertificate.certificatePem, clientPrivateKeyPem: strangerCertificate.privateKeyPem },
    },
  ];
  test.each(cases)('$name', async ({ client }) => {
    const session = connectGrpc(socketPath, { serverCertificatePem: serverCertificate.certificatePem, ...client });
    session.on('error', () => undefined); // the refusal also surfaces here; the call below checks it
    const warningsBefore = logLines.filter((line) => line.startsWith('[WARN] svc: refused a TLS connection')).length;
    await expect(grpcCall(session, '/test.Echo/Echo', Buffer.from('x'))).rejects.toThrow();
    session.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    const warningsAfter = logLines.filter((line) => line.startsWith('[WARN] svc: refused a TLS connection')).length;
    expect(warningsAfter).toBeGreaterThan(warningsBefore);
  });

  test('the trusted client certificate is accepted (control)', async () => {
    const session = connectGrpc(socketPath, {
      serverCertificatePem: serverCertificate.certificatePem,
      clientCertificatePem: clientCertificate.certificatePem,
      clientPrivateKeyPem: clientCertificate.privateKeyPem,
    });
    const reply = await grpcCall(session, '/test.Echo/Echo', Buffer.from('x'));
    await closeSession(session);
    expect(reply.grpcStatus).toBe(0);
  });

  test('a client that does not trust our certificate gives up (the server certificate is what it pins)', async () => {
    const session = connectGrpc(socketPath, {
      serverCertificatePem: strangerCertificate.certificatePem,
      clientCertificatePem: clientCertificate.certificatePem,
      clientPrivateKeyPem: clientCertificate.privateKeyPem,
    });
    session.on('error', () => undefined);
    await expect(grpcCall(session, '/test.Echo/Echo', Buffer.from('x'))).rejects.toThrow();
    session.destroy();
  });
});

describe('large messages and concurrent calls', () => {
  /** Replies with as many bytes as the request's first 4 bytes (big-endian) ask for. */
  const sizedRoutes = new Map<string, UnaryRoute>([
    ['/test.Sized/Reply', { handle: async (request) => Buffer.alloc(request.readUInt32BE(0), 0x5a) }],
    ['/test.Echo/Echo', { handle: async (request) => request }],
  ]);
  const sizeRequest = (bytes: number) => {
    const request = Buffer.alloc(4);
    request.writeUInt32BE(bytes);
    return request;
  };
  const MEGABYTE = 1024 * 1024;
  let server: GrpcServer;
  let socketPath: string;

  beforeAll(async () => {
    socketPath = join(directory, 'large.sock');
    server = new GrpcServer({ routes: sizedRoutes, logger });
    await server.listen(socketPath);
  });
  afterAll(() => server.close());

  test('a multi-megabyte request and reply arrive whole (many DATA frames each way)', async () => {
    const request = Buffer.alloc(9 * MEGABYTE);
    for (let index = 0; index < request.length; index += 4096) request.writeUInt32BE(index, index);
    const session = connectGrpc(socketPath);
    const reply = await grpcCall(session, '/test.Echo/Echo', request);
    await closeSession(session);
    expect(reply.grpcStatus).toBe(0);
    expect(reply.body.equals(request)).toBe(true);
  });

  test('ten calls at once on one connection all succeed (terraform reads resources ten at a time)', async () => {
    const session = connectGrpc(socketPath);
    const sizes = Array.from({ length: 10 }, (_, index) => (index + 1) * 300_000);
    const replies = await Promise.all(sizes.map((size) => grpcCall(session, '/test.Sized/Reply', sizeRequest(size))));
    await closeSession(session);
    expect(replies.map((reply) => [reply.grpcStatus, reply.body.length])).toEqual(sizes.map((size) => [0, size]));
  });

  test('a large reply the client has not read yet does not make the server refuse new calls', async () => {
    // A reply larger than node's default per-connection memory credit (10 MB) waits in the
    // server's send queue while terraform's flow-control window drains; new calls on that
    // connection were refused with RST_STREAM ENHANCE_YOUR_CALM meanwhile.
    const session = connectGrpc(socketPath);
    const slow = session.request({ ':method': 'POST', ':path': '/test.Sized/Reply', 'content-type': 'application/grpc', te: 'trailers' });
    slow.pause();
    const slowHeaders = new Promise((resolve) => slow.once('response', resolve));
    slow.end(frameMessage(sizeRequest(24 * MEGABYTE)));
    await slowHeaders;
    const reply = await grpcCall(session, '/test.Sized/Reply', sizeRequest(10));
    expect(reply.grpcStatus).toBe(0);
    expect(reply.body).toHaveLength(10);
    let received = 0;
    slow.on('data', (chunk: Buffer) => (received += chunk.length));
    slow.resume();
    await new Promise((resolve) => slow.once('close', resolve));
    await closeSession(session);
    expect(received).toBe(24 * MEGABYTE + 5);
  });
});

describe('close() while calls are in flight', () => {
  test('a call already running gets its reply; close() settles after it', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const server = new GrpcServer({
      logger,
      routes: new Map<string, UnaryRoute>([
        [
          '/test.Slow/Wait',
          {
            handle: async () => {
              started();
              await released;
              return Buffer.from('done');
            },
          },
        ],
      ]),
    });
    const socketPath = join(directory, 'closing.sock');
    await server.listen(socketPath);
    const session = connectGrpc(socketPath);
    const reply = grpcCall(session, '/test.Slow/Wait', Buffer.alloc(0));
    await running;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    expect((await reply).body.toString()).toBe('done');
    await closing;
    session.destroy();
  });
});
