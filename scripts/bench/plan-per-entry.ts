/**
 * `terraform plan` of N per-entry resources, refresh (applied before, so the plan reads every
 * one back) and create (from no state), on every side at once, interleaved run by run so load
 * from anything else on the machine falls on all alike:
 *
 *   released  N svc_*_entry, svc as users get it (the released executable for this machine)
 *   dev       the same, svc's dev build (the node script)
 *   floor     N floor_entry of the protocol floor (floor-provider/): the plugin protocol in node
 *   wide      N floor_wide_entry of the same floor: svc_blacklist_entry's attributes, planned as
 *             svc plans them, with no API or checks: terraform's work on svc's schema
 *   data      N terraform_data holding the same {ip, description} (built into terraform)
 *   Go peer   N aws_ec2_managed_prefix_list_entry of hashicorp/aws, create only, where installed
 *
 * The figures split the ratio users see (svc against terraform_data) in two: svc against the
 * floor (what the svc provider's own work costs) and the floor against terraform_data (what the
 * plugin protocol costs in node). Two information rows split the first again: svc against the
 * floor with svc's attributes (svc's code with the same schema) and that floor against the floor
 * (terraform's own work on svc's extra attributes). Targets from issue 27.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../terraform-harness/workspace';
import { LISTS, benchEntries, dataResources, entryResources, floorProviderBlock, floorResources, goPeerEntryResources, goPeerProviderBlock, wideFloorResources } from './configurations';
import { makeFigure, measurement, median, type Check, type Figure, type FigureOutcome } from './figures';
import type { PlanProviders } from './plan-providers';
import type { BenchSession } from './session';
import { APPLY, INIT, PLAN, PLAN_CHANGES_EXIT, PLAN_NO_CHANGES_EXIT, BenchCommandError, timeTerraform } from './timing';

export type PlanMode = 'refresh' | 'create';
export type PlanSide = 'released' | 'dev' | 'floor' | 'wideFloor' | 'terraformData' | 'goPeer';

export const SIDE_NAMES: Readonly<Record<PlanSide, string>> = {
  released: 'svc (released executable)',
  dev: 'svc (dev build, node script)',
  floor: 'protocol floor',
  wideFloor: "protocol floor with svc's attributes",
  terraformData: 'terraform_data',
  goPeer: 'hashicorp/aws (Go)',
};

/** svc within 1.3x of the floor at N = 1 and 100, 1.15x at N = 1,000, refresh and create. */
export function svcOverFloorTarget(count: number): number | null {
  if (count === 1 || count === 100) return 1.3;
  return count === 1000 ? 1.15 : null;
}

/** The floor within 3x of terraform_data at refresh N = 100, 2x at N = 1,000 (refresh and create). */
export function floorOverDataTarget(mode: PlanMode, count: number): number | null {
  if (mode === 'refresh' && count === 100) return 3;
  return count === 1000 ? 2 : null;
}

/** The plan of one entry on this machine (issue 27; a Go provider process lives tens of milliseconds). */
export const ONE_ENTRY_MAX_SECONDS = 0.4;
/** svc at most half the Go peer's time at create N = 1,000. */
export const GO_PEER_MAX_RATIO = 0.5;
export const GO_PEER_TARGET_N = 1000;
/** Per provider process that calls the API: one login and one list_<list> per list. */
export const CALLS_PER_PROCESS = 1 + LISTS.length;

export function planTenant(count: number): string {
  return `plan-${count}`;
}

export function createTenant(count: number): string {
  return `plan-create-${count}`;
}

/** API calls of one plan, from the emulator's stats. */
export interface PlanApiCalls {
  readonly requests: number;
  readonly logins: number;
  readonly byCommand: Record<string, number>;
}

