/**
 * What a list entry's description may hold, for every part that takes one (the client before it
 * sends, the provider at validate, SecurityPolicy at synth): the one rule, so the three agree.
 *
 * - At most MAX_DESCRIPTION_LENGTH characters. The contract names no limit; ours keeps one bulk
 *   call of 1,000 entries well under the size a service or proxy accepts (the emulator takes 4 MiB
 *   per body), and a description is a label, not a document.
 * - No control characters (C0, DEL, C1): a newline or an ESC sequence in a description shows up
 *   in terraform's plan output, where ESC sequences can rewrite what the reviewer sees.
 */
export const MAX_DESCRIPTION_LENGTH = 1024;

/** What is wrong with a description, or undefined when it is fine. Never repeats the text itself. */
export function descriptionProblem(description: string): string | undefined {
  // Counted in code points only when the UTF-16 length could be over the limit (it never undercounts).
  const length = description.length > MAX_DESCRIPTION_LENGTH ? [...description].length : description.length;
  if (length > MAX_DESCRIPTION_LENGTH) {
    return `is ${length} characters long; descriptions hold at most ${MAX_DESCRIPTION_LENGTH}`;
  }
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(description);
  if (control !== null) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `holds the control character U+${code} at position ${control.index + 1}; descriptions are one line of printable text`;
  }
  return undefined;
}
