/**
 * A unary-only gRPC server on node:http2, without a gRPC library (start-up time: the provider
 * is started by terraform for every plan). It knows gRPC's framing and status trailers and
 * nothing about terraform: routes map a path (`/package.Service/Method`) to a handler from
 * request bytes to reply bytes. Any other path (streaming RPCs such as go-plugin's
 * GRPCStdio/StreamStdio or GRPCBroker/StartStream, health checks, RPCs we do not implement)
 * gets a trailers-only UNIMPLEMENTED, which go-plugin and terraform treat as "not supported".
 */
import * as http2 from 'node:http2';
import type { Logger } from './log';
import { NO_REDACTION, type Redact } from './redaction';

/** The gRPC status codes this server sends. */
export enum GrpcStatus {
  OK = 0,
  INVALID_ARGUMENT = 3,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
}

export interface UnaryRoute {
  /** Reply bytes for request bytes; a thrown error becomes INTERNAL with a redacted message. */
  readonly handle: (request: Buffer) => Promise<Buffer>;
  /** Runs once the reply (with its trailers) has been handed to the connection. */
  readonly afterReply?: () => void;
}

export interface GrpcTlsOptions {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** The only CA a client certificate may chain to; clients without a certificate are refused. */
  readonly clientCaPem: string;
}

export interface GrpcServerOptions {
  readonly routes: ReadonlyMap<string, UnaryRoute>;
  /** Mutual TLS; without it the server speaks plain HTTP/2 (h2c). */
  readonly tls?: GrpcTlsOptions;
  readonly logger: Logger;
  /** Applied to every grpc-message (error text) the server sends. @default no redaction */
  readonly redact?: Redact;
}

/** Bytes in the gRPC message prefix: 1 compressed flag + 4 length (big-endian). */
const MESSAGE_PREFIX_LENGTH = 5;
/** How long close() lets in-flight calls finish before it cuts connections. */
const CLOSE_GRACE_MS = 2000;
/**
 * Node's per-connection memory credit in megabytes (default 10) counts reply bytes waiting for
 * the client's flow-control window; past it, node refuses NEW streams with ENHANCE_YOUR_CALM.
 * One multi-megabyte state being sent to terraform would then fail the reads running beside
 * it. Our only client is terraform on a private socket, so the DoS guard buys nothing.
 */
const SESSION_MEMORY_MEGABYTES = 1024 * 1024;

/**
 * grpc-message is percent-encoded UTF-8: every byte outside printable ASCII, and '%' itself
 * (gRPC over HTTP/2 spec, "Responses").
 */