export interface PerEntryPlanMeasurement {
  readonly mode: PlanMode;
  readonly count: number;
  /** Seconds per timed run, by side; goPeer only at create where the plugin is installed. */
  readonly seconds: Readonly<Partial<Record<PlanSide, number[]>>>;
  /** Calls of each released svc plan (refresh only). */
  readonly apiCalls: PlanApiCalls[];
  /** Setup applies (refresh only), not timed in the figures. */
  readonly setupSeconds?: Readonly<Record<string, number>>;
  /** The Go peer's version, when it ran. */
  readonly goPeerVersion?: string;
}

interface TimedSide {
  readonly side: PlanSide;
  readonly workspace: Workspace;
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

export async function measurePerEntryPlan(
  session: BenchSession,
  providers: PlanProviders,
  mode: PlanMode,
  count: number,
  runs: number,
  warmUp: boolean,
  /** Plan the Go peer too (create only, where installed). */
  withGoPeer: boolean,
): Promise<PerEntryPlanMeasurement> {
  const label = `plan ${mode} N=${count}`;
  const tenant = mode === 'refresh' ? planTenant(count) : createTenant(count);
  const entries = benchEntries(count);
  const svc = session.providerBlock(tenant) + entryResources(entries);
  const released = session.workspace(`plan-${mode}-released-${count}`, providers.releasedCliConfig);
  released.write(svc);
  const dev = session.workspace(`plan-${mode}-dev-${count}`, providers.devCliConfig);
  dev.write(svc);
  const floor = session.workspace(`plan-${mode}-floor-${count}`, providers.releasedCliConfig);
  floor.write(floorProviderBlock() + floorResources(entries));
  const wideFloor = session.workspace(`plan-${mode}-wide-floor-${count}`, providers.releasedCliConfig);
  wideFloor.write(floorProviderBlock() + wideFloorResources(entries));
  const data = session.workspace(`plan-${mode}-data-${count}`, providers.releasedCliConfig);
  data.write(dataResources(entries));
  const sides: TimedSide[] = [
    { side: 'released', workspace: released },
    { side: 'dev', workspace: dev },
    { side: 'floor', workspace: floor },
    { side: 'wideFloor', workspace: wideFloor },
    { side: 'terraformData', workspace: data },
  ];
  const goPeer = mode === 'create' && withGoPeer ? providers.goPeer : undefined;
  if (goPeer !== undefined) {
    const peer = session.workspace(`plan-${mode}-go-peer-${count}`, providers.releasedCliConfig);
    peer.write(goPeerProviderBlock() + goPeerEntryResources(entries));
    sides.push({ side: 'goPeer', workspace: peer });
  }
  session.progress(`${label}: init (${sides.map(({ side }) => SIDE_NAMES[side]).join(', ')})`);
  for (const { workspace } of sides) await timeTerraform(workspace, INIT);

  let setupSeconds: Record<string, number> | undefined;
  if (mode === 'refresh') {
    session.progress(`${label}: apply ${count} of each (setup, not timed)`);
    // terraform_data first: the emulator drops blocklist entries 30 minutes after adding them, and
    // at N = 5,000 each setup apply takes terraform 10 to 20 minutes (its apply is superlinear in N),
    // so the svc entries must be the last ones applied before the timed plans.
    const dataSetup = await timeTerraform(data, APPLY);
    const floorSetup = await timeTerraform(floor, APPLY);
    const wideFloorSetup = await timeTerraform(wideFloor, APPLY);
    const svcSetup = await timeTerraform(released, APPLY);
    // The dev build reads the same entries: the same provider source and schema, so the same state.
    fs.copyFileSync(path.join(released.dir, 'terraform.tfstate'), path.join(dev.dir, 'terraform.tfstate'));
    setupSeconds = { svc: svcSetup.seconds, floor: floorSetup.seconds, wideFloor: wideFloorSetup.seconds, terraformData: dataSetup.seconds };
    session.progress(
      `${label}: setup applied in ${svcSetup.seconds.toFixed(1)} s (svc), ${floorSetup.seconds.toFixed(1)} s (floor), ` +
        `${wideFloorSetup.seconds.toFixed(1)} s (floor with svc's attributes), ${dataSetup.seconds.toFixed(1)} s (terraform_data)`,
    );
    const listed = (await Promise.all(LISTS.map((list) => session.listSize(tenant, list)))).reduce((sum, size) => sum + size, 0);
    if (listed !== count) throw new BenchCommandError(`${label}: after the setup apply the emulator lists ${listed} entries for tenant ${tenant}, expected ${count}`);
  }
  // A refresh finds no changes, a create plans N.
  const codes = mode === 'refresh' ? PLAN_NO_CHANGES_EXIT : PLAN_CHANGES_EXIT;

  if (warmUp) {
    session.progress(`${label}: one warm-up plan each (not timed)`);
    for (const { workspace } of sides) await timeTerraform(workspace, PLAN, codes);
  }

  const seconds: Partial<Record<PlanSide, number[]>> = {};
  const apiCalls: PlanApiCalls[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const line: string[] = [];
    for (const { side, workspace } of sides) {
      if (side === 'released') session.resetApiStats();
      const timed = await timeTerraform(workspace, PLAN, codes);
      (seconds[side] ??= []).push(timed.seconds);
      let calls = '';
      if (side === 'released' && mode === 'refresh') {
        const stats = session.apiStats();
        apiCalls.push({ requests: stats.requests, logins: stats.logins, byCommand: stats.byCommand });
        calls = ` (${stats.requests} API calls)`;
      }
      line.push(`${SIDE_NAMES[side]} ${timed.seconds.toFixed(2)} s${calls}`);
    }
    session.progress(`${label}: run ${run}/${runs}: ${line.join(', ')}`);
  }
  return {
    mode,
    count,
    seconds,
    apiCalls,
    ...(setupSeconds === undefined ? {} : { setupSeconds }),
    ...(goPeer === undefined ? {} : { goPeerVersion: goPeer.version }),
  };
}

function sideSamples(measured: PerEntryPlanMeasurement, side: PlanSide): number[] {
  const samples = measured.seconds[side];
  if (samples === undefined) throw new Error(`plan ${measured.mode} N=${measured.count} has no ${side} samples`);
  return samples;
}

function ratioText(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}x (${value.toFixed(2)} against ${baseline.toFixed(2)} s)`;
}

/** What ran on each side, in words. */
function sideDescription(measured: PerEntryPlanMeasurement, side: PlanSide): string {
  const n = formatCount(measured.count);
  const what = measured.mode === 'refresh' ? 'applied before (the plan reads each back)' : 'from no state';
  switch (side) {
    case 'released':
      return `terraform plan of ${n} svc_*_entry (spread over the three lists), ${what}, with the released executable for this machine`;
    case 'dev':
      return `the same plan with svc's dev build (the npm run build node script)`;
    case 'floor':
      return `terraform plan of ${n} floor_entry of the protocol floor (scripts/bench/floor-provider: this project's tfplugin6 layer, handlers that return what they are given), ${what}`;
    case 'wideFloor':
      return `terraform plan of ${n} floor_wide_entry of the same floor (svc_blacklist_entry's ip, description, tenant, id and created, planned as svc plans them, without svc's checks, API calls or canonicalisation), ${what}`;
    case 'terraformData':
      return `terraform plan of ${n} terraform_data holding the same {ip, description}, ${what}`;
    case 'goPeer':
      return `terraform plan of ${n} aws_ec2_managed_prefix_list_entry of hashicorp/aws ${measured.goPeerVersion ?? ''} (Go), ${what}, no AWS call`;
  }
}

