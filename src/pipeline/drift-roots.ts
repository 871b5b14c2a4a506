/**
 * The drift check, the one implementation behind `svc drift`, its alias `svc-drift` and
 * `npm run drift` (scripts/drift-check.ts): for plain HCL root modules and synthesized cdktf
 * stacks alike, `terraform init`,
 * `terraform plan -json -detailed-exitcode` and `terraform show -json` of the saved plan, with the
 * provider installation the user configured (registry, network mirror, filesystem mirror): no
 * CLI config is written and nothing is linked into a root unless linkMirror asks for it (this
 * repository's build, or a filesystem mirror named on purpose). The saved plan goes to a private
 * temporary directory, removed afterwards; nothing is written into svc-prevent's own package.
 *
 * A root is `drift` when refresh found a change outside terraform that the plan would undo,
 * `pending` when the plan only carries the configuration's own changes (never counted as drift),
 * `clean`, `error` or `skipped` (unreachable, with skipUnreachable).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManagementClient } from '../api/client';
import { attributeDriftDetailed, driftSubjects, type Attribution, type AuditLookup, type DriftedResource } from './drift-attribution';
import { buildPlanReport, parsePlanLog, type Finding, type JsonPlanDocument, type PlanReport } from './plan-report';
import { planChanges, type ResourceChange } from './plan-changes';
import { isFollowOnDiagnostic, terraformOutputLines, unreachableStack, type UnreachableReason } from './plan-failure';
import { linkImpliedMirror, lockSvcProvider, stackSvcRequirement, synthesizedStacks, type ProviderMirror } from './provider-mirror';

export type RootKind = 'hcl' | 'cdktf stack';
export type RootStatus = 'clean' | 'drift' | 'pending' | 'error' | 'skipped';

export interface DriftRoot {
  /** As shown: the directory relative to where svc runs, or the cdktf stack name. */
  readonly name: string;
  readonly kind: RootKind;
  /** Absolute: where terraform runs. */
  readonly directory: string;
}

export interface RootCheck {
  readonly root: DriftRoot;
  readonly status: RootStatus;
  /** For clean, drift and pending: what the plan does and what drifted. */
  readonly report?: PlanReport;
  /** Addresses refresh found changed outside terraform and the plan would change back. */
  readonly driftedAddresses?: readonly string[];
  /** Those resources, how each changed and the attributes that differ (sensitive values masked), for every provider's resources. */
  readonly driftedResources?: readonly ResourceChange[];
  /** For error and skipped: the step and terraform's first error line. */
  readonly error?: string;
  readonly unreachable?: UnreachableReason;
  /** Who changed each drifted svc entry or SSO setting, and how sure that is. */
  readonly attributions?: readonly Attribution[];
}

export interface DriftRunResult {
  readonly roots: readonly RootCheck[];
  /** 0 clean (pending changes too, unless failOnPending), 2 drift, 1 an error or every root skipped. */
  readonly exitCode: 0 | 1 | 2;
}

export interface DriftRunOptions {
  readonly roots: readonly DriftRoot[];
  /** terraform's environment (the user's TF_CLI_CONFIG_FILE, credentials, SVC_*). */
  readonly env: NodeJS.ProcessEnv;
  /** Link this mirror into each root that uses svc (terraform.d/plugins) and lock it: for this repository's build or a mirror named on purpose. */
  readonly linkMirror?: () => ProviderMirror;
  readonly skipUnreachable?: boolean;
  /** Exit 2 for pending changes as well. */
  readonly failOnPending?: boolean;
  /** Progress lines (stderr). */
  readonly progress?: (line: string) => void;
  /** @default the root's svc provider settings, else SVC_BASE_URL, TF_VAR_api_key or SVC_API_KEY, SVC_TENANT */
  readonly auditLookup?: (plan: JsonPlanDocument, env: NodeJS.ProcessEnv) => AuditLookup;
}

/** A bad DIR or --stack, or terraform that cannot be started: the user's to fix, exit 1. */
export class DriftCheckError extends Error {
  readonly code = 'drift_check_usage';
  constructor(message: string) {
    super(message);
    this.name = 'DriftCheckError';
  }
}

const HCL_FILE = /\.tf(\.json)?$/;

function hasHcl(directory: string): boolean {
  return fs.readdirSync(directory).some((name) => HCL_FILE.test(name));
}

/**
 * The roots a DIR argument names: a synthesized cdktf app (manifest.json: each stack), a
 * synthesized stack (cdk.tf.json), or an HCL root (*.tf). No argument: the current directory,
 * or cdktf.out when the current directory holds a cdktf project and no *.tf.
 */
