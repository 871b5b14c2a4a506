/**
 * bin/launch.js's TypeScript loading in a checkout, each case in a fresh Node process (a require
 * hook is per process) over a module in a temporary directory with its own cache: the first
 * start transpiles, the next ones load the cached output without TypeScript, an edit takes effect
 * at the next start, stack traces name the .ts lines, and a syntax error stops the start.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const REPOSITORY = path.resolve(__dirname, '..', '..');

let directory: string;
let cacheDirectory: string;
let moduleFile: string;
let probe: string;

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bin-launch-'));
  cacheDirectory = path.join(directory, 'cache');
  moduleFile = path.join(directory, 'greeting.ts');
  probe = path.join(directory, 'probe.js');
  // What a bin/ command does, with the cache in the test's directory: prints the module's
  // greeting, the first two lines of the stack of what it throws (or of what loading it
  // threw), and whether TypeScript was loaded.
  fs.writeFileSync(
    probe,
    `require(${JSON.stringify(path.join(REPOSITORY, 'bin', 'launch.js'))}).registerTypeScript(${JSON.stringify({ project: path.join(REPOSITORY, 'tsconfig.json'), cacheDirectory })});
const stackOf = (error) => error.stack.split('\\n').slice(0, 2).join(' | ');
let result;
try {
  const { greeting } = require(${JSON.stringify(moduleFile)});
  let thrown;
  try {
    greeting({ name: 'throw' });
  } catch (error) {
    thrown = stackOf(error);
  }
  result = { greeting: greeting({ name: 'svc' }), thrown };
} catch (error) {
  result = stackOf(error);
}
const typescriptLoaded = Object.keys(require.cache).some((file) => file.endsWith(${JSON.stringify(path.join('node_modules', 'typescript', 'lib', 'typescript.js'))}));
process.stdout.write(JSON.stringify({ result, typescriptLoaded }));
`,
  );
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

function writeModule(greeting: string): void {
  // Types, an interface and a `throw` on line 5: the JavaScript differs from the source.
  fs.writeFileSync(
    moduleFile,
    `interface Person {\n  readonly name: string;\n}\nexport function greeting(person: Person): string {\n  if (person.name === 'throw') throw new Error('asked to');\n  return \`${greeting}, \${person.name}\`;\n}\n`,
  );
}

interface Started {
  /** The greeting and the stack of the module's throw; a string: what loading the module threw. */
  readonly result: { greeting: string; thrown: string } | string;
  readonly typescriptLoaded: boolean;
}

async function start(): Promise<Started> {
  const run = await runCommand(process.execPath, [probe], { env: { ...process.env, NODE_OPTIONS: '' }, timeoutMs: STEP_BUDGET_MS.binCommand });
  expect([run.status, run.stderr]).toEqual([0, '']);
  return JSON.parse(run.stdout) as Started;
}

function cacheEntries(): string[] {
  return fs.readdirSync(cacheDirectory);
}

test(
  'the first start transpiles and caches, the next loads the cache without TypeScript, an edit takes effect and replaces the entry; stack traces name the .ts line',
  async () => {
    // The module's `throw`, on line 5 of the .ts file, from a fresh transpile and from the cache.
    const thrown = `Error: asked to |     at greeting (${moduleFile}:5:38)`;
    writeModule('hello');
    expect(await start()).toEqual({ result: { greeting: 'hello, svc', thrown }, typescriptLoaded: true });
    const [first] = cacheEntries();
    expect(cacheEntries()).toEqual([expect.stringMatching(/^[0-9a-f]{32}-[0-9a-f]{32}\.js$/)]);
    expect(fs.readFileSync(path.join(cacheDirectory, first), 'utf8')).toContain('sourceMappingURL=data:application/json;base64,');

    expect(await start()).toEqual({ result: { greeting: 'hello, svc', thrown }, typescriptLoaded: false });

    writeModule('goodbye');
    expect(await start()).toEqual({ result: { greeting: 'goodbye, svc', thrown }, typescriptLoaded: true });
    // One entry per file: the edited file's old output is gone.
    expect(cacheEntries()).toEqual([expect.not.stringMatching(first)]);
    expect(await start()).toEqual({ result: { greeting: 'goodbye, svc', thrown }, typescriptLoaded: false });
  },
  testTimeoutFor(...Array<number>(4).fill(STEP_BUDGET_MS.binCommand)),
);

test(
  'a syntax error stops the start, naming the file, line and column, and nothing is cached',
  async () => {
    fs.writeFileSync(moduleFile, 'export function greeting(): string {\n  return (;\n}\n');
    const { result } = await start();
    expect(result).toMatch(/^SyntaxError: cannot transpile .*greeting\.ts: \| .*greeting\.ts\(2,11\): error TS1109: Expression expected\./);
    expect(fs.existsSync(cacheDirectory)).toBe(false);
  },
  testTimeoutFor(STEP_BUDGET_MS.binCommand),
);
