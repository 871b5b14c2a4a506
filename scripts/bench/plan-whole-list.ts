/**
 * Create plans of one whole list (from no state, an empty list on the emulator):
 *
 *   plan-whole-list-<N>       one svc_blacklist of N entries (released executable) against one
 *                             terraform_data holding the same map (ip => description); target
 *                             2x at N = 10,000 (issue 27: the per-entry cost of a whole list)
 *   plan-whole-list-peer-<N>  one list of N addresses: svc_blacklist against the Go peer's
 *                             resource for the same job, hashicorp/aws's aws_wafv2_ip_set (plan
 *                             only; its set diff is quadratic, hashicorp/terraform-provider-aws
 *                             issue 48060), with terraform_data's map beside them; reported, no target
 */
import type { Workspace } from '../terraform-harness/workspace';
import { benchEntries, dataMapResource, goPeerIpSetResource, goPeerProviderBlock, wholeListResource } from './configurations';
import { makeFigure, measurement, median, type FigureOutcome } from './figures';
import { GO_PEER_NOT_INSTALLED, NO_GO_PEER, type PlanProviders } from './plan-providers';
import type { BenchSession } from './session';
import { INIT, PLAN, PLAN_CHANGES_EXIT, timeTerraform } from './timing';

export const WHOLE_LIST_TARGET_N = 10_000;
export const WHOLE_LIST_MAX_RATIO = 2;
/** The Go peer's plan at 2,000 addresses took 46 s on this machine: few runs, no warm-up. */
export const PEER_MAX_RUNS = 3;

export function wholeListPlanTenant(count: number): string {
  return `plan-whole-list-${count}`;
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** Plans `sides` in turn `runs` times (each a create); seconds per side. */
async function interleavedPlans(session: BenchSession, label: string, sides: ReadonlyArray<readonly [name: string, workspace: Workspace]>, runs: number, warmUp: boolean): Promise<number[][]> {
  for (const [, workspace] of sides) await timeTerraform(workspace, INIT);
  if (warmUp) {
    session.progress(`${label}: one warm-up plan each (not timed)`);
    for (const [, workspace] of sides) await timeTerraform(workspace, PLAN, PLAN_CHANGES_EXIT);
  }
  const seconds: number[][] = sides.map(() => []);
  for (let run = 1; run <= runs; run += 1) {
    for (const [index, [, workspace]] of sides.entries()) seconds[index].push((await timeTerraform(workspace, PLAN, PLAN_CHANGES_EXIT)).seconds);
    session.progress(`${label}: run ${run}/${runs}: ${sides.map(([name], index) => `${name} ${seconds[index][run - 1].toFixed(2)} s`).join(', ')}`);
  }
  return seconds;
}

export async function measureWholeListPlan(session: BenchSession, providers: PlanProviders, count: number, runs: number, warmUp: boolean): Promise<FigureOutcome> {
  const entries = benchEntries(count);
  const n = formatCount(count);
  const svc = session.workspace(`plan-whole-list-svc-${count}`, providers.releasedCliConfig);
  svc.write(session.providerBlock(wholeListPlanTenant(count)) + wholeListResource(entries));
  const data = session.workspace(`plan-whole-list-data-${count}`, providers.releasedCliConfig);
  data.write(dataMapResource(entries));
  const [svcSeconds, dataSeconds] = await interleavedPlans(session, `plan whole list ${n}`, [['svc_blacklist', svc], ['terraform_data map', data]], runs, warmUp);
  return makeFigure({
    id: `plan-whole-list-${count}`,
    title: `plan (create), one list of ${n} entries`,
    unit: 'seconds',
    value: measurement(`terraform plan of one svc_blacklist with ${n} entries (released executable), from no state and an empty list`, svcSeconds),
    baseline: measurement(`terraform plan of one terraform_data holding the same ${n} entries as a map (ip => description)`, dataSeconds),
    target: count === WHOLE_LIST_TARGET_N ? { maxRatio: WHOLE_LIST_MAX_RATIO, description: `<= ${WHOLE_LIST_MAX_RATIO}x terraform_data` } : null,
    notes: [`The per-entry cost of a whole list: ${(((median(svcSeconds) - median(dataSeconds)) / count) * 1000).toFixed(3)} ms per entry more than terraform_data (difference of the medians over N).`],
  });
}

export async function measureWholeListPeer(session: BenchSession, providers: PlanProviders, count: number, runs: number, withGoPeer: boolean): Promise<FigureOutcome> {
  const n = formatCount(count);
  const id = `plan-whole-list-peer-${count}`;
  const title = `plan (create), one list of ${n} addresses: svc vs hashicorp/aws (Go)`;
  if (!withGoPeer) return { id, title, skipped: NO_GO_PEER };
  if (providers.goPeer === undefined) return { id, title, skipped: GO_PEER_NOT_INSTALLED };
  const entries = benchEntries(count);
  const svc = session.workspace(`plan-peer-svc-${count}`, providers.releasedCliConfig);
  svc.write(session.providerBlock(wholeListPlanTenant(count)) + wholeListResource(entries));
  const peer = session.workspace(`plan-peer-go-${count}`, providers.releasedCliConfig);
  peer.write(goPeerProviderBlock() + goPeerIpSetResource(entries));
  const data = session.workspace(`plan-peer-data-${count}`, providers.releasedCliConfig);
  data.write(dataMapResource(entries));
  const peerRuns = Math.min(runs, PEER_MAX_RUNS);
  session.progress(`plan whole list ${n} against the Go peer: ${peerRuns} run(s), no warm-up (its plan is quadratic in the addresses)`);
  const [svcSeconds, peerSeconds, dataSeconds] = await interleavedPlans(
    session,
    `plan peer list ${n}`,
    [['svc_blacklist', svc], ['aws_wafv2_ip_set', peer], ['terraform_data map', data]],
    peerRuns,
    false,
  );
  const dataMedian = median(dataSeconds);
  return makeFigure({
    id,
    title,
    unit: 'seconds',
    value: measurement(`terraform plan of one svc_blacklist with ${n} addresses (released executable), from no state and an empty list`, svcSeconds),
    baseline: measurement(`terraform plan of one aws_wafv2_ip_set of hashicorp/aws ${providers.goPeer.version} (Go) with the same ${n} addresses, plan only (fake keys, endpoints on a closed loopback port)`, peerSeconds),
    target: null,
    notes: [
      `terraform_data holding the same map: ${dataMedian.toFixed(2)} s (svc ${(median(svcSeconds) / dataMedian).toFixed(2)}x, the Go peer ${(median(peerSeconds) / dataMedian).toFixed(2)}x).`,
      `Medians of ${peerRuns} run(s) without warm-up: the Go peer's set diff is quadratic (hashicorp/terraform-provider-aws issue 48060).`,
    ],
    details: { terraformDataSeconds: dataSeconds, runs: peerRuns },
  });
}
