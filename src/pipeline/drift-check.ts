/**
 * The drift check behind `npm run drift` (scripts/drift-check.ts): for each synthesized stack,
 * `terraform init` and `terraform plan -detailed-exitcode` in the stack's working directory,
 * then `terraform show -json` of the saved plan for what drifted. Exit code as terraform's:
 * 0 nothing to do, 2 drift or pending changes, 1 a stack could not be planned.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManagementClient } from '../api/client';
import { attributeDrift, driftSubjects, type AuditLookup, type DriftedResource } from './drift-attribution';
import { isFollowOnDiagnostic, terraformOutputLines, unreachableStack, type UnreachableReason } from './plan-failure';
import { formatPlanChanges, planChanges, type JsonPlan, type PlanChanges } from './plan-changes';
import { prepareSynthesizedStacks, stackSvcRequirement, svcProviderSetting, synthesizedStacks, terraformCliConfig, type ProviderMirror, type SynthesizedStack, type TerraformCliConfig } from './provider-mirror';

export type StackStatus = 'clean' | 'drift' | 'error' | 'skipped';

export interface StackCheck {
  readonly name: string;
  readonly status: StackStatus;
  /** For clean and drift. */
  readonly changes?: PlanChanges;
  /** For error and skipped: the step and terraform's first error line. */
  readonly error?: string;
  /** For error and skipped: set when every error terraform gave says something cannot be reached. */
  readonly unreachable?: UnreachableReason;
  /** For drift in svc resources: who changed each entry or SSO setting, from the audit log. */
  readonly attributions?: readonly string[];
}

export interface DriftCheckOptions {
  /** The synthesized app (absolute or relative to the working directory). */
  readonly outdir: string;
  /** Stack names to check; empty: every stack. */
  readonly stacks?: readonly string[];
  /**
   * A stack that cannot be reached (provider registry unreachable, no AWS credentials, no
   * connection to the endpoint) is reported as skipped, not as an error. A refused key, a
   * configuration error or an invalid value still fails.
   */
  readonly skipUnreachable?: boolean;
  /** The environment terraform runs with (credentials, SVC_*, TF_VAR_*). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The svc provider's build, for stacks that use it (called only then). */
  readonly mirror: () => ProviderMirror;
  /** Progress and report lines. @default nothing */
  readonly log?: (line: string) => void;
  /** Notes about the setup (e.g. a CLI config that hides the svc mirror), for stderr. @default log */
  readonly note?: (line: string) => void;
  /**
   * Reads a tenant's audit log to say who drifted svc resources. @default a ManagementClient with
   * the stack's base_url (else SVC_BASE_URL), TF_VAR_api_key (else SVC_API_KEY) and tenant (else SVC_TENANT)
   */
  readonly auditLookup?: (stackFile: string, env: NodeJS.ProcessEnv) => AuditLookup;
}

export interface DriftCheckResult {
  readonly stacks: readonly StackCheck[];
  /** 0 clean, 2 drift, 1 error (or every stack skipped). */
  readonly exitCode: 0 | 1 | 2;
}

export class DriftCheckError extends Error {
  readonly code = 'drift_check_usage';
  constructor(message: string) {
    super(message);
    this.name = 'DriftCheckError';
  }
}

interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function terraform(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('terraform', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error) => reject(new DriftCheckError(`terraform could not be started (is it on PATH?): ${error.message}`)));
    child.once('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

const MAX_ERROR_LENGTH = 400;

/**
 * terraform's first diagnostic in one line: `Error: <summary> (<address>): <first paragraph of
 * the detail>`, which says what to fix (its diagnostics are boxed with │ unless -no-color);
 * without an `Error:` line, the last line and the exit code.
 */
export function firstErrorLine(result: CommandResult): string {
  const lines = terraformOutputLines(`${result.stderr}\n${result.stdout}`);
  // The cause, not the provider's follow-on notes that point at it.
  const cause = lines.findIndex((line) => line.startsWith('Error: ') && !isFollowOnDiagnostic(line.slice('Error: '.length)));
  const start = cause !== -1 ? cause : lines.findIndex((line) => line.startsWith('Error: '));
  if (start === -1) {
    const last = lines.filter((line) => line !== '').pop();
    return last === undefined ? `exit code ${result.code}, no output` : `${last} (exit code ${result.code})`;
  }
  let subject: string | undefined;
  const detail: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('Error: ') || line.startsWith('Warning: ')) break;
    if (line === '') {
      if (detail.length > 0) break;
      continue;
    }
    const withSubject = /^with (.+?),?$/.exec(line);
    if (withSubject !== null && detail.length === 0) subject ??= withSubject[1];
    // The source location and the quoted configuration line say where, not what.
    else if (detail.length === 0 && (/^on .+ line \d+/.test(line) || /^\d+:/.test(line))) continue;
    else detail.push(line);
  }
  const text = `${lines[start]}${subject === undefined ? '' : ` (${subject})`}${detail.length === 0 ? '' : `: ${detail.join(' ')}`}`;
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 3)}...` : text;
}

/** Picks the stacks named (all when none), failing on a name the app does not have. */
export function selectStacks(available: readonly SynthesizedStack[], names: readonly string[] = []): SynthesizedStack[] {
  if (names.length === 0) return [...available];
  const unknown = names.filter((name) => !available.some((stack) => stack.name === name));
  if (unknown.length > 0) {
    throw new DriftCheckError(`no stack named ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the app has ${available.map((stack) => stack.name).join(', ')}`);
  }
  return available.filter((stack) => names.includes(stack.name));
}

interface CheckedStack extends StackCheck {
  /** resource_drift of the plan, for the audit lookup. */
  readonly drifted?: readonly DriftedResource[];
}

async function checkStack(stack: SynthesizedStack, env: NodeJS.ProcessEnv, log: (line: string) => void, prefix: string): Promise<CheckedStack> {
  const fail = (step: string, result: CommandResult): StackCheck => {
    const unreachable = unreachableStack(`${result.stderr}\n${result.stdout}`);
    return { name: stack.name, status: 'error', error: `terraform ${step}: ${firstErrorLine(result)}`, ...(unreachable === null ? {} : { unreachable }) };
  };
  log(`${prefix} terraform init`);
  const init = await terraform(['init', '-input=false', '-no-color'], stack.workingDirectory, env);
  if (init.code !== 0) return fail('init', init);

  // The saved plan may hold sensitive values: a private directory, removed afterwards.
  const planDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-drift-'));
  try {
    const planFile = path.join(planDir, 'plan');
    log(`${prefix} terraform plan -detailed-exitcode`);
    const plan = await terraform(['plan', '-detailed-exitcode', '-input=false', '-lock=false', '-no-color', `-out=${planFile}`], stack.workingDirectory, env);
    if (plan.code !== 0 && plan.code !== 2) return fail('plan', plan);
    const show = await terraform(['show', '-json', '-no-color', planFile], stack.workingDirectory, env);
    if (show.code !== 0) return fail('show', show);
    const json = JSON.parse(show.stdout) as JsonPlan & { resource_drift?: DriftedResource[] };
    const changes = planChanges(json);
    return { name: stack.name, status: plan.code === 2 ? 'drift' : 'clean', changes, drifted: json.resource_drift ?? [] };
  } finally {
    fs.rmSync(planDir, { recursive: true, force: true });
  }
}

export function driftExitCode(stacks: readonly StackCheck[]): 0 | 1 | 2 {
  if (stacks.some((stack) => stack.status === 'error')) return 1;
  if (stacks.every((stack) => stack.status === 'skipped')) return 1;
  return stacks.some((stack) => stack.status === 'drift') ? 2 : 0;
}

/** The one-line verdict printed for a stack. */
export function describeStackCheck(check: StackCheck): string {
  switch (check.status) {
    case 'clean': {
      // resource_drift lists every refreshed difference, also those the configuration does not set.
      const drifted = check.changes?.drift.length ?? 0;
      if (drifted === 0) return 'no drift, nothing to change';
      return `nothing to change: ${drifted} changed outside terraform only in what the configuration does not set (listed below)`;
    }
    case 'drift': {
      const changes = check.changes!;
      const planned = changes.changes.length + changes.outputs.length;
      const what = changes.drift.length > 0 ? 'DRIFT' : 'PENDING CHANGES';
      return `${what}: ${changes.drift.length} changed outside terraform, ${planned} planned change${planned === 1 ? '' : 's'}`;
    }
    case 'error':
      return `ERROR (cannot be planned): ${check.error}`;
    case 'skipped':
      return `skipped (cannot be reached: ${check.unreachable ?? 'unknown'}): ${check.error}`;
  }
}

/** The default audit lookup: the same settings terraform's svc provider gets. */
export function defaultAuditLookup(stackFile: string, env: NodeJS.ProcessEnv): AuditLookup {
  return async (tenant, limit) => {
    const baseUrl = svcProviderSetting(stackFile, 'base_url') ?? env.SVC_BASE_URL;
    const apiKey = env.TF_VAR_api_key || env.SVC_API_KEY;
    const tenantName = tenant ?? svcProviderSetting(stackFile, 'tenant') ?? env.SVC_TENANT;
    if (baseUrl === undefined || baseUrl === '') throw new Error('no base URL: the stack sets no base_url and SVC_BASE_URL is unset');
    if (apiKey === undefined || apiKey === '') throw new Error('no API key in TF_VAR_api_key or SVC_API_KEY');
    if (tenantName === undefined || tenantName === '') throw new Error('no tenant: the stack sets none and SVC_TENANT is unset');
    const client = new ManagementClient({ baseUrl, apiKey, tenant: tenantName, retry: { maxAttempts: 2 } });
    try {
      return await client.auditEvents(limit);
    } finally {
      await client.close();
    }
  };
}

/** Plans the stacks one after another, logging progress and a report for each. */
export async function runDriftCheck(options: DriftCheckOptions): Promise<DriftCheckResult> {
  const log = options.log ?? (() => undefined);
  const outdir = path.resolve(options.outdir);
  const stacks = selectStacks(synthesizedStacks(outdir), options.stacks);
  let built: ProviderMirror | undefined;
  const mirror = () => (built ??= options.mirror());
  prepareSynthesizedStacks(outdir, mirror);
  const results: StackCheck[] = [];
  const baseEnv = options.env ?? process.env;
  // As the npm scripts: the user's TF_CLI_CONFIG_FILE is kept, else the build's for svc stacks.
  // Worked out (and its note printed) once, at the first stack that uses svc.
  let svcCliConfig: TerraformCliConfig | undefined;
  const cliConfigForSvc = (): TerraformCliConfig => {
    if (svcCliConfig === undefined) {
      svcCliConfig = terraformCliConfig(mirror(), baseEnv);
      if (svcCliConfig.note !== undefined) (options.note ?? log)(svcCliConfig.note);
    }
    return svcCliConfig;
  };
  for (const [index, stack] of stacks.entries()) {
    const prefix = `[${index + 1}/${stacks.length}] ${stack.name}:`;
    const usesSvc = stackSvcRequirement(stack.file) !== null;
    const cliConfig = usesSvc ? cliConfigForSvc() : undefined;
    const env: NodeJS.ProcessEnv = {
      ...baseEnv,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      ...(cliConfig?.file === undefined ? {} : { TF_CLI_CONFIG_FILE: cliConfig.file }),
    };
    const { drifted, ...checked } = await checkStack(stack, env, log, prefix);
    let check: StackCheck = checked;
    // Only what cannot be reached: a wrong key or a broken stack must fail the pipeline.
    if (check.status === 'error' && options.skipUnreachable && check.unreachable !== undefined) check = { ...check, status: 'skipped' };
    const subjects = usesSvc ? driftSubjects(drifted ?? []) : [];
    if (subjects.length > 0) {
      log(`${prefix} reading the audit log for who changed ${subjects.length} thing${subjects.length === 1 ? '' : 's'}`);
      const lookup = (options.auditLookup ?? defaultAuditLookup)(stack.file, env);
      check = { ...check, attributions: await attributeDrift(subjects, lookup) };
    }
    results.push(check);
    log(`${prefix} ${describeStackCheck(check)}`);
    if (check.changes !== undefined) formatPlanChanges(check.changes, '    ').forEach((line) => log(line));
    if (check.attributions !== undefined) {
      log('    who changed it (audit log):');
      check.attributions.forEach((line) => log(`      ${line}`));
    }
  }
  const exitCode = driftExitCode(results);
  const counts = (status: StackStatus) => results.filter((check) => check.status === status).length;
  // A stack whose plan only carries the configuration's own changes is pending, not drifted.
  const drifted = results.filter((check) => check.status === 'drift' && (check.changes?.drift.length ?? 0) > 0).length;
  const pending = counts('drift') - drifted;
  log(
    `drift check: ${results.length} stack${results.length === 1 ? '' : 's'}: ${counts('clean')} clean, ${drifted} drifted, ` +
      `${pending} with pending changes, ${counts('error')} failed, ${counts('skipped')} skipped; exit ${exitCode}`,
  );
  return { stacks: results, exitCode };
}
