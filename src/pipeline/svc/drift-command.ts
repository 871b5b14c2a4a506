/**
 * `svc drift [DIR...]`: the drift check for HCL roots and synthesized cdktf stacks
 * (drift-roots.ts), reported as text, JSON or Markdown. `svc-drift` and its old options
 * (--outdir, --mirror, stack names) are an alias of it (legacySvcDriftArguments).
 */
import * as fs from 'node:fs';
import { DriftCheckError, findRoots, runDrift, type RootCheck, type DriftRunResult } from '../drift-roots';
import { formatDrift } from '../plan-changes';
import { policyText, renderMarkdown } from '../plan-report-render';
import { ProviderMirrorError, builtProviderMirror, filesystemMirror, packagedMirrorDir, providerBuildState, type ProviderMirror } from '../provider-mirror';
import { forMarkdown, forTerminal, safeJson } from '../untrusted-text';
import { choice, hasFlag, optionValue, optionValues, parseArguments } from './arguments';
import { SvcCommandError, type SvcCommand, type SvcContext } from './command';

const USAGE = `Usage: svc drift [DIR...] [options]

Checks terraform roots for drift: each DIR is an HCL root module (*.tf), a synthesized cdktf
app (its manifest.json: every stack) or one synthesized stack (default: the current
directory, or cdktf.out when it holds a synthesized app and the directory has no *.tf).
For each root, in its directory:
  terraform init -input=false
  terraform plan -json -detailed-exitcode -lock=false -out=<private temporary file>
  terraform show -json <that file>
and reports:
  DRIFT            refresh found changes made outside terraform that the plan would undo:
                   each one, and for svc entries and SSO settings who made it from the
                   tenant's audit log, with how sure that is ("unknown: the audit window is
                   full" rather than a guess)
  PENDING CHANGES  the plan only carries the configuration's own changes (not applied yet);
                   never counted as drift
  clean            nothing to change
with the entries a change would write, and the provider's guardrail warnings.

Terraform installs providers as you configured it (TF_CLI_CONFIG_FILE, a registry, a network
or filesystem mirror); svc writes no CLI config and links nothing into a root unless asked.
It gets this shell's environment (SVC_API_KEY or TF_VAR_api_key, SVC_BASE_URL, SVC_TENANT,
cloud credentials); the audit log is read with the provider block's literal base_url and
tenant, else SVC_BASE_URL and SVC_TENANT. Sensitive values are never printed.

Options:
  --outdir DIR        the same as a DIR argument (also --output), as svc-drift took it
  --format FORMAT     text (default), json (everything), or markdown (an issue or comment)
  --stack NAME        only this stack of a synthesized cdktf app (repeat for more)
  --fail-on-pending   exit 2 for pending changes as well
  --skip-unreachable  a root that cannot be reached (registry, credentials, endpoint) is
                      reported as skipped; a refused key or a broken configuration still fails
  --link-mirror       link the svc provider into each root that uses it (terraform.d/plugins
                      and its lock entry): this repository's build (npm run build), else the
                      provider packaged with svc-prevent; for development, not for pipelines
  --mirror DIR        link this filesystem mirror of svc-prevent/svc instead (implies
                      --link-mirror)

Exit status: 0 no drift (pending changes included, unless --fail-on-pending); 2 drift;
1 a root could not be planned (or every root was skipped), or a bad argument.`;

const OPTIONS = {
  '--outdir': { takesValue: true, example: 'cdktf.out' },
  '--output': { takesValue: true, example: 'cdktf.out' },
  '--format': { takesValue: true, example: 'json' },
  '--stack': { takesValue: true, example: 'security-policy', repeatable: true },
  '--fail-on-pending': { takesValue: false },
  '--skip-unreachable': { takesValue: false },
  '--link-mirror': { takesValue: false },
  '--mirror': { takesValue: true, example: '/opt/svc-provider/mirror' },
};

const OPTIONS_WITH_VALUES = new Set(Object.entries(OPTIONS).filter(([, option]) => option.takesValue).map(([name]) => name));

/** The mirror --link-mirror links: this checkout's current build, else the packaged one. */
function defaultLinkedMirror(): ProviderMirror {
  const build = providerBuildState();
  if (build.state === 'current') return build.mirror;
  if (fs.existsSync(packagedMirrorDir())) return filesystemMirror(packagedMirrorDir());
  return builtProviderMirror();
}

function verdict(check: RootCheck): string {
  const report = check.report;
  switch (check.status) {
    case 'clean':
      return report !== undefined && report.totals.drift > 0 ? `clean: ${report.totals.drift} changed outside terraform only where the configuration sets nothing` : 'clean: no drift, nothing to change';
    case 'drift':
      return `DRIFT: ${check.driftedAddresses!.length} resource${check.driftedAddresses!.length === 1 ? '' : 's'} changed outside terraform (the plan puts them back)`;
    case 'pending':
      return 'PENDING CHANGES: the configuration has changes not applied yet; nothing changed outside terraform';
    case 'error':
      return `ERROR (cannot be planned): ${check.error}`;
    case 'skipped':
      return `skipped (cannot be reached: ${check.unreachable}): ${check.error}`;
  }
}

export function summaryOf(result: DriftRunResult): string {
  const count = (status: RootCheck['status']) => result.roots.filter((check) => check.status === status).length;
  return (
    `svc drift: ${result.roots.length} root${result.roots.length === 1 ? '' : 's'}: ${count('clean')} clean, ${count('drift')} drifted, ` +
    `${count('pending')} with pending changes, ${count('error')} failed, ${count('skipped')} skipped; exit ${result.exitCode}`
  );
}