export function encodeGrpcMessage(message: string): string {
  let encoded = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    encoded += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

export function decodeGrpcMessage(encoded: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < encoded.length; index++) {
    const char = encoded[index]!;
    if (char === '%' && /^[0-9a-fA-F]{2}$/.test(encoded.slice(index + 1, index + 3))) {
      bytes.push(parseInt(encoded.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      bytes.push(char.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** One message in gRPC's length-prefixed framing, uncompressed. */
export function frameMessage(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(MESSAGE_PREFIX_LENGTH + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, MESSAGE_PREFIX_LENGTH);
  return frame;
}

type UnframeResult =
  | { readonly ok: true; readonly message: Buffer }
  | { readonly ok: false; readonly status: GrpcStatus; readonly reason: string };

/** The one message of a unary request body. */
export function unframeUnaryRequest(body: Buffer): UnframeResult {
  if (body.length < MESSAGE_PREFIX_LENGTH) {
    return { ok: false, status: GrpcStatus.INTERNAL, reason: `request body of ${body.length} byte(s) has no complete gRPC message prefix` };
  }
  if (body[0] !== 0) {
    return { ok: false, status: GrpcStatus.UNIMPLEMENTED, reason: 'compressed gRPC messages are not supported; send them uncompressed' };
  }
  const length = body.readUInt32BE(1);
  if (body.length !== MESSAGE_PREFIX_LENGTH + length) {
    return {
      ok: false,
      status: GrpcStatus.INTERNAL,
      reason: `a unary request carries exactly one message: prefix says ${length} byte(s), body has ${body.length - MESSAGE_PREFIX_LENGTH}`,
    };
  }
  return { ok: true, message: body.subarray(MESSAGE_PREFIX_LENGTH) };
}

export class GrpcServer {
  readonly server: http2.Http2Server | http2.Http2SecureServer;
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private closing: Promise<void> | undefined;

  constructor(private readonly options: GrpcServerOptions) {
    const { tls, logger } = options;
    this.server = tls
      ? http2.createSecureServer({
          cert: tls.certificatePem,
          key: tls.privateKeyPem,
          ca: [tls.clientCaPem],
          requestCert: true,
          rejectUnauthorized: true,
          ALPNProtocols: ['h2'],
          minVersion: 'TLSv1.2',
          maxSessionMemory: SESSION_MEMORY_MEGABYTES,
        })
      : http2.createServer({ maxSessionMemory: SESSION_MEMORY_MEGABYTES });
    this.server.on('stream', (stream, headers) => this.onStream(stream, headers));
    this.server.on('session', (session) => {
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
      session.on('error', (error) => logger.debug(`gRPC connection error: ${error.message}`));
    });
    this.server.on('tlsClientError', (error: Error) => {
      logger.warn(`refused a TLS connection: ${error.message}`);
    });
  }

  /** Listens on a unix socket path (or a TCP port on 127.0.0.1 when given a number). */
  listen(target: string | number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const onListening = () => {
        this.server.off('error', reject);
        resolve();
      };
      if (typeof target === 'number') this.server.listen(target, '127.0.0.1', onListening);
      else this.server.listen(target, onListening);
    });
  }

  /** Stops accepting connections, lets in-flight calls finish (briefly), then closes. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const cutOff = setTimeout(() => {
        for (const session of this.sessions) session.destroy();
      }, CLOSE_GRACE_MS);
      cutOff.unref();
      this.server.close(() => {
        clearTimeout(cutOff);
        resolve();
      });
      for (const session of this.sessions) session.close();
    });
    return this.closing;
  }

  private onStream(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    const { logger, routes } = this.options;
    const path = headers[':path'] ?? '';
    stream.on('error', (error) => logger.debug(`gRPC stream ${path}: ${error.message}`));

    const contentType = String(headers['content-type'] ?? '');
    if (headers[':method'] !== 'POST' || !contentType.startsWith('application/grpc')) {
      // Not gRPC at all: a plain HTTP answer, as the gRPC spec asks for a wrong content-type.
      stream.respond({ ':status': 415, 'content-type': 'text/plain' }, { endStream: false });
      stream.end('this is a gRPC server: send POST with content-type application/grpc\n');
      return;
    }

    const route = routes.get(path);
    if (route === undefined) {
      logger.debug(`gRPC ${path}: not implemented`);
      this.respondStatus(stream, GrpcStatus.UNIMPLEMENTED, `method ${path} is not implemented by this provider`);
      return;
    }

    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const unframed = unframeUnaryRequest(Buffer.concat(chunks));
      if (!unframed.ok) {
        this.respondStatus(stream, unframed.status, unframed.reason);
        return;
      }
      logger.trace(`gRPC ${path}: request of ${unframed.message.length} byte(s)`);
      route.handle(unframed.message).then(
        (reply) => this.respondMessage(stream, reply, route.afterReply),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          const stack = error instanceof Error && error.stack !== undefined ? error.stack : message;
          logger.error(`gRPC ${path} failed: ${stack}`);
          this.respondStatus(stream, GrpcStatus.INTERNAL, message);
        },
      );
    });
  }

  private respondMessage(stream: http2.ServerHttp2Stream, reply: Buffer, afterReply: (() => void) | undefined): void {
    if (stream.destroyed || stream.closed) return; // the client cancelled the call
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(GrpcStatus.OK) }));
    if (afterReply !== undefined) stream.once('close', afterReply);
    stream.end(frameMessage(reply));
  }

  /** A trailers-only response: the status travels in the one HEADERS frame, which ends the stream. */
  private respondStatus(stream: http2.ServerHttp2Stream, status: GrpcStatus, message: string): void {
    if (stream.destroyed || stream.closed) return;
    stream.resume(); // discard whatever the client still sends on this stream
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(status),
        'grpc-message': encodeGrpcMessage((this.options.redact ?? NO_REDACTION)(message)),
      },
      { endStream: true },
    );
  }
}
