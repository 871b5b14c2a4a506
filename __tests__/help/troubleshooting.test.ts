/**
 * help/troubleshooting.md quotes the project's own messages in `code` (first column of its
 * tables), with `<placeholders>` for the parts that vary. Each quoted message must still be
 * produced by the code: every fragment between placeholders that holds two or more words is
 * found in a string literal (or template, or `+` chain of them) of src/, modules/, app/, scripts/ or
 * main.ts. A reworded message fails here until the page quotes the new wording.
 */
import { codeSpans, readPage, tableRows } from './support/markdown';
import { sourceStrings } from './support/source-text';

const markdown = readPage('troubleshooting.md');
const literals = sourceStrings(['src', 'modules', 'app', 'scripts', 'main.ts']).flatMap((source) => source.literals);
const sourceText = literals.join('\n');

/** The quoted messages of each table row: the code spans of its first cell (a summary and its detail, say). */
const rows = tableRows(markdown)
  .map((cells) => codeSpans(cells[0] ?? ''))
  .filter((spans) => spans.length > 0);

/** The parts of a message a test can check: text between placeholders, with two or more words. */
function checkedFragments(message: string): string[] {
  return message
    .replace(/"<[^>]+>"/g, '<value>') // "<name>" stands for JSON.stringify(name), quotes included
    .split(/<[^>]+>/)
    // Separators the error classes add around a message (`<file>: `, `); `) are not the message.
    .map((fragment) => fragment.replace(/^[\s:;,.)]+|[\s:;,(]+$/g, ''))
    .filter((fragment) => (fragment.match(/[A-Za-z_]{2,}/g) ?? []).length >= 2);
}

describe('the messages help/troubleshooting.md quotes exist in the code', () => {
  test('the page quotes the common errors', () => {
    expect(rows.length).toBeGreaterThan(25);
  });

  test.each(rows.map((spans) => [spans.join(' / '), spans]))('%s', (message, spans) => {
    const fragments = spans.flatMap(checkedFragments);
    expect({ message, checkable: fragments.length > 0 }).toEqual({ message, checkable: true });
    expect({ message, missing: fragments.filter((fragment) => !sourceText.includes(fragment)) }).toEqual({ message, missing: [] });
  });
});
