/**
 * `npm run synth|diff|deploy|destroy -- [stack] [cdktf flags]`: the cdktf CLI with terraform
 * pointed at the svc provider's build, so nobody writes a CLI config by hand. The app (main.ts)
 * only synthesizes; the steps around it are explicit here, in this order:
 *
 *   1. build the provider when missing or stale (dist/, or SVC_PROVIDER_BUILD_DIR)
 *   2. `cdktf synth` (the app, nothing else)
 *   3. prepare the synthesized stacks that use svc: implied mirror link and lock entry
 *      (src/pipeline/provider-mirror.ts)
 *   4. for diff, deploy, destroy: `cdktf <command> --skip-synth --skip-provider-lock`
 *      (cdktf would otherwise synthesize again, unprepared, and run `terraform providers lock`,
 *      which asks the public registry for svc-prevent/svc)
 *
 * with TF_CLI_CONFIG_FILE=<build>/terraform.rc unless the user set their own (kept, with a note
 * when its provider_installation block hides the svc mirror), CHECKPOINT_DISABLE=1 and
 * CDKTF_DISABLE_PLUGIN_CACHE_ENV=1 (no cache shared between checkouts).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CDKTF_CLI } from '../src/pipeline/cdktf-project';
import { STACKS_PREPARED_AFTER_SYNTH_ENV, prepareSynthesizedStacks, terraformCliConfig, type ProviderMirror } from '../src/pipeline/provider-mirror';
import { isUserError } from '../app/user-errors';
import { ensureProviderBuilt } from './build-provider';

/** Commands that run terraform init in the stack directories. */
const TERRAFORM_COMMANDS = ['diff', 'deploy', 'destroy'];
const COMMANDS = ['synth', ...TERRAFORM_COMMANDS];

const USAGE = `Usage: npm run <synth|diff|deploy|destroy> -- [stacks...] [cdktf flags]

Runs \`cdktf <command>\` (cdktf-cli of this repository) with:
  TF_CLI_CONFIG_FILE=<build>/terraform.rc   svc-prevent/svc from the provider's mirror, the rest direct;
                                           only when TF_CLI_CONFIG_FILE is not set: yours is kept
                                           (terraform finds svc through the mirror link in each
                                           stack; if your file has a provider_installation block,
                                           a note says which filesystem_mirror block to add)
  CHECKPOINT_DISABLE=1                     no version checks or telemetry
  CDKTF_DISABLE_PLUGIN_CACHE_ENV=1         no shared ~/.terraform.d/plugin-cache (a cache of yours
                                           in TF_PLUGIN_CACHE_DIR is kept)
  --skip-provider-lock                     (diff, deploy, destroy) no \`terraform providers lock\`
in these steps: build the provider when it is missing or older than src/ (<build> is dist/, or
SVC_PROVIDER_BUILD_DIR); \`cdktf synth\` (the app only writes the stacks); link each stack that
uses svc to the build's mirror and set its lock entry; then, for diff, deploy and destroy,
\`cdktf <command> --skip-synth\`. The app reads SVC_CONFIG (default svc.config.json).
A bare \`npx cdktf synth\` writes the stacks alone: terraform cannot install svc-prevent/svc
in them until this script (or the drift check) prepares them.

Examples:
  npm run synth
  npm run diff -- security-policy
  SVC_API_KEY=... npm run deploy -- security-policy
  npm run destroy -- security-policy --auto-approve
Flags after the stack names go to cdktf (npx cdktf deploy --help lists them).`;

/** cdktf's --output / -o (default cdktf.out, as cdktf.json here does not set one). */
export function outputDirectory(rest: readonly string[]): string {
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index];
    if ((argument === '--output' || argument === '-o') && rest[index + 1] !== undefined) return rest[index + 1];
    if (argument.startsWith('--output=')) return argument.slice('--output='.length);
  }
  return 'cdktf.out';
}

/** The arguments of step 4: the stacks are synthesized and prepared already, and svc is in no registry. */
export function cdktfArguments(command: string, rest: readonly string[]): string[] {
  if (!TERRAFORM_COMMANDS.includes(command)) return [command, ...rest];
  const added = ['--skip-synth', '--skip-provider-lock'].filter((flag) => !rest.includes(flag));
  return [command, ...added, ...rest];
}