function renderText(result: DriftRunResult): string {
  const lines: string[] = [];
  for (const check of result.roots) {
    lines.push(`${forTerminal(check.root.name, 200)} (${check.root.kind}): ${forTerminal(verdict(check), 600)}`);
    const report = check.report;
    if (report === undefined) continue;
    // Every drifted resource with its attributes, also other providers' (AWS), which the policy text only counts.
    if (check.driftedResources !== undefined && check.driftedResources.length > 0) {
      lines.push('  drifted (the plan puts them back):', ...formatDrift(check.driftedResources, '    ').map((line) => forTerminal(line, 600)));
    }
    const drift = policyText(report.drift, '    ');
    if (drift.length > 0) lines.push('  changed outside terraform:', ...drift);
    if (check.attributions !== undefined && check.attributions.length > 0) {
      lines.push('  who changed it (audit log):', ...check.attributions.map((attribution) => `    ${forTerminal(attribution.text, 400)} [${attribution.certainty}]`));
    }
    const changes = policyText(report.changes, '    ');
    if (changes.length > 0) lines.push('  the plan would:', ...changes);
    if (report.findings.length > 0) lines.push('  warnings and errors:', ...report.findings.map((finding) => `    ${finding.severity}: ${forTerminal(finding.summary, 200)}${finding.address === undefined ? '' : ` (${forTerminal(finding.address, 120)})`}`));
  }
  lines.push(summaryOf(result));
  return `${lines.join('\n')}\n`;
}

function renderMarkdownReport(result: DriftRunResult): string {
  const parts = [`**${forMarkdown(summaryOf(result), 400)}**`, ''];
  const share = Math.floor(50_000 / Math.max(1, result.roots.length));
  for (const check of result.roots) {
    parts.push(`### ${forMarkdown(check.root.name, 200)}: ${forMarkdown(verdict(check), 600)}`, '');
    if (check.attributions !== undefined && check.attributions.length > 0) {
      parts.push('**Who changed it** (audit log):', '', ...check.attributions.map((attribution) => `- ${forMarkdown(attribution.text, 400)} _(${attribution.certainty})_`), '');
    }
    if (check.report !== undefined && check.status !== 'clean') parts.push(renderMarkdown(check.report, share));
  }
  return `${parts.join('\n').trimEnd()}\n`;
}

/**
 * svc-drift's command line as svc drift's: its stack names (after the options) become --stack,
 * and its app is --outdir (also --output; default cdktf.out), which svc drift also takes.
 */
export function legacySvcDriftArguments(argv: readonly string[]): string[] {
  const converted: string[] = [];
  let outdirGiven = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const flag = argument.startsWith('--') && argument.includes('=') ? argument.slice(0, argument.indexOf('=')) : argument;
    if (flag === '--outdir' || flag === '--output') outdirGiven = true;
    if (!argument.startsWith('-')) converted.push('--stack', argument);
    else {
      converted.push(argument);
      // An option's value stays with it (a value is never a stack name).
      if (argument === flag && OPTIONS_WITH_VALUES.has(flag) && argv[index + 1] !== undefined) converted.push(argv[++index]!);
    }
  }
  return outdirGiven ? converted : ['--outdir', 'cdktf.out', ...converted];
}

async function run(argv: readonly string[], context: SvcContext): Promise<number> {
  const parsed = parseArguments(argv, OPTIONS, 'drift');
  const format = choice(parsed, '--format', ['text', 'json', 'markdown'] as const, 'text');
  const mirrorDir = optionValue(parsed, '--mirror');
  let roots;
  try {
    const outdir = optionValue(parsed, '--outdir') ?? optionValue(parsed, '--output');
    roots = findRoots([...(outdir === undefined ? [] : [outdir]), ...parsed.positionals], context.cwd, optionValues(parsed, '--stack'));
  } catch (error) {
    if (error instanceof DriftCheckError || error instanceof ProviderMirrorError) throw new SvcCommandError(error.message);
    throw error;
  }
  const linkMirror = mirrorDir !== undefined ? () => filesystemMirror(mirrorDir) : hasFlag(parsed, '--link-mirror') ? defaultLinkedMirror : undefined;
  let result: DriftRunResult;
  try {
    result = await runDrift({
      roots,
      env: context.env,
      skipUnreachable: hasFlag(parsed, '--skip-unreachable'),
      failOnPending: hasFlag(parsed, '--fail-on-pending'),
      progress: (line) => context.stderr(`${forTerminal(line, 1000)}\n`),
      ...(linkMirror === undefined ? {} : { linkMirror }),
    });
  } catch (error) {
    if (error instanceof DriftCheckError || error instanceof ProviderMirrorError) throw new SvcCommandError(error.message);
    throw error;
  }
  if (format === 'json') context.stdout(`${safeJson({ summary: summaryOf(result), exitCode: result.exitCode, roots: result.roots })}\n`);
  else context.stdout(format === 'markdown' ? renderMarkdownReport(result) : renderText(result));
  return result.exitCode;
}

export const SVC_DRIFT_ALIAS_USAGE = `Usage: svc-drift [--outdir <dir>] [--stack <name>]... [--mirror <dir>] [--skip-unreachable] [--format text|json|markdown] [stack...]

An alias of \`svc drift <dir>\` kept for pipelines written for it: <dir> is --outdir (default
cdktf.out, also --output), stack names after the options are --stack, and --mirror links that
filesystem mirror into each stack. As svc drift, it links nothing else: a stack prepared by
prepareStacksForSvcProvider, or a TF_CLI_CONFIG_FILE with your provider installation, is
what terraform uses. Pending changes are reported apart and exit 0 (--fail-on-pending: 2).

${USAGE}`;

export const DRIFT_COMMAND: SvcCommand = {
  name: 'drift',
  summary: 'drift check for HCL roots and cdktf stacks: who changed what outside terraform; pending changes apart',
  usage: USAGE,
  run,
};
