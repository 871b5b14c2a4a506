/** The one escaping rule for text we do not control, and the one way values are quoted in errors. */
import { MESSAGE_VALUE_LENGTH, describeValueForMessage, escapeForDisplay, needsEscaping, quoteForMessage } from '../../src/display-text';

describe('escapeForDisplay', () => {
  test.each([
    ['plain text stays', 'SOC partner - do not remove', 'SOC partner - do not remove'],
    ['backslashes stay, so ordinary text keeps its spelling', 'DOMAIN\\user', 'DOMAIN\\user'],
    ['non-ASCII letters and emoji stay', 'Zürich büro 🚫', 'Zürich büro 🚫'],
    ['ESC sequences (clear screen, fake output)', '\u001b[2J\u001b[H\u001b[32mNo changes.\u001b[0m', '\\u001b[2J\\u001b[H\\u001b[32mNo changes.\\u001b[0m'],
    ['newline, carriage return and tab', 'line1\nline2\r\tend', 'line1\\u000aline2\\u000d\\u0009end'],
    ['NUL and DEL', 'a\u0000b\u007f', 'a\\u0000b\\u007f'],
    ['C1 control sequence introducer U+009B', 'x\u009b2Jy', 'x\\u009b2Jy'],
    ['C1 NEL U+0085', 'a\u0085b', 'a\\u0085b'],
    ['right-to-left override U+202E', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['embeddings and overrides U+202A-U+202D', '\u202A\u202B\u202C\u202D', '\\u202a\\u202b\\u202c\\u202d'],
    ['isolates U+2066-U+2069', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['marks LRM, RLM and ALM', '\u200E\u200F\u061C', '\\u200e\\u200f\\u061c'],
    ['zero-width space, joiner and BOM', 'a\u200Bb\u200Dc\uFEFF', 'a\\u200bb\\u200dc\\ufeff'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['an unpaired surrogate', 'a\uD800b', 'a\\ud800b'],
    ['a surrogate pair (one character) stays', 'a\uD83D\uDE80b', 'a\uD83D\uDE80b'],
  ])('%s', (_name, input, expected) => {
    expect(escapeForDisplay(input)).toBe(expected);
    expect(needsEscaping(input)).toBe(input !== expected);
    // Escaped text never needs escaping again.
    expect(needsEscaping(escapeForDisplay(input))).toBe(false);
  });
});

describe('quoteForMessage', () => {
  test.each([
    ['a short value whole, JSON-quoted', '10.0.0.256', '"10.0.0.256"'],
    ['exactly the limit: whole', 'a'.repeat(MESSAGE_VALUE_LENGTH), `"${'a'.repeat(MESSAGE_VALUE_LENGTH)}"`],
    ['one above the limit: cut with the length', 'a'.repeat(MESSAGE_VALUE_LENGTH + 1), `"${'a'.repeat(MESSAGE_VALUE_LENGTH)}"... (101 characters)`],
    ['6 MB: 100 characters and the length', 'a'.repeat(6_000_296), `"${'a'.repeat(100)}"... (6000296 characters)`],
    ['control characters escaped inside the quotes', 'x\u001b[2Jy\u202Ez', '"x\\u001b[2Jy\\u202ez"'],
    ['characters counted as code points, not UTF-16 units', '🚫'.repeat(101), `"${'🚫'.repeat(100)}"... (101 characters)`],
  ])('%s', (_name, input, expected) => {
    expect(quoteForMessage(input)).toBe(expected);
  });

  test('a cut 6 MB value costs a few bytes of output', () => {
    expect(quoteForMessage('b'.repeat(6_000_296)).length).toBeLessThan(130);
  });
});

describe('describeValueForMessage', () => {
  test.each([
    ['a number', 1e308, '1e+308'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['an object', { created: null }, '{"created":null}'],
    ['a long array: cut with its JSON length', Array.from({ length: 60 }, () => 1), `${JSON.stringify(Array.from({ length: 60 }, () => 1)).slice(0, 100)}... (121 characters of JSON)`],
    ['a string as quoteForMessage', 'a\u009bb', '"a\\u009bb"'],
  ])('%s', (_name, input, expected) => {
    expect(describeValueForMessage(input)).toBe(expected);
  });
});
