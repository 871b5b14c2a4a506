/**
 * Smoke test of `npm run bench`: the suite runs end to end with --quick (every row once, small
 * sizes, one run) into a temporary file, and the JSON has the agreed shape with every ratio
 * computed from the recorded medians; the chart beside it draws those medians, and
 * `--chart-from` draws the same chart from the file. No timing is asserted: the figures of a
 * smoke run mean nothing.
 *
 * SVC_TEST_BENCH_NO_GO_PEER=1 runs it with --no-go-peer (.ci/run's smoke runs on the other Node
 * lines: what breaks between Node lines is this project's code, not the Go plugin, whose two
 * plans are about 20 s of CPU); the Go peer's rows are then checked to be skipped with the reason.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Figure, FigureOutcome } from '../../scripts/bench/figures';
import { findGoPeer } from '../../scripts/bench/plan-providers';
import type { BenchResults } from '../../scripts/bench/report';
import { track } from '../support/child-processes';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const RUN_TS = path.join(REPOSITORY, 'bin', 'run-ts.js');
const RUN = path.join(REPOSITORY, 'scripts', 'bench', 'run.ts');

interface RunOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runBench(args: readonly string[], cwd: string): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_)/.test(name)));
    const child = track(spawn(process.execPath, [RUN_TS, RUN, ...args], {
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
  if ('skipped' in outcome) throw new Error(`figure ${id} was skipped: ${outcome.skipped}`);
  return outcome;
}

/** hashicorp/aws in the plugin mirror: the Go peer's rows are measured, else skipped (the bench test's env has no SVC_ variables). */
const goPeerInstalled = findGoPeer('/opt/tf-plugins') !== undefined;
const withoutGoPeer = process.env.SVC_TEST_BENCH_NO_GO_PEER === '1';
const goPeerPlanned = goPeerInstalled && !withoutGoPeer;
/** --quick's per-entry sizes, refresh and create: one entry, and one on each of the three lists. */
const SIZES = [1, 3] as const;