export function findRoots(directories: readonly string[], cwd: string, stackNames: readonly string[] = []): DriftRoot[] {
  const given = directories.length > 0 ? directories : [fs.existsSync(path.join(cwd, 'cdktf.out', 'manifest.json')) && !hasHcl(cwd) ? 'cdktf.out' : '.'];
  const roots: DriftRoot[] = [];
  for (const directory of given) {
    const absolute = path.resolve(cwd, directory);
    if (!fs.existsSync(absolute) || !fs.statSync(absolute).isDirectory()) throw new DriftCheckError(`DIR ${JSON.stringify(directory)} is not a directory`);
    if (fs.existsSync(path.join(absolute, 'manifest.json'))) {
      const stacks = synthesizedStacks(absolute);
      const unknown = stackNames.filter((name) => !stacks.some((stack) => stack.name === name));
      if (unknown.length > 0) throw new DriftCheckError(`no stack named ${unknown.map((name) => JSON.stringify(name)).join(', ')} in ${directory}; it has ${stacks.map((stack) => stack.name).join(', ')}`);
      for (const stack of stacks) if (stackNames.length === 0 || stackNames.includes(stack.name)) roots.push({ name: stack.name, kind: 'cdktf stack', directory: stack.workingDirectory });
    } else if (stackNames.length > 0) {
      throw new DriftCheckError(`--stack names stacks of a synthesized cdktf app, and ${JSON.stringify(directory)} has no manifest.json; give the app's directory (e.g. cdktf.out), or leave --stack out`);
    } else if (hasHcl(absolute)) {
      roots.push({ name: path.relative(cwd, absolute) || '.', kind: fs.existsSync(path.join(absolute, 'cdk.tf.json')) ? 'cdktf stack' : 'hcl', directory: absolute });
    } else {
      throw new DriftCheckError(`DIR ${JSON.stringify(directory)} holds no terraform configuration (*.tf, *.tf.json) and no synthesized cdktf app (manifest.json); run cdktf synth first, or name the root module's directory`);
    }
  }
  return roots;
}

/** Whether a root requires svc-prevent/svc (its .tf/.tf.json files name the source). */
export function rootUsesSvc(directory: string): { constraint: string | undefined } | null {
  for (const name of fs.readdirSync(directory).filter((file) => HCL_FILE.test(file)).sort()) {
    const requirement = stackSvcRequirement(path.join(directory, name));
    if (requirement !== null) return requirement;
  }
  return null;
}

export interface CommandResult {
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
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }));
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

/** The diagnostics of a -json run as terraform's text, for firstErrorLine and unreachableStack. */
function diagnosticsText(findings: readonly Finding[]): string {
  return findings.map((finding) => `${finding.severity === 'error' ? 'Error' : 'Warning'}: ${finding.summary}\n${finding.address === undefined ? '' : `\n  with ${finding.address},\n`}\n${finding.detail}\n`).join('\n');
}

function managedAddresses(changes: JsonPlanDocument['resource_changes'], keep: (actions: readonly string[]) => boolean): Set<string> {
  return new Set((changes ?? []).filter((change) => (change.mode ?? 'managed') === 'managed' && keep(change.change.actions)).map((change) => change.address));
}

