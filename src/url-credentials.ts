/**
 * The user name and password of a URL, removed from text before it is shown: a URL setting may
 * carry a key (`https://admin:KEY@host`) that no registry of secrets has learnt yet. A shared
 * rule, so the constructs, the SSO rules and the client's redaction (src/api/redaction.ts) all
 * scrub URLs the same way without the constructs importing the client.
 */

/** What stands in the text where a secret was. */
export const REDACTED = '[REDACTED]';

/** `scheme://` then userinfo up to the `@` before the host (no `/`, `?`, `#`, white space or quotes in between). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;

/** The text with the user name and password of every URL in it replaced by [REDACTED]. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, `$1${REDACTED}@`);
}
