/**
 * `npm run drift`: `svc drift` (src/pipeline/svc/drift-command.ts) on this repository's cdktf app.
 * The steps around it are what this repository's dev build needs, and only those: synthesize
 * main.ts into <dir> (unless --no-synth), build the provider when missing or stale, then
 * `svc drift <dir> --mirror <build>/mirror` (the build linked into each stack that uses svc) with
 * TF_CLI_CONFIG_FILE=<build>/terraform.rc unless the user set their own. The check itself, its
 * report and its exit codes (0 clean, 2 drift, 1 error; pending changes apart) are svc drift's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redact } from '../src/api/redaction';
import { synthesizeApp } from '../main';
import { DEFAULT_CONFIG_FILE } from '../app/config';
import { main as svc, type SvcIo } from '../src/pipeline/svc-cli';
import { stackSvcRequirement, synthesizedStacks, terraformCliConfig } from '../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from './build-provider';

const USAGE = `Usage: npm run drift -- [--no-synth] [--output <dir>] [svc drift options]

\`svc drift\` on this repository's app. First it synthesizes the app (main.ts, configured by
SVC_CONFIG, default ${DEFAULT_CONFIG_FILE}) into <dir> and builds the svc provider when it is
missing or older than src/ (dist/, or SVC_PROVIDER_BUILD_DIR); then it runs
  svc drift <dir> --mirror <build>/mirror [svc drift options]
which links the build into each stack that uses svc (terraform.d/plugins and its lock entry),
with TF_CLI_CONFIG_FILE=<build>/terraform.rc unless you set your own (kept; a note says which
filesystem_mirror block to add when its provider_installation block hides the build).

Options of npm run drift:
  --no-synth          use the app already synthesized in <dir> (e.g. by npm run synth)
  --output <dir>      the synthesized app (default cdktf.out, as cdktf)
  --help, -h          show this help and svc drift's
The rest go to svc drift, e.g. --stack security-policy (repeat for more), --skip-unreachable,
--fail-on-pending, --format json|markdown.

Exit status (svc drift's): 0 no drift (pending changes included, unless --fail-on-pending);
2 drift; 1 a stack could not be planned (or every stack was skipped), or a bad argument.`;

export interface NpmDriftArguments {
  readonly help: boolean;
  readonly synth: boolean;
  readonly output: string;
  /** For svc drift. */
  readonly forwarded: string[];
}

export class NpmDriftUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NpmDriftUsageError';
  }
}

/** npm run drift's own options; the rest are svc drift's, which checks them. */
export function parseNpmDriftArguments(argv: readonly string[]): NpmDriftArguments {
  let synth = true;
  let output = 'cdktf.out';
  const forwarded: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--help' || argument === '-h') return { help: true, synth, output, forwarded };
    if (argument === '--no-synth') synth = false;
    else if (argument === '--output' || argument === '--outdir') {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('-')) throw new NpmDriftUsageError(`${argument} needs a directory, e.g. ${argument} cdktf.out`);
      output = next;
      index += 1;
    } else if (argument.startsWith('--output=') || argument.startsWith('--outdir=')) {
      output = argument.slice(argument.indexOf('=') + 1);
      if (output === '') throw new NpmDriftUsageError(`${argument} needs a directory, e.g. --output=cdktf.out`);
    } else if (argument === '--mirror' || argument.startsWith('--mirror=') || argument === '--link-mirror') {
      throw new NpmDriftUsageError(`${argument.split('=')[0]} is npm run drift's to set (the provider build); run svc drift yourself to link another mirror`);
    } else if (!argument.startsWith('-')) {
      throw new NpmDriftUsageError(`"${argument}": npm run drift checks the app's stacks; name one with --stack ${argument}`);
    } else {
      forwarded.push(argument);
      // An option's value travels with it (svc drift says which options take one).
      const next = argv[index + 1];
      if (!argument.includes('=') && ['--stack', '--format'].includes(argument) && next !== undefined) {
        forwarded.push(next);
        index += 1;
      }
    }
  }
  return { help: false, synth, output, forwarded };
}

export interface NpmDriftOptions {
  /** The provider build (default providerBuildDir(): dist/, or SVC_PROVIDER_BUILD_DIR). */
  readonly buildDir?: string;
}

export async function main(argv: readonly string[], io: SvcIo = process, options: NpmDriftOptions = {}): Promise<number> {
  const env = io.env ?? process.env;
  const cwd = io.workingDirectory ?? process.cwd();
  const progress = (line: string) => io.stderr.write(`${redact(line)}\n`);
  let parsed: NpmDriftArguments;
  try {
    parsed = parseNpmDriftArguments(argv);
  } catch (error) {
    if (!(error instanceof NpmDriftUsageError)) throw error;
    progress(`npm run drift: ${error.message}`);
    return 1;
  }
  if (parsed.help) {
    io.stdout.write(`${USAGE}\n\n`);
    return svc(['drift', '--help'], io);
  }
  const outdir = path.resolve(cwd, parsed.output);
  if (parsed.synth) {
    const configFile = env.SVC_CONFIG ?? DEFAULT_CONFIG_FILE;
    progress(`npm run drift: synthesizing the app from ${configFile} into ${outdir}`);
    synthesizeApp(outdir, configFile);
  }
  if (!fs.existsSync(path.join(outdir, 'manifest.json'))) {
    progress(`npm run drift: ${path.join(outdir, 'manifest.json')} does not exist; synthesize first (npm run synth, or leave --no-synth out)`);
    return 1;
  }
  // AWS-only apps never build the provider: it is built (and linked) only for stacks that use svc.
  if (!synthesizedStacks(outdir).some((stack) => stackSvcRequirement(stack.file) !== null)) return svc(['drift', outdir, ...parsed.forwarded], { ...io, env, workingDirectory: cwd });
  const mirror = ensureProviderBuilt({ log: progress, ...(options.buildDir === undefined ? {} : { buildDir: options.buildDir }) });
  const cliConfig = terraformCliConfig(mirror, env);
  if (cliConfig.note !== undefined) progress(cliConfig.note);
  const driftEnv = { ...env, ...(cliConfig.file === undefined ? {} : { TF_CLI_CONFIG_FILE: cliConfig.file }) };
  return svc(['drift', outdir, '--mirror', mirror.mirrorDir, ...parsed.forwarded], { ...io, env: driftEnv, workingDirectory: cwd });
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`npm run drift failed: ${redact(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = 1;
    },
  );
}
