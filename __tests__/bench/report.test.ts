/** The bench's table and summary, from hand-made figures (pass, fail, informational, not measured). */
import { makeFigure, measurement, type FigureOutcome } from '../../scripts/bench/figures';
import { formatLegend, formatTable, formatValue, summarize, type BenchResults } from '../../scripts/bench/report';

const figures: FigureOutcome[] = [
  makeFigure({ id: 'a', title: 'passes', unit: 'seconds', value: measurement('v', [1.2]), baseline: measurement('b', [1]), target: { maxRatio: 1.5, description: '<= 1.5x' } }),
  makeFigure({ id: 'b', title: 'fails', unit: 'calls', value: measurement('v', [14]), baseline: measurement('b', [11]), target: { maxRatio: 1, description: '<= 11 calls' }, notes: ['why it fails'] }),
  makeFigure({ id: 'c', title: 'informs', unit: 'milliseconds', value: measurement('v', [90]), baseline: measurement('b', [30]), target: null }),
  { id: 'd', title: 'broke', error: 'terraform plan exited with 1\nmore lines' },
  { id: 'e', title: 'left out', skipped: 'its peer is not installed' },
];

const results: BenchResults = {
  generatedBy: 'test',
  formatVersion: 2,
  date: '2026-01-01T00:00:00.000Z',
  durationSeconds: 1,
  git: { commit: '0123456789abcdef0123456789abcdef01234567', dirty: true },
  machine: { cores: 2, cpuModel: 'CPU', memoryGiB: 1, os: 'OS', node: 'v20', terraform: '1.11.4', loadAverageAtStart: 0 },
  options: { runs: 1, startupRuns: 1, quick: true, large: false, planSizes: [1], createSizes: [1], wholeListPlanEntries: 1, peerListEntries: 1, applyEntries: 1, setEntries: 1 },
  figures,
  summary: summarize(figures),
};

describe('bench report', () => {
  test('summary counts each kind once', () => {
    expect(results.summary).toEqual({ passed: 1, failed: 1, informational: 1, notMeasured: 1, skipped: 1 });
  });

  test.each([
    ['passes', /\| passes +\| 1\.20 s +\| 1\.00 s +\| 1\.20x +\| <= 1\.5x +\| met +\|/],
    ['fails', /\| fails +\| 14 +\| 11 +\| 1\.27x +\| <= 11 calls +\| NOT MET +\|/],
    ['informs', /\| informs +\| 90 ms +\| 30 ms +\| 3\.00x +\| - +\| info +\|/],
    ['broke', /\| broke +\| not measured +\|.*\| ERROR +\|/],
    ['left out', /\| left out +\| skipped +\|.*\| skipped +\|/],
  ])('table row: %s', (_name, row) => {
    expect(formatTable(results)).toMatch(row);
  });

  test('legend: what each side ran, notes, the first line of an error, why a figure was skipped, machine and commit', () => {
    const legend = formatLegend(results);
    expect(legend).toContain('- fails: value = v; baseline = b\n  why it fails');
    expect(legend).toContain('- broke: NOT MEASURED: terraform plan exited with 1');
    expect(legend).toContain('- left out: SKIPPED: its peer is not installed');
    expect(legend).not.toContain('more lines');
    expect(legend).toContain('commit 0123456789ab (working tree had uncommitted changes)');
    expect(legend).toContain('terraform 1.11.4');
  });

  test.each([
    [2.345, 'seconds', '2.35 s'],
    [103.4, 'milliseconds', '103 ms'],
    [4, 'calls', '4'],
    [4.5, 'calls', '4.5'],
  ] as const)('formatValue(%p, %s) = %s', (value, unit, text) => {
    expect(formatValue(value, unit)).toBe(text);
  });
});
