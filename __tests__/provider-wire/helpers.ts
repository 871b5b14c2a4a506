/**
 * Test helpers for the wire layer: a minimal gRPC client on node:http2 (unary calls over a unix
 * socket, with or without mutual TLS) and the esbuild bundle of the empty-provider fixture.
 */
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { decodeGrpcMessage, frameMessage } from '../../src/provider/protocol/grpc-server';

export interface ClientTls {
  /** The server certificate to trust (PEM). */
  readonly serverCertificatePem: string;
  readonly clientCertificatePem?: string;
  readonly clientPrivateKeyPem?: string;
}

export function connectGrpc(socketPath: string, clientTls?: ClientTls): http2.ClientHttp2Session {
  if (clientTls === undefined) {
    return http2.connect('http://localhost', { createConnection: () => net.connect(socketPath) });
  }
  return http2.connect('https://localhost', {
    createConnection: () =>
      tls.connect({
        path: socketPath,
        servername: 'localhost',
        ca: clientTls.serverCertificatePem,
        ALPNProtocols: ['h2'],
        ...(clientTls.clientCertificatePem === undefined
          ? {}
          : { cert: clientTls.clientCertificatePem, key: clientTls.clientPrivateKeyPem }),
      }),
  });
}

export interface GrpcReply {
  readonly httpStatus: number;
  readonly contentType: string | undefined;
  /** grpc-status from the trailers, or from the headers of a trailers-only reply. */
  readonly grpcStatus: number | undefined;
  readonly grpcMessage: string | undefined;
  /** True when the status came in the response headers (a trailers-only reply). */
  readonly trailersOnly: boolean;
  readonly body: Buffer;
}

/** One unary call; rejects when the connection or stream fails (e.g. TLS refused). */
export function grpcCall(
  session: http2.ClientHttp2Session,
  path: string,
  message: Buffer,
  options: { readonly contentType?: string; readonly compressedFlag?: boolean } = {},
): Promise<GrpcReply> {
  return new Promise((resolve, reject) => {
    const onSessionError = (error: Error) => reject(error);
    session.once('error', onSessionError);
    const frame = frameMessage(message);
    if (options.compressedFlag === true) frame[0] = 1;
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': options.contentType ?? 'application/grpc',
      te: 'trailers',
    });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (received) => {
      headers = received;
    });
    stream.on('trailers', (received) => {
      trailers = received;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('close', () => {
      session.off('error', onSessionError);
      if (headers[':status'] === undefined) {
        reject(new Error(`stream closed without a response (RST code ${stream.rstCode})`));
        return;
      }
      const trailersOnly = headers['grpc-status'] !== undefined;
      const statusSource = trailersOnly ? headers : trailers;
      const rawStatus = statusSource['grpc-status'];
      const rawMessage = statusSource['grpc-message'];
      const body = Buffer.concat(chunks);
      resolve({
        httpStatus: Number(headers[':status']),
        contentType: headers['content-type'] as string | undefined,
        grpcStatus: rawStatus === undefined ? undefined : Number(rawStatus),
        grpcMessage: rawMessage === undefined ? undefined : decodeGrpcMessage(String(rawMessage)),
        trailersOnly,
        body: body.length >= 5 && headers['content-type'] === 'application/grpc' ? body.subarray(5, 5 + body.readUInt32BE(1)) : body,
      });
    });
    stream.end(frame);
  });
}

export function closeSession(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => {
    if (session.closed || session.destroyed) resolve();
    else session.close(() => resolve());
  });
}

/**
 * Bundles the empty-provider fixture (or another fixture entry) like the real provider is
 * bundled: one executable file named terraform-provider-svc with a node shebang. Returns its path.
 */
export function bundleEmptyProvider(directory: string, fixture = 'empty-provider.ts'): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const outfile = join(directory, 'terraform-provider-svc');
  esbuild.buildSync({
    entryPoints: [join(__dirname, 'fixtures', fixture)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile,
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
  return outfile;
}
