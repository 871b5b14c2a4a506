/**
 * The layers hold: dependency-cruiser, with the rules of .dependency-cruiser.cjs, finds no import
 * against the direction anywhere in the tree, and it sees every source file and resolves every
 * relative import (a file it skipped or an import it could not follow would pass unchecked).
 * A fixture tree that breaks each rule once proves every rule can fail, under its own name.
 * contributing/architecture.md draws the same layers and names every rule.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';

const root = path.join(__dirname, '..', '..');
const configPath = path.join(root, '.dependency-cruiser.cjs');
/** What `npm run layers` cruises: everything with code in it. */
const ROOTS = ['main.ts', 'app', 'src', 'modules', 'scripts', 'bin', 'bench', '__tests__'];

interface Rule {
  readonly name: string;
  readonly comment: string;
}
interface Config {
  readonly forbidden: readonly Rule[];
  readonly options: { readonly exclude: { readonly path: string } };
}
// The config is CommonJS so dependency-cruiser loads it as is; the test reads the same object.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(configPath) as Config;

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
  readonly cycle?: ReadonlyArray<string | { readonly name: string }>;
}
interface Cruise {
  readonly modules: ReadonlyArray<{
    readonly source: string;
    readonly dependencies: ReadonlyArray<{ readonly module: string; readonly couldNotResolve: boolean }>;
  }>;
  readonly summary: { readonly violations: readonly Violation[] };
}

/**
 * dependency-cruiser's executable: a devDependency in the repository's node_modules, or on
 * NODE_PATH for a run against another install. Missing, the test fails saying so (never skips).
 */