/**
 * The figures of one measurement: svc vs the floor, the floor vs terraform_data, svc vs the floor
 * with svc's attributes and that floor vs the floor, the dev build, the Go peer (create), the API
 * calls (refresh).
 */
export function perEntryPlanFigures(measured: PerEntryPlanMeasurement, smallestRefresh: PerEntryPlanMeasurement | undefined, goPeerSkipped: string | undefined): FigureOutcome[] {
  const { mode, count } = measured;
  const n = formatCount(count);
  const id = `plan-${mode}-${count}`;
  const medians = Object.fromEntries(Object.entries(measured.seconds).map(([side, samples]) => [side, median(samples)])) as Partial<Record<PlanSide, number>>;
  const released = measurement(sideDescription(measured, 'released'), sideSamples(measured, 'released'));
  const floor = measurement(sideDescription(measured, 'floor'), sideSamples(measured, 'floor'));
  const wideFloor = measurement(sideDescription(measured, 'wideFloor'), sideSamples(measured, 'wideFloor'));
  const data = measurement(sideDescription(measured, 'terraformData'), sideSamples(measured, 'terraformData'));
  const outcomes: FigureOutcome[] = [];

  const svcTarget = svcOverFloorTarget(count);
  const checks: Check[] = [];
  if (count === 1) checks.push({ description: `svc's plan of one entry takes at most ${ONE_ENTRY_MAX_SECONDS} s (median ${released.median.toFixed(2)} s)`, ok: released.median <= ONE_ENTRY_MAX_SECONDS });
  outcomes.push(
    makeFigure({
      id,
      title: `plan (${mode}), N = ${n}: svc vs the floor`,
      unit: 'seconds',
      value: released,
      baseline: floor,
      target: svcTarget === null ? null : { maxRatio: svcTarget, description: `<= ${svcTarget}x the floor${count === 1 ? `, <= ${ONE_ENTRY_MAX_SECONDS} s` : ''}` },
      checks,
      notes: [
        `svc's own work: the ratio. svc against terraform_data (what users see): ${ratioText(released.median, data.median)}; the floor against terraform_data (the protocol in node): ${ratioText(floor.median, data.median)}.`,
        `Of the ratio, terraform's work on svc's extra attributes (the floor with svc's attributes against the floor): ${ratioText(wideFloor.median, floor.median)}; svc's code with the same schema (svc against that floor): ${ratioText(released.median, wideFloor.median)}.`,
        mode === 'refresh' ? 'Plans exit 0 (no changes); the setup applies are not timed.' : 'Plans exit 2 (N to add); nothing is applied.',
      ],
      details: { mode, count, seconds: measured.seconds, medians, ...(measured.setupSeconds === undefined ? {} : { setupApplySeconds: measured.setupSeconds }) },
    }),
  );

  const floorTarget = floorOverDataTarget(mode, count);
  outcomes.push(
    makeFigure({
      id: `${id}-floor`,
      title: `plan (${mode}), N = ${n}: the floor vs terraform_data`,
      unit: 'seconds',
      value: floor,
      baseline: data,
      target: floorTarget === null ? null : { maxRatio: floorTarget, description: `<= ${floorTarget}x terraform_data` },
      notes: [
        'What the plugin protocol costs in node: provider processes started, gRPC over HTTP/2, msgpack, with handlers that do nothing. Where this row misses its target, svc cannot meet it either.',
      ],
    }),
  );

  outcomes.push(
    makeFigure({
      id: `${id}-wide-floor`,
      title: `plan (${mode}), N = ${n}: svc vs the floor with svc's attributes`,
      unit: 'seconds',
      value: released,
      baseline: wideFloor,
      target: null,
      notes: ["What svc's own code costs with the same schema: the floor's floor_wide_entry has svc_blacklist_entry's attributes and plans the same values, so terraform does the same work on both sides (svc_blocklist_entry's expires, on a third of svc's resources, is not modelled)."],
    }),
    makeFigure({
      id: `${id}-attributes`,
      title: `plan (${mode}), N = ${n}: the floor with svc's attributes vs the floor`,
      unit: 'seconds',
      value: wideFloor,
      baseline: floor,
      target: null,
      notes: ["What terraform's own work on svc's extra attributes (tenant, id, created) costs, in config, state, plan and diff: the part of svc vs the floor that no change to the svc provider can remove."],
    }),
  );

  outcomes.push(
    makeFigure({
      id: `${id}-dev`,
      title: `plan (${mode}), N = ${n}: dev build vs released`,
      unit: 'seconds',
      value: measurement(sideDescription(measured, 'dev'), sideSamples(measured, 'dev')),
      baseline: released,
      target: null,
      notes: ['Above 1x the released executable is faster than the node script: what its start-up work (code caches, its own Node and options) buys per plan.'],
    }),
  );

  if (mode === 'create') {
    const peerTitle = `plan (create), N = ${n}: svc vs hashicorp/aws (Go)`;
    if (measured.seconds.goPeer === undefined) {
      outcomes.push({ id: `${id}-go-peer`, title: peerTitle, skipped: goPeerSkipped ?? 'the Go peer did not run' });
    } else {
      outcomes.push(
        makeFigure({
          id: `${id}-go-peer`,
          title: peerTitle,
          unit: 'seconds',
          value: released,
          baseline: measurement(sideDescription(measured, 'goPeer'), measured.seconds.goPeer),
          target: count === GO_PEER_TARGET_N ? { maxRatio: GO_PEER_MAX_RATIO, description: `<= ${GO_PEER_MAX_RATIO}x the Go peer` } : null,
          notes: ['The same job in a Go provider: one resource per address of a managed list. Plan only: its provider is configured with fake keys and endpoints on a closed loopback port.'],
        }),
      );
    }
  }

  if (mode === 'refresh') outcomes.push(planApiFigure(measured, smallestRefresh ?? measured));
  return outcomes;
}

