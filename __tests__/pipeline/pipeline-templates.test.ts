/**
 * The pipeline templates of examples/pipelines (issue 29): the GitHub workflows validated with
 * @actions/workflow-parser, the GitLab files parsed as YAML, and what each of the three jobs
 * must hold checked on the parsed result: plan saves the plan and posts `svc plan-report`, apply
 * runs only the saved plan of the merged head commit, drift runs `svc drift`; the API key only
 * from the CI's secret store, never on a command line.
 * pipeline-run.test.ts runs the HCL flavour's jobs (GitHub and GitLab), step by step, against the emulator;
 * pipeline-run-cdktf.test.ts the cdktf flavour's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseGithubWorkflow, type ParsedWorkflow, type WorkflowJob } from './support/workflow-parser';

jest.setTimeout(60_000);

const EXAMPLES = path.join(__dirname, '..', '..', 'examples', 'pipelines');
const GITHUB_FLAVOURS = [
  { file: 'github/svc-hcl.yml', svc: 'svc' },
  { file: 'github/svc-cdktf.yml', svc: 'npx svc' },
] as const;
const GITLAB_FLAVOURS = [
  { file: 'gitlab/svc-hcl.gitlab-ci.yml', svc: 'svc' },
  { file: 'gitlab/svc-cdktf.gitlab-ci.yml', svc: 'npx svc' },
] as const;

const read = (file: string) => fs.readFileSync(path.join(EXAMPLES, file), 'utf8');

/** A job as the YAML holds it (the parser's converted template leaves `with` out). */
interface YamlJob {
  readonly if?: string;
  readonly env?: Record<string, string>;
  readonly steps: ReadonlyArray<{ readonly name?: string; readonly uses?: string; readonly run?: string; readonly with?: Record<string, unknown> }>;
}
const yamlJob = (file: string, id: string): YamlJob => (parseYaml(read(file)) as { jobs: Record<string, YamlJob> }).jobs[id];
/** A job's steps and env as text, to search. */
const stepsText = (job: YamlJob) => JSON.stringify({ env: job.env, steps: job.steps });
const runText = (job: YamlJob) => job.steps.map((step) => step.run ?? '').join('\n');
function jobNamed(workflow: ParsedWorkflow, id: string): WorkflowJob {
  const job = workflow.jobs.find((candidate) => candidate.id.value === id);
  if (job === undefined) throw new Error(`no job ${id}; the jobs are ${workflow.jobs.map((candidate) => candidate.id.value).join(', ')}`);
  return job;
}

describe.each(GITHUB_FLAVOURS)('$file', ({ file, svc }) => {
  let workflow: ParsedWorkflow;
  beforeAll(async () => {
    workflow = await parseGithubWorkflow(path.basename(file), read(file));
  });

  test('@actions/workflow-parser accepts it: three jobs, on pull requests and a schedule', () => {
    expect(workflow.errors).toEqual([]);
    expect(workflow.jobs.map((job) => job.id.value)).toEqual(['plan', 'apply', 'drift']);
    expect(Object.keys(workflow.events).sort()).toEqual(['pull_request', 'schedule', 'workflow_dispatch']);
  });

  test('plan: a saved plan with its -json log, svc plan-report as the comment body, the plan kept by the head commit', () => {
    expect(jobNamed(workflow, 'plan').if?.expr).toContain("github.event.action != 'closed'");
    const plan = yamlJob(file, 'plan');
    expect(runText(plan)).toMatch(/terraform plan -input=false -detailed-exitcode -out=tfplan -json > plan-log\.json/);
    expect(runText(plan)).toContain(`${svc} plan-report tfplan --diagnostics plan-log.json --format markdown --fail-on error > plan-report.md`);
    const text = stepsText(plan);
    expect(text).toContain('actions/cache/save@v4');
    expect(text).toContain('github.event.pull_request.head.sha');
    expect(text).toContain('actions/github-script@v7');
    expect(text).toContain('plan-report.md');
  });

  test('apply: only when merged, only the saved plan of the merged head commit (a missing one fails), never a fresh plan', () => {
    expect(jobNamed(workflow, 'apply').if?.expr).toContain('github.event.pull_request.merged');
    const apply = yamlJob(file, 'apply');
    const restore = apply.steps.find((step) => step.uses === 'actions/cache/restore@v4');
    expect(restore?.with).toMatchObject({ key: '${{ env.PLAN_KEY }}', 'fail-on-cache-miss': true });
    expect(apply.env?.PLAN_KEY).toBe(yamlJob(file, 'plan').env?.PLAN_KEY);
    expect(apply.env?.PLAN_KEY).toContain('github.event.pull_request.head.sha');
    expect(runText(apply)).toContain('terraform apply -input=false tfplan');
    expect(runText(apply)).not.toMatch(/-auto-approve|terraform plan/);
  });

  test('drift: svc drift on a schedule, its exit code kept', () => {
    expect(jobNamed(workflow, 'drift').if?.expr).toContain("github.event_name == 'schedule'");
    const drift = yamlJob(file, 'drift');
    expect(runText(drift)).toContain(`${svc} drift --format markdown`);
    expect(runText(drift)).toContain('exit "$code"');
  });

  test('the API key comes from the secret store into the environment, never onto a command line', () => {
    const raw = read(file);
    expect(raw.match(/secrets\.SVC_API_KEY/g)?.length).toBe(3);
    for (const id of ['plan', 'apply', 'drift']) {
      const job = yamlJob(file, id);
      expect(job.env?.SVC_API_KEY).toBe('${{ secrets.SVC_API_KEY }}');
      expect(runText(job)).not.toMatch(/SVC_API_KEY|secrets\./);
    }
  });
});

