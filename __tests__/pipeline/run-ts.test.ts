/**
 * bin/run-ts.js, what the npm scripts and cdktf.json's app run: a .ts file as the main module,
 * as `ts-node --transpile-only <file>` did. Each case starts node on the real bin/run-ts.js and
 * bin/launch.js, copied with tsconfig.json into a scratch checkout whose node_modules links
 * only TypeScript, so the transpile cache is the scratch checkout's own and goes with it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';
import { runCommand, type CommandRun } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const REPOSITORY = path.resolve(__dirname, '..', '..');

let checkout: string;

beforeEach(() => {
  checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-ts-'));
  fs.mkdirSync(path.join(checkout, 'bin'));
  fs.mkdirSync(path.join(checkout, 'scripts'));
  fs.mkdirSync(path.join(checkout, 'node_modules'));
  for (const file of ['bin/launch.js', 'bin/run-ts.js', 'tsconfig.json']) fs.copyFileSync(path.join(REPOSITORY, file), path.join(checkout, file));
  fs.symlinkSync(path.join(REPOSITORY, 'node_modules', 'typescript'), path.join(checkout, 'node_modules', 'typescript'));
  // What the script sees of its start, and (from its import) a value that an edit changes.
  writeScript(
    'report.ts',
    `import { greeting } from './greeting';
const typescriptLoaded: boolean = Object.keys(require.cache).some((file) => file.endsWith('/node_modules/typescript/lib/typescript.js'));
process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), isMain: require.main === module, pid: process.pid, greeting: greeting(), typescriptLoaded }));
process.exitCode = 3;
`,
  );
  writeGreeting('hello');
});
afterEach(() => fs.rmSync(checkout, { recursive: true, force: true }));

function writeScript(name: string, code: string): void {
  fs.writeFileSync(path.join(checkout, 'scripts', name), code);
}

function writeGreeting(word: string): void {
  writeScript('greeting.ts', `export function greeting(): string {\n  return '${word}';\n}\n`);
}

function runTs(args: readonly string[]): Promise<CommandRun> {
  return runCommand(process.execPath, [path.join(checkout, 'bin', 'run-ts.js'), ...args], { cwd: checkout, env: { ...process.env, NODE_OPTIONS: '' }, timeoutMs: STEP_BUDGET_MS.binCommand });
}

interface Report {
  readonly argv: string[];
  readonly isMain: boolean;
  readonly pid: number;
  readonly greeting: string;
  readonly typescriptLoaded: boolean;
}

function reportOf(run: CommandRun): Report {
  expect([run.status, run.stderr]).toEqual([3, '']);
  return JSON.parse(run.stdout) as Report;
}

test(
  'runs the file as the main module with the arguments after it and its exit code; the next start loads the cache, an edit takes effect',
  async () => {
    const args = ['synth', '--output', 'a b', '-h'];
    const script = path.join(checkout, 'scripts', 'report.ts');
    const expected = { argv: [script, ...args], isMain: true, pid: expect.any(Number), greeting: 'hello', typescriptLoaded: true };
    expect(reportOf(await runTs(['scripts/report.ts', ...args]))).toEqual(expected);
    expect(fs.readdirSync(path.join(checkout, 'node_modules', '.cache', 'svc-launch'))).toHaveLength(2);

    expect(reportOf(await runTs(['scripts/report.ts', ...args]))).toEqual({ ...expected, typescriptLoaded: false });

    writeGreeting('goodbye');
    expect(reportOf(await runTs(['scripts/report.ts', ...args]))).toEqual({ ...expected, greeting: 'goodbye', typescriptLoaded: true });
  },
  testTimeoutFor(...Array<number>(3).fill(STEP_BUDGET_MS.binCommand)),
);

test(
  'a copy of the checkout that links its node_modules loads the checkout\'s entries, adds none, and its stack traces name the copy\'s files',
  async () => {
    writeScript('fail.ts', `import { greeting } from './greeting';\nexport function fail(): never {\n  throw new Error(greeting());\n}\n`);
    writeScript(
      'probe.ts',
      `import { fail } from './fail';\ntry {\n  fail();\n} catch (error) {\n  const typescriptLoaded = Object.keys(require.cache).some((file) => file.endsWith('/node_modules/typescript/lib/typescript.js'));\n  process.stdout.write(JSON.stringify({ stack: String((error as Error).stack).split('\\n')[1], typescriptLoaded }));\n}\n`,
    );
    const probe = (root: string) => runCommand(process.execPath, [path.join(root, 'bin', 'run-ts.js'), 'scripts/probe.ts'], { cwd: root, env: { ...process.env, NODE_OPTIONS: '' }, timeoutMs: STEP_BUDGET_MS.binCommand });
    const cache = path.join(checkout, 'node_modules', '.cache', 'svc-launch');
    const first = await probe(checkout);
    expect([first.status, first.stderr]).toEqual([0, '']);
    expect(JSON.parse(first.stdout)).toEqual({ stack: `    at fail (${path.join(checkout, 'scripts', 'fail.ts')}:3:9)`, typescriptLoaded: true });
    const entries = fs.readdirSync(cache).sort();
    expect(entries).toHaveLength(3);

    // As __tests__/support/repository-copy.ts copies the repository for help/getting-started.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-ts-copy-'));
    try {
      fs.cpSync(checkout, copy, { recursive: true, filter: (source) => source !== path.join(checkout, 'node_modules') });
      fs.symlinkSync(path.join(checkout, 'node_modules'), path.join(copy, 'node_modules'));
      const copied = await probe(copy);
      expect([copied.status, copied.stderr]).toEqual([0, '']);
      expect(JSON.parse(copied.stdout)).toEqual({ stack: `    at fail (${path.join(copy, 'scripts', 'fail.ts')}:3:9)`, typescriptLoaded: false });
      expect(fs.readdirSync(cache).sort()).toEqual(entries);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  },
  testTimeoutFor(STEP_BUDGET_MS.binCommand, STEP_BUDGET_MS.binCommand),
);

test(
  'an error thrown by the file names its .ts line and exits 1',
  async () => {
    writeScript('fail.ts', `interface Options {\n  readonly name: string;\n}\nfunction fail(options: Options): never {\n  throw new Error(\`no \${options.name}\`);\n}\nfail({ name: 'stack' });\n`);
    const run = await runTs(['scripts/fail.ts']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Error: no stack');
    expect(run.stderr).toContain(`${path.join(checkout, 'scripts', 'fail.ts')}:5:9`);
  },
  testTimeoutFor(STEP_BUDGET_MS.binCommand),
);

test(
  'the file runs in run-ts.js\'s own process: a signal to it reaches the file\'s handler, whose exit code is the process\'s',
  async () => {
    writeScript(
      'wait.ts',
      `const waiting: NodeJS.Timeout = setInterval(() => undefined, 1000);
process.on('SIGINT', () => {
  clearInterval(waiting);
  process.stdout.write('interrupted');
  process.exitCode = 130;
});
process.stdout.write(\`ready \${process.pid}\\n\`);
`,
    );
    const child = track(spawn(process.execPath, [path.join(checkout, 'bin', 'run-ts.js'), 'scripts/wait.ts'], { cwd: checkout, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), { group: true });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (status, signal) => resolve({ status, signal })));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve();
      });
      child.once('close', () => reject(new Error(`wait.ts ended before it was ready: ${stdout}${stderr}`)));
    });
    expect(stdout).toBe(`ready ${child.pid}\n`);
    process.kill(child.pid!, 'SIGINT');
    expect(await closed).toEqual({ status: 130, signal: null });
    expect([stdout, stderr]).toEqual([`ready ${child.pid}\ninterrupted`, '']);
  },
  testTimeoutFor(STEP_BUDGET_MS.binCommand),
);

test.each([
  [[], 2, 'stderr', 'run-ts: no file given'],
  [['--transpile-only', 'scripts/report.ts'], 2, 'stderr', 'run-ts: unknown option --transpile-only'],
  [['--help'], 0, 'stdout', 'Usage: node bin/run-ts.js <file.ts> [arguments...]'],
] as const)(
  'run-ts.js %j exits %i with its usage on %s',
  async (args, status, stream, text) => {
    const run = await runTs(args);
    expect(run.status).toBe(status);
    expect(run[stream]).toContain(text);
    expect(run[stream]).toContain('Usage: node bin/run-ts.js <file.ts> [arguments...]');
  },
  testTimeoutFor(STEP_BUDGET_MS.binCommand),
);