function dependencyCruiser(): string {
  const places = [path.join(root, 'node_modules'), ...(process.env.NODE_PATH ?? '').split(path.delimiter).filter(Boolean)];
  const found = places.map((place) => path.join(place, 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')).find((file) => fs.existsSync(file));
  if (found === undefined) {
    throw new Error(`dependency-cruiser is not installed (looked in ${places.join(', ')}): it is a devDependency, so npm ci installs it`);
  }
  return found;
}

/** Runs dependency-cruiser with the repository's rules in `cwd` over `roots`; its JSON report. */
async function cruise(cwd: string, roots: readonly string[]): Promise<Cruise> {
  const child = track(
    spawn(process.execPath, [dependencyCruiser(), '--config', configPath, '--output-type', 'json', ...roots], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // With --output-type json it exits with the number of errors; the report is on stdout either way.
  if (!stdout.trimStart().startsWith('{')) throw new Error(`dependency-cruiser exited ${code} without a report:\n${stderr}`);
  return JSON.parse(stdout) as Cruise;
}

const commentOf = (name: string): string => config.forbidden.find((rule) => rule.name === name)?.comment ?? '(no such rule in .dependency-cruiser.cjs)';

/** One line per violation, as a failure shows it: which import, which rule, what to do. */
function violationLine(violation: Violation): string {
  const cycle = violation.cycle === undefined ? '' : ` (cycle: ${violation.cycle.map((step) => (typeof step === 'string' ? step : step.name)).join(' -> ')})`;
  return `${violation.from} -> ${violation.to}${cycle}  [${violation.rule.name}] ${commentOf(violation.rule.name)}`;
}

/** The code files under the roots that the config does not exclude. */
function codeFiles(): string[] {
  const excluded = new RegExp(config.options.exclude.path);
  const files: string[] = [];
  const walk = (relative: string): void => {
    const stat = fs.statSync(path.join(root, relative));
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(path.join(root, relative))) walk(path.posix.join(relative, name));
    } else if (/\.(ts|js|cjs|mjs)$/.test(relative) && !relative.endsWith('.d.ts')) {
      files.push(relative);
    }
  };
  for (const start of ROOTS) walk(start);
  return files.filter((file) => !excluded.test(file)).sort();
}

/**
 * Fixture files, each importing the others it names. `rule` is the one rule the file's imports
 * break, or null for a file whose imports are all allowed (so a rule that fires too widely fails
 * the test too).
 */
const FIXTURE: ReadonlyArray<{ readonly file: string; readonly imports: readonly string[]; readonly rule: string | null }> = [
  // Allowed arrows.
  { file: 'src/address.ts', imports: ['src/description.ts'], rule: null },
  { file: 'src/description.ts', imports: [], rule: null },
  { file: 'src/api/transport.ts', imports: ['src/api/types.ts', 'src/address.ts'], rule: null },
  { file: 'src/emulator/server.ts', imports: ['src/api/types.ts', 'src/address.ts'], rule: null },
  { file: 'src/provider/core/values.ts', imports: [], rule: null },
  { file: 'src/provider/protocol/msgpack.ts', imports: ['src/provider/core/values.ts'], rule: null },
  { file: 'src/provider/main.ts', imports: ['src/provider/protocol/msgpack.ts', 'src/api/transport.ts', 'src/address.ts'], rule: null },
  { file: 'src/pipeline/drift-check.ts', imports: ['src/api/transport.ts', 'src/address.ts'], rule: null },
  { file: 'modules/policy/construct.ts', imports: ['src/address.ts', 'src/api/types.ts'], rule: null },
  { file: 'src/api/index.ts', imports: ['src/api/transport.ts'], rule: null },
  { file: 'modules/index.ts', imports: ['modules/policy/construct.ts', 'src/api/index.ts', 'src/pipeline/drift-check.ts'], rule: null },
  { file: 'app/config.ts', imports: ['modules/index.ts', 'src/pipeline/drift-check.ts', 'src/api/transport.ts'], rule: null },
  { file: 'scripts/demo.ts', imports: ['app/config.ts', 'src/emulator/server.ts', 'src/provider/main.ts'], rule: null },
  { file: '__tests__/support/hcl.ts', imports: ['scripts/demo.ts'], rule: null },
  { file: 'src/api/redaction.ts', imports: [], rule: null },
  { file: 'scripts/build-provider.ts', imports: [], rule: null },
  // One broken rule each.
  { file: 'src/sso-rules.ts', imports: ['src/api/redaction.ts'], rule: 'shared-rules-import-nothing-of-svc' },
  { file: 'src/api/types.ts', imports: ['src/address.ts', 'src/api/redaction.ts'], rule: 'wire-contract-on-shared-rules-only' },
  { file: 'src/api/client.ts', imports: ['modules/policy/construct.ts'], rule: 'client-on-wire-contract-and-shared-rules-only' },
  { file: 'src/api/validation.ts', imports: ['src/emulator/server.ts'], rule: 'client-on-wire-contract-and-shared-rules-only' },
  { file: 'src/emulator/store.ts', imports: ['src/api/transport.ts'], rule: 'emulator-on-wire-contract-and-shared-rules-only' },
  { file: 'src/provider/protocol/log.ts', imports: ['src/api/redaction.ts'], rule: 'tfplugin-layer-imports-nothing-of-svc' },
  { file: 'src/provider/core/plan.ts', imports: ['src/provider/protocol/msgpack.ts'], rule: 'tfplugin-core-free-of-protocol' },
  { file: 'src/provider/resources/list.ts', imports: ['src/emulator/server.ts'], rule: 'svc-provider-on-client-tfplugin-and-shared-rules-only' },
  { file: 'src/pipeline/plan-failure.ts', imports: ['src/provider/main.ts'], rule: 'pipeline-on-client-and-shared-rules-only' },
  { file: 'src/migration/moved-blocks.ts', imports: ['modules/policy/construct.ts'], rule: 'pipeline-on-client-and-shared-rules-only' },
  { file: 'modules/policy/props.ts', imports: ['src/api/redaction.ts'], rule: 'constructs-on-shared-rules-and-wire-contract-only' },
  { file: 'modules/provider.ts', imports: ['src/provider/main.ts'], rule: 'library-entries-re-export-the-library-only' },
  { file: 'src/provider/context.ts', imports: ['src/api/index.ts'], rule: 'client-index-is-the-public-entry-only' },
  { file: 'main.ts', imports: ['src/emulator/server.ts'], rule: 'app-on-the-library-only' },
  { file: 'app/user-errors.ts', imports: ['scripts/build-provider.ts'], rule: 'app-on-the-library-only' },
  { file: 'src/pipeline/provider-mirror.ts', imports: ['scripts/build-provider.ts'], rule: 'library-never-imports-app-or-tooling' },
  { file: 'modules/policy/config.ts', imports: ['app/config.ts'], rule: 'library-never-imports-app-or-tooling' },
  { file: 'scripts/bench/session.ts', imports: ['__tests__/support/hcl.ts'], rule: 'only-tests-import-tests' },
  { file: 'src/rules/first.ts', imports: ['src/rules/second.ts'], rule: 'no-circular' },
  // A cycle is reported once, at the module the cruise reaches first.
  { file: 'src/rules/second.ts', imports: ['src/rules/first.ts'], rule: null },
];

function writeFixture(directory: string): void {
  for (const { file, imports } of FIXTURE) {
    const lines = imports.map((target, index) => {
      let specifier = path.posix.relative(path.posix.dirname(file), target).replace(/\.ts$/, '');
      if (!specifier.startsWith('.')) specifier = `./${specifier}`;
      return `import * as imported${index} from '${specifier}';\nexport const use${index} = imported${index};`;
    });
    fs.mkdirSync(path.join(directory, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(directory, file), `${lines.join('\n')}\nexport const name = '${file}';\n`);
  }
  fs.copyFileSync(path.join(root, 'tsconfig.json'), path.join(directory, 'tsconfig.json'));
}

let directory: string;
let repository: Cruise;
let fixture: Cruise;
// Both cruises at once: each takes a few seconds, mostly parsing.
beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
  writeFixture(directory);
  const fixtureRoots = ROOTS.filter((start) => fs.existsSync(path.join(directory, start)));
  [repository, fixture] = await Promise.all([cruise(root, ROOTS), cruise(directory, fixtureRoots)]);
}, 60_000);
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe('the repository', () => {
  test('has no import against the direction of the layers', () => {
    // Without TypeScript to parse with, dependency-cruiser skips .ts files and would find nothing.
    expect(repository.modules.length).toBeGreaterThan(300);
    expect(repository.summary.violations.map(violationLine)).toEqual([]);
  });

  test('is seen whole: every code file is cruised and every relative import resolves', () => {
    const cruised = new Set(repository.modules.map((module) => module.source));
    expect(codeFiles().filter((file) => !cruised.has(file))).toEqual([]);
    const unresolved = repository.modules.flatMap((module) =>
      module.dependencies.filter((dependency) => dependency.couldNotResolve && dependency.module.startsWith('.')).map((dependency) => `${module.source} -> ${dependency.module}`),
    );
    expect(unresolved).toEqual([]);
    // A parser that read no TypeScript would see no imports at all.
    const planFailure = repository.modules.find((module) => module.source === 'src/pipeline/plan-failure.ts');
    expect(planFailure?.dependencies.map((dependency) => dependency.module)).toContain('../diagnostic-summaries');
  });
});

describe('every rule can fail', () => {
  test('each import against the direction is reported under its rule, and no allowed import is', () => {
    const reported = fixture.summary.violations.map((violation) => `${violation.from} [${violation.rule.name}]`).sort();
    const expected = FIXTURE.filter((entry) => entry.rule !== null).map((entry) => `${entry.file} [${entry.rule}]`).sort();
    expect(reported).toEqual(expected);
  });

  test('the fixture breaks every rule of the config', () => {
    const broken = new Set(FIXTURE.map((entry) => entry.rule));
    expect(config.forbidden.map((rule) => rule.name).filter((name) => !broken.has(name))).toEqual([]);
  });

  test('a failure says what to do: every rule has a comment, and a violation prints it', () => {
    expect(config.forbidden.filter((rule) => typeof rule.comment !== 'string' || rule.comment.length < 40).map((rule) => rule.name)).toEqual([]);
    const protocol = fixture.summary.violations.find((violation) => violation.from === 'src/provider/protocol/log.ts');
    expect(protocol === undefined ? '' : violationLine(protocol)).toContain('src/provider/protocol/log.ts -> src/api/redaction.ts  [tfplugin-layer-imports-nothing-of-svc] ');
    expect(protocol === undefined ? '' : violationLine(protocol)).toContain('injected by src/provider/main.ts');
  });
});

test('contributing/architecture.md names every rule, and its folder table every top-level folder', () => {
  const page = fs.readFileSync(path.join(root, 'contributing', 'architecture.md'), 'utf8');
  expect(config.forbidden.map((rule) => rule.name).filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  // The rows of "The folders": each names a folder that exists, and every folder of the checkout
  // (but the hidden and git-ignored ones) has a row, so the table does not drift from the tree.
  const table = page.slice(page.indexOf('## The folders'));
  const rows = [...table.matchAll(/^\| `([^`]+\/)` \|/gm)].map((match) => match[1]);
  expect(rows.filter((folder) => !fs.existsSync(path.join(root, folder)))).toEqual([]);
  const ignored = fs
    .readFileSync(path.join(root, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^\//, '').replace(/\/$/, ''));
  const topLevel = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !ignored.includes(entry.name))
    .map((entry) => `${entry.name}/`);
  expect(topLevel.filter((folder) => !rows.includes(folder))).toEqual([]);
});
