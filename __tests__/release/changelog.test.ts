/**
 * CHANGELOG.md (help/releasing.md#versioning): the version package.json releases has its own
 * dated section, and the file keeps the Keep a Changelog shape a reader and tools rely on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HELP_URL } from '../../scripts/generate-registry-docs';
import { EXECUTABLE_NAME, PROVIDER_NAMESPACE, packageVersion } from '../../src/provider-identity';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const changelog = fs.readFileSync(path.join(REPOSITORY, 'CHANGELOG.md'), 'utf8');
const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)].map((match) => ({ version: match[1], date: match[2] }));

test('the version package.json releases has a dated section', () => {
  const version = packageVersion(REPOSITORY);
  const entry = headings.find((heading) => heading.version === version);
  expect(entry).toBeDefined();
  expect(entry?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  // The section has content, and a link reference for its heading.
  const section = changelog.split(/^## /m).find((part) => part.startsWith(`[${version}]`)) ?? '';
  expect(section).toMatch(/^### (Added|Changed|Deprecated|Removed|Fixed|Security)$/m);
  expect(changelog).toMatch(new RegExp(`^\\[${version.replace(/\./g, '\\.')}\\]: https://`, 'm'));
});

test('Unreleased comes first, then releases newest first, each version once', () => {
  expect(headings[0]?.version).toBe('Unreleased');
  const versions = headings.slice(1).map((heading) => heading.version);
  expect(new Set(versions).size).toBe(versions.length);
  const numeric = (version: string) => version.split(/[.-]/).slice(0, 3).map(Number);
  const sorted = [...versions].sort((a, b) => {
    const [x, y] = [numeric(a), numeric(b)];
    return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  });
  expect(versions).toEqual(sorted);
});

test('every link to the repository names the one the public registry reads: <namespace>/terraform-provider-<type> (help/releasing.md)', () => {
  const repository = `https://github.com/${PROVIDER_NAMESPACE}/${EXECUTABLE_NAME}`;
  const manifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
  expect(manifest.repository.url).toBe(`git+${repository}.git`);
  expect(manifest.homepage).toBe(`${repository}#readme`);
  expect(manifest.bugs.url).toBe(`${repository}/issues`);
  expect(HELP_URL.startsWith(`${repository}/blob/main/`)).toBe(true);
  const links = [...changelog.matchAll(/^\[[^\]]+\]: (https:\/\/github\.com\/\S+)$/gm)].map((match) => match[1]);
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) expect(link.startsWith(`${repository}/`)).toBe(true);
  // No other GitHub address of ours in the pages a user or the registry reads.
  const pages = ['README.md', 'CHANGELOG.md', ...fs.readdirSync(path.join(REPOSITORY, 'help')).filter((name) => name.endsWith('.md')).map((name) => `help/${name}`), 'terraform/modules/svc-security-policy/README.md', 'terraform/modules/svc-control-plane/README.md'];
  for (const page of pages) {
    const ours = [...fs.readFileSync(path.join(REPOSITORY, page), 'utf8').matchAll(new RegExp(`github\\.com/${PROVIDER_NAMESPACE}/[\\w.-]+`, 'g'))].map((match) => match[0]);
    expect([page, ours.filter((address) => address.replace(/\.git$/, '') !== `github.com/${PROVIDER_NAMESPACE}/${EXECUTABLE_NAME}`)]).toEqual([page, []]);
  }
});

test('module sources pinned to a tag name the version package.json releases', () => {
  const tag = `v${packageVersion(REPOSITORY)}`;
  const pages = ['README.md', ...fs.readdirSync(path.join(REPOSITORY, 'help')).filter((name) => name.endsWith('.md')).map((name) => `help/${name}`), 'terraform/modules/svc-security-policy/README.md', 'terraform/modules/svc-control-plane/README.md'];
  const pinned = pages.flatMap((page) => [...fs.readFileSync(path.join(REPOSITORY, page), 'utf8').matchAll(/\?ref=(v[\w.-]+)/g)].map((match) => [page, match[1]]));
  expect(pinned.length).toBeGreaterThan(0);
  expect(pinned.filter(([, ref]) => ref !== tag)).toEqual([]);
});
