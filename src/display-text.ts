/**
 * Text that came from somewhere we do not control (the service, a user's argument) made safe to
 * show: in state, a terraform plan, a log line, a drift or plan report, an error message. The one
 * rule, so that every place that shows such text agrees.
 *
 * - escapeForDisplay: characters that move the cursor, clear the screen, start a terminal escape
 *   sequence or reorder what a reader sees become visible `\uXXXX` text: C0 controls (newline and
 *   tab included), DEL, C1 controls (U+0080-U+009F: U+009B starts a sequence like ESC [ does),
 *   bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
 *   U+202A-U+202E, U+2066-U+2069), invisible separators and zero-width characters (U+200B-U+200D,
 *   U+2028, U+2029, U+2060-U+2064, U+FEFF) and unpaired surrogates. Backslashes stay as they are,
 *   so an ordinary description keeps its spelling; `\u001b` typed as text and an escaped ESC then
 *   read the same, which is the point: both are harmless text.
 * - quoteForMessage: a value quoted for an error or diagnostic, escaped, and cut to its first
 *   MESSAGE_VALUE_LENGTH characters plus its length, so a 6 MB argument costs 120 bytes of output.
 */

/** Characters a value quoted in a message keeps before it is cut. */
export const MESSAGE_VALUE_LENGTH = 100;

// The `u` flag makes a surrogate range match unpaired halves only (a valid pair is one code point).
const UNSAFE_CHARACTERS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]/gu;

/** `text` with every unsafe character replaced by `\uXXXX` (lower-case hex, as JSON writes it). */
export function escapeForDisplay(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** True when escapeForDisplay would change `text`. */
export function needsEscaping(text: string): boolean {
  UNSAFE_CHARACTERS.lastIndex = 0;
  const found = UNSAFE_CHARACTERS.test(text);
  UNSAFE_CHARACTERS.lastIndex = 0;
  return found;
}

/**
 * `text` JSON-quoted and escaped; longer than `limit` characters (code points), its first `limit`
 * followed by `... (N characters)`, e.g. `"aaaa..." (6000296 characters)`.
 */
export function quoteForMessage(text: string, limit = MESSAGE_VALUE_LENGTH): string {
  // Counting code points walks the whole string once; slicing by code unit first keeps a
  // huge value from being split into an array of millions of characters.
  const head = [...text.slice(0, limit * 2)].slice(0, limit).join('');
  if (head.length === text.length) return escapeForDisplay(JSON.stringify(text));
  return `${escapeForDisplay(JSON.stringify(head))}... (${countCodePoints(text)} characters)`;
}

/** Any value for a message: strings as quoteForMessage, anything else as its JSON, cut alike. */
export function describeValueForMessage(value: unknown, limit = MESSAGE_VALUE_LENGTH): string {
  if (typeof value === 'string') return quoteForMessage(value, limit);
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    // Cycles and BigInts: the value's own text is all there is to show.
    json = String(value);
  }
  if (json.length <= limit) return escapeForDisplay(json);
  return `${escapeForDisplay(json.slice(0, limit))}... (${json.length} characters of JSON)`;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}
