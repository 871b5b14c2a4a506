/**
 * `npm run drift`: plans every stack of the cdktf app (or the ones named) with
 * `-detailed-exitcode` semantics and prints what drifted. For pipelines: exit 0 clean, 2 drift
 * or pending changes, 1 a stack could not be planned. The logic is src/pipeline/drift-check.ts.
 */
import { redact } from '../src/api/redaction';
import * as path from 'node:path';
import { synthesizeApp } from '../main';
import { DEFAULT_CONFIG_FILE } from '../app/config';
import { DriftCheckError, runDriftCheck } from '../src/pipeline/drift-check';
import { ProviderMirrorError } from '../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from './build-provider';

const USAGE = `Usage: npm run drift -- [--stack <name>]... [--no-synth] [--output <dir>] [--skip-unreachable]

Synthesizes the cdktf app (main.ts, configured by SVC_CONFIG, default ${DEFAULT_CONFIG_FILE}) into
<dir>, then for each stack runs, in <dir>/stacks/<stack>:
  terraform init -input=false
  terraform plan -detailed-exitcode -input=false -lock=false -out=<temporary file>
  terraform show -json <that file>
and prints what changed outside terraform (resource address, how, the attributes) and what the
plan would do, and for svc entries and SSO settings changed outside terraform who did it and
when, from the tenant's audit log (one audit_events call per tenant; "no matching audit event"
when none explains it). Sensitive values are never printed. Terraform gets this shell's environment
(SVC_API_KEY or TF_VAR_api_key, AWS credentials); stacks using the svc provider install it from
its build (dist/, built when missing or stale): through TF_CLI_CONFIG_FILE=<build>/terraform.rc,
or, when TF_CLI_CONFIG_FILE is set, through your file and the mirror link in each stack (a note
says which filesystem_mirror block to add if your file has a provider_installation block).

Options:
  --stack <name>      check this stack only; repeat for more (default: every stack)
  --no-synth          use the app already synthesized in <dir> (e.g. by cdktf synth)
  --output <dir>      the synthesized app (default cdktf.out, as cdktf)
  --skip-unreachable  a stack that cannot be reached is reported as skipped and does not fail
                      the check: the provider registry unreachable in terraform init, no AWS
                      credentials, or no connection to the endpoint (refused, DNS, timeout).
                      A refused key (svc login, AWS 401/403), a configuration error or an
                      invalid value still fails it, exit 1 (default: every failure does)
  --help, -h          show this help

Exit status: 0 no drift and nothing to change; 2 drift or pending changes in at least one
stack; 1 a stack could not be planned (or every stack was skipped), or a usage error.`;

export interface DriftCliArguments {
  readonly help: boolean;
  readonly stacks: string[];
  readonly synth: boolean;
  readonly output: string;
  readonly skipUnreachable: boolean;
}

export function parseDriftArguments(argv: readonly string[]): DriftCliArguments {
  const result: { -readonly [key in keyof DriftCliArguments]: DriftCliArguments[key] } = {
    help: false,
    stacks: [],
    synth: true,
    output: 'cdktf.out',
    skipUnreachable: false,
  };
  const value = (flag: string, index: number): string => {
    const next = argv[index + 1];
    if (next === undefined || next.startsWith('--')) throw new DriftCheckError(`${flag} needs a value, e.g. ${flag === '--stack' ? '--stack security-policy' : '--output cdktf.out'}`);
    return next;
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return { ...result, help: true };
    if (argument === '--stack') {
      result.stacks.push(value(argument, index));
      index += 1;
    } else if (argument.startsWith('--stack=')) {
      result.stacks.push(argument.slice('--stack='.length));
    } else if (argument === '--output') {
      result.output = value(argument, index);
      index += 1;
    } else if (argument.startsWith('--output=')) {
      result.output = argument.slice('--output='.length);
    } else if (argument === '--no-synth') {
      result.synth = false;
    } else if (argument === '--skip-unreachable') {
      result.skipUnreachable = true;
    } else {
      throw new DriftCheckError(`unknown argument "${argument}"; run with --help for the options`);
    }
  }
  if (result.stacks.some((stack) => stack === '')) throw new DriftCheckError('--stack needs a stack name, e.g. --stack security-policy');
  return result;
}

export async function main(argv: readonly string[]): Promise<number> {
  let options: DriftCliArguments;
  try {
    options = parseDriftArguments(argv);
  } catch (error) {
    if (!(error instanceof DriftCheckError)) throw error;
    process.stderr.write(`drift check: ${redact(error.message)}\n`);
    return 1;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const outdir = path.resolve(options.output);
  // Everything this prints may quote terraform's messages or settings: credentials never reach CI logs.
  const log = (line: string) => process.stdout.write(`${redact(line)}\n`);
  const progress = (line: string) => process.stderr.write(`${redact(line)}\n`);
  if (options.synth) {
    const configFile = process.env.SVC_CONFIG ?? DEFAULT_CONFIG_FILE;
    log(`drift check: synthesizing the app from ${configFile} into ${outdir}`);
    synthesizeApp(outdir, configFile);
  }
  try {
    const result = await runDriftCheck({
      outdir,
      stacks: options.stacks,
      skipUnreachable: options.skipUnreachable,
      mirror: () => ensureProviderBuilt({ log: progress }),
      log,
      note: progress,
    });
    return result.exitCode;
  } catch (error) {
    if (!(error instanceof DriftCheckError || error instanceof ProviderMirrorError)) throw error;
    process.stderr.write(`drift check: ${redact(error.message)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`drift check failed: ${redact(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = 1;
    },
  );
}
