/**
 * The user name and password a URL may carry (`https://admin:KEY@host`), replaced before the URL
 * is shown: a shared rule, so the client's redaction, the SSO rules and the constructs' errors
 * hide the same part of the same URLs.
 */

export const REDACTED = '[REDACTED]';

/** `scheme://` then userinfo up to the `@` before the host (no `/`, `?`, `#`, white space or quotes in between). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;

/** The text with the user name and password of every URL in it replaced by [REDACTED]. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, `$1${REDACTED}@`);
}
