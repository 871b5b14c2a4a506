/** The results file (bench/results/latest.json) and the table printed at the end of a run. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isFailed, isMeasured, isSkipped, type Figure, type FigureOutcome, type Unit } from './figures';
import type { GitInfo, MachineInfo } from './machine';

/** 2: plan rows per side (details.seconds), the floor, skipped figures, summary.skipped. */
export const RESULTS_FORMAT_VERSION = 2;

export interface BenchResults {
  /** First key, so the file says it is generated (JSON has no comments). */
  readonly generatedBy: string;
  readonly formatVersion: number;
  readonly date: string;
  readonly durationSeconds: number;
  readonly git: GitInfo;
  readonly machine: MachineInfo;
  readonly options: {
    readonly runs: number;
    readonly startupRuns: number;
    readonly quick: boolean;
    readonly large: boolean;
    readonly planSizes: readonly number[];
    readonly createSizes: readonly number[];
    readonly wholeListPlanEntries: number;
    readonly peerListEntries: number;
    readonly applyEntries: number;
    readonly setEntries: number;
    /** false with --no-go-peer (absent in files of older runs: planned where installed). */
    readonly goPeer?: boolean;
    /** The `npm run release` directory the executable came from (--release-dir), null when the bench built it. */
    readonly releaseDir?: string | null;
  };
  readonly figures: readonly FigureOutcome[];
  readonly summary: { readonly passed: number; readonly failed: number; readonly informational: number; readonly notMeasured: number; readonly skipped: number };
}

export function summarize(figures: readonly FigureOutcome[]): BenchResults['summary'] {
  const measured = figures.filter(isMeasured);
  return {
    passed: measured.filter((figure) => figure.pass === true).length,
    failed: measured.filter((figure) => figure.pass === false).length,
    informational: measured.filter((figure) => figure.pass === null).length,
    notMeasured: figures.filter(isFailed).length,
    skipped: figures.filter(isSkipped).length,
  };
}

export function writeResults(file: string, results: BenchResults): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

export function formatValue(value: number, unit: Unit): string {
  switch (unit) {
    case 'seconds':
      return `${value.toFixed(2)} s`;
    case 'milliseconds':
      return `${value.toFixed(0)} ms`;
    case 'calls':
      return Number.isInteger(value) ? `${value}` : value.toFixed(1);
  }
}

/** A missed target is a finding the row shows (not met), never a failed run. */
function resultText(figure: Figure): string {
  if (figure.pass === null) return 'info';
  return figure.pass ? 'met' : 'NOT MET';
}

/** A markdown table (pastes into help/performance.md as it is). */
export function formatTable(results: BenchResults): string {
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', 'result'];
  const rows = results.figures.map((outcome) => {
    if (isFailed(outcome)) return [outcome.title, 'not measured', '', '', '', 'ERROR'];
    if (isSkipped(outcome)) return [outcome.title, 'skipped', '', '', '', 'skipped'];
    return [
      outcome.title,
      formatValue(outcome.value.median, outcome.unit),
      formatValue(outcome.baseline.median, outcome.unit),
      `${outcome.ratio.toFixed(2)}x`,
      outcome.target?.description ?? '-',
      resultText(outcome),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** What each side of each figure ran, its notes, errors and skips: printed under the table. */
export function formatLegend(results: BenchResults): string {
  const lines = results.figures.map((outcome) => {
    if (isFailed(outcome)) return `- ${outcome.title}: NOT MEASURED: ${outcome.error.split('\n')[0]}`;
    if (isSkipped(outcome)) return `- ${outcome.title}: SKIPPED: ${outcome.skipped}`;
    return [`- ${outcome.title}: value = ${outcome.value.description}; baseline = ${outcome.baseline.description}`, ...outcome.notes.map((note) => `  ${note}`)].join('\n');
  });
  const { machine, options, git } = results;
  return [
    ...lines,
    '',
    `Medians of ${options.runs} run(s) (start-up: ${options.startupRuns}); ${results.date}; commit ${git.commit.slice(0, 12)}${git.dirty ? ' (working tree had uncommitted changes)' : ''}.`,
    `Machine: ${machine.cores} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; terraform ${machine.terraform}; load average at start ${machine.loadAverageAtStart}.`,
  ].join('\n');
}
