/**
 * Every failure the management-API client raises is a ManagementApiError with a stable `code`
 * that callers (and the Terraform provider) branch on. Messages say what went wrong, with which
 * value, and how to fix it. Messages, causes and serialised forms are scrubbed of the API key
 * and session tokens through the shared secret registry.
 */
import { inspect, type InspectOptions } from 'node:util';
import { secretRegistry } from './redaction';

/** The stable code of every {@link ManagementApiError}: branch on it, not on the class or the message. */
export type ManagementErrorCode =
  | 'authentication_failed'
  | 'permission_denied'
  | 'not_found'
  | 'rate_limited'
  | 'validation_failed'
  | 'transport_failed'
  | 'unexpected_reply'
  | 'service_error'
  | 'token_rejected'
  | 'client_closed';

/** What an error knows of the call it belongs to; each field becomes the error's field of the same name. */
export interface ErrorDetails {
  /** The API command, e.g. `new_blacklist`, when the failure belongs to one. */
  readonly command?: string;
  /** The HTTP status of the last reply, when there was one. */
  readonly status?: number;
  /** The reply's X-Request-ID, to quote to the service's operators. */
  readonly requestId?: string;
  /** How many HTTP attempts were made before giving up. */
  readonly attempts?: number;
  /** The error underneath (a network error, a refused value), scrubbed of secrets. */
  readonly cause?: unknown;
}

/**
 * Every failure of the client: one class to catch, a stable {@link ManagementErrorCode} to
 * branch on, and a subclass per code. The message says what went wrong, with which value, and
 * how to fix it; the message, `cause`, `JSON.stringify` and `util.inspect` of the error never
 * hold the API key or a session token.
 *
 * @example
 * ```ts
 * try {
 *   await client.deleteEntry('blacklist', '203.0.113.9');
 * } catch (error) {
 *   if (error instanceof ManagementApiError && error.code === 'not_found') return;
 *   throw error;
 * }
 * ```
 */
export class ManagementApiError extends Error {
  /** The API command, e.g. `new_blacklist`, when the failure belongs to one. */
  readonly command?: string;
  /** The HTTP status of the last reply, when there was one. */
  readonly status?: number;
  /** The reply's X-Request-ID, to quote to the service's operators. */
  readonly requestId?: string;
  /** How many HTTP attempts were made before giving up. */
  readonly attempts?: number;

  /** Built by the client; `message` and `details.cause` are scrubbed of every registered secret. */
  constructor(
    readonly code: ManagementErrorCode,
    message: string,
    details: ErrorDetails = {},
  ) {
    const cause = details.cause === undefined ? undefined : secretRegistry.redactValue(details.cause);
    super(secretRegistry.redact(message), cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    if (details.command !== undefined) this.command = details.command;
    if (details.status !== undefined) this.status = details.status;
    if (details.requestId !== undefined) this.requestId = secretRegistry.redact(details.requestId);
    if (details.attempts !== undefined) this.attempts = details.attempts;
  }

  /** The error's fields, its code, message and cause chain for `JSON.stringify`, scrubbed of secrets. */
  toJSON(): Record<string, unknown> {
    const own: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this)) own[key] = value;
    return secretRegistry.redactValue({
      name: this.name,
      code: this.code,
      message: this.message,
      ...own,
      ...(this.cause === undefined ? {} : { cause: describeCause(this.cause) }),
    }) as Record<string, unknown>;
  }

  /** Re-scrubs at print time, in case a secret was registered after the error was built. */
  [inspect.custom](depth: number, options: InspectOptions, inspectFunction: typeof inspect): string {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this)) fields[key] = value;
    const nested = { ...options, depth };
    let text = this.stack ?? `${this.name}: ${this.message}`;
    text += ` ${inspectFunction(fields, nested)}`;
    if (this.cause !== undefined) text += `\n  [cause]: ${inspectFunction(this.cause, nested)}`;
    return secretRegistry.redact(text);
  }
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof ManagementApiError) return cause.toJSON();
  if (cause instanceof Error) {
    const fields = cause as Error & { code?: unknown };
    return {
      name: cause.name,
      message: cause.message,
      ...(fields.code === undefined ? {} : { code: fields.code }),
      ...(cause.cause === undefined ? {} : { cause: describeCause(cause.cause) }),
    };
  }
  return cause;
}

/** Bad credentials or an inactive user: login answered `"status": false`. */
export class AuthenticationError extends ManagementApiError {
  /** Built by the client (code `authentication_failed`). */
  constructor(message: string, details: ErrorDetails = {}) {
    super('authentication_failed', message, details);
  }
}

/** The user may not do this (read-only user writing). Never retried. */
export class PermissionError extends ManagementApiError {
  /** The service's `Error` text, scrubbed of secrets. */
  readonly serviceMessage: string;