/** The default audit lookup: the svc provider block's literal base_url and tenant, else the environment's. */
export function auditLookupFor(plan: JsonPlanDocument, env: NodeJS.ProcessEnv): AuditLookup {
  const expressions = Object.values(plan.configuration?.provider_config ?? {}).find((provider) => provider.name === 'svc')?.expressions ?? {};
  const literal = (name: string) => {
    const value = expressions[name]?.constant_value;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return async (tenant, limit) => {
    const baseUrl = literal('base_url') ?? env.SVC_BASE_URL;
    const apiKey = env.TF_VAR_api_key || env.SVC_API_KEY;
    const tenantName = tenant ?? literal('tenant') ?? env.SVC_TENANT;
    if (baseUrl === undefined || baseUrl === '') throw new Error('no base URL: the provider block sets no literal base_url and SVC_BASE_URL is unset');
    if (apiKey === undefined || apiKey === '') throw new Error('no API key in TF_VAR_api_key or SVC_API_KEY');
    if (tenantName === undefined || tenantName === '') throw new Error('no tenant: the provider block sets no literal tenant and SVC_TENANT is unset');
    const client = new ManagementClient({
      baseUrl,
      apiKey,
      tenant: tenantName,
      allowInsecureHttp: env.SVC_ALLOW_INSECURE_HTTP === '1' || env.SVC_ALLOW_INSECURE_HTTP === 'true',
      retry: { maxAttempts: 2 },
    });
    try {
      return await client.auditEvents(limit);
    } finally {
      await client.close();
    }
  };
}

async function checkRoot(root: DriftRoot, options: DriftRunOptions, mirror: (() => ProviderMirror) | undefined, prefix: string): Promise<RootCheck> {
  const progress = options.progress ?? (() => undefined);
  const env: NodeJS.ProcessEnv = { ...options.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_INPUT: '0' };
  const usesSvc = rootUsesSvc(root.directory);
  if (mirror !== undefined && usesSvc !== null) {
    const built = mirror();
    linkImpliedMirror(root.directory, built.mirrorDir);
    lockSvcProvider(root.directory, built, usesSvc.constraint);
    progress(`${prefix} linked the svc provider mirror ${built.mirrorDir} into terraform.d/plugins (--link-mirror or --mirror)`);
  }
  const fail = (step: string, result: CommandResult): RootCheck => {
    const unreachable = unreachableStack(`${result.stderr}\n${result.stdout}`);
    return { root, status: 'error', error: `terraform ${step}: ${firstErrorLine(result)}`, ...(unreachable === null ? {} : { unreachable }) };
  };
  progress(`${prefix} terraform init`);
  const init = await terraform(['init', '-input=false', '-no-color'], root.directory, env);
  if (init.code !== 0) return fail('init', init);
  // The saved plan may hold sensitive values: a private directory of its own, removed afterwards.
  const planDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-drift-'));
  try {
    const planFile = path.join(planDir, 'plan');
    progress(`${prefix} terraform plan -detailed-exitcode`);
    const plan = await terraform(['plan', '-json', '-detailed-exitcode', '-input=false', '-lock=false', `-out=${planFile}`], root.directory, env);
    let findings: Finding[];
    try {
      findings = parsePlanLog(plan.stdout);
    } catch {
      findings = [];
    }
    if (plan.code !== 0 && plan.code !== 2) return fail('plan', { code: plan.code, stdout: diagnosticsText(findings), stderr: plan.stderr });
    const show = await terraform(['show', '-json', '-no-color', planFile], root.directory, env);
    if (show.code !== 0) return fail('show', show);
    const json = JSON.parse(show.stdout) as JsonPlanDocument;
    const report = buildPlanReport(json, findings);
    const planned = managedAddresses(json.resource_changes, (actions) => actions.some((action) => action !== 'no-op' && action !== 'read'));
    const drifted = [...managedAddresses(json.resource_drift, () => true)].filter((address) => planned.has(address));
    const status: RootStatus = plan.code === 0 ? 'clean' : drifted.length > 0 ? 'drift' : 'pending';
    let attributions: Attribution[] | undefined;
    const subjects = usesSvc === null ? [] : driftSubjects(((json.resource_drift ?? []) as DriftedResource[]).filter((item) => drifted.includes(item.address)));
    if (subjects.length > 0) {
      progress(`${prefix} reading the audit log for who changed ${subjects.length} thing${subjects.length === 1 ? '' : 's'}`);
      attributions = await attributeDriftDetailed(subjects, (options.auditLookup ?? auditLookupFor)(json, env));
    }
    const driftedResources = planChanges(json).drift.filter((change) => drifted.includes(change.address));
    return { root, status, report, driftedAddresses: drifted, driftedResources, ...(attributions === undefined ? {} : { attributions }) };
  } finally {
    fs.rmSync(planDir, { recursive: true, force: true });
  }
}

export function driftRunExitCode(roots: readonly RootCheck[], failOnPending = false): 0 | 1 | 2 {
  if (roots.some((root) => root.status === 'error')) return 1;
  if (roots.length > 0 && roots.every((root) => root.status === 'skipped')) return 1;
  if (roots.some((root) => root.status === 'drift' || (failOnPending && root.status === 'pending'))) return 2;
  return 0;
}

/** Checks the roots one after another. */
export async function runDrift(options: DriftRunOptions): Promise<DriftRunResult> {
  let built: ProviderMirror | undefined;
  const mirror = options.linkMirror === undefined ? undefined : () => (built ??= options.linkMirror!());
  const results: RootCheck[] = [];
  for (const [index, root] of options.roots.entries()) {
    let check = await checkRoot(root, options, mirror, `[${index + 1}/${options.roots.length}] ${root.name}:`);
    // Only what cannot be reached: a wrong key or a broken configuration must fail the pipeline.
    if (check.status === 'error' && options.skipUnreachable === true && check.unreachable !== undefined) check = { ...check, status: 'skipped' };
    results.push(check);
  }
  return { roots: results, exitCode: driftRunExitCode(results, options.failOnPending) };
}