describe('npm run bench --quick', () => {
  let directory: string;
  let outcome: RunOutcome;
  let results: BenchResults;
  let outFile: string;
  let chart: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-test-'));
    outFile = path.join(directory, 'results', 'quick.json');
    outcome = await runBench(['--quick', '--out', outFile, ...(withoutGoPeer ? ['--no-go-peer'] : [])], directory);
    if (outcome.code !== 0) throw new Error(`the bench exited with ${outcome.code}\n--- stdout ---\n${outcome.stdout}\n--- stderr ---\n${outcome.stderr}`);
    results = JSON.parse(fs.readFileSync(outFile, 'utf8')) as BenchResults;
    chart = fs.readFileSync(path.join(directory, 'results', 'quick.svg'), 'utf8');
    // The start-up row builds the released executable and the plan rows the floor (postject rewrites ~120 MB each): minutes under load.
  }, 600_000);

  afterAll(() => {
    fs.rmSync(directory, { recursive: true, force: true });
  });

  test('prints progress on stderr and the table on stdout', () => {
    expect(outcome.stderr).toMatch(/^bench: quick smoke run/m);
    expect(outcome.stderr).toMatch(/^bench: done in \d+ s; wrote .*quick\.json and .*quick\.svg$/m);
    expect(outcome.stdout).toMatch(/^\| figure +\| value +\| baseline +\| ratio +\| target +\| result +\|$/m);
    expect(outcome.stdout).toContain('plan (refresh), N = 3: svc vs the floor');
    // A row with a target says met or NOT MET; the plan of one entry has one.
    expect(outcome.stdout).toMatch(/^\| plan \(create\), N = 1: svc vs the floor +\|.*\| <= 1\.3x the floor, <= 0\.4 s +\| (met|NOT MET) +\|$/m);
  });

  test('records where, when and how it ran', () => {
    expect(Object.keys(results)[0]).toBe('generatedBy');
    expect(results.formatVersion).toBe(2);
    expect(Number.isNaN(Date.parse(results.date))).toBe(false);
    expect(results.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof results.git.dirty).toBe('boolean');
    expect(results.machine.cores).toBe(os.cpus().length);
    expect(results.machine.cpuModel).not.toBe('');
    expect(results.machine.node).toBe(process.version);
    expect(results.machine.terraform).toMatch(/^\d+\.\d+\.\d+/);
    expect(results.machine.os).not.toBe('');
    expect(results.options).toMatchObject({
      runs: 1,
      startupRuns: 1,
      quick: true,
      large: false,
      planSizes: SIZES,
      createSizes: SIZES,
      wholeListPlanEntries: 200,
      peerListEntries: 100,
      applyEntries: 200,
      setEntries: 50,
      goPeer: !withoutGoPeer,
      releaseDir: null,
    });
  });

  const planRows = (mode: 'refresh' | 'create', count: number, svcTarget: boolean): ReadonlyArray<[string, Figure['unit'], boolean]> => [
    [`plan-${mode}-${count}`, 'seconds', svcTarget],
    [`plan-${mode}-${count}-floor`, 'seconds', false],
    [`plan-${mode}-${count}-wide-floor`, 'seconds', false],
    [`plan-${mode}-${count}-attributes`, 'seconds', false],
    [`plan-${mode}-${count}-dev`, 'seconds', false],
    ...(mode === 'create' ? [[`plan-${mode}-${count}-go-peer`, 'seconds', false] as [string, Figure['unit'], boolean]] : [[`plan-api-calls-${count}`, 'calls', true] as [string, Figure['unit'], boolean]]),
  ];
  // Targets hold at the N only (1, 100, 1,000): at quick size, the plan of one entry.
  const expectedFigures: ReadonlyArray<[id: string, unit: Figure['unit'], hasTarget: boolean]> = [
    ['startup-tls', 'milliseconds', true],
    ['startup-tls-node', 'milliseconds', false],
    ['startup-tls-release-node', 'milliseconds', false],
    ['startup-floor', 'milliseconds', false],
    ['startup-plaintext', 'milliseconds', false],
    ['startup-script-tls', 'milliseconds', false],
    ['synth', 'seconds', false],
    ...planRows('refresh', 1, true),
    ...planRows('refresh', 3, false),
    ...planRows('create', 1, true),
    ...planRows('create', 3, false),
    ['plan-whole-list-200', 'seconds', false],
    ['plan-whole-list-peer-100', 'seconds', false],
    ['apply-whole-list-200', 'seconds', false],
    ['apply-api-calls-200', 'calls', true],
    ['apply-set-50', 'seconds', false],
  ];
  const goPeerIds = new Set(['plan-create-1-go-peer', 'plan-whole-list-peer-100']);
  // A quick run plans the Go peer at its smallest N only.
  const quickSkipped = 'plan-create-3-go-peer';
  const measuredFigures = expectedFigures.filter(([id]) => id !== quickSkipped && (goPeerPlanned || !goPeerIds.has(id)));

  test('has exactly the expected figures, in order', () => {
    expect(results.figures.map((figure) => figure.id)).toEqual(expectedFigures.map(([id]) => id));
  });

  test.each(measuredFigures)('%s: medians of its samples, ratio of the medians, pass from the target', (id, unit, hasTarget) => {
    const figure = asFigure(
      results.figures.find((candidate) => candidate.id === id),
      id,
    );
    expect(figure.unit).toBe(unit);
    const runs = id.startsWith('startup-') ? results.options.startupRuns : id.startsWith('plan-whole-list-peer-') ? Math.min(results.options.runs, 3) : results.options.runs;
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

  test('the refresh of per-entry resources calls the API at most once per list, fewer for one entry on one list', () => {
    const one = asFigure(results.figures.find((figure) => figure.id === 'plan-api-calls-1'), 'plan-api-calls-1');
    const three = asFigure(results.figures.find((figure) => figure.id === 'plan-api-calls-3'), 'plan-api-calls-3');
    expect(three.pass).toBe(true);
    expect(one.pass).toBe(true);
    expect(one.value.median).toBeGreaterThan(0);
    expect(one.value.median).toBeLessThan(three.value.median);
  });

  test.each([
    ['refresh', 1],
    ['refresh', 3],
    ['create', 1],
    ['create', 3],
  ] as const)("plan (%s), N = %d: the rows split svc vs terraform_data into svc vs the floor and the floor vs terraform_data, and svc vs the floor at the floor with svc's attributes, from the same runs", (mode, count) => {
    const svc = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}`), `plan-${mode}-${count}`);
    const floor = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}-floor`), `plan-${mode}-${count}-floor`);
    const dev = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}-dev`), `plan-${mode}-${count}-dev`);
    const wideFloor = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}-wide-floor`), `plan-${mode}-${count}-wide-floor`);
    const attributes = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}-attributes`), `plan-${mode}-${count}-attributes`);
    const seconds = svc.details?.seconds as Record<string, number[]>;
    expect(Object.keys(seconds).sort()).toEqual(['dev', 'floor', 'released', 'terraformData', 'wideFloor', ...(mode === 'create' && count === 1 && goPeerPlanned ? ['goPeer'] : [])].sort());
    expect(svc.value.samples).toEqual(seconds.released);
    expect(svc.baseline.samples).toEqual(seconds.floor);
    expect(floor.value.samples).toEqual(seconds.floor);
    expect(floor.baseline.samples).toEqual(seconds.terraformData);
    expect(dev.value.samples).toEqual(seconds.dev);
    expect(dev.baseline.samples).toEqual(seconds.released);
    expect(wideFloor.value.samples).toEqual(seconds.released);
    expect(wideFloor.baseline.samples).toEqual(seconds.wideFloor);
    expect(attributes.value.samples).toEqual(seconds.wideFloor);
    expect(attributes.baseline.samples).toEqual(seconds.floor);
    expect(attributes.value.description).toContain('floor_wide_entry');
    expect(svc.value.description).toContain('released executable');
    expect(floor.value.description).toContain('floor_entry');
    // The notes give svc against terraform_data, the ratio the two rows split.
    expect(svc.notes[0]).toContain(`svc against terraform_data (what users see): ${(svc.value.median / floor.baseline.median).toFixed(2)}x`);
  });

  test('the plan of one entry has its absolute target as a check', () => {
    const one = asFigure(results.figures.find((figure) => figure.id === 'plan-create-1'), 'plan-create-1');
    expect(one.checks).toEqual([{ description: expect.stringContaining('at most 0.4 s') as unknown as string, ok: one.value.median <= 0.4 }]);
  });

  test('the Go peer rows are measured where hashicorp/aws is installed, else skipped with the reason', () => {
    for (const id of goPeerIds) {
      const outcome = results.figures.find((figure) => figure.id === id);
      if (goPeerPlanned) expect(asFigure(outcome, id).baseline.description).toMatch(/hashicorp\/aws \d+\.\d+\.\d+ \(Go\)/);
      else if (withoutGoPeer) expect(outcome).toMatchObject({ skipped: '--no-go-peer: the Go peer was not planned' });
      else expect(outcome).toMatchObject({ skipped: expect.stringContaining('/opt/tf-plugins') as unknown as string });
    }
    expect(results.figures.find((figure) => figure.id === quickSkipped)).toMatchObject({
      skipped: withoutGoPeer ? '--no-go-peer: the Go peer was not planned' : 'quick run: the Go peer plans at N = 1 only',
    });
  });

  test('the summary counts the figures', () => {
    const { passed, failed, informational, notMeasured, skipped } = results.summary;
    expect(passed + failed + informational + notMeasured + skipped).toBe(results.figures.length);
    expect(notMeasured).toBe(0);
    expect(skipped).toBe(1 + (goPeerPlanned ? 0 : goPeerIds.size));
  });

  test('the chart beside the results draws every side of both plan modes at the measured medians', () => {
    expect(chart.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!-- Generated by npm run bench')).toBe(true);
    expect(chart.trimEnd().endsWith('</svg>')).toBe(true);
    for (const mode of ['refresh', 'create'] as const) {
      const panel = new RegExp(`<g class="panel" data-mode="${mode}">([\\s\\S]*?)</g>`).exec(chart)?.[1] ?? '';
      const sides = [...panel.matchAll(/data-side="(\w+)"/g)].map((match) => match[1]);
      expect(sides).toEqual(['released', 'dev', 'floor', 'wideFloor', 'terraformData', ...(mode === 'create' && goPeerPlanned ? ['goPeer'] : [])]);
      for (const count of SIZES) {
        const medians = asFigure(results.figures.find((figure) => figure.id === `plan-${mode}-${count}`), `plan-${mode}-${count}`).details?.medians as Record<string, number>;
        expect(panel).toContain(`svc (released executable), ${mode} N = ${count}: ${medians.released.toFixed(2)} s`);
        expect(panel).toContain(`terraform_data, ${mode} N = ${count}: ${medians.terraformData.toFixed(2)} s`);
        // The apostrophe escaped, as the chart escapes all text.
        expect(panel).toContain(`protocol floor with svc&#39;s attributes, ${mode} N = ${count}: ${medians.wideFloor.toFixed(2)} s`);
      }
    }
  });

  test('--chart-from draws the same chart from the results file, measuring nothing', async () => {
    const copy = path.join(directory, 'copy.json');
    fs.copyFileSync(outFile, copy);
    const redrawn = await runBench(['--chart-from', copy], directory);
    expect(redrawn.code).toBe(0);
    expect(redrawn.stdout).toBe('');
    expect(fs.readFileSync(path.join(directory, 'copy.svg'), 'utf8')).toBe(chart);
  });
});
