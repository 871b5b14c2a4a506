/**
 * `npm run synth|diff|deploy|destroy -- [stack] [cdktf flags]`: the cdktf CLI with terraform
 * pointed at the svc provider's build, so nobody writes a CLI config by hand. It builds the
 * provider when missing or stale (dist/, or SVC_PROVIDER_BUILD_DIR), sets
 * TF_CLI_CONFIG_FILE=<build>/terraform.rc unless the user set their own (kept, with a note when
 * its provider_installation block hides the svc mirror), CHECKPOINT_DISABLE=1 and
 * CDKTF_DISABLE_PLUGIN_CACHE_ENV=1 (no cache shared between checkouts), and passes
 * --skip-provider-lock to commands that run `terraform init` (cdktf would otherwise run
 * `terraform providers lock`, which asks the public registry for svc-prevent/svc).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CDKTF_CLI } from '../src/pipeline/cdktf-project';
import { ensureProviderBuilt, prepareSynthesizedStacks, terraformCliConfig, type ProviderMirror } from '../src/pipeline/provider-mirror';

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
building the provider first when it is missing or older than src/ (<build> is dist/, or
SVC_PROVIDER_BUILD_DIR). The app reads SVC_CONFIG (default svc.config.json).

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

export function cdktfArguments(command: string, rest: readonly string[]): string[] {
  return [command, ...(TERRAFORM_COMMANDS.includes(command) && !rest.includes('--skip-provider-lock') ? ['--skip-provider-lock'] : []), ...rest];
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
    env: { ...env, CHECKPOINT_DISABLE: '1', CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1', ...(cliConfig.file === undefined ? {} : { TF_CLI_CONFIG_FILE: cliConfig.file }), SVC_PROVIDER_BUILD_DIR: mirror.buildDir },
    ...(cliConfig.note === undefined ? {} : { note: cliConfig.note }),
  };
}

/** `npm run deploy -- --help` (or -h anywhere after the command). */
export function asksForHelp(rest: readonly string[]): boolean {
  return rest.includes('--help') || rest.includes('-h');
}

function main(argv: readonly string[]): void {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || !COMMANDS.includes(command)) {
    const known = command === undefined || command === '--help' || command === '-h';
    (known ? process.stdout : process.stderr).write(`${known ? '' : `cdktf-command: unknown command "${command}"; expected one of ${COMMANDS.join(', ')}\n\n`}${USAGE}\n`);
    process.exitCode = known ? 0 : 2;
    return;
  }
  if (asksForHelp(rest)) {
    // Help only: say what this wrapper adds, then cdktf's own flags; no provider build, no changes.
    process.stdout.write(`${USAGE}\n\n\`cdktf ${command} --help\`:\n`);
    spawn(process.execPath, [CDKTF_CLI, command, '--help'], { stdio: 'inherit', env: { ...process.env, CHECKPOINT_DISABLE: '1' } }).once('close', (code) => {
      process.exitCode = code ?? 1;
    });
    return;
  }
  const mirror = ensureProviderBuilt({ log: (line) => process.stderr.write(`${line}\n`) });
  // The app prepares the stacks at synth; with --skip-synth a rebuilt provider still needs its lock entry.
  const outdir = path.resolve(outputDirectory(rest));
  if (fs.existsSync(path.join(outdir, 'manifest.json'))) prepareSynthesizedStacks(outdir, () => mirror);
  const { env, note } = cdktfEnvironment(process.env, mirror);
  if (note !== undefined) process.stderr.write(`${note}\n`);
  const child = spawn(process.execPath, [CDKTF_CLI, ...cdktfArguments(command, rest)], {
    stdio: 'inherit',
    env,
  });
  // Ctrl-C reaches cdktf through the terminal; this process waits for it to finish stopping terraform.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.once('close', (code, signal) => {
    process.off('SIGINT', ignore);
    process.exitCode = code ?? (signal ? 128 : 1);
  });
}

if (require.main === module) main(process.argv.slice(2));
