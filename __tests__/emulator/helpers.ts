/** Shared by the emulator tests: a seeded emulator on port 0 and a raw JSON POST (no client). */
import { startEmulator, type EmulatorOptions, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/server';

export const TENANT = 'acme';
export const WRITER_KEY = 'writer-key-1';
export const READER_KEY = 'reader-key-1';
export const INACTIVE_KEY = 'inactive-key-1';

export const TEST_SEED: EmulatorSeed = {
  tenants: [
    { name: TENANT, contact_email: 'sec@acme.example' },
    { name: 'globex' },
  ],
  channels: [{ name: 'main' }],
  users: [
    { email: 'ops@acme.example', apiKey: WRITER_KEY, active: true, readOnly: false },
    { email: 'audit@acme.example', apiKey: READER_KEY, active: true, readOnly: true },
    { email: 'gone@acme.example', apiKey: INACTIVE_KEY, active: false, readOnly: false },
  ],
};

export interface RawReply {
  status: number;
  requestId: string | null;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

export async function postRaw(baseUrl: string, path: string, body: unknown | string): Promise<RawReply> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if (response.headers.get('content-type')?.includes('application/json')) json = JSON.parse(text);
  return { status: response.status, requestId: response.headers.get('x-request-id'), headers: response.headers, text, json };
}

/** POST to `/svc_api/v2/<area>`. */
export function api(emulator: RunningEmulator, area: string, body: unknown | string): Promise<RawReply> {
  return postRaw(emulator.url, `/svc_api/v2/${area}`, body);
}

export async function login(emulator: RunningEmulator, apiKey = WRITER_KEY): Promise<string> {
  const reply = await api(emulator, 'login', { command: 'login', api_token: apiKey });
  const ok = reply.json.Ok as { status: boolean; token: string };
  if (!ok?.status) throw new Error(`login failed in test setup: ${reply.text}`);
  return ok.token;
}

/** A session on the test tenant: `call(command, fields)` posts to the right area with token and tenant. */
export async function session(emulator: RunningEmulator, apiKey = WRITER_KEY) {
  const token = await login(emulator, apiKey);
  return {
    token,
    lists: (command: string, fields: Record<string, unknown> = {}) =>
      api(emulator, 'lists', { command, token, customer_name: TENANT, ...fields }),
    logs: (limit: number) => api(emulator, 'logs', { command: 'audit_events', token, customer_name: TENANT, limit }),
  };
}

export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ seed: TEST_SEED, ...options });
}
