/**
 * `svc plan-report PLANFILE | --show-json FILE [--diagnostics LOG] [--format ...] [--fail-on ...]`:
 * the reviewer's summary of a saved plan (plan-report.ts, plan-report-render.ts). With a saved
 * plan it runs `terraform show -json` itself, in --dir (the initialized root), with this
 * environment; the plan's JSON is held in memory only (it may hold sensitive values).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PlanReportError, buildPlanReport, checkPlanDocument, parsePlanLog, type Finding } from '../plan-report';
import { renderJson, renderMarkdown, renderText } from '../plan-report-render';
import { choice, optionValue, parseArguments, positionals } from './arguments';
import { SvcCommandError, type SvcCommand, type SvcContext } from './command';

const USAGE = `Usage: svc plan-report PLANFILE [options]
       svc plan-report --show-json FILE [options]

What a saved plan does to the security policy, for the people who review it:
  - per tenant and list, the addresses added, removed and re-described, from whole-list
    resources (their entries map compared entry by entry) and per-entry resources alike;
  - SSO changes of tenants and channels, each with its consequence named (SSO required:
    password sign-in to the dashboard refused; SSO turned off; a new metadata URL);
  - resources of other providers, counted;
  - drift (what changed outside terraform since the last apply), apart from the changes;
  - with --diagnostics, the provider's warnings and errors next to the entries they name.

PLANFILE is a plan saved with terraform plan -out=PLANFILE; svc runs terraform show -json on
it in --dir (default: the current directory, which must be the initialized root or stack).

Options:
  --show-json FILE          read the output of terraform show -json <plan> instead
  --diagnostics LOG         the output of terraform plan -json (its diagnostics), e.g.
                            terraform plan -json -out=plan.bin > plan.log
  --format FORMAT           markdown (default; a pull-request comment, at most 60,000
                            characters, long tables collapsed, what does not fit counted),
                            text, or json (everything)
  --fail-on LEVEL           error (default), warning or never: exit 2 when the diagnostics
                            hold a finding of that level or worse
  --dir DIR                 where terraform show runs (default: the current directory)

Exit status: 0 report written; 2 report written and a finding at the --fail-on level;
1 an error (a bad argument, a file that is not a plan, terraform show failed).`;

const OPTIONS = {
  '--show-json': { takesValue: true, example: 'plan.json' },
  '--diagnostics': { takesValue: true, example: 'plan.log' },
  '--format': { takesValue: true, example: 'markdown' },
  '--fail-on': { takesValue: true, example: 'warning' },
  '--dir': { takesValue: true, example: 'infra/policy' },
};

function readFile(file: string, option: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new SvcCommandError(`${option} ${JSON.stringify(file)}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** terraform show -json <plan>, its stdout; a failure quotes terraform's first error line. */
function terraformShow(planFile: string, directory: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('terraform', ['show', '-json', '-no-color', planFile], {
      cwd: directory,
      env: { ...env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error) => reject(new SvcCommandError(`terraform could not be started (is it on PATH?): ${(error as NodeJS.ErrnoException).code ?? error.message}`)));
    child.once('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      const text = Buffer.concat(stderr).toString('utf8').replace(/\u001b\[[0-9;]*m/g, '');
      const error = text.split('\n').map((line) => line.replace(/^[\s│╷╵]+/, '').trim()).find((line) => line.startsWith('Error: ')) ?? `exit code ${code}`;
      reject(new SvcCommandError(`terraform show -json ${planFile} in ${directory} failed: ${error.slice(0, 400)} (is ${directory} the initialized root the plan was made in? terraform init first)`));
    });
  });
}

function parsePlanJson(text: string, source: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SvcCommandError(`${source} is not JSON (${(error as Error).message.slice(0, 200)}); give the output of terraform show -json <plan>`);
  }
  try {
    return checkPlanDocument(value, source);
  } catch (error) {
    if (error instanceof PlanReportError) throw new SvcCommandError(error.message);
    throw error;
  }
}

/** Whether the findings reach the --fail-on level (an error always reaches warning). */
export function failsOn(level: 'error' | 'warning' | 'never', findings: readonly Finding[]): boolean {
  if (level === 'never') return false;
  return findings.some((finding) => finding.severity === 'error' || level === 'warning');
}

async function run(argv: readonly string[], context: SvcContext): Promise<number> {
  const parsed = parseArguments(argv, OPTIONS, 'plan-report');
  const showJson = optionValue(parsed, '--show-json');
  const [planFile] = positionals(parsed, showJson === undefined ? ['PLANFILE'] : [], 'plan-report');
  const format = choice(parsed, '--format', ['markdown', 'text', 'json'] as const, 'markdown');
  const failOn = choice(parsed, '--fail-on', ['error', 'warning', 'never'] as const, 'error');
  const directory = path.resolve(context.cwd, optionValue(parsed, '--dir') ?? '.');
  if (!fs.existsSync(directory) || !fs.statSync(directory).isDirectory()) throw new SvcCommandError(`--dir ${JSON.stringify(directory)} is not a directory`);
  const diagnosticsFile = optionValue(parsed, '--diagnostics');
  let findings: Finding[] = [];
  if (diagnosticsFile !== undefined) {
    try {
      findings = parsePlanLog(readFile(path.resolve(context.cwd, diagnosticsFile), '--diagnostics'));
    } catch (error) {
      if (error instanceof PlanReportError) throw new SvcCommandError(`--diagnostics ${JSON.stringify(diagnosticsFile)}: ${error.message}`);
      throw error;
    }
  }
  let plan;
  if (showJson !== undefined) plan = parsePlanJson(readFile(path.resolve(context.cwd, showJson), '--show-json'), `--show-json ${JSON.stringify(showJson)}`);
  else {
    const absolute = path.resolve(context.cwd, planFile!);
    if (!fs.existsSync(absolute)) throw new SvcCommandError(`PLANFILE ${JSON.stringify(planFile)} does not exist; save one with terraform plan -out=${planFile}`);
    plan = parsePlanJson(await terraformShow(absolute, directory, context.env), `terraform show -json ${planFile}`);
  }
  const report = buildPlanReport(plan, findings);
  context.stdout(format === 'markdown' ? renderMarkdown(report) : format === 'text' ? renderText(report) : renderJson(report));
  return failsOn(failOn, findings) ? 2 : 0;
}

export const PLAN_REPORT_COMMAND: SvcCommand = {
  name: 'plan-report',
  summary: "a reviewer's summary of a saved plan: entries added/removed/re-described, SSO consequences, drift",
  usage: USAGE,
  run,
};