test('the parser is not a formality: a misspelt key and a bad expression are refused, with the line', async () => {
  const broken = read('github/svc-hcl.yml').replace('runs-on: ubuntu-latest', 'runs_on: ubuntu-latest').replace("github.event.action != 'closed'", 'github.event.action !=');
  const result = await parseGithubWorkflow('broken.yml', broken);
  expect(result.errors.join('\n')).toMatch(/Unexpected value 'runs_on'/);
  expect(result.errors.join('\n')).toMatch(/Line: \d+/);
});

describe.each(GITLAB_FLAVOURS)('$file', ({ file, svc }) => {
  type GitlabJob = { extends?: string; rules?: Array<{ if: string }>; script: string[]; artifacts?: { paths: string[] } };
  const document = () => parseYaml(read(file)) as Record<string, GitlabJob | unknown>;

  test('three jobs: plan in merge request pipelines, apply on the default branch, drift on a schedule', () => {
    const jobs = document();
    expect(Object.keys(jobs).filter((name) => name.startsWith('svc:'))).toEqual(['svc:plan', 'svc:apply', 'svc:drift']);
    const rule = (name: string) => (jobs[name] as GitlabJob).rules?.[0]?.if;
    expect(rule('svc:plan')).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(rule('svc:apply')).toContain('$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH');
    expect(rule('svc:drift')).toBe('$CI_PIPELINE_SOURCE == "schedule"');
  });

  test('plan keeps the saved plan and its commit as artifacts and posts the report; apply refuses a plan of another commit', () => {
    const jobs = document();
    const plan = jobs['svc:plan'] as GitlabJob;
    expect(plan.script.join('\n')).toContain(`${svc} plan-report tfplan --diagnostics plan-log.json --format markdown --fail-on error > plan-report.md`);
    expect(plan.artifacts?.paths).toEqual(['$TF_ROOT/tfplan', '$TF_ROOT/plan-commit.txt', '$TF_ROOT/plan-report.md']);
    const apply = (jobs['svc:apply'] as GitlabJob).script.join('\n');
    expect(apply).toContain('merged_head=$(git rev-parse HEAD^2)');
    expect(apply).toContain('test "$(cat plan-commit.txt)" = "$merged_head"');
    expect(apply).toContain('terraform apply -input=false tfplan');
    expect(apply).not.toMatch(/-auto-approve|terraform plan/);
    expect((jobs['svc:drift'] as GitlabJob).script.join('\n')).toContain(`${svc} drift --format markdown`);
    expect(read(file)).not.toMatch(/\$SVC_API_KEY|\$\{SVC_API_KEY\}/);
  });
});

test('the HCL root keeps its state in S3 with terraform\'s lock file', () => {
  const backend = read('hcl/backend.tf');
  expect(backend).toMatch(/backend "s3" \{/);
  expect(backend).toMatch(/use_lockfile = true/);
});
