/**
 * The two tiers of jest.config.js (help/testing.md): every test file is in exactly one, and the
 * unit tier keeps its promise of needing node alone: none of its files (nor the support files
 * they import) reaches for terraform, the provider or release build, the cdktf CLI or a
 * container runtime through the helpers that bring them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const TESTS = path.join(root, '__tests__');
// The config is plain JavaScript that jest loads; read it the same way.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(root, 'jest.config.js')) as { projects: Array<{ displayName: string; testMatch: string[] }> };
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

function allTestFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixture' ? [] : allTestFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function tier(name: string): string[] {
  const project = config.projects.find((candidate) => candidate.displayName === name);
  if (project === undefined) throw new Error(`jest.config.js has no project named ${name}`);
  return project.testMatch;
}

/** What an import of these brings, which the unit tier must not need. */
const END_TO_END_HELPERS: ReadonlyArray<[RegExp, string]> = [
  [/terraform-harness\/(workspace|provider-build)['"]/, 'terraform against the provider build'],
  [/support\/aws-terraform['"]/, 'terraform with hashicorp/aws'],
  [/provider-acceptance\/support\/harness['"]/, 'the acceptance harness (terraform)'],
  [/fault-tolerance\/support['"]/, 'the fault harness (terraform)'],
  [/podman-sandbox['"]/, 'podman'],
  [/release\/(build|support\/)/, 'the release build'],
  [/cdktf-cli|node_modules\/\.bin\/cdktf/, 'the cdktf CLI'],
  [/spawn(Sync)?\(\s*'(terraform|podman|docker|npm)'/, 'terraform, a container runtime or npm scripts'],
];

/** The file and the local modules it imports, transitively (support files, harnesses). */
function withLocalImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), match[1]!);
    // Only the tests' own helpers: src/ and scripts/ are what the tests exercise.
    if (!target.startsWith(TESTS)) continue;
    for (const candidate of [`${target}.ts`, path.join(target, 'index.ts')]) if (fs.existsSync(candidate)) withLocalImports(candidate, seen);
  }
  return seen;
}

test('every test file is in exactly one tier', () => {
  const unit = tier('unit');
  const endToEnd = tier('end-to-end');
  expect(unit.filter((file) => endToEnd.includes(file))).toEqual([]);
  expect([...unit, ...endToEnd].sort()).toEqual(allTestFiles(TESTS).sort());
  expect(unit.length).toBeGreaterThan(50);
});

test('the unit tier imports none of the helpers that bring terraform, a build, the cdktf CLI or podman', () => {
  // This file names the patterns, so it is left out of its own search.
  const reaching = tier('unit').filter((file) => file !== __filename).flatMap((file) =>
    [...withLocalImports(file)].flatMap((source) => {
      const text = fs.readFileSync(source, 'utf8');
      return END_TO_END_HELPERS.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${path.relative(TESTS, file)} (through ${path.relative(TESTS, source)}): ${what}`);
    }),
  );
  expect(reaching).toEqual([]);
});

test('npm run test:unit selects the unit tier, and npm test runs both', () => {
  expect(packageJson.scripts['test:unit']).toMatch(/jest --selectProjects unit\b/);
  expect(packageJson.scripts.test).toMatch(/&& jest$/);
  expect(config.projects.map((project) => project.displayName).sort()).toEqual(['end-to-end', 'unit']);
});
