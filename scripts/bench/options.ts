/** `npm run bench` command line: what to measure, how often, and where the results go. */
import * as path from 'node:path';

export const REPOSITORY = path.resolve(__dirname, '..', '..');
export const DEFAULT_OUT_FILE = path.join(REPOSITORY, 'bench', 'results', 'latest.json');
export const DEFAULT_RUNS = 5;
/** Start-up is short and noisy: the issue asks for a median of at least 10. */
export const MIN_STARTUP_RUNS = 10;

export interface BenchOptions {
  /** Timed runs per figure (median taken); start-up uses max(runs, 10) unless quick. */
  readonly runs: number;
  /** Small sizes and one run: a smoke run for tests, not figures to quote. */
  readonly quick: boolean;
  /** Adds N = 5,000 to the refresh plans and a peer list of 10,000 addresses. */
  readonly large: boolean;
  readonly outFile: string;
  /** Per-entry resources per refresh plan (applied before). */
  readonly planSizes: readonly number[];
  /** Per-entry resources per create plan (from no state). */
  readonly createSizes: readonly number[];
  /** Entries of the whole list planned against terraform_data holding the same map. */
  readonly wholeListPlanEntries: number;
  /** Addresses of the one list planned by svc_blacklist, the Go peer's aws_wafv2_ip_set and terraform_data. */
  readonly peerListEntries: number;
  /** Entries of the whole-list apply. */
  readonly applyEntries: number;
  /** Elements of the terraform_data set measured beside it (sets are quadratic in terraform 1.11). */
  readonly setEntries: number;
  readonly startupRuns: number;
  /** Plan hashicorp/aws (the Go peer) where it is installed; false skips its rows (--no-go-peer). */
  readonly goPeer: boolean;
  /** An existing `npm run release` output directory to take the released executable from, instead of building it. */
  readonly releaseDir: string | undefined;
}

export type BenchCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'run'; readonly options: BenchOptions }
  /** Only draws the chart of an existing results file (no measuring). */
  | { readonly kind: 'chart'; readonly resultsFile: string; readonly chartFile: string };

/** Where the chart of a results file goes: beside it, `.svg` for `.json`. */
export function chartFileFor(resultsFile: string): string {
  return resultsFile.replace(/(\.json)?$/, '.svg');
}

export class BenchUsageError extends Error {
  readonly code = 'bench_usage';
  constructor(message: string) {
    super(message);
    this.name = 'BenchUsageError';
  }
}

export const USAGE = `Usage: npm run bench [-- options]

Measures the svc provider against baselines run in the same session on this machine and
prints a table (value, baseline, ratio, target, met/not met); every time is the median of
--runs runs. Results go to bench/results/latest.json, a chart of plan time against N to
bench/results/latest.svg. Takes about 10 minutes on 2 cores; progress lines go to stderr,
the table to stdout.

  1. provider start-up to its handshake line (mutual TLS, as terraform starts it): the released
     executable against a bare HTTP/2 server made into an executable of the same Node (the floor)
  2. the cdktf app (cdktf.json's app command, main.ts) vs an empty cdktf app
  3. terraform plan of N per-entry resources, refresh (N = 1, 100, 1,000) and create (N = 1, 100,
     1,000), interleaved: svc as released (the executable built for this machine), svc's dev
     build (the node script), the protocol floor (scripts/bench/floor-provider) with its own two
     attributes and with svc's, terraform_data, and at create hashicorp/aws (Go) where its
     plugin is in /opt/tf-plugins; API calls of the refresh
  4. create plan of one svc_blacklist of 10,000 entries vs terraform_data holding the same map,
     and of one list of 2,000 addresses: svc_blacklist vs aws_wafv2_ip_set vs terraform_data
  5. terraform apply of svc_blacklist with 10,000 entries vs terraform_data with a 10,000-key map
     (and a terraform_data set at 1,000 elements: sets are quadratic in terraform 1.11)

Options:
  --runs <n>     timed runs per figure, at least 1 (default ${DEFAULT_RUNS}; start-up uses at least ${MIN_STARTUP_RUNS})
  --quick        smoke run: every row once at small sizes (N = 1, 3; lists of 200 and 100; the Go
                 peer at N = 1), 1 run, no warm-up; checks the suite works, not figures to quote
  --large        also refresh N = 5,000 and the peer list at 10,000 addresses (adds an hour or more)
  --out <file>   write the JSON there instead of bench/results/latest.json (the chart beside it, .svg)
  --no-go-peer   skip the hashicorp/aws rows (each plan of it starts a 675 MB plugin: about 10 s
                 of CPU even at N = 1)
  --release-dir <dir>  take the released executable for this machine from <dir>, the output of
                 npm run release (its zip, whose version must be package.json's), instead of building it
  --chart-from <file>  measure nothing: draw the chart of that results file beside it (.svg)
  --help, -h     show this help`;

