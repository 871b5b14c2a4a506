/**
 * `npm ci` without EBADENGINE warnings on every supported Node line: package.json's engines
 * range admits each pinned line (scripts/node-runtimes.json) and the oldest Node it claims, and
 * every package the lock file installs admits them too (npm warns per package whose own engines
 * range excludes the running Node). The lock file records each package's engines field, so this
 * reads what npm ci reads.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

// semver is a devDependency without bundled types; these are the two functions used.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const runtimes = JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'node-runtimes.json'), 'utf8')) as { lts: string; lines: Record<string, string> };
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: unknown }>;
};

const oldest = semver.minVersion(manifest.engines.node)?.version;
const versions: string[] = [...Object.values(runtimes.lines), ...(oldest === undefined ? [] : [oldest])];

test('the engines range has a lowest version and the pinned lines include the LTS line', () => {
  expect(oldest).toBeDefined();
  expect(Object.keys(runtimes.lines)).toContain(runtimes.lts);
});

test.each(versions)('package.json engines admits Node %s', (version) => {
  expect(semver.satisfies(version, manifest.engines.node)).toBe(true);
});

test.each(versions)('no package the lock file installs excludes Node %s', (version) => {
  const excluding = Object.entries(lock.packages)
    .filter(([location]) => location !== '')
    .flatMap(([location, entry]) => {
      const engines = entry.engines as { node?: unknown } | undefined;
      const range = typeof engines?.node === 'string' ? engines.node : undefined;
      return range !== undefined && !semver.satisfies(version, range) ? [`${location}@${entry.version}: node ${range}`] : [];
    });
  expect(excluding).toEqual([]);
});