/** The arguments of step 2 before diff, deploy or destroy: their --app and --output, not their stacks or other flags. */
export function synthArguments(rest: readonly string[]): string[] {
  const kept: string[] = ['synth'];
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index]!;
    if (['--output', '-o', '--app', '-a'].includes(argument) && rest[index + 1] !== undefined) {
      kept.push(argument, rest[index + 1]!);
      index += 1;
    } else if (argument.startsWith('--output=') || argument.startsWith('--app=')) {
      kept.push(argument);
    }
  }
  return kept;
}

/**
 * The environment cdktf runs with. The user's own TF_CLI_CONFIG_FILE (credentials helpers,
 * network mirrors, plugin cache) is kept; the note, for stderr, says how to add the svc mirror
 * when that file's provider_installation block hides it.
 */
export function cdktfEnvironment(env: NodeJS.ProcessEnv, mirror: ProviderMirror): { env: NodeJS.ProcessEnv; note?: string } {
  const cliConfig = terraformCliConfig(mirror, env);
  return {
    // CDKTF_DISABLE_PLUGIN_CACHE_ENV: cdktf would otherwise point terraform at ~/.terraform.d/plugin-cache,
    // shared by every checkout, and a stack could run another checkout's provider build.
    env: {
      ...env,
      CHECKPOINT_DISABLE: '1',
      CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
      ...(cliConfig.file === undefined ? {} : { TF_CLI_CONFIG_FILE: cliConfig.file }),
      SVC_PROVIDER_BUILD_DIR: mirror.buildDir,
      // Step 3 follows the synth: the app need not tell the user to prepare the stacks.
      [STACKS_PREPARED_AFTER_SYNTH_ENV]: '1',
    },
    ...(cliConfig.note === undefined ? {} : { note: cliConfig.note }),
  };
}

/** `npm run deploy -- --help` (or -h anywhere after the command). */
export function asksForHelp(rest: readonly string[]): boolean {
  return rest.includes('--help') || rest.includes('-h');
}

/** Runs the cdktf CLI to its end; Ctrl-C reaches cdktf through the terminal, and this process waits for it to stop terraform. */
function runCdktfCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, [CDKTF_CLI, ...args], { stdio: 'inherit', env });
  const ignore = () => undefined;
  const terminate = () => child.kill('SIGTERM');
  process.on('SIGINT', ignore);
  process.on('SIGTERM', terminate);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', terminate);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || !COMMANDS.includes(command)) {
    const known = command === undefined || command === '--help' || command === '-h';
    (known ? process.stdout : process.stderr).write(`${known ? '' : `cdktf-command: unknown command "${command}"; expected one of ${COMMANDS.join(', ')}\n\n`}${USAGE}\n`);
    return known ? 0 : 2;
  }
  if (asksForHelp(rest)) {
    // Help only: say what this wrapper adds, then cdktf's own flags; no provider build, no changes.
    process.stdout.write(`${USAGE}\n\n\`cdktf ${command} --help\`:\n`);
    return runCdktfCli([command, '--help'], { ...process.env, CHECKPOINT_DISABLE: '1' });
  }
  const mirror = ensureProviderBuilt({ log: (line) => process.stderr.write(`${line}\n`) });
  const { env, note } = cdktfEnvironment(process.env, mirror);
  if (note !== undefined) process.stderr.write(`${note}\n`);
  const outdir = path.resolve(outputDirectory(rest));
  if (command === 'synth' || !rest.includes('--skip-synth')) {
    const synthesized = await runCdktfCli(command === 'synth' ? [command, ...rest] : synthArguments(rest), env);
    if (synthesized !== 0) return synthesized;
  }
  // After --skip-synth too: a rebuilt provider needs its new lock entry.
  if (fs.existsSync(path.join(outdir, 'manifest.json'))) prepareSynthesizedStacks(outdir, () => mirror);
  if (command === 'synth') return 0;
  return runCdktfCli(cdktfArguments(command, rest), env);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A build that cannot be made, a stack that cannot be prepared: the message says what to do.
      if (!isUserError(error)) throw error;
      process.stderr.write(`cdktf-command: ${error.message}\n`);
      process.exitCode = 1;
    },
  );
}