function listCalls(calls: PlanApiCalls, list: string): number {
  return calls.byCommand[`list_${list}`] ?? 0;
}

/**
 * The API calls of the released svc refresh plans against the target count (one login and one
 * list call per list, per provider process that called the API; each such process logs in
 * once). `smallest` is the measurement at the smallest N, for the "independent of N" check.
 */
export function planApiFigure(measured: PerEntryPlanMeasurement, smallest: PerEntryPlanMeasurement): Figure {
  const n = formatCount(measured.count);
  const requests = measured.apiCalls.map((calls) => calls.requests);
  const processes = measured.apiCalls.map((calls) => Math.max(calls.logins, 1));
  const checks: Check[] = [
    {
      description: 'at most one list call per list per provider process, and nothing but logins and list calls',
      ok: measured.apiCalls.every(
        (calls) =>
          LISTS.every((list) => listCalls(calls, list) <= Math.max(calls.logins, 1)) &&
          calls.requests === calls.logins + LISTS.reduce((sum, list) => sum + listCalls(calls, list), 0),
      ),
    },
    { description: 'the same count in every run', ok: new Set(requests).size === 1 },
  ];
  if (measured !== smallest) {
    checks.push({
      description: `the same count as at N = ${formatCount(smallest.count)} (independent of N)`,
      ok: requests.every((count) => smallest.apiCalls.every((calls) => calls.requests === count)),
    });
  }
  return makeFigure({
    id: `plan-api-calls-${measured.count}`,
    title: `API calls of that plan, N = ${n}`,
    unit: 'calls',
    value: measurement(`/svc_api requests the emulator counted during one refresh plan of ${n} svc_*_entry resources (released executable)`, requests),
    baseline: measurement(
      `the target count: ${CALLS_PER_PROCESS} (1 login + ${LISTS.length} list calls) per provider process that called the API (processes = logins)`,
      processes.map((count) => count * CALLS_PER_PROCESS),
    ),
    target: { maxRatio: 1, description: '1 login + 1 list call per list, per process; same at every N' },
    checks,
    notes: [],
    details: { perRun: measured.apiCalls },
  });
}
