/**
 * What a benchmark figure is: the measured value and its baseline (samples and median each),
 * the ratio of the medians, the target and whether it holds. One shape for every figure, so
 * the table, the JSON and the smoke test read them alike.
 */

export type Unit = 'seconds' | 'milliseconds' | 'calls';

export interface Measurement {
  /** What ran, in words (e.g. "terraform plan, 1,000 svc_*_entry"). */
  readonly description: string;
  readonly samples: readonly number[];
  readonly median: number;
}

export interface Target {
  /** The figure passes when ratio <= maxRatio (and every check holds). */
  readonly maxRatio: number;
  readonly description: string;
}

/** A condition beside the ratio, e.g. "the same count at every N". */
export interface Check {
  readonly description: string;
  readonly ok: boolean;
}

export interface Figure {
  /** Stable key, e.g. `plan-refresh-1000`. */
  readonly id: string;
  readonly title: string;
  readonly unit: Unit;
  readonly value: Measurement;
  readonly baseline: Measurement;
  /** value.median / baseline.median. */
  readonly ratio: number;
  /** null: reported for information, no target. */
  readonly target: Target | null;
  readonly checks: readonly Check[];
  /** null when there is no target. */
  readonly pass: boolean | null;
  readonly notes: readonly string[];
  /** Figure-specific facts (API calls by command, stacks synthesized, ...). */
  readonly details?: Record<string, unknown>;
}

/** A figure that could not be measured (a command failed): the run goes on and says so. */
export interface FailedFigure {
  readonly id: string;
  readonly title: string;
  readonly error: string;
}

/** A figure left out on purpose, e.g. its peer provider is not installed on this machine: the run says why and goes on. */
export interface SkippedFigure {
  readonly id: string;
  readonly title: string;
  readonly skipped: string;
}

export type FigureOutcome = Figure | FailedFigure | SkippedFigure;

export function isFailed(outcome: FigureOutcome): outcome is FailedFigure {
  return 'error' in outcome;
}

export function isSkipped(outcome: FigureOutcome): outcome is SkippedFigure {
  return 'skipped' in outcome;
}

/** A figure that was measured (neither failed nor skipped). */
export function isMeasured(outcome: FigureOutcome): outcome is Figure {
  return !isFailed(outcome) && !isSkipped(outcome);
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error('median of no samples: measure at least one run');
  const sorted = [...samples].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function measurement(description: string, samples: readonly number[]): Measurement {
  return { description, samples: [...samples], median: median(samples) };
}

export interface FigureInput {
  readonly id: string;
  readonly title: string;
  readonly unit: Unit;
  readonly value: Measurement;
  readonly baseline: Measurement;
  readonly target: Target | null;
  readonly checks?: readonly Check[];
  readonly notes?: readonly string[];
  readonly details?: Record<string, unknown>;
}

export function makeFigure(input: FigureInput): Figure {
  if (!(input.baseline.median > 0)) throw new Error(`${input.id}: the baseline median is ${input.baseline.median}; a ratio needs a positive baseline`);
  const ratio = input.value.median / input.baseline.median;
  const checks = input.checks ?? [];
  const pass = input.target === null ? null : ratio <= input.target.maxRatio && checks.every((check) => check.ok);
  return {
    id: input.id,
    title: input.title,
    unit: input.unit,
    value: input.value,
    baseline: input.baseline,
    ratio,
    target: input.target,
    checks,
    pass,
    notes: input.notes ?? [],
    ...(input.details === undefined ? {} : { details: input.details }),
  };
}
