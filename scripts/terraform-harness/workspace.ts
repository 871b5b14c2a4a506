/**
 * A terraform working directory for one scenario (an acceptance test, a bench figure): its own
 * directory, the generated CLI config (the provider from the build's filesystem mirror) and an
 * environment with no inherited TF_* or SVC_* variables. Commands run asynchronously, so an in-process emulator
 * keeps answering while terraform runs.
 *
 * `terraform(args)` never throws on a non-zero exit; the named helpers (init, apply, destroy,
 * ...) do, with the command's stdout, stderr and the provider's log lines in the message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JsonPlan } from '../../src/pipeline/plan-changes';
import { planCounts, plannedActions, type PlanCounts, type PlannedAction } from './plan-summary';

export interface TerraformResult {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Lines the provider wrote to stderr during this command (from terraform's provider log). */
  readonly providerLog: string;
}

export interface PlanOutcome extends TerraformResult {
  /** stdout and stderr together: what the user sees, for searching. */
  readonly text: string;
  /** `terraform show -json` of the saved plan; undefined when the plan failed (exit 1). */
  readonly plan: JsonPlan | undefined;
  /** Resource address -> planned action, from the saved plan's JSON; empty when the plan failed. */
  readonly actions: Record<string, PlannedAction>;
  /** The counts of the plan's `Plan: ... to add, ... to change, ... to destroy.`, from its JSON; undefined when the plan failed. */
  readonly summary: PlanCounts | undefined;
}

/** Where planDetailed saves a plan when the caller names no `-out=` file; removed after reading. */
const HARNESS_PLAN_FILE = 'harness-plan.tfplan';

export class TerraformCommandError extends Error {
  readonly code = 'terraform_command_failed';
  constructor(
    readonly result: TerraformResult,
    readonly dir: string,
    expectation: string,
  ) {
    super(describeResult(result, dir, expectation));
    this.name = 'TerraformCommandError';
  }
}

const PROVIDER_LOG_LINES_SHOWN = 60;

function describeResult(result: TerraformResult, dir: string, expectation: string): string {
  const section = (title: string, text: string) => `--- ${title} ---\n${text.trimEnd() || '(empty)'}`;
  const providerLines = result.providerLog.trimEnd().split('\n');
  return [
    `terraform ${result.args.join(' ')} exited with code ${result.code} (${expectation}) in ${dir}`,
    section('stdout', result.stdout),
    section('stderr', result.stderr),
    section(`provider log (last ${PROVIDER_LOG_LINES_SHOWN} lines)`, providerLines.slice(-PROVIDER_LOG_LINES_SHOWN).join('\n')),
  ].join('\n');
}

/** Inherited variables that would change what terraform or the provider does. */
function isolatedEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_)/.test(name)));
}

export interface WorkspaceOptions {
  /** The directory (created when missing). */
  readonly dir: string;
  /** The generated terraform.rc of the provider build. */
  readonly cliConfigFile: string;
  /** Added to the environment, e.g. `{ SVC_API_KEY: key }`; an undefined value removes that variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Told of every terraform process started here: tests pass their `track` (so a test that
   * times out leaves none running), other callers whatever ends their children.
   */
  readonly trackChild: (child: ChildProcess) => unknown;
}

export class Workspace {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly logFile: string;
  private readonly running = new Set<ChildProcess>();
  private readonly trackChild: (child: ChildProcess) => unknown;
  /** Every command run here and its result, oldest first (e.g. to search all output for a secret). */
  readonly history: TerraformResult[] = [];
  private initialized = false;

