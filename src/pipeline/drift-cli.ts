/**
 * `svc-drift`: the drift check for any cdktf app that is already synthesized (by `cdktf synth`
 * or the team's own program), for a team's pipeline. Unlike this repository's `npm run drift`
 * (scripts/drift-check.ts) it never synthesizes and never builds the provider: svc stacks get
 * the provider packaged with the library, or the filesystem mirror named with --mirror.
 * The checking itself is runDriftCheck (drift-check.ts).
 */
import * as path from 'node:path';
import { redact } from '../api/redaction';
import { DriftCheckError, runDriftCheck } from './drift-check';
import { ProviderMirrorError, filesystemMirror, packagedMirrorDir } from './provider-mirror';

export const USAGE = `Usage: svc-drift [--outdir <dir>] [--mirror <dir>] [--skip-unreachable] [stack...]

Checks a synthesized cdktf app for drift (run \`cdktf synth\` first). For each stack (default:
every stack in <dir>/manifest.json) it runs, in <dir>/stacks/<stack>:
  terraform init -input=false
  terraform plan -detailed-exitcode -input=false -lock=false -out=<temporary file>
  terraform show -json <that file>
and prints what changed outside terraform and what the plan would do, and for svc entries and
SSO settings changed outside terraform who did it and when, from the tenant's audit log.
Sensitive values are never printed. Terraform gets this shell's environment (SVC_API_KEY or
TF_VAR_api_key, AWS credentials, TF_CLI_CONFIG_FILE); CHECKPOINT_DISABLE=1 is set for it.
Stacks that use the svc provider install it from the provider packaged with svc-prevent, or
from --mirror.

Options:
  --outdir <dir>      the synthesized app (default cdktf.out, as cdktf); also --output
  --stack <name>      check this stack only; the same as naming it after the options
  --mirror <dir>      a filesystem mirror of svc-prevent/svc your team keeps (terraform's
                      unpacked layout) instead of the provider packaged with svc-prevent
  --skip-unreachable  a stack that cannot be reached (registry unreachable in terraform init,
                      no AWS credentials, no connection to the endpoint) is reported as
                      skipped and does not fail the check; a refused key, a configuration
                      error or an invalid value still fails it
  --help, -h          show this help

Exit status: 0 no drift and nothing to change; 2 drift or pending changes in at least one
stack; 1 a stack could not be planned (or every stack was skipped), or a usage error.`;

export interface DriftCliOptions {
  readonly help: boolean;
  readonly outdir: string;
  readonly stacks: readonly string[];
  readonly mirrorDir?: string;
  readonly skipUnreachable: boolean;
}

export function parseDriftCliArguments(argv: readonly string[]): DriftCliOptions {
  let outdir = 'cdktf.out';
  let mirrorDir: string | undefined;
  let skipUnreachable = false;
  const stacks: string[] = [];
  const value = (flag: string, next: string | undefined, example: string): string => {
    if (next === undefined || next.startsWith('--') || next === '') throw new DriftCheckError(`${flag} needs a value, e.g. ${flag} ${example}`);
    return next;
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
    const take = (example: string): string => {
      if (inline !== undefined) return value(flag, inline, example);
      index += 1;
      return value(flag, argv[index], example);
    };
    if (flag === '--help' || flag === '-h') return { help: true, outdir, stacks, skipUnreachable };
    else if (flag === '--outdir' || flag === '--output') outdir = take('cdktf.out');
    else if (flag === '--mirror') mirrorDir = take('/opt/svc-provider/mirror');
    else if (flag === '--stack') stacks.push(take('security-policy'));
    else if (flag === '--skip-unreachable' && inline === undefined) skipUnreachable = true;
    else if (flag.startsWith('-')) throw new DriftCheckError(`unknown option "${argument}"; run svc-drift --help for the options`);
    else stacks.push(argument);
  }
  return { help: false, outdir, stacks, skipUnreachable, ...(mirrorDir === undefined ? {} : { mirrorDir }) };
}

export interface DriftCliStreams {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

export async function main(argv: readonly string[], streams: DriftCliStreams = process): Promise<number> {
  let options: DriftCliOptions;
  try {
    options = parseDriftCliArguments(argv);
  } catch (error) {
    if (!(error instanceof DriftCheckError)) throw error;
    streams.stderr.write(`svc-drift: ${redact(error.message)}\n`);
    return 1;
  }
  if (options.help) {
    streams.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Everything printed may quote terraform's messages or settings: credentials never reach CI logs.
  const log = (line: string) => streams.stdout.write(`${redact(line)}\n`);
  const note = (line: string) => streams.stderr.write(`${redact(line)}\n`);
  try {
    const result = await runDriftCheck({
      outdir: path.resolve(options.outdir),
      stacks: options.stacks,
      skipUnreachable: options.skipUnreachable,
      mirror: () => filesystemMirror(options.mirrorDir ?? packagedMirrorDir()),
      log,
      note,
    });
    return result.exitCode;
  } catch (error) {
    if (!(error instanceof DriftCheckError || error instanceof ProviderMirrorError)) throw error;
    streams.stderr.write(`svc-drift: ${redact(error.message)}\n`);
    return 1;
  }
}