  /** Built by the client (code `permission_denied`) from the service's `Error` text. */
  constructor(serviceMessage: string, details: ErrorDetails = {}) {
    super(
      'permission_denied',
      `The service refused ${details.command ?? 'the call'}: "${serviceMessage}". ` +
        'Use an API key of a user that is allowed to write.',
      details,
    );
    this.serviceMessage = secretRegistry.redact(serviceMessage);
  }
}

/** The entry or object the call names does not exist. */
export class NotFoundError extends ManagementApiError {
  /** The service's `Error` text, scrubbed of secrets. */
  readonly serviceMessage: string;

  /** Built by the client (code `not_found`) from the service's `Error` text. */
  constructor(serviceMessage: string, details: ErrorDetails = {}) {
    super('not_found', `${details.command ?? 'The call'} found nothing: "${serviceMessage}".`, details);
    this.serviceMessage = secretRegistry.redact(serviceMessage);
  }
}

/** The service kept answering 429 until the retry budget ran out. */
export class RateLimitError extends ManagementApiError {
  /** Built by the client (code `rate_limited`); `retryAfterMs` is the last reply's Retry-After, when it had one. */
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    details: ErrorDetails = {},
  ) {
    super('rate_limited', message, details);
  }
}

/** A request the client refuses to send; names the field and the value. */
export class ValidationError extends ManagementApiError {
  /** The refused value, scrubbed of secrets. */
  readonly value: unknown;

  /** Built by the client (code `validation_failed`); `field` names the refused input, e.g. `entries[3].ip`. */
  constructor(
    readonly field: string,
    value: unknown,
    message: string,
    details: ErrorDetails = {},
  ) {
    super('validation_failed', message, details);
    this.value = secretRegistry.redactValue(value);
  }
}

/**
 * A base URL with http:// to a host other than loopback: the API key and every session token
 * would cross the network unencrypted. Opt out with `allowInsecureHttp: true`.
 */
export class InsecureBaseUrlError extends ValidationError {
  /** Thrown by the ManagementClient constructor (code `validation_failed`, field `baseUrl`). */
  constructor(baseUrl: string, host: string) {
    super(
      'baseUrl',
      baseUrl,
      `baseUrl: ${JSON.stringify(baseUrl)} uses http:// to ${host}, which is not a loopback address: the API key and session tokens would cross the network unencrypted. ` +
        'Use https://, or set allowInsecureHttp: true if the network path is protected otherwise.',
    );
    this.name = 'InsecureBaseUrlError';
  }
}

/** The request did not complete at the network level (refused, reset, timed out). */
export class TransportError extends ManagementApiError {
  /**
   * Built by the client (code `transport_failed`); `networkCode` is the network error's code
   * (`ECONNREFUSED`, `ECONNRESET`, ...) or `SVC_REQUEST_TIMEOUT` (`REQUEST_TIMEOUT_CODE`) when no complete reply
   * came within the request timeout.
   */
  constructor(
    message: string,
    readonly networkCode: string | undefined,
    details: ErrorDetails = {},
  ) {
    super('transport_failed', message, details);
  }
}

/** An HTTP reply that is not JSON, or has neither `Ok`/`ok` nor `Error`. */
export class UnexpectedReplyError extends ManagementApiError {
  /** The start of the reply body, scrubbed of secrets. */
  readonly bodyExcerpt: string;

  /** Built by the client (code `unexpected_reply`) with the reply's status. */
  constructor(message: string, bodyExcerpt: string, details: ErrorDetails & { status: number }) {
    super('unexpected_reply', message, details);
    this.bodyExcerpt = secretRegistry.redact(bodyExcerpt);
  }
}

/** The service answered `{"Error": "..."}` and the client has no more specific class for it. */
export class ServiceError extends ManagementApiError {
  /** The service's `Error` text, scrubbed of secrets like the message. */
  readonly serviceMessage: string;

  /** Built by the client (code `service_error`, or `token_rejected` for {@link TokenRejectedError}). */
  constructor(serviceMessage: string, details: ErrorDetails = {}, code: ManagementErrorCode = 'service_error') {
    super(code, `The service refused ${details.command ?? 'the call'}: "${serviceMessage}".`, details);
    this.serviceMessage = secretRegistry.redact(serviceMessage);
  }
}

/** The token was refused again right after a fresh login: something is wrong with the session. */
export class TokenRejectedError extends ServiceError {
  /** Built by the client (code `token_rejected`). */
  constructor(serviceMessage: string, details: ErrorDetails = {}) {
    super(serviceMessage, details, 'token_rejected');
  }
}

/** A call made after close(), or one that was waiting to retry when close() came. */
export class ClientClosedError extends ManagementApiError {
  /** Built by the client (code `client_closed`) for the command that was refused. */
  constructor(command: string) {
    super('client_closed', `${command}: the client is closed; create a new ManagementClient.`, { command });
  }
}
