/**
 * Reading a reply body the way the contract says: branch on the `Ok`/`ok`/`Error` key, never on
 * the HTTP status; anything else (not JSON, not an object, neither key) is "unexpected" and the
 * caller reports the status and X-Request-ID.
 */
import type { ServiceErrorKind } from './retry';

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
    return { kind: 'error', message: typeof message === 'string' ? message : JSON.stringify(message) };
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

/** The first characters of a body, on one line, for an error message. */
export function bodyExcerpt(body: string, length = 200): string {
  const oneLine = body.replace(/\s+/g, ' ').trim();
  return oneLine.length > length ? `${oneLine.slice(0, length)}...` : oneLine;
}
