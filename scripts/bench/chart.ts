/**
 * The chart of the plan rows: terraform plan time against N, one panel for refresh and one for
 * create, a line per side (svc released, svc dev build, the protocol floor, the floor with svc's
 * attributes (dashed, the floor's colour), terraform_data, the Go peer where it ran), drawn as
 * SVG from a results file (the `details` of each `plan-<mode>-<N>` figure). N is always on a
 * log scale; time too when it spans more than a decade. Written by hand: an SVG of a few lines
 * needs no charting library.
 */
import * as fs from 'node:fs';
import { isMeasured } from './figures';
import type { PlanMode, PlanSide } from './plan-per-entry';
import { SIDE_NAMES } from './plan-per-entry';
import type { BenchResults } from './report';

export interface ChartPoint {
  readonly count: number;
  readonly seconds: number;
}

/** Series by mode and side, from the plan figures' medians. */
export type PlanSeries = Record<PlanMode, Partial<Record<PlanSide, ChartPoint[]>>>;

const SIDES: readonly PlanSide[] = ['released', 'dev', 'floor', 'wideFloor', 'terraformData', 'goPeer'];
const COLOURS: Readonly<Record<PlanSide, string>> = { released: '#c0392b', dev: '#e67e22', floor: '#2471a3', wideFloor: '#2471a3', terraformData: '#27ae60', goPeer: '#7d3c98' };
const DASHES: Readonly<Record<PlanSide, string>> = { released: '', dev: '6 4', floor: '', wideFloor: '8 3', terraformData: '', goPeer: '2 3' };
const PLAN_FIGURE = /^plan-(refresh|create)-(\d+)$/;

