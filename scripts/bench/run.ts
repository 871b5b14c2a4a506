/**
 * `npm run bench`: measures the svc provider and the cdktf app against baselines run in the
 * same session, prints a table on stdout and writes bench/results/latest.json (or --out) with
 * the chart of its plan rows beside it (latest.svg). Progress goes to stderr. Exit 0 when every
 * figure was measured or skipped on purpose (a missed target is a finding, shown as NOT MET,
 * not a crash), 1 when one could not be, 2 for bad arguments, 3 when its output could not be
 * written and 130 after Ctrl-C (both stop the run and remove what it made: stop.ts). See
 * help/performance.md.
 */
import { writePlanChart } from './chart';
import { LISTS } from './configurations';
import { isFailed, type FigureOutcome } from './figures';
import { gitInfo, machineInfo } from './machine';
import { BenchUsageError, USAGE, chartFileFor, parseBenchArguments, type BenchOptions } from './options';
import { createTenant, measurePerEntryPlan, perEntryPlanFigures, planTenant, type PerEntryPlanMeasurement, type PlanMode } from './plan-per-entry';
import { GO_PEER_NOT_INSTALLED, NO_GO_PEER, preparePlanProviders, type PlanProviders } from './plan-providers';
import { measureWholeListPeer, measureWholeListPlan, wholeListPlanTenant } from './plan-whole-list';
import { RESULTS_FORMAT_VERSION, formatLegend, formatTable, summarize, writeResults, type BenchResults } from './report';
import { BenchSession, type Progress } from './session';
import { measureStartup, startupFigures } from './startup';
import { BenchStop } from './stop';
import { measureSynth, synthFigure } from './synth';
import { BenchCommandError, secondsSince } from './timing';
import { applyTenant, measureSetApply, measureWholeListApply, setFigure, wholeListApiFigure, wholeListFigure, type SetMeasurement } from './whole-list-apply';

/**
 * Runs one part; a command that failed (BenchCommandError) becomes a not-measured figure for
 * each id the part would have produced, and the run goes on with the next part. Once the run is
 * stopped it throws the stop instead: the failures a stop causes (the processes it ended) are not findings.
 */
async function part(session: BenchSession, outcomes: FigureOutcome[], titles: ReadonlyArray<{ id: string; title: string }>, measure: () => Promise<FigureOutcome[]>): Promise<void> {
  session.throwIfStopped();
  try {
    outcomes.push(...(await measure()));
  } catch (error) {
    session.throwIfStopped();
    if (!(error instanceof BenchCommandError)) throw error;
    session.progress(`NOT MEASURED (${titles.map((title) => title.id).join(', ')}): ${error.message}`);
    outcomes.push(...titles.map((title) => ({ ...title, error: error.message })));
  }
}

