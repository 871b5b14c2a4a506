/**
 * Every command in help/ is run by a test or explained: each command of a ```sh block either
 * belongs to a page a test runs literally (PAGES_RUN_BY_TESTS), or an exemption names it with
 * the reason this suite does not run it and the tests that cover the same behaviour. Stale
 * exemptions (matching no command) and exemptions pointing at missing tests fail too.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { EXEMPTIONS, PAGES_RUN_BY_TESTS, SUBSTITUTIONS, exemptionFor } from './support/command-coverage';
import { allShellCommands, helpPages, readPage, repositoryRoot } from './support/markdown';

const commands = allShellCommands();

describe('every command in help/ is run by a test or exempted with a reason', () => {
  test('help/ has commands, and the getting-started page is run by a test', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(Object.keys(PAGES_RUN_BY_TESTS)).toContain('getting-started.md');
  });

  test('no command is left uncovered', () => {
    const uncovered = commands
      .filter((command) => PAGES_RUN_BY_TESTS[command.page] === undefined && exemptionFor(command.page, command.command, command.section) === undefined)
      .map((command) => `help/${command.page} (block at line ${command.blockLine}): ${command.command}`);
    expect(uncovered).toEqual([]);
  });

  test('every exemption still names a command', () => {
    const stale = EXEMPTIONS.filter((exemption) => !commands.some((command) => exemptionFor(command.page, command.command, command.section) === exemption)).map(
      (exemption) => `${exemption.page}: ${exemption.section ?? String(exemption.command)}`,
    );
    expect(stale).toEqual([]);
  });

  test('every exemption gives a reason and covering tests that exist', () => {
    for (const exemption of EXEMPTIONS) {
      expect({ page: exemption.page, reasonGiven: exemption.reason.length > 20, coveredBy: exemption.coveredBy.filter((file) => !existsSync(path.join(repositoryRoot, file))) }).toEqual({
        page: exemption.page,
        reasonGiven: true,
        coveredBy: [],
      });
    }
  });

  test('the pages run by tests exist, and so do their tests', () => {
    const pages = helpPages();
    for (const [page, testFile] of Object.entries(PAGES_RUN_BY_TESTS)) {
      expect({ page, exists: pages.includes(page), test: existsSync(path.join(repositoryRoot, testFile)) }).toEqual({ page, exists: true, test: true });
    }
  });

  test('every substitution still applies to its page', () => {
    for (const substitution of SUBSTITUTIONS) {
      expect({ page: substitution.page, text: substitution.text, found: readPage(substitution.page).includes(substitution.text) }).toEqual({
        page: substitution.page,
        text: substitution.text,
        found: true,
      });
    }
  });

  test('the command parser keeps heredocs, loops and continuations whole', () => {
    const heredoc = commands.find((command) => command.page === 'getting-started.md' && command.command.startsWith('cat >> policy/blacklist.yaml'));
    expect(heredoc?.command.split('\n').at(-1)).toBe('YAML');
    const loop = commands.find((command) => command.command.startsWith('for part in'));
    expect(loop?.command.split('\n').at(-1)).toBe('done');
    expect(commands.every((command) => !command.command.startsWith('#'))).toBe(true);
  });
});
