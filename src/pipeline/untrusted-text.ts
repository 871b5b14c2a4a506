/**
 * Text that came from the service or from a plan (descriptions, addresses, user names, resource
 * addresses) made safe to show: on a terminal or in a CI log, and in a Markdown pull-request
 * comment. A description written through the API can hold ESC sequences (which clear a screen
 * and print a fake "No changes."), C1 controls (U+009B is a one-character CSI) or bidi overrides
 * (U+202E makes `moc.evil` read as `live.com`); each is shown as a visible `\u{...}` instead.
 *
 * The pipeline's own escaper, until a shared one lands in src/ (the client's boundary); when it
 * does, these functions become calls of it.
 */

/** C0 controls, DEL, C1 controls, and the Unicode format characters that reorder or hide text. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/gu;
/** The same without C0 controls, which JSON.stringify escapes itself (and uses for its own line breaks). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/gu;

/** The text with every control and bidi/format character as `\u{XXXX}` (and `\` itself doubled where it could be mistaken for one). */
export function escapeUntrusted(text: string): string {
  return text.replace(/\\u\{/g, '\\\\u{').replace(UNSAFE, (character) => `\\u{${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** At most `max` characters, with the length said when cut: reports stay readable with a 5 MB description. */
export function truncate(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max).join('')}... (${characters.length} characters)`;
}

/** For a terminal line: escaped, then cut. */
export function forTerminal(text: string, max = 200): string {
  return truncate(escapeUntrusted(text), max);
}

/**
 * For Markdown (a table cell, a list item, a heading): escaped like for a terminal, then every
 * character Markdown or HTML gives a meaning to as an entity or a backslash escape, so a
 * description cannot close a table, open `<details>`, link (nor be autolinked), mention
 * `@someone` or hide text in a comment. GitHub and GitLab render the result as the literal text.
 */
export function forMarkdown(text: string, max = 200): string {
  // Backslash escapes first: the entities added after them hold # and ;, which must stay as they are.
  return forTerminal(text, max)
    .replace(/[\\`*_[\]#~]/g, (character) => `\\${character}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '&#124;')
    .replace(/@/g, '&#64;')
    // No autolink of a URL that came from the plan or the service: the reviewer reads it, nobody clicks it by mistake.
    .replace(/:\/\//g, '&#58;//');
}

/**
 * JSON for a terminal or a file a reviewer opens: JSON.stringify escapes C0 controls but leaves
 * C1 controls and bidi overrides as they are; they become \uXXXX escapes (still the same JSON).
 */
export function safeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
