/**
 * `npm run demo`, the README's main command, offline: the security policy of the shipped
 * svc.config.json goes through the real cdktf CLI and terraform into the management-API
 * emulator, drifts out of band, is repaired and destroyed; the control-plane stack is
 * synthesized and summarised (it needs AWS to deploy). Everything runs in a temporary cdktf
 * project (its own cdktf.out and state), so the user's cdktf.out and state files are untouched.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LIST_NAMES } from '../src/api/types';
import { ManagementClient } from '../src/api/client';
import { CdktfCommandError, createCdktfProject, isolatedEnvironment, runCdktf } from '../src/pipeline/cdktf-project';
import { parseAppConfig } from '../app/config';
import { main as npmRunDrift } from './drift-check';
import { STACKS_PREPARED_AFTER_SYNTH_ENV, prepareSynthesizedStacks, type ProviderMirror } from '../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from './build-provider';
import { startEmulatorProcess, type EmulatorProcess } from '../src/emulator/child-process';
import { requireTerraform } from '../src/pipeline/terraform-cli';
import { detail, step } from './demo-output';

const REPOSITORY = path.resolve(__dirname, '..');
const SHIPPED_CONFIG = path.join(REPOSITORY, 'svc.config.json');
const STACK = 'security-policy';

const USAGE = `Usage: npm run demo [-- --keep] [-- --help]

Offline, on this machine only:
  1. builds the svc Terraform provider into dist/ when it is missing or older than its sources
  2. starts svc-emulator (the management API) on a free port of 127.0.0.1
  3. writes a demo configuration (the shipped svc.config.json, its securityPolicy pointed at the
     emulator) and a scratch cdktf project in a temporary directory
  4. deploys the security-policy stack through cdktf as npm run deploy does: cdktf synth, the
     stack linked to the provider's build and locked, then cdktf deploy security-policy
     --auto-approve --skip-synth (entries in all three lists, a whole-list whitelist, tenant and
     channel SSO)
  5. shows what the API holds and its audit log
  6. changes the policy out of band through the API (removes an entry, flips channel SSO)
  7. runs the drift check (npm run drift): plan -detailed-exitcode reports the drift, exit 2
  8. repairs it with cdktf deploy, checks again (exit 0), and destroys the stack (both on the
     stacks step 4 synthesized: the configuration has not changed)
  9. summarises the control-plane stack the same cdktf run synthesized (deploying it needs AWS)
The API key travels as TF_VAR_api_key and is never printed. Your cdktf.out and state files
are not touched; the scratch project is removed at the end, and on Ctrl-C (exit 130).

Options:
  --keep      keep the scratch project (cdktf.out, state) and print where it is
  --help, -h  show this help`;

/** cdktf's output lines worth showing: what terraform did to each resource and its summary. */
const CDKTF_LINES_SHOWN = /(Creation|Modifications|Destruction) complete|Apply complete!|Destroy complete!|^\s*Plan: |No changes\./;

class DemoError extends Error {}

interface DemoContext {
  readonly mirror: ProviderMirror;
  readonly projectDir: string;
  readonly outdir: string;
  /** What cdktf and terraform run with: no inherited TF_*, SVC_* or CDKTF_* settings. */
  readonly env: NodeJS.ProcessEnv;
  readonly client: ManagementClient;
  readonly emulator: EmulatorProcess;
  readonly tenant: string;
}

/**
 * `cdktf deploy|destroy <stack>` as npm run deploy|destroy runs it: synth (the app only writes
 * the stacks), link the stack to the provider's build and lock it, then the command itself with
 * --skip-synth and --skip-provider-lock (svc-prevent/svc is in no registry).
 */
