/**
 * `/svc_api/v2/<area>`: turns one request into one contract reply. Every answer is JSON with
 * `Ok`/`ok` or `Error` and HTTP 200, including malformed requests (a wrong path, method or
 * JSON body), because the contract's clients branch on the key, not on the status.
 */
import type { EmulatorClock } from '../clock';
import { ApiCommandError, describeValue } from '../errors';
import type { StatsCounter } from '../stats';
import { MAX_BODY_BYTES } from '../http';
import type { User } from '../model';
import type { EmulatorStore } from '../store';
import type { TokenStore } from '../tokens';
import { NO_USER, type AreaCommands, type CommandReply } from './command';
import { channelCommands, customerCommands } from './customers';
import { listCommands } from './lists';
import { loginCommands, loginSucceeded } from './login';
import { logCommands } from './logs';

export const AREAS: Readonly<Record<string, AreaCommands>> = {
  login: loginCommands,
  logs: logCommands,
  lists: listCommands,
  customers: customerCommands,
  channels: channelCommands,
};

const API_PATH = /^\/svc_api\/v2\/([^/]+)\/?$/;

export const TOKEN_EXPIRED = 'Token Expired. Please re-authenticate.';
export const TOKEN_INVALID = 'Invalid token. Please re-authenticate.';
export const READ_ONLY_REFUSED = 'Permission denied: read-only user';

export interface ApiDependencies {
  store: EmulatorStore;
  tokens: TokenStore;
  clock: EmulatorClock;
  stats: StatsCounter;
}

export interface ApiRequest {
  method: string;
  path: string;
  bodyText: string;
  bodyTooLarge: boolean;
}

export interface ApiOutcome {
  reply: CommandReply;
  /** The body's `command`, when there was one, for logs. */
  command?: string;
  /** True when the state changed and should be saved. */
  changed: boolean;
}

function refuse(message: string, command?: string): ApiOutcome {
  return { reply: { Error: message }, command, changed: false };
}

export function handleApiRequest(request: ApiRequest, dependencies: ApiDependencies): ApiOutcome {
  const match = API_PATH.exec(request.path);
  if (!match) {
    return refuse(`Unknown API path ${request.path}; use /svc_api/v2/<area> with area one of ${Object.keys(AREAS).join(', ')}`);
  }
  const area = match[1];
  const commands = Object.hasOwn(AREAS, area) ? AREAS[area] : undefined;
  if (!commands) return refuse(`Unknown area ${describeValue(area)}; use one of ${Object.keys(AREAS).join(', ')}`);
  if (request.method !== 'POST') return refuse(`Method ${request.method} is not allowed; send a POST with a JSON body`);
  if (request.bodyTooLarge) return refuse(`Request body too large: the emulator takes at most ${MAX_BODY_BYTES} bytes per call; split it into smaller calls`);

  let body: unknown;
  try {
    body = JSON.parse(request.bodyText);
  } catch (error) {
    return refuse(`Malformed JSON body: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse('The body must be a JSON object with a "command" field');
  }
  const fields = body as Record<string, unknown>;
  const command = fields.command;
  if (typeof command !== 'string' || command === '') {
    return refuse('Missing field: command (a non-empty string naming the operation)');
  }
  const spec = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!spec) {
    dependencies.stats.unknownCommand();
    return refuse(`Unknown command ${describeValue(command)} for /svc_api/v2/${area}; known: ${Object.keys(commands).join(', ')}`, command);
  }

  dependencies.stats.command(command);
  const { store, tokens, clock } = dependencies;
  const now = clock.now();
  let user: User | undefined;
  if (spec.requiresToken) {
    const check = tokens.check(fields.token, now);
    if (check.kind === 'expired') return refuse(TOKEN_EXPIRED, command);
    if (check.kind === 'invalid') return refuse(TOKEN_INVALID, command);
    user = store.userByEmail(check.email);
    // A user removed or deactivated since login loses the session.
    if (!user || !user.active) return refuse(TOKEN_INVALID, command);
    if (spec.writes && user.readOnly) return refuse(READ_ONLY_REFUSED, command);
  }

  let reply: CommandReply;
  try {
    reply = spec.run({ body: fields, store, tokens, clock, now, user: user ?? NO_USER });
  } catch (error) {
    // The one deliberate boundary: a refused command becomes the contract's Error reply.
    if (error instanceof ApiCommandError) return refuse(error.message, command);
    throw error;
  }
  if (command === 'login' && loginSucceeded(reply)) dependencies.stats.login();
  const changed = typeof spec.changesState === 'function' ? spec.changesState(reply) : spec.changesState;
  return { reply, command, changed };
}
