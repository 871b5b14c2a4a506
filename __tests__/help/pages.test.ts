/**
 * help/ as a set of pages: help/README.md lists every page, and every local link of every page
 * (anchors included) points at a file and a heading that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { headingAnchors, helpDirectory, helpPages, localLinks, readPage } from './support/markdown';

const pages = helpPages();

describe('help/ pages', () => {
  test('help/README.md links every page of help/', () => {
    const linked = new Set(localLinks(readPage('README.md')).map((link) => path.posix.normalize(link.target)));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  test('every local link and anchor of every page resolves', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of localLinks(readPage(page))) {
        const target = link.target === '' ? path.join(helpDirectory, page) : path.join(helpDirectory, path.dirname(page), link.target);
        if (!existsSync(target)) {
          broken.push(`${page} -> ${link.target} (no such file)`);
          continue;
        }
        if (link.anchor !== undefined && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(link.anchor)) {
          broken.push(`${page} -> ${link.target}#${link.anchor} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test('no page still promises what has landed ("a later stage", "next")', () => {
    const stale = pages.filter((page) => /a later stage|not yet (available|implemented)/i.test(readPage(page)));
    expect(stale).toEqual([]);
  });
});
