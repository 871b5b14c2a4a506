/**
 * Figures 1 and 2: `terraform plan` (which refreshes every resource) of N svc_*_entry
 * resources already applied, against N terraform_data resources already applied, and the
 * API calls the emulator counted during each of those plans.
 *
 * Per N: both configurations are applied once (not timed), then plans alternate svc, baseline,
 * svc, baseline, ... so load from anything else on the machine falls on both alike.
 */
import { LISTS, benchEntries, dataResources, entryResources } from './configurations';
import { makeFigure, measurement, type Check, type Figure } from './figures';
import type { BenchSession } from './session';
import { APPLY, INIT, PLAN_NO_CHANGES, BenchCommandError, timeTerraform } from './timing';

/** Where the issue sets the target: plan at N = 1,000 within 1.5 times terraform_data's. */
export const PLAN_TARGET_N = 1000;
export const PLAN_MAX_RATIO = 1.5;
/** Per provider process that calls the API: one login and one list_<list> per list. */
export const CALLS_PER_PROCESS = 1 + LISTS.length;

export function planTenant(count: number): string {
  return `plan-${count}`;
}

/** API calls of one plan, from the emulator's stats. */
export interface PlanApiCalls {
  readonly requests: number;
  readonly logins: number;
  readonly byCommand: Record<string, number>;
}

export interface PlanMeasurement {
  readonly count: number;
  readonly svcSeconds: number[];
  readonly dataSeconds: number[];
  readonly apiCalls: PlanApiCalls[];
  readonly setupSeconds: { readonly svc: number; readonly data: number };
}

export async function measurePlan(session: BenchSession, count: number, runs: number, warmUp: boolean): Promise<PlanMeasurement> {
  const tenant = planTenant(count);
  const entries = benchEntries(count);
  const svc = session.workspace(`plan-svc-${count}`);
  svc.write(session.providerBlock(tenant) + entryResources(entries));
  const data = session.workspace(`plan-data-${count}`);
  data.write(dataResources(entries));

  session.progress(`plan N=${count}: init and apply ${count} svc_*_entry resources and ${count} terraform_data (setup, not timed)`);
  await timeTerraform(svc, INIT);
  await timeTerraform(data, INIT);
  // terraform_data first: the emulator drops blocklist entries 30 minutes after adding them, and
  // at N = 5,000 each setup apply takes terraform 10 to 20 minutes (its apply is superlinear in N),
  // so the svc entries must be the last ones applied before the timed plans.
  const dataSetup = await timeTerraform(data, APPLY);
  const svcSetup = await timeTerraform(svc, APPLY);
  session.progress(`plan N=${count}: setup applied in ${svcSetup.seconds.toFixed(1)} s (svc) and ${dataSetup.seconds.toFixed(1)} s (terraform_data)`);
  const listed = (await Promise.all(LISTS.map((list) => session.listSize(tenant, list)))).reduce((sum, size) => sum + size, 0);
  if (listed !== count) throw new BenchCommandError(`plan N=${count}: after the setup apply the emulator lists ${listed} entries for tenant ${tenant}, expected ${count}`);

  if (warmUp) {
    session.progress(`plan N=${count}: one warm-up plan each (not timed)`);
    await timeTerraform(svc, PLAN_NO_CHANGES);
    await timeTerraform(data, PLAN_NO_CHANGES);
  }

  const svcSeconds: number[] = [];
  const dataSeconds: number[] = [];
  const apiCalls: PlanApiCalls[] = [];
  for (let run = 1; run <= runs; run += 1) {
    session.resetApiStats();
    const svcRun = await timeTerraform(svc, PLAN_NO_CHANGES);
    const stats = session.apiStats();
    apiCalls.push({ requests: stats.requests, logins: stats.logins, byCommand: stats.byCommand });
    svcSeconds.push(svcRun.seconds);
    const dataRun = await timeTerraform(data, PLAN_NO_CHANGES);
    dataSeconds.push(dataRun.seconds);
    session.progress(`plan N=${count}: run ${run}/${runs}: svc ${svcRun.seconds.toFixed(2)} s (${stats.requests} API calls), terraform_data ${dataRun.seconds.toFixed(2)} s`);
  }
  return { count, svcSeconds, dataSeconds, apiCalls, setupSeconds: { svc: svcSetup.seconds, data: dataSetup.seconds } };
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

export function planFigure(measured: PlanMeasurement): Figure {
  const n = formatCount(measured.count);
  return makeFigure({
    id: `plan-refresh-${measured.count}`,
    title: `plan (refresh), N = ${n}`,
    unit: 'seconds',
    value: measurement(`terraform plan of ${n} svc_*_entry resources (spread over the three lists), applied before`, measured.svcSeconds),
    baseline: measurement(`terraform plan of ${n} terraform_data resources holding the same {ip, description}, applied before`, measured.dataSeconds),
    target: measured.count === PLAN_TARGET_N ? { maxRatio: PLAN_MAX_RATIO, description: `<= ${PLAN_MAX_RATIO}x at N = ${formatCount(PLAN_TARGET_N)}` } : null,
    notes: ['Plans exit 0 (no changes); the setup apply is not timed.'],
    details: { setupApplySeconds: measured.setupSeconds },
  });
}

function listCalls(calls: PlanApiCalls, list: string): number {
  return calls.byCommand[`list_${list}`] ?? 0;
}

/**
 * Figure 2 for one N: calls per plan against the target count (one login and one list call
 * per list, per provider process that called the API; each such process logs in once).
 * `smallest` is the measurement at the smallest N, for the "independent of N" check.
 */
export function planApiFigure(measured: PlanMeasurement, smallest: PlanMeasurement): Figure {
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
    value: measurement(`/svc_api requests the emulator counted during one plan of ${n} svc_*_entry resources`, requests),
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