  constructor(options: WorkspaceOptions) {
    this.dir = options.dir;
    this.trackChild = options.trackChild;
    fs.mkdirSync(this.dir, { recursive: true });
    this.logFile = path.join(this.dir, 'terraform-provider.log');
    const environment: NodeJS.ProcessEnv = {
      ...isolatedEnvironment(),
      TF_CLI_CONFIG_FILE: options.cliConfigFile,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      // The provider's stderr goes to a file (not the output the tests read), for failure messages.
      TF_LOG_PROVIDER: 'DEBUG',
      TF_LOG_PATH: this.logFile,
      // The provider's own debug lines too, so the secret checks cover them.
      SVC_LOG: 'debug',
      ...options.env,
    };
    this.env = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined));
  }

  /** Writes main.tf (or another file of the configuration). */
  write(configuration: string, fileName = 'main.tf'): void {
    fs.writeFileSync(path.join(this.dir, fileName), configuration);
  }

  /** Runs terraform in the workspace; never throws on a non-zero exit. */
  terraform(args: readonly string[], extraEnv: Readonly<Record<string, string>> = {}): Promise<TerraformResult> {
    const logStart = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    return new Promise((resolve, reject) => {
      const child = spawn('terraform', args, { cwd: this.dir, env: { ...this.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
      this.trackChild(child);
      this.running.add(child);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.once('error', (error) => {
        this.running.delete(child);
        reject(new Error(`terraform could not be started (is it on PATH?): ${error.message}`));
      });
      child.once('close', (code, signal) => {
        this.running.delete(child);
        const result: TerraformResult = {
          args,
          code: code ?? (signal ? 128 : 1),
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8') + (signal ? `\n(terraform was ended by ${signal})` : ''),
          providerLog: this.providerLogSince(logStart),
        };
        this.history.push(result);
        resolve(result);
      });
    });
  }

  /** Runs terraform and throws TerraformCommandError unless it exits with one of `codes`. */
  async terraformExpecting(args: readonly string[], codes: readonly number[] = [0], extraEnv: Readonly<Record<string, string>> = {}): Promise<TerraformResult> {
    const result = await this.terraform(args, extraEnv);
    if (!codes.includes(result.code)) throw new TerraformCommandError(result, this.dir, `expected exit code ${codes.join(' or ')}`);
    return result;
  }

  /** `terraform init`, once per workspace. */
  async init(): Promise<void> {
    if (this.initialized) return;
    await this.terraformExpecting(['init', '-input=false', '-no-color']);
    this.initialized = true;
  }

  async apply(args: readonly string[] = []): Promise<TerraformResult> {
    return await this.terraformExpecting(['apply', '-auto-approve', '-input=false', '-no-color', ...args]);
  }

  async destroy(args: readonly string[] = []): Promise<TerraformResult> {
    return await this.terraformExpecting(['destroy', '-auto-approve', '-input=false', '-no-color', ...args]);
  }

  async importResource(address: string, id: string): Promise<TerraformResult> {
    return await this.terraformExpecting(['import', '-input=false', '-no-color', address, id]);
  }

  /** `terraform validate` (never throws; look at code and output). */
  async validate(): Promise<TerraformResult> {
    return await this.terraform(['validate', '-no-color']);
  }

  /**
   * `terraform plan -detailed-exitcode -out=<file>`: code 0 (no changes), 1 (error) or 2
   * (changes), the text, and what the saved plan's `terraform show -json` says (actions,
   * counts). A `-out=<file>` in `args` is kept for the caller; otherwise the plan goes to a file
   * of the workspace that is removed once read. Throws only for other exit codes.
   */
  async planDetailed(args: readonly string[] = []): Promise<PlanOutcome> {
    const named = args.find((arg) => arg.startsWith('-out='));
    const planFile = named === undefined ? HARNESS_PLAN_FILE : named.slice('-out='.length);
    const outArgs = named === undefined ? [`-out=${planFile}`] : [];
    const result = await this.terraformExpecting(['plan', '-detailed-exitcode', '-input=false', '-no-color', ...args, ...outArgs], [0, 1, 2]);
    const text = `${result.stdout}\n${result.stderr}`;
    let plan: JsonPlan | undefined;
    try {
      // terraform saves no plan when planning fails.
      if (result.code !== 1) plan = (await this.showJson(planFile)) as JsonPlan;
    } finally {
      if (named === undefined) fs.rmSync(path.resolve(this.dir, planFile), { force: true });
    }
    return { ...result, text, plan, actions: plan === undefined ? {} : plannedActions(plan), summary: plan === undefined ? undefined : planCounts(plan) };
  }

  /** `terraform plan -detailed-exitcode` that must exit `code` (0 or 2), else throws with the output. */
  async planExpecting(code: 0 | 2, args: readonly string[] = []): Promise<PlanOutcome> {
    const outcome = await this.planDetailed(args);
    if (outcome.code !== code) throw new TerraformCommandError(outcome, this.dir, `expected plan -detailed-exitcode to exit ${code}`);
    return outcome;
  }

  /** `terraform show -json` of the state, or of a saved plan file, parsed. */
  async showJson(planFile?: string): Promise<ShowJson> {
    const result = await this.terraformExpecting(['show', '-json', '-no-color', ...(planFile === undefined ? [] : [planFile])]);
    return JSON.parse(result.stdout) as ShowJson;
  }

  /** The raw terraform.tfstate text (local backend). */
  stateText(): string {
    return fs.readFileSync(path.join(this.dir, 'terraform.tfstate'), 'utf8');
  }

  /** terraform.tfstate, parsed. */
  stateJson(): StateFile {
    return JSON.parse(this.stateText()) as StateFile;
  }

  /** The attributes of one resource instance in terraform.tfstate (`data.` prefix for data sources). */
  stateAttributes(address: string): Record<string, unknown> {
    const state = this.stateJson();
    const isData = address.startsWith('data.');
    const [type, name] = (isData ? address.slice(5) : address).split('.');
    const resource = state.resources.find((candidate) => candidate.mode === (isData ? 'data' : 'managed') && candidate.type === type && candidate.name === name);
    if (resource === undefined) {
      const present = state.resources.map((candidate) => `${candidate.mode === 'data' ? 'data.' : ''}${candidate.type}.${candidate.name}`);
      throw new Error(`${address} is not in ${this.dir}/terraform.tfstate; it holds: ${present.join(', ') || 'nothing'}`);
    }
    return resource.instances[0].attributes;
  }

  /** Ends terraform commands still running (after a test timed out). */
  killRunning(): void {
    for (const child of this.running) child.kill('SIGKILL');
  }

  private providerLogSince(offset: number): string {
    if (!fs.existsSync(this.logFile)) return '';
    const text = fs.readFileSync(this.logFile).subarray(offset).toString('utf8');
    // go-plugin logs each provider stderr line as "... provider.terraform-provider-svc_v<version>: <line>".
    return text
      .split('\n')
      .filter((line) => line.includes('provider.terraform-provider-svc') || line.includes('plugin process exited'))
      .join('\n');
  }
}

export interface StateFile {
  readonly version: number;
  readonly serial: number;
  readonly resources: ReadonlyArray<{
    readonly mode: 'managed' | 'data';
    readonly type: string;
    readonly name: string;
    readonly instances: ReadonlyArray<{ readonly attributes: Record<string, unknown>; readonly sensitive_attributes?: unknown }>;
  }>;
}

/** The parts of `terraform show -json` the tests read. */
export interface ShowJson {
  readonly values?: { readonly root_module?: { readonly resources?: ReadonlyArray<{ readonly address: string; readonly values: Record<string, unknown> }> } };
  readonly resource_changes?: ReadonlyArray<{ readonly address: string; readonly change: { readonly actions: readonly string[] } }>;
  readonly [key: string]: unknown;
}
