/** Small node:http helpers: read a bounded body, answer JSON or text. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Far above 1,000 entries (the bulk limit); stops a runaway client from filling memory. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface RequestBody {
  text: string;
  tooLarge: boolean;
}

export function readBody(request: IncomingMessage): Promise<RequestBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      // Keep draining so the connection stays usable for the reply.
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve({ text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge }));
    request.on('error', reject);
  });
}

export function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}