async function cdktfOnPreparedStack(context: DemoContext, command: 'deploy' | 'destroy'): Promise<void> {
  await cdktf(context, ['synth']);
  const prepared = prepareSynthesizedStacks(context.outdir, () => context.mirror);
  detail(`prepared ${prepared.join(', ')} for terraform: terraform.d/plugins -> ${context.mirror.mirrorDir}, lock entry ${context.mirror.hash}`);
  await cdktfOnSynthesizedStack(context, command);
}

/**
 * The command alone, on the stack an earlier cdktfOnPreparedStack synthesized and prepared: the
 * repair and the clean-up deploy the same configuration, so a second synth would only write the
 * same files again (a start of the cdktf CLI and of the app each).
 */
async function cdktfOnSynthesizedStack(context: DemoContext, command: 'deploy' | 'destroy'): Promise<void> {
  await cdktf(context, [command, STACK, '--auto-approve', '--skip-synth', '--skip-provider-lock']);
}

async function cdktf(context: DemoContext, args: readonly string[]): Promise<void> {
  detail(`$ cdktf ${args.join(' ')}`);
  const result = await runCdktf([...args, '--no-color'], {
    cwd: context.projectDir,
    env: context.env,
    onLine: (line) => {
      if (!CDKTF_LINES_SHOWN.test(line)) return;
      // cdktf prefixes some lines with the stack name and names each resource's construct path.
      const short = line.trim().replace(new RegExp(`^${STACK}\\s+`), '').replace(/ \([^()\s]+\/[^()\s]+\)(?=: )/, '');
      detail(`  ${short}`);
    },
  });
  if (result.code !== 0) throw new CdktfCommandError(result);
}

async function showPolicy(context: DemoContext): Promise<void> {
  for (const list of LIST_NAMES) {
    const entries = await context.client.listEntries(list);
    detail(`${list}: ${entries.map((entry) => entry.ip).join(', ') || '(empty)'}`);
  }
  const tenant = (await context.client.listCustomers()).find((customer) => customer.name === context.tenant);
  const channels = await context.client.listChannels();
  detail(`tenant ${context.tenant} sso: ${JSON.stringify(tenant?.sso ?? null)}`);
  for (const channel of channels) detail(`channel ${channel.name} sso: ${JSON.stringify(channel.sso)}`);
}

async function driftCheck(context: DemoContext, expected: 0 | 2): Promise<void> {
  detail(`$ npm run drift -- --no-synth --output ${context.outdir} --stack ${STACK}`);
  // npm run drift's own code (svc drift after the build step), its lines indented as the demo's.
  const show = (text: string) => text.split('\n').filter((line) => line !== '').forEach((line) => detail(`  ${line}`));
  const code = await npmRunDrift(['--no-synth', '--output', context.outdir, '--stack', STACK], {
    stdout: { write: show },
    stderr: { write: show },
    env: context.env,
    workingDirectory: context.projectDir,
  }, { buildDir: context.mirror.buildDir });
  if (code !== expected) throw new DemoError(`the drift check exited ${code}, expected ${expected} (its output is above)`);
}

/** The tenant of the shipped security policy (checked like the app checks it), to seed the emulator with. */
function shippedTenant(): string {
  const parsed = parseAppConfig(SHIPPED_CONFIG, JSON.parse(fs.readFileSync(SHIPPED_CONFIG, 'utf8')));
  if (parsed.securityPolicy === undefined) throw new DemoError(`${SHIPPED_CONFIG} has no securityPolicy section; the demo deploys it`);
  if (parsed.securityPolicy.tenant === undefined) throw new DemoError(`${SHIPPED_CONFIG}: securityPolicy.tenant is not set; the demo seeds the emulator with it`);
  return parsed.securityPolicy.tenant;
}

