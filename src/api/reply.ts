/**
 * Reading a reply body the way the contract says: branch on the `Ok`/`ok`/`Error` key, never on
 * the HTTP status; anything else (not JSON, not an object, neither key) is "unexpected" and the
 * caller reports the status and X-Request-ID.
 */
import { escapeForDisplay } from '../display-text';
import type { ServiceErrorKind } from './retry';

/** A service's `Error` text is cut at this many characters before it reaches an error message. */
export const MAX_SERVICE_MESSAGE_LENGTH = 1000;

export type ParsedReply =
  | { readonly kind: 'ok'; readonly value: unknown }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'unexpected'; readonly reason: string };

export function parseReplyBody(body: string): ParsedReply {
  if (body.trim().length === 0) return { kind: 'unexpected', reason: 'has an empty body' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'unexpected', reason: 'is not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { kind: 'unexpected', reason: 'is JSON but not an object' };
  }
  const reply = parsed as Record<string, unknown>;
  if ('Error' in reply) {
    const message = reply.Error;
    return { kind: 'error', message: serviceMessage(typeof message === 'string' ? message : JSON.stringify(message) ?? 'null') };
  }
  if ('Ok' in reply) return { kind: 'ok', value: reply.Ok };
  if ('ok' in reply) return { kind: 'ok', value: reply.ok };
  return { kind: 'unexpected', reason: 'has neither "Ok"/"ok" nor "Error"' };
}

// Known texts are `Token Expired. Please re-authenticate.` and `Invalid token. Please
// re-authenticate.`; matched loosely because the wording of the second is our own decision.
const TOKEN_PATTERN = /re-?authenticate|token expired|invalid token/i;
const PERMISSION_PATTERN = /permission denied|read-only|forbidden/i;
const NOT_FOUND_PATTERN = /not found/i;

export function classifyServiceError(message: string): ServiceErrorKind {
  if (TOKEN_PATTERN.test(message)) return 'token';
  if (PERMISSION_PATTERN.test(message)) return 'permission';
  if (NOT_FOUND_PATTERN.test(message)) return 'not-found';
  return 'other';
}

/** The first characters of a body, on one line and escaped (display-text.ts), for an error message. */
export function bodyExcerpt(body: string, length = 200): string {
  const oneLine = body.slice(0, length * 4).replace(/\s+/g, ' ').trim();
  const cut = oneLine.length > length || body.length > length * 4 ? `${oneLine.slice(0, length)}...` : oneLine;
  return escapeForDisplay(cut);
}

/** The service's error text as it may be shown: escaped, and cut with its length when long. */
function serviceMessage(text: string): string {
  const cut = text.length > MAX_SERVICE_MESSAGE_LENGTH ? `${text.slice(0, MAX_SERVICE_MESSAGE_LENGTH)}... (${text.length} characters)` : text;
  return escapeForDisplay(cut);
}
