/**
 * Smoke test of `npm run bench`: the suite runs end to end with --quick (small sizes, one run)
 * into a temporary file, and the JSON has the agreed shape with every ratio computed from the
 * recorded medians. No timing is asserted: the figures of a smoke run mean nothing.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Figure, FigureOutcome } from '../../scripts/bench/figures';
import type { BenchResults } from '../../scripts/bench/report';
import { track } from '../support/child-processes';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const TS_NODE = path.join(REPOSITORY, 'node_modules', 'ts-node', 'dist', 'bin.js');
const RUN = path.join(REPOSITORY, 'scripts', 'bench', 'run.ts');

interface RunOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runBench(args: readonly string[], cwd: string): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_)/.test(name)));
    const child = track(spawn(process.execPath, [TS_NODE, '--transpile-only', RUN, ...args], {
      cwd,
      env: { ...env, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: path.join(cwd, 'no-such-terraform.rc') },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function medianOf(samples: readonly number[]): number {
  const sorted = [...samples].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function asFigure(outcome: FigureOutcome | undefined, id: string): Figure {
  if (outcome === undefined) throw new Error(`figure ${id} is missing from the results`);
  if ('error' in outcome) throw new Error(`figure ${id} was not measured: ${outcome.error}`);
  return outcome;
}

describe('npm run bench --quick', () => {
  let directory: string;
  let outcome: RunOutcome;
  let results: BenchResults;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-test-'));
    const outFile = path.join(directory, 'results', 'quick.json');
    outcome = await runBench(['--quick', '--out', outFile], directory);
    if (outcome.code !== 0) throw new Error(`the bench exited with ${outcome.code}\n--- stdout ---\n${outcome.stdout}\n--- stderr ---\n${outcome.stderr}`);
    results = JSON.parse(fs.readFileSync(outFile, 'utf8')) as BenchResults;
    // The start-up row builds the released executable (postject rewrites ~120 MB): a minute or more.
  }, 300_000);

  afterAll(() => {
    fs.rmSync(directory, { recursive: true, force: true });
  });

  test('prints progress on stderr and the table on stdout', () => {
    expect(outcome.stderr).toMatch(/^bench: quick smoke run/m);
    expect(outcome.stderr).toMatch(/^bench: done in \d+ s; wrote /m);
    expect(outcome.stdout).toMatch(/^\| figure +\| value +\| baseline +\| ratio +\| target +\| result +\|$/m);
    expect(outcome.stdout).toContain('plan (refresh), N = 30');
  });

  test('records where, when and how it ran', () => {
    expect(Object.keys(results)[0]).toBe('generatedBy');
    expect(results.formatVersion).toBe(1);
    expect(Number.isNaN(Date.parse(results.date))).toBe(false);
    expect(results.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof results.git.dirty).toBe('boolean');
    expect(results.machine.cores).toBe(os.cpus().length);
    expect(results.machine.cpuModel).not.toBe('');
    expect(results.machine.node).toBe(process.version);
    expect(results.machine.terraform).toMatch(/^\d+\.\d+\.\d+/);
    expect(results.machine.os).not.toBe('');
    expect(results.options).toMatchObject({ runs: 1, quick: true, large: false, planSizes: [10, 30], applyEntries: 200, setEntries: 50 });
  });

  const expectedFigures: ReadonlyArray<[id: string, unit: Figure['unit'], hasTarget: boolean]> = [
    ['startup-tls', 'milliseconds', true],
    ['startup-tls-release-node', 'milliseconds', false],
    ['startup-floor', 'milliseconds', false],
    ['startup-plaintext', 'milliseconds', false],
    ['startup-script-tls', 'milliseconds', false],
    ['synth', 'seconds', false],
    ['plan-refresh-10', 'seconds', false],
    ['plan-api-calls-10', 'calls', true],
    ['plan-refresh-30', 'seconds', false],
    ['plan-api-calls-30', 'calls', true],
    ['apply-whole-list-200', 'seconds', false],
    ['apply-api-calls-200', 'calls', true],
    ['apply-set-50', 'seconds', false],
  ];

  test('has exactly the expected figures, in order', () => {
    expect(results.figures.map((figure) => figure.id)).toEqual(expectedFigures.map(([id]) => id));
  });

  test.each(expectedFigures)('%s: medians of its samples, ratio of the medians, pass from the target', (id, unit, hasTarget) => {
    const figure = asFigure(
      results.figures.find((candidate) => candidate.id === id),
      id,
    );
    expect(figure.unit).toBe(unit);
    const runs = id.startsWith('startup-') ? results.options.startupRuns : results.options.runs;
    for (const side of [figure.value, figure.baseline]) {
      expect(side.description).not.toBe('');
      expect(side.samples).toHaveLength(runs);
      for (const sample of side.samples) expect(Number.isFinite(sample) && sample > 0).toBe(true);
      expect(side.median).toBe(medianOf(side.samples));
    }
    expect(Number.isFinite(figure.ratio)).toBe(true);
    expect(figure.ratio).toBeGreaterThan(0);
    expect(figure.ratio).toBeCloseTo(figure.value.median / figure.baseline.median, 12);
    if (hasTarget) {
      expect(figure.target).not.toBeNull();
      const holds = figure.ratio <= figure.target!.maxRatio && figure.checks.every((check) => check.ok);
      expect(figure.pass).toBe(holds);
    } else {
      expect(figure.target).toBeNull();
      expect(figure.pass).toBeNull();
    }
  });

  test('the refresh of per-entry resources calls the API the same number of times at every N', () => {
    const small = asFigure(results.figures.find((figure) => figure.id === 'plan-api-calls-10'), 'plan-api-calls-10');
    const large = asFigure(results.figures.find((figure) => figure.id === 'plan-api-calls-30'), 'plan-api-calls-30');
    expect(large.value.samples).toEqual(small.value.samples);
    expect(small.value.median).toBeGreaterThan(0);
  });

  test('the summary counts the figures', () => {
    const { passed, failed, informational, notMeasured } = results.summary;
    expect(passed + failed + informational + notMeasured).toBe(results.figures.length);
    expect(notMeasured).toBe(0);
  });
});