function parseRuns(value: string | undefined): number {
  if (value === undefined || value.startsWith('--')) throw new BenchUsageError('--runs needs a whole number of runs, e.g. --runs 5');
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new BenchUsageError(`--runs must be a whole number of at least 1, got "${value}"`);
  return Number(value);
}

export function parseBenchArguments(argv: readonly string[]): BenchCommand {
  let runs: number | undefined;
  let quick = false;
  let large = false;
  let outFile = DEFAULT_OUT_FILE;
  let chartFrom: string | undefined;
  let goPeer = true;
  let releaseDir: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return { kind: 'help' };
    if (argument === '--quick') quick = true;
    else if (argument === '--large') large = true;
    else if (argument === '--no-go-peer') goPeer = false;
    else if (argument === '--runs' || argument.startsWith('--runs=')) {
      const value = argument === '--runs' ? argv[++index] : argument.slice('--runs='.length);
      runs = parseRuns(value);
    } else if (argument === '--out' || argument.startsWith('--out=')) {
      const value = argument === '--out' ? argv[++index] : argument.slice('--out='.length);
      if (value === undefined || value === '' || value.startsWith('--')) throw new BenchUsageError('--out needs a file name, e.g. --out /tmp/bench.json');
      outFile = path.resolve(value);
    } else if (argument === '--chart-from' || argument.startsWith('--chart-from=')) {
      const value = argument === '--chart-from' ? argv[++index] : argument.slice('--chart-from='.length);
      if (value === undefined || value === '' || value.startsWith('--')) throw new BenchUsageError('--chart-from needs a results file, e.g. --chart-from bench/results/latest.json');
      chartFrom = path.resolve(value);
    } else if (argument === '--release-dir' || argument.startsWith('--release-dir=')) {
      const value = argument === '--release-dir' ? argv[++index] : argument.slice('--release-dir='.length);
      if (value === undefined || value === '' || value.startsWith('--')) throw new BenchUsageError('--release-dir needs the directory npm run release wrote, e.g. --release-dir release');
      releaseDir = path.resolve(value);
    } else {
      throw new BenchUsageError(`unknown argument "${argument}"; run with --help for the options`);
    }
  }
  if (chartFrom !== undefined) return { kind: 'chart', resultsFile: chartFrom, chartFile: chartFileFor(chartFrom) };
  const timedRuns = runs ?? (quick ? 1 : DEFAULT_RUNS);
  // N = 1: the plan of one entry, where the fixed cost of a plan is all of it. Quick: N = 3 is
  // the smallest N with an entry on every list (the API-call rows compare it with N = 1).
  const planSizes = quick ? [1, 3] : [1, 100, 1000];
  return {
    kind: 'run',
    options: {
      runs: timedRuns,
      quick,
      large,
      outFile,
      planSizes: large ? [...planSizes, quick ? 100 : 5000] : planSizes,
      createSizes: quick ? [1, 3] : [1, 100, 1000],
      wholeListPlanEntries: quick ? 200 : 10_000,
      peerListEntries: quick ? 100 : large ? 10_000 : 2000,
      applyEntries: quick ? 200 : 10_000,
      setEntries: quick ? 50 : 1000,
      startupRuns: quick ? timedRuns : Math.max(timedRuns, MIN_STARTUP_RUNS),
      goPeer,
      releaseDir,
    },
  };
}