/** Measures every figure; `signal` (BenchStop's) stops the run: it then throws the stop's reason once the session is closed. */
export async function runBench(options: BenchOptions, progress: Progress, signal?: AbortSignal): Promise<BenchResults> {
  const started = process.hrtime.bigint();
  const date = new Date().toISOString();
  const machine = machineInfo();
  const git = gitInfo();
  const warmUp = !options.quick;
  const applyTenants = Array.from({ length: options.runs + 1 }, (_, run) => applyTenant(run));
  const tenants = [
    ...options.planSizes.map(planTenant),
    ...options.createSizes.map(createTenant),
    ...new Set([options.wholeListPlanEntries, options.peerListEntries].map(wholeListPlanTenant)),
    ...applyTenants,
  ];
  const session = await BenchSession.start({ tenants, progress, ...(signal === undefined ? {} : { signal }), ...(options.releaseDir === undefined ? {} : { releaseDir: options.releaseDir }) });
  const outcomes: FigureOutcome[] = [];
  try {
    progress(`start-up: ${options.startupRuns} runs`);
    const startupIds = [
      { id: 'startup-tls', title: 'provider start-up (mutual TLS) vs the floor' },
      { id: 'startup-tls-node', title: 'provider start-up vs node -e 0' },
      { id: 'startup-tls-release-node', title: 'provider start-up vs its own Node' },
      { id: 'startup-floor', title: 'bare HTTP/2 server start-up (the floor)' },
      { id: 'startup-plaintext', title: 'provider start-up (TF_DISABLE_PLUGIN_TLS)' },
      { id: 'startup-script-tls', title: 'dev-build node script start-up (mutual TLS)' },
    ];
    await part(session, outcomes, startupIds, async () => startupFigures(await measureStartup(session, options.startupRuns, warmUp), session.build.bundleBytes));

    await part(session, outcomes, [{ id: 'synth', title: 'cdktf synth of the app' }], async () => [synthFigure(await measureSynth(session, options.runs, warmUp))]);

    let providers: PlanProviders | undefined;
    const needProviders = async (): Promise<PlanProviders> => (providers ??= await preparePlanProviders(session));
    // Each plan of the Go peer starts a 675 MB provider three times (about 10 s of CPU whatever
    // N, half a minute of wall time under load): a quick run plans it at its smallest N only.
    const smallestCreate = Math.min(...options.createSizes);
    const goPeerAt = (count: number) => options.goPeer && (!options.quick || count === smallestCreate);
    const goPeerSkipped = options.goPeer ? `quick run: the Go peer plans at N = ${smallestCreate} only` : NO_GO_PEER;
    // The API-call rows compare each N with the smallest N that has an entry on every list.
    let referenceRefresh: PerEntryPlanMeasurement | undefined;
    const plans: Array<[PlanMode, number]> = [...options.planSizes.map((count): [PlanMode, number] => ['refresh', count]), ...options.createSizes.map((count): [PlanMode, number] => ['create', count])];
    for (const [mode, count] of plans) {
      const id = `plan-${mode}-${count}`;
      const n = count.toLocaleString('en-US');
      const ids = [
        { id, title: `plan (${mode}), N = ${n}: svc vs the floor` },
        { id: `${id}-floor`, title: `plan (${mode}), N = ${n}: the floor vs terraform_data` },
        { id: `${id}-wide-floor`, title: `plan (${mode}), N = ${n}: svc vs the floor with svc's attributes` },
        { id: `${id}-attributes`, title: `plan (${mode}), N = ${n}: the floor with svc's attributes vs the floor` },
        { id: `${id}-dev`, title: `plan (${mode}), N = ${n}: dev build vs released` },
        ...(mode === 'create' ? [{ id: `${id}-go-peer`, title: `plan (create), N = ${n}: svc vs hashicorp/aws (Go)` }] : [{ id: `plan-api-calls-${count}`, title: `API calls of that plan, N = ${n}` }]),
      ];
      await part(
        session,
        outcomes,
        ids,
        async () => {
          const measured = await measurePerEntryPlan(session, await needProviders(), mode, count, options.runs, warmUp, goPeerAt(count));
          // Below one entry per list a refresh reads fewer lists: those Ns are compared with themselves only.
          const onEveryList = mode === 'refresh' && count >= LISTS.length;
          if (onEveryList && referenceRefresh === undefined) referenceRefresh = measured;
          const reference = onEveryList ? referenceRefresh : undefined;
          return perEntryPlanFigures(measured, reference, goPeerAt(count) ? GO_PEER_NOT_INSTALLED : goPeerSkipped);
        },
      );
    }

    await part(
      session,
      outcomes,
      [{ id: `plan-whole-list-${options.wholeListPlanEntries}`, title: `plan (create), one list of ${options.wholeListPlanEntries} entries` }],
      async () => [await measureWholeListPlan(session, await needProviders(), options.wholeListPlanEntries, options.runs, warmUp)],
    );
    await part(
      session,
      outcomes,
      [{ id: `plan-whole-list-peer-${options.peerListEntries}`, title: `plan (create), one list of ${options.peerListEntries} addresses: svc vs hashicorp/aws (Go)` }],
      async () => [await measureWholeListPeer(session, await needProviders(), options.peerListEntries, options.runs, options.goPeer)],
    );

    // Measured first (its figure explains the apply's baseline) but listed after the apply.
    let set: SetMeasurement | undefined;
    const setOutcomes: FigureOutcome[] = [];
    await part(
      session,
      setOutcomes,
      [{ id: `apply-set-${options.setEntries}`, title: 'apply terraform_data set vs map' }],
      async () => {
        progress(`apply terraform_data with ${options.setEntries} elements as a set and as a map`);
        set = await measureSetApply(session, options.setEntries, options.runs);
        return [setFigure(set)];
      },
    );
    await part(
      session,
      outcomes,
      [
        { id: `apply-whole-list-${options.applyEntries}`, title: `apply svc_blacklist, ${options.applyEntries} entries` },
        { id: `apply-api-calls-${options.applyEntries}`, title: `API calls of that apply` },
      ],
      async () => {
        const measured = await measureWholeListApply(session, options.applyEntries, options.runs, warmUp);
        return [wholeListFigure(measured, set), wholeListApiFigure(measured)];
      },
    );
    outcomes.push(...setOutcomes);
  } finally {
    await session.close();
  }

  return {
    generatedBy: 'npm run bench (scripts/bench/run.ts); regenerate rather than edit',
    formatVersion: RESULTS_FORMAT_VERSION,
    date,
    durationSeconds: Math.round(secondsSince(started)),
    git,
    machine,
    options: {
      runs: options.runs,
      startupRuns: options.startupRuns,
      quick: options.quick,
      large: options.large,
      planSizes: options.planSizes,
      createSizes: options.createSizes,
      wholeListPlanEntries: options.wholeListPlanEntries,
      peerListEntries: options.peerListEntries,
      applyEntries: options.applyEntries,
      setEntries: options.setEntries,
      goPeer: options.goPeer,
      releaseDir: options.releaseDir ?? null,
    },
    figures: outcomes,
    summary: summarize(outcomes),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  let command;
  try {
    command = parseBenchArguments(argv);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'chart') {
    writePlanChart(command.resultsFile, command.chartFile);
    process.stderr.write(`bench: wrote ${command.chartFile} from ${command.resultsFile}\n`);
    return 0;
  }
  const options = command.options;
  const stop = new BenchStop();
  const { progress } = stop;
  try {
    progress(
      `${options.quick ? 'quick smoke run' : 'full run'}: ${options.runs} run(s) per figure, refresh plans N = ${options.planSizes.join(', ')}, create plans N = ${options.createSizes.join(', ')}, ` +
        `whole lists of ${options.wholeListPlanEntries} and ${options.peerListEntries}, apply ${options.applyEntries} entries`,
    );
    const results = await runBench(options, progress, stop.signal);
    writeResults(options.outFile, results);
    const chartFile = chartFileFor(options.outFile);
    writePlanChart(options.outFile, chartFile);
    progress(`done in ${results.durationSeconds} s; wrote ${options.outFile} and ${chartFile}`);
    await stop.writeOutput(`${formatTable(results)}\n\n${formatLegend(results)}\n`);
    return stop.stopped?.exitStatus ?? (results.figures.some(isFailed) ? 1 : 0);
  } catch (error) {
    // Whatever a stop made fail on its way out (a build step, a killed terraform), the stop is the cause.
    const stopped = stop.stopped;
    if (stopped === undefined) throw error;
    return stopped.exitStatus;
  } finally {
    stop.dispose();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
