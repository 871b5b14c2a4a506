/**
 * A tiny scripted HTTP server on 127.0.0.1 port 0 standing in for the management API, for
 * replies the emulator never gives (non-JSON, neither key, resets at chosen moments).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly body: Record<string, unknown>;
}

export type FakeReply =
  | { readonly status?: number; readonly headers?: Record<string, string>; readonly body?: string | object }
  /** Destroys the socket without answering. */
  | 'reset'
  /** Never answers (until the server closes). */
  | 'hang'
  /** Sends status and headers at once, then `body` one character every `everyMs` (a slow-loris reply). */
  | { readonly trickle: string; readonly everyMs: number };

export interface FakeService {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Characters of trickled bodies sent so far, and trickles the client cut off before their end. */
  trickles(): { readonly sent: number; readonly cutOff: number };
  /** Requests whose body.command equals `command`. */
  commands(command: string): RecordedRequest[];
  close(): Promise<void>;
}

let requestCounter = 0;

export async function startFakeService(
  handler: (request: RecordedRequest) => FakeReply | Promise<FakeReply>,
): Promise<FakeService> {
  const requests: RecordedRequest[] = [];
  const trickled = { sent: 0, cutOff: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      if (rawBody.length > 0) body = JSON.parse(rawBody) as Record<string, unknown>;
      const request: RecordedRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        rawBody,
        body,
      };
      requests.push(request);
      void Promise.resolve(handler(request)).then((reply) => {
        if (reply === 'reset') {
          incoming.socket.destroy();
          return;
        }
        if (reply === 'hang') return;
        requestCounter += 1;
        if ('trickle' in reply) {
          response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `fake-${requestCounter}` });
          response.flushHeaders();
          let position = 0;
          const timer = setInterval(() => {
            if (response.destroyed || incoming.socket.destroyed) {
              trickled.cutOff += 1;
              clearInterval(timer);
              timers.delete(timer);
              return;
            }
            if (position >= reply.trickle.length) {
              clearInterval(timer);
              timers.delete(timer);
              response.end();
              return;
            }
            response.write(reply.trickle[position]);
            position += 1;
            trickled.sent += 1;
          }, reply.everyMs);
          timers.add(timer);
          return;
        }
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? { Ok: null });
        response.writeHead(reply.status ?? 200, {
          'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json',
          'x-request-id': `fake-${requestCounter}`,
          ...reply.headers,
        });
        response.end(text);
      });
    });
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    trickles: () => ({ ...trickled }),
    commands: (command) => requests.filter((request) => request.body.command === command),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Login answers with `token`; everything else goes to `rest`. */
export function withLogin(
  token: string | (() => string),
  rest: (request: RecordedRequest) => FakeReply | Promise<FakeReply>,
): (request: RecordedRequest) => FakeReply | Promise<FakeReply> {
  return (request) =>
    request.body.command === 'login'
      ? { body: { Ok: { status: true, token: typeof token === 'string' ? token : token() } } }
      : rest(request);
}
