/** The plan chart (scripts/bench/chart.ts) from hand-made results: which lines, where their points fall, and text escaped. */
import { planChartSvg, planSeries } from '../../scripts/bench/chart';
import { makeFigure, measurement, type FigureOutcome } from '../../scripts/bench/figures';
import { summarize, type BenchResults } from '../../scripts/bench/report';

function planFigure(mode: 'refresh' | 'create', count: number, medians: Record<string, number>): FigureOutcome {
  return makeFigure({
    id: `plan-${mode}-${count}`,
    title: `plan (${mode}), N = ${count}: svc vs the floor`,
    unit: 'seconds',
    value: measurement('v', [medians.released]),
    baseline: measurement('b', [medians.floor]),
    target: null,
    details: { mode, count, medians },
  });
}

function resultsOf(figures: FigureOutcome[], cpuModel = 'CPU'): BenchResults {
  return {
    generatedBy: 'test',
    formatVersion: 2,
    date: '2026-11-27T08:00:00.000Z',
    durationSeconds: 1,
    git: { commit: '0123456789abcdef0123456789abcdef01234567', dirty: false },
    machine: { cores: 2, cpuModel, memoryGiB: 1, os: 'OS', node: 'v20', terraform: '1.11.4', loadAverageAtStart: 0 },
    options: { runs: 5, startupRuns: 10, quick: false, large: false, planSizes: [1, 100, 1000], createSizes: [1, 1000], wholeListPlanEntries: 1, peerListEntries: 1, applyEntries: 1, setEntries: 1 },
    figures,
    summary: summarize(figures),
  };
}

const figures: FigureOutcome[] = [
  planFigure('refresh', 1000, { released: 4.8, dev: 4.9, floor: 3.5, wideFloor: 3.9, terraformData: 1.9 }),
  planFigure('refresh', 1, { released: 0.85, dev: 0.9, floor: 0.5, terraformData: 0.08 }),
  planFigure('refresh', 100, { released: 2.2, dev: 2.3, floor: 1.1, wideFloor: 1.2, terraformData: 0.37 }),
  planFigure('create', 1000, { released: 5.0, dev: 5.0, floor: 3.6, terraformData: 1.9, goPeer: 10.5 }),
  // Not plan rows of the chart: another figure, a failed and a skipped one.
  makeFigure({ id: 'plan-refresh-100-floor', title: 'x', unit: 'seconds', value: measurement('v', [1]), baseline: measurement('b', [1]), target: null }),
  { id: 'plan-create-1', title: 'broke', error: 'terraform failed' },
  { id: 'plan-create-1000-go-peer', title: 'skipped', skipped: 'no plugin' },
];

/** The circles of one side in one panel, as [x, y]. */
function points(svg: string, mode: string, side: string): Array<[number, number]> {
  const panel = new RegExp(`<g class="panel" data-mode="${mode}">([\\s\\S]*?)</g>`).exec(svg)?.[1] ?? '';
  const line = new RegExp(`data-side="${side}"[^>]*points="([^"]*)"`).exec(panel)?.[1];
  if (line === undefined) return [];
  return line.split(' ').map((pair) => pair.split(',').map(Number) as [number, number]);
}

describe('plan chart', () => {
  test('series by mode and side, sorted by N, from the plan rows only', () => {
    const series = planSeries(resultsOf(figures));
    expect(series.refresh.released).toEqual([
      { count: 1, seconds: 0.85 },
      { count: 100, seconds: 2.2 },
      { count: 1000, seconds: 4.8 },
    ]);
    expect(series.refresh.goPeer).toBeUndefined();
    expect(series.create.goPeer).toEqual([{ count: 1000, seconds: 10.5 }]);
  });

  test('log scales: N evenly by decade, a slower side above a faster one at every N', () => {
    const svg = planChartSvg(resultsOf(figures));
    const released = points(svg, 'refresh', 'released');
    const data = points(svg, 'refresh', 'terraformData');
    expect(released).toHaveLength(3);
    // 1 -> 100 and 100 -> 1,000 are two decades and one on a log axis.
    const [first, second, third] = released.map(([x]) => x);
    expect((second - first) / (third - second)).toBeCloseTo(2, 1);
    for (const [index, [, y]] of released.entries()) expect(y).toBeLessThan(data[index][1]);
    expect(svg).toContain('seconds (log scale)');
    expect(points(svg, 'create', 'goPeer')).toHaveLength(1);
    expect(points(svg, 'refresh', 'goPeer')).toEqual([]);
    // The floor with svc's attributes: the floor's colour, dashed, where it was measured (not at N = 1 here).
    const wide = points(svg, 'refresh', 'wideFloor');
    const floor = points(svg, 'refresh', 'floor');
    expect(wide.map(([x]) => x)).toEqual(floor.slice(1).map(([x]) => x));
    for (const [index, [, y]] of wide.entries()) expect(y).toBeLessThan(floor[index + 1][1]);
    expect(svg).toMatch(/data-side="wideFloor" fill="none" stroke="#2471a3" stroke-width="2" stroke-dasharray="8 3"/);
    expect(svg).toContain("protocol floor with svc&#39;s attributes</text>");
  });

  test('a panel without plan rows says so; text from the results is escaped', () => {
    const svg = planChartSvg(resultsOf([figures[0]], 'A <fast> & "new" CPU'));
    expect(svg).toMatch(/<g class="panel" data-mode="create">[\s\S]*?no plan rows in these results/);
    expect(svg).toContain('A &#60;fast&#62; &#38; &#34;new&#34; CPU');
    expect(svg).not.toContain('<fast>');
  });
});
