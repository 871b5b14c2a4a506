/**
 * The per-entry plan rows from a hand-made measurement (no terraform: bench.test.ts runs the
 * bench): which rows, in which order, from which side's samples, with which targets; in
 * particular the two information rows of the floor with svc's attributes.
 */
import type { Figure, FigureOutcome } from '../../scripts/bench/figures';
import { perEntryPlanFigures, type PerEntryPlanMeasurement } from '../../scripts/bench/plan-per-entry';

const calls = { requests: 4, logins: 1, byCommand: { list_blacklist: 1, list_blocklist: 1, list_whitelist: 1 } };

function measured(mode: 'refresh' | 'create', count: number): PerEntryPlanMeasurement {
  return {
    mode,
    count,
    // Distinct medians per side (the middle of three): released 2.4, dev 2.9, floor 1.6, wide floor 2.0, terraform_data 1.0.
    seconds: { released: [2.5, 2.4, 2.3], dev: [3.0, 2.9, 2.8], floor: [1.6, 1.7, 1.5], wideFloor: [2.0, 2.1, 1.9], terraformData: [1.0, 1.1, 0.9] },
    apiCalls: mode === 'refresh' ? [calls, calls, calls] : [],
  };
}

function figure(outcomes: readonly FigureOutcome[], id: string): Figure {
  const outcome = outcomes.find((candidate) => candidate.id === id);
  if (outcome === undefined || 'error' in outcome || 'skipped' in outcome) throw new Error(`no measured figure ${id}`);
  return outcome;
}

describe('per-entry plan rows', () => {
  test.each([
    ['refresh', ['plan-refresh-1000', 'plan-refresh-1000-floor', 'plan-refresh-1000-wide-floor', 'plan-refresh-1000-attributes', 'plan-refresh-1000-dev', 'plan-api-calls-1000']],
    ['create', ['plan-create-1000', 'plan-create-1000-floor', 'plan-create-1000-wide-floor', 'plan-create-1000-attributes', 'plan-create-1000-dev', 'plan-create-1000-go-peer']],
  ] as const)('%s: the rows in order', (mode, ids) => {
    expect(perEntryPlanFigures(measured(mode, 1000), undefined, 'no Go peer').map((outcome) => outcome.id)).toEqual(ids);
  });

  test.each(['refresh', 'create'] as const)("%s N = 1,000: svc vs the floor with svc's attributes, and that floor vs the floor, are information rows from the same runs", (mode) => {
    const outcomes = perEntryPlanFigures(measured(mode, 1000), undefined, 'no Go peer');
    const svc = figure(outcomes, `plan-${mode}-1000-wide-floor`);
    expect(svc.title).toBe(`plan (${mode}), N = 1,000: svc vs the floor with svc's attributes`);
    expect(svc.value.samples).toEqual([2.5, 2.4, 2.3]);
    expect(svc.baseline.samples).toEqual([2.0, 2.1, 1.9]);
    expect(svc.ratio).toBeCloseTo(2.4 / 2.0, 12);
    expect(svc.baseline.description).toContain('floor_wide_entry');
    expect([svc.target, svc.pass]).toEqual([null, null]);

    const attributes = figure(outcomes, `plan-${mode}-1000-attributes`);
    expect(attributes.title).toBe(`plan (${mode}), N = 1,000: the floor with svc's attributes vs the floor`);
    expect(attributes.value.samples).toEqual([2.0, 2.1, 1.9]);
    expect(attributes.baseline.samples).toEqual([1.6, 1.7, 1.5]);
    expect(attributes.ratio).toBeCloseTo(2.0 / 1.6, 12);
    expect(attributes.baseline.description).toContain('floor_entry');
    expect([attributes.target, attributes.pass]).toEqual([null, null]);

    // The two split svc vs the floor (the row with the target) exactly, and its notes say so.
    const main = figure(outcomes, `plan-${mode}-1000`);
    expect(main.ratio).toBeCloseTo(svc.ratio * attributes.ratio, 12);
    expect(main.target?.maxRatio).toBe(1.15);
    expect(main.notes[1]).toBe(
      "Of the ratio, terraform's work on svc's extra attributes (the floor with svc's attributes against the floor): 1.25x (2.00 against 1.60 s); svc's code with the same schema (svc against that floor): 1.20x (2.40 against 2.00 s).",
    );
    expect(main.details?.medians).toEqual({ released: 2.4, dev: 2.9, floor: 1.6, wideFloor: 2.0, terraformData: 1.0 });
  });

  test('a measurement without the wide floor side is refused, not reported as a row with no baseline', () => {
    const { wideFloor: _left, ...others } = measured('create', 1000).seconds;
    expect(() => perEntryPlanFigures({ ...measured('create', 1000), seconds: others }, undefined, 'no Go peer')).toThrow('plan create N=1000 has no wideFloor samples');
  });
});