export function planSeries(results: BenchResults): PlanSeries {
  const series: PlanSeries = { refresh: {}, create: {} };
  for (const figure of results.figures.filter(isMeasured)) {
    const match = PLAN_FIGURE.exec(figure.id);
    const medians = figure.details?.medians as Partial<Record<PlanSide, number>> | undefined;
    if (match === null || medians === undefined) continue;
    const mode = match[1] as PlanMode;
    const count = Number(match[2]);
    for (const side of SIDES) {
      const seconds = medians[side];
      if (typeof seconds === 'number' && seconds > 0) (series[mode][side] ??= []).push({ count, seconds });
    }
  }
  for (const mode of ['refresh', 'create'] as const) for (const points of Object.values(series[mode])) points?.sort((left, right) => left.count - right.count);
  return series;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

interface Axis {
  readonly log: boolean;
  readonly min: number;
  readonly max: number;
}

function axisFor(values: readonly number[], forceLog: boolean): Axis {
  let min = Math.min(...values);
  let max = Math.max(...values);
  const log = forceLog || max / min > 10;
  if (log) {
    min /= 1.5;
    max *= 1.5;
    if (max / min < 10) {
      const middle = Math.sqrt(min * max);
      min = middle / Math.sqrt(10);
      max = middle * Math.sqrt(10);
    }
  } else {
    const span = max - min || max || 1;
    min = Math.max(0, min - span * 0.1);
    max += span * 0.1;
  }
  return { log, min, max };
}

/** 0..1 along the axis. */
function position(axis: Axis, value: number): number {
  return axis.log ? Math.log(value / axis.min) / Math.log(axis.max / axis.min) : (value - axis.min) / (axis.max - axis.min);
}

/** 1, 2, 5 times powers of ten on a log axis; about six even steps on a linear one. */
function ticks(axis: Axis): number[] {
  if (!axis.log) {
    const rough = (axis.max - axis.min) / 6;
    const power = 10 ** Math.floor(Math.log10(rough));
    const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
    const result: number[] = [];
    for (let value = Math.ceil(axis.min / step) * step; value <= axis.max; value += step) result.push(Number(value.toPrecision(6)));
    return result;
  }
  const result: number[] = [];
  for (let exponent = Math.floor(Math.log10(axis.min)); exponent <= Math.ceil(Math.log10(axis.max)); exponent += 1) {
    for (const factor of [1, 2, 5]) {
      const value = Number((factor * 10 ** exponent).toPrecision(6));
      if (value >= axis.min && value <= axis.max) result.push(value);
    }
  }
  return result;
}

function formatSeconds(seconds: number): string {
  return seconds >= 10 ? seconds.toFixed(0) : seconds >= 1 ? seconds.toFixed(1).replace(/\.0$/, '') : String(Number(seconds.toPrecision(2)));
}

const PANEL = { width: 420, height: 330, left: 56, top: 72, right: 16, bottom: 44 };

function panel(mode: PlanMode, lines: Partial<Record<PlanSide, ChartPoint[]>>, offsetX: number): string[] {
  const points = Object.values(lines).flatMap((series) => series ?? []);
  const title = mode === 'refresh' ? 'refresh plan (N applied before)' : 'create plan (from no state)';
  const x0 = offsetX + PANEL.left;
  const y0 = PANEL.top;
  const width = PANEL.width - PANEL.left - PANEL.right;
  const height = PANEL.height - PANEL.top - PANEL.bottom;
  const out: string[] = [`<g class="panel" data-mode="${mode}">`, `<text x="${x0 + width / 2}" y="${y0 - 12}" text-anchor="middle" font-weight="bold">${escapeXml(title)}</text>`];
  out.push(`<rect x="${x0}" y="${y0}" width="${width}" height="${height}" fill="none" stroke="#888"/>`);
  if (points.length === 0) {
    out.push(`<text x="${x0 + width / 2}" y="${y0 + height / 2}" text-anchor="middle" fill="#888">no plan rows in these results</text>`, '</g>');
    return out;
  }
  const xAxis = axisFor(points.map((point) => point.count), true);
  const yAxis = axisFor(points.map((point) => point.seconds), false);
  const x = (count: number) => (x0 + position(xAxis, count) * width).toFixed(1);
  const y = (seconds: number) => (y0 + height - position(yAxis, seconds) * height).toFixed(1);
  for (const count of [...new Set(points.map((point) => point.count))].sort((left, right) => left - right)) {
    out.push(`<line x1="${x(count)}" y1="${y0}" x2="${x(count)}" y2="${y0 + height}" stroke="#eee"/>`);
    out.push(`<text x="${x(count)}" y="${y0 + height + 16}" text-anchor="middle">${count.toLocaleString('en-US')}</text>`);
  }
  for (const seconds of ticks(yAxis)) {
    out.push(`<line x1="${x0}" y1="${y(seconds)}" x2="${x0 + width}" y2="${y(seconds)}" stroke="#eee"/>`);
    out.push(`<text x="${x0 - 6}" y="${y(seconds)}" text-anchor="end" dominant-baseline="middle">${formatSeconds(seconds)}</text>`);
  }
  out.push(`<text x="${x0 + width / 2}" y="${y0 + height + 34}" text-anchor="middle">N (resources, log scale)</text>`);
  out.push(`<text transform="translate(${offsetX + 14} ${y0 + height / 2}) rotate(-90)" text-anchor="middle">seconds${yAxis.log ? ' (log scale)' : ''}</text>`);
  for (const side of SIDES) {
    const series = lines[side];
    if (series === undefined) continue;
    const dash = DASHES[side] === '' ? '' : ` stroke-dasharray="${DASHES[side]}"`;
    out.push(`<polyline class="series" data-side="${side}" fill="none" stroke="${COLOURS[side]}" stroke-width="2"${dash} points="${series.map((point) => `${x(point.count)},${y(point.seconds)}`).join(' ')}"/>`);
    for (const point of series) {
      out.push(`<circle cx="${x(point.count)}" cy="${y(point.seconds)}" r="3" fill="${COLOURS[side]}"><title>${escapeXml(`${SIDE_NAMES[side]}, ${mode} N = ${point.count}: ${point.seconds.toFixed(2)} s`)}</title></circle>`);
    }
  }
  out.push('</g>');
  return out;
}

/** The SVG document of the plan rows of `results`. */
export function planChartSvg(results: BenchResults): string {
  const series = planSeries(results);
  const width = PANEL.width * 2;
  const legendTop = PANEL.height + 4;
  const height = legendTop + 48;
  const present = SIDES.filter((side) => series.refresh[side] !== undefined || series.create[side] !== undefined);
  const { machine, git, options } = results;
  const caption = `terraform plan time against N: medians of ${options.runs} run(s), ${results.date.slice(0, 10)}, commit ${git.commit.slice(0, 12)}${options.quick ? ' (quick smoke run: not figures to quote)' : ''}`;
  const where = `${machine.cores} x ${machine.cpuModel}; terraform ${machine.terraform}; load ${machine.loadAverageAtStart} at the start`;
  const legend = present.map((side, index) => {
    const lx = 16 + (index % 3) * 280;
    const ly = legendTop + 14 + Math.floor(index / 3) * 18;
    const dash = DASHES[side] === '' ? '' : ` stroke-dasharray="${DASHES[side]}"`;
    return `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${COLOURS[side]}" stroke-width="2"${dash}/><text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${escapeXml(SIDE_NAMES[side])}</text>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Generated by npm run bench (scripts/bench/chart.ts) from its results file; regenerate rather than edit. -->',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(caption)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="13">${escapeXml(caption)}</text>`,
    `<text x="${width / 2}" y="36" text-anchor="middle" fill="#555">${escapeXml(where)}</text>`,
    ...panel('refresh', series.refresh, 0),
    ...panel('create', series.create, PANEL.width),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}

/** Reads a results file and writes its chart. */
export function writePlanChart(resultsFile: string, chartFile: string): void {
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as BenchResults;
  fs.writeFileSync(chartFile, planChartSvg(results));
}