/** The shipped configuration with securityPolicy.baseUrl set to the emulator and entry files made absolute. */
function writeDemoConfig(file: string, emulatorUrl: string): void {
  const raw = JSON.parse(fs.readFileSync(SHIPPED_CONFIG, 'utf8')) as Record<string, any>;
  const policy = raw.securityPolicy as Record<string, any>;
  for (const list of LIST_NAMES) {
    if (Array.isArray(policy[list]?.files)) policy[list].files = policy[list].files.map((entryFile: string) => path.resolve(REPOSITORY, entryFile));
  }
  policy.baseUrl = emulatorUrl;
  fs.writeFileSync(file, `${JSON.stringify(raw, null, 2)}\n`);
}

/** The stack's outputs (the channel's SAML service-provider URLs, for an identity provider), from its state. */
function showOutputs(stateFile: string): void {
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { outputs?: Record<string, { value: unknown; sensitive?: boolean }> };
  for (const [name, output] of Object.entries(state.outputs ?? {})) {
    detail(`output ${name} = ${output.sensitive ? '(sensitive)' : JSON.stringify(output.value)}`);
  }
}

function summariseStack(file: string): void {
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { resource?: Record<string, object>; data?: Record<string, object> };
  const count = (blocks: Record<string, object> | undefined) =>
    Object.entries(blocks ?? {})
      .map(([type, instances]) => [type, Object.keys(instances).length] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const resources = count(json.resource);
  const data = count(json.data);
  const total = (rows: ReadonlyArray<readonly [string, number]>) => rows.reduce((sum, [, n]) => sum + n, 0);
  detail(`${file}: ${total(resources)} resources of ${resources.length} types, ${total(data)} data sources`);
  for (const [type, n] of resources) detail(`  ${String(n).padStart(3)}  ${type}`);
  detail(`  data sources: ${data.map(([type, n]) => `${type} (${n})`).join(', ') || 'none'}`);
}

/**
 * Ctrl-C (SIGINT) or SIGTERM mid-demo: node's default would exit at once, leaving the scratch
 * project in the temp directory and, when only this process was signalled, the emulator running.
 * The handler stops the emulator, removes the project (unless --keep) and exits 130 or 143.
 */
function cleanUpOnSignal(workDir: string, keep: boolean, emulator: () => EmulatorProcess | undefined): void {
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\ndemo interrupted (${signal}): stopping the emulator${keep ? '' : ` and removing ${workDir}`}`);
    void emulator()?.kill();
    if (keep) console.error(`Kept the scratch project: ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

async function run(keep: boolean): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
  let emulator: EmulatorProcess | undefined;
  let client: ManagementClient | undefined;
  cleanUpOnSignal(workDir, keep, () => emulator);
  try {
    detail(`terraform ${requireTerraform()} on PATH`);
    step('Build the svc Terraform provider (only when dist/ is missing or older than its sources)');
    const mirror = ensureProviderBuilt({ log: detail });
    detail(`${mirror.built ? 'built' : 'up to date'}: svc-prevent/svc ${mirror.version} in ${mirror.mirrorDir} (${mirror.hash})`);

    step('Start the management-API emulator');
    // A throwaway key: the emulator and terraform know it, the output never shows it.
    const apiKey = randomBytes(18).toString('base64url');
    const configFile = path.join(workDir, 'svc.config.json');
    const tenant = shippedTenant();
    emulator = await startEmulatorProcess({ args: ['--tenant', tenant, '--quiet'], apiKey, onStderr: (text) => process.stderr.write(text) });
    detail(`svc-emulator listening on ${emulator.url} (tenant "${tenant}", channel "main")`);
    client = new ManagementClient({ baseUrl: emulator.url, apiKey, tenant });

    step('Write the demo configuration and a scratch cdktf project');
    writeDemoConfig(configFile, emulator.url);
    const projectDir = path.join(workDir, 'project');
    createCdktfProject(projectDir);
    detail(`${configFile}: svc.config.json as shipped, securityPolicy.baseUrl = ${emulator.url}`);
    detail(`${projectDir}: cdktf.json running main.ts; cdktf.out/ and the stacks' state go here`);
    detail('the API key reaches terraform as TF_VAR_api_key (the stack\'s sensitive, ephemeral variable api_key)');
    const context: DemoContext = {
      mirror,
      projectDir,
      outdir: path.join(projectDir, 'cdktf.out'),
      env: isolatedEnvironment({
        SVC_CONFIG: configFile,
        SVC_PROVIDER_BUILD_DIR: mirror.buildDir,
        TF_VAR_api_key: apiKey,
        TF_CLI_CONFIG_FILE: mirror.cliConfigFile,
        CHECKPOINT_DISABLE: '1',
        // Keeps the provider out of ~/.terraform.d/plugin-cache, which cdktf would use.
        CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
        // The demo prepares the stacks after each synth (cdktfOnPreparedStack).
        [STACKS_PREPARED_AFTER_SYNTH_ENV]: '1',
      }),
      client,
      emulator,
      tenant,
    };

    step(`Deploy the ${STACK} stack through cdktf (synth, prepare the stack, terraform init, plan, apply)`);
    await cdktfOnPreparedStack(context, 'deploy');
    showOutputs(path.join(projectDir, `terraform.${STACK}.tfstate`));

    step('What the management API holds now');
    await showPolicy(context);

    step('The audit log, newest first');
    for (const event of await client.auditEvents(12)) {
      detail(`${new Date(event.timestamp * 1000).toISOString()}  ${event.category}/${event.action}  ${event.description}`);
    }

    step('Change the policy out of band, through the API (as someone in the console would)');
    const [removed] = (await client.listEntries('blacklist')).map((entry) => entry.ip).sort();
    if (removed === undefined) throw new DemoError('the blacklist is empty after the deploy; the demo removes one of its entries');
    await client.deleteEntry('blacklist', removed);
    detail(`removed ${removed} from the blacklist`);
    const [channel] = (await client.listChannels()).filter((candidate) => candidate.sso !== null);
    if (channel === undefined || channel.sso === null) throw new DemoError('no channel has SSO settings after the deploy; the demo flips one');
    await client.setChannelSso(channel.name, { ...channel.sso, enabled: !channel.sso.enabled });
    detail(`channel ${channel.name}: SSO enabled ${channel.sso.enabled} -> ${!channel.sso.enabled}`);

    step('The drift check: terraform plan -detailed-exitcode finds both changes (exit 2)');
    await driftCheck(context, 2);

    step('Repair: deploy again; terraform puts back what the configuration says');
    await cdktfOnSynthesizedStack(context, 'deploy');
    await driftCheck(context, 0);

    step('Clean up: destroy the stack');
    await cdktfOnSynthesizedStack(context, 'destroy');
    const left = await Promise.all(LIST_NAMES.map(async (list) => (await client!.listEntries(list)).length));
    detail(`the API holds ${LIST_NAMES.map((list, index) => `${left[index]} ${list} entries`).join(', ')}`);
    if (left.some((count) => count > 0)) throw new DemoError('entries are left after cdktf destroy');

    step('The control-plane stack (synthesized by the same cdktf run; deploying it needs AWS)');
    summariseStack(path.join(context.outdir, 'stacks', 'control-plane', 'cdk.tf.json'));
    detail('deploying it needs an AWS account, credentials and your own configuration:');
    detail('  SVC_CONFIG=my.config.json npm run deploy -- control-plane   (help/control-plane.md)');
  } finally {
    await client?.close();
    await emulator?.stop();
    if (keep) console.log(`\nKept the scratch project: ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  }
  console.log('\nDone: the policy went through cdktf and terraform into a real HTTP server on this machine, drifted, was repaired and destroyed.');
}

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
} else if (argv.some((argument) => argument !== '--keep')) {
  console.error(`demo failed: unknown argument "${argv.find((argument) => argument !== '--keep')}"; run npm run demo -- --help`);
  process.exitCode = 1;
} else {
  run(argv.includes('--keep')).catch((error: unknown) => {
    console.error(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
