/**
 * `npm run bench`: measures the svc provider and the cdktf app against baselines run in the
 * same session, prints a table on stdout and writes bench/results/latest.json (or --out).
 * Progress goes to stderr. Exit 0 when every figure was measured (a missed target is a
 * finding, shown as FAIL, not a crash), 1 when one could not be, 2 for bad arguments.
 * See help/performance.md.
 */
import { isFailed, type Figure, type FigureOutcome } from './figures';
import { gitInfo, machineInfo } from './machine';
import { BenchUsageError, USAGE, parseBenchArguments, type BenchOptions } from './options';
import { measurePlan, planApiFigure, planFigure, planTenant, type PlanMeasurement } from './plan-refresh';
import { RESULTS_FORMAT_VERSION, formatLegend, formatTable, summarize, writeResults, type BenchResults } from './report';
import { BenchSession, type Progress } from './session';
import { measureStartup, startupFigures } from './startup';
import { measureSynth, synthFigure } from './synth';
import { BenchCommandError, secondsSince } from './timing';
import { applyTenant, measureSetApply, measureWholeListApply, setFigure, wholeListApiFigure, wholeListFigure, type SetMeasurement } from './whole-list-apply';

/**
 * Runs one part; a command that failed (BenchCommandError) becomes a not-measured figure for
 * each id the part would have produced, and the run goes on with the next part.
 */
async function part(outcomes: FigureOutcome[], titles: ReadonlyArray<{ id: string; title: string }>, measure: () => Promise<Figure[]>, progress: Progress): Promise<void> {
  try {
    outcomes.push(...(await measure()));
  } catch (error) {
    if (!(error instanceof BenchCommandError)) throw error;
    progress(`NOT MEASURED (${titles.map((title) => title.id).join(', ')}): ${error.message}`);
    outcomes.push(...titles.map((title) => ({ ...title, error: error.message })));
  }
}

export async function runBench(options: BenchOptions, progress: Progress): Promise<BenchResults> {
  const started = process.hrtime.bigint();
  const date = new Date().toISOString();
  const machine = machineInfo();
  const git = gitInfo();
  const warmUp = !options.quick;
  const applyTenants = Array.from({ length: options.runs + 1 }, (_, run) => applyTenant(run));
  const session = await BenchSession.start({ tenants: [...options.planSizes.map(planTenant), ...applyTenants], progress });
  const stopOnSignal = () => {
    progress('interrupted: stopping the emulator and removing temporary files');
    void session.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  const outcomes: FigureOutcome[] = [];
  try {
    progress(`start-up: ${options.startupRuns} runs`);
    const startupIds = [
      { id: 'startup-tls', title: 'provider start-up (mutual TLS)' },
      { id: 'startup-tls-release-node', title: 'provider start-up vs its own Node' },
      { id: 'startup-floor', title: 'bare HTTP/2 server start-up (the floor)' },
      { id: 'startup-plaintext', title: 'provider start-up (TF_DISABLE_PLUGIN_TLS)' },
      { id: 'startup-script-tls', title: 'dev-build node script start-up (mutual TLS)' },
    ];
    await part(outcomes, startupIds, async () => startupFigures(await measureStartup(session, options.startupRuns, warmUp), session.build.bundleBytes), progress);

    await part(outcomes, [{ id: 'synth', title: 'cdktf synth of the app' }], async () => [synthFigure(await measureSynth(session, options.runs, warmUp))], progress);

    const plans: PlanMeasurement[] = [];
    for (const count of options.planSizes) {
      const ids = [
        { id: `plan-refresh-${count}`, title: `plan (refresh), N = ${count}` },
        { id: `plan-api-calls-${count}`, title: `API calls of that plan, N = ${count}` },
      ];
      await part(
        outcomes,
        ids,
        async () => {
          const measured = await measurePlan(session, count, options.runs, warmUp);
          plans.push(measured);
          return [planFigure(measured), planApiFigure(measured, plans[0])];
        },
        progress,
      );
    }

    // Measured first (its figure explains the apply's baseline) but listed after the apply.
    let set: SetMeasurement | undefined;
    const setOutcomes: FigureOutcome[] = [];
    await part(
      setOutcomes,
      [{ id: `apply-set-${options.setEntries}`, title: 'apply terraform_data set vs map' }],
      async () => {
        progress(`apply terraform_data with ${options.setEntries} elements as a set and as a map`);
        set = await measureSetApply(session, options.setEntries, options.runs);
        return [setFigure(set)];
      },
      progress,
    );
    await part(
      outcomes,
      [
        { id: `apply-whole-list-${options.applyEntries}`, title: `apply svc_blacklist, ${options.applyEntries} entries` },
        { id: `apply-api-calls-${options.applyEntries}`, title: `API calls of that apply` },
      ],
      async () => {
        const measured = await measureWholeListApply(session, options.applyEntries, options.runs, warmUp);
        return [wholeListFigure(measured, set), wholeListApiFigure(measured)];
      },
      progress,
    );
    outcomes.push(...setOutcomes);
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
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
      applyEntries: options.applyEntries,
      setEntries: options.setEntries,
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
  const progress: Progress = (line) => process.stderr.write(`bench: ${line}\n`);
  const options = command.options;
  progress(`${options.quick ? 'quick smoke run' : 'full run'}: ${options.runs} run(s) per figure, plan N = ${options.planSizes.join(', ')}, apply ${options.applyEntries} entries`);
  const results = await runBench(options, progress);
  writeResults(options.outFile, results);
  progress(`done in ${results.durationSeconds} s; wrote ${options.outFile}`);
  process.stdout.write(`${formatTable(results)}\n\n${formatLegend(results)}\n`);
  return results.figures.some(isFailed) ? 1 : 0;
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
