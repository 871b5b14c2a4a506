/** The bench's command line, medians and ratios (pure parts; the suite itself runs in bench.test.ts). */
import * as path from 'node:path';
import { makeFigure, measurement, median } from '../../scripts/bench/figures';
import { BenchUsageError, DEFAULT_OUT_FILE, chartFileFor, parseBenchArguments, type BenchOptions } from '../../scripts/bench/options';

function optionsOf(argv: string[]): BenchOptions {
  const command = parseBenchArguments(argv);
  if (command.kind !== 'run') throw new Error(`expected a run for ${argv.join(' ')}, got ${command.kind}`);
  return command.options;
}

describe('parseBenchArguments', () => {
  const cases: ReadonlyArray<[name: string, argv: string[], expected: Partial<BenchOptions>]> = [
    [
      'defaults',
      [],
      {
        runs: 5,
        quick: false,
        large: false,
        outFile: DEFAULT_OUT_FILE,
        planSizes: [1, 100, 1000],
        createSizes: [1, 100, 1000],
        wholeListPlanEntries: 10_000,
        peerListEntries: 2000,
        applyEntries: 10_000,
        setEntries: 1000,
        startupRuns: 10,
        goPeer: true,
        releaseDir: undefined,
      },
    ],
    ['--runs 7 (start-up keeps at least 10)', ['--runs', '7'], { runs: 7, startupRuns: 10 }],
    ['--runs=12 raises start-up runs too', ['--runs=12'], { runs: 12, startupRuns: 12 }],
    ['--large adds refresh N = 5,000 and a peer list of 10,000', ['--large'], { planSizes: [1, 100, 1000, 5000], createSizes: [1, 100, 1000], peerListEntries: 10_000 }],
    [
      '--quick: every row once at small sizes',
      ['--quick'],
      { runs: 1, quick: true, planSizes: [1, 3], createSizes: [1, 3], wholeListPlanEntries: 200, peerListEntries: 100, applyEntries: 200, setEntries: 50, startupRuns: 1, goPeer: true },
    ],
    ['--quick --runs 2 (start-up as many)', ['--quick', '--runs', '2'], { runs: 2, startupRuns: 2 }],
    ['--quick --large adds refresh N = 100', ['--quick', '--large'], { planSizes: [1, 3, 100] }],
    ['--no-go-peer', ['--quick', '--no-go-peer'], { goPeer: false }],
    ['--release-dir is resolved', ['--release-dir', 'release'], { releaseDir: path.resolve('release') }],
    ['--release-dir=dir', ['--release-dir=/tmp/r'], { releaseDir: '/tmp/r' }],
    ['--out is resolved', ['--out', 'x/y.json'], { outFile: path.resolve('x/y.json') }],
    ['--out=file', ['--out=/tmp/b.json'], { outFile: '/tmp/b.json' }],
  ];
  test.each(cases)('%s', (_name, argv, expected) => {
    expect(optionsOf(argv)).toMatchObject(expected);
  });

  test.each([['--help'], ['-h'], ['--runs', '3', '--help']])('%s asks for help', (...argv) => {
    expect(parseBenchArguments(argv)).toEqual({ kind: 'help' });
  });

  test.each([
    ['--chart-from', ['--chart-from', 'r/latest.json'], path.resolve('r/latest.json'), path.resolve('r/latest.svg')],
    ['--chart-from=file without .json', ['--chart-from=/tmp/results'], '/tmp/results', '/tmp/results.svg'],
  ])('%s draws a chart and measures nothing', (_name, argv, resultsFile, chartFile) => {
    expect(parseBenchArguments(argv)).toEqual({ kind: 'chart', resultsFile, chartFile });
  });

  test('the chart of a run goes beside its results', () => {
    expect(chartFileFor(DEFAULT_OUT_FILE)).toBe(path.join(path.dirname(DEFAULT_OUT_FILE), 'latest.svg'));
  });

  const mistakes: ReadonlyArray<[name: string, argv: string[], message: RegExp]> = [
    ['zero runs', ['--runs', '0'], /--runs must be a whole number of at least 1, got "0"/],
    ['runs not a number', ['--runs', 'many'], /got "many"/],
    ['runs missing', ['--runs'], /--runs needs a whole number/],
    ['out missing', ['--out'], /--out needs a file name/],
    ['out followed by a flag', ['--out', '--quick'], /--out needs a file name/],
    ['chart-from missing', ['--chart-from'], /--chart-from needs a results file/],
    ['release-dir missing', ['--release-dir'], /--release-dir needs the directory npm run release wrote/],
    ['release-dir followed by a flag', ['--release-dir', '--quick'], /--release-dir needs the directory/],
    ['unknown flag', ['--fast'], /unknown argument "--fast"/],
  ];
  test.each(mistakes)('%s is refused', (_name, argv, message) => {
    expect(() => parseBenchArguments(argv)).toThrow(BenchUsageError);
    expect(() => parseBenchArguments(argv)).toThrow(message);
  });
});

describe('median', () => {
  test.each([
    ['one sample', [3], 3],
    ['odd count, unsorted', [5, 1, 3], 3],
    ['even count: mean of the middle two', [4, 1, 3, 2], 2.5],
  ])('%s', (_name, samples, expected) => {
    expect(median(samples)).toBe(expected);
  });

  test('no samples is an error', () => {
    expect(() => median([])).toThrow(/at least one run/);
  });
});

describe('makeFigure', () => {
  const base = { id: 'f', title: 'f', unit: 'seconds' as const, value: measurement('v', [3, 1, 2]), baseline: measurement('b', [1, 1, 2]) };
  test.each([
    ['no target: informational', { target: null }, null],
    ['ratio within the target', { target: { maxRatio: 2, description: '' } }, true],
    ['ratio over the target', { target: { maxRatio: 1.5, description: '' } }, false],
    ['ratio within, a check fails', { target: { maxRatio: 2, description: '' }, checks: [{ description: 'c', ok: false }] }, false],
  ])('%s', (_name, extra, pass) => {
    const figure = makeFigure({ ...base, ...extra });
    expect(figure.ratio).toBe(2);
    expect(figure.pass).toBe(pass);
  });

  test('a zero baseline is refused (no ratio)', () => {
    expect(() => makeFigure({ ...base, baseline: measurement('b', [0]), target: null })).toThrow(/positive baseline/);
  });
});
