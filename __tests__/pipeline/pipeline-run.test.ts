/**
 * examples/pipelines/github/svc-hcl.yml run as the GitHub runner would run it (issue 29): every
 * step of a job in order, each `run:` script with `bash --noprofile --norc -eo pipefail`, the
 * workflow's, job's and step's env, `${{ }}` expressions, GITHUB_PATH, GITHUB_ENV and
 * GITHUB_STEP_SUMMARY, the working directory; the `uses:` steps by what they do (checkout copies
 * the repository, cache save/restore keep files by key, github-script posts the report file as
 * the comment). Against the emulator, with the released provider and the released `svc`
 * executable (the run's release, release/support/shared-release.ts) served over real HTTPS: the template's own
 * install step downloads svc and checks it against the SHA256SUMS. PATH holds terraform and
 * the shell tools the steps use (curl, unzip, sha256sum, coreutils): no node.
 *
 * Local state instead of S3 (the checkout's backend.tf is replaced by a local backend whose state
 * file all jobs share, as the S3 object would be).
 *
 * examples/pipelines/gitlab/svc-hcl.gitlab-ci.yml runs the same way below, against the same
 * release site (see the comment above its describe).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ReleaseResult } from '../../scripts/release/build';
import { writeNetworkMirror, readRelease } from '../../scripts/release/static-sites';
import { zipArchive } from '../../scripts/release/zip';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { makeTestCertificateAuthority, serveStaticSite, type StaticSite, type TestCertificateAuthority } from '../release/support/https-site';
import { sharedRelease } from '../release/support/shared-release';
import { git, githubExpressions, mergedRepository, runScript, startGitlabApi, substitute, toolsDirectory as linkTools, type GitlabApiStandIn } from './support/ci-runner';

const BUILD_TIMEOUT_MS = 10 * 60_000;
const JOB_TIMEOUT_MS = 4 * 60_000;
const TENANT = 'pipeline-run';
const WORKFLOW = path.join(__dirname, '..', '..', 'examples', 'pipelines', 'github', 'svc-hcl.yml');
const HCL_ROOT = path.join(__dirname, '..', '..', 'examples', 'pipelines', 'hcl');
/** The executables the run steps call besides terraform and svc (the install step downloads svc itself); echo, printf, test and [ are bash's builtins. */
const SHELL_TOOLS = ['bash', 'sh', 'cat', 'mkdir', 'rm', 'cp', 'curl', 'unzip', 'sha256sum'];

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
  readonly 'working-directory'?: string;
}
interface Job {
  readonly env?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly env: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

interface JobRun {
  readonly code: number;
  /** Each step's name (or uses) and output, in order, up to the one that failed. */
  readonly log: string;
  readonly summary: string;
  /** The comment github-script would have posted (the report file it reads). */
  readonly comment?: string;
}

let scratch: string;
let release: ReleaseResult;
let authority: TestCertificateAuthority;
let site: StaticSite;
let emulator: AcceptanceEmulator;
let toolsDirectory: string;
let stateFile: string;
const cache = new Map<string, Buffer>();
const workflow = parseYaml(fs.readFileSync(WORKFLOW, 'utf8')) as Workflow;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-run-'));
  // The run's release (every platform; built once per run and shared read-only): the site below takes copies.
  release = (await sharedRelease()).release;
  authority = makeTestCertificateAuthority(path.join(scratch, 'ca'));
  const siteRoot = path.join(scratch, 'site');
  fs.mkdirSync(path.join(siteRoot, 'releases'), { recursive: true });
  for (const file of fs.readdirSync(release.outDir)) fs.copyFileSync(path.join(release.outDir, file), path.join(siteRoot, 'releases', file));
  writeNetworkMirror({ release: readRelease(release.outDir), outDir: path.join(siteRoot, 'mirror') });
  site = await serveStaticSite(siteRoot, authority);
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
  toolsDirectory = linkTools(path.join(scratch, 'tools'), ['terraform', ...SHELL_TOOLS]);
  stateFile = path.join(scratch, 'state', 'security-policy.tfstate');
  fs.mkdirSync(path.dirname(stateFile));
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await site?.close();
  await emulator?.stop();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The values of the expressions the workflow uses; any other expression fails the run. */
function expressions(context: { headSha: string; env: Record<string, string>; workspace: string }): (expression: string) => string {
  const known: Record<string, string> = {
    'vars.SVC_BASE_URL': emulator.url,
    'vars.SVC_TENANT': TENANT,
    'vars.SVC_PROVIDER_MIRROR': `${site.url}/mirror/`,
    'vars.SVC_RELEASES': `${site.url}/releases/`,
    'vars.AWS_STATE_ROLE': 'arn:aws:iam::123456789012:role/state',
    'secrets.SVC_API_KEY': emulator.apiKey,
    'github.event.pull_request.head.sha': context.headSha,
    'github.workspace': context.workspace,
  };
  return githubExpressions(known, context.env);
}

/** The checkout: the HCL root at the path the workflow names, its S3 backend replaced by the shared local state. */
function checkout(workspace: string, root: string, sources: Readonly<Record<string, string>>): void {
  const target = path.join(workspace, root);
  fs.mkdirSync(target, { recursive: true });
  for (const file of fs.readdirSync(HCL_ROOT)) fs.copyFileSync(path.join(HCL_ROOT, file), path.join(target, file));
  for (const [file, text] of Object.entries(sources)) fs.writeFileSync(path.join(target, file), text);
  fs.writeFileSync(path.join(target, 'backend.tf'), `terraform {\n  backend "local" {\n    path = ${JSON.stringify(stateFile)}\n  }\n}\n`);
}

/** Runs one job of the workflow on the given commit (its HCL files: the example's, with `sources` laid over). */
async function runJob(id: string, options: { headSha: string; sources?: Readonly<Record<string, string>> }): Promise<JobRun> {
  const job = workflow.jobs[id];
  const workspace = fs.mkdtempSync(path.join(scratch, `${id}-`));
  const runnerTemp = fs.mkdtempSync(path.join(scratch, `${id}-temp-`));
  const files = { path: path.join(runnerTemp, 'github_path'), env: path.join(runnerTemp, 'github_env'), summary: path.join(runnerTemp, 'summary.md') };
  for (const file of Object.values(files)) fs.writeFileSync(file, '');
  let extraPath: string[] = [];
  const env: Record<string, string> = {};
  const evaluate = expressions({ headSha: options.headSha, env, workspace });
  for (const [name, value] of Object.entries({ ...workflow.env, ...job.env })) env[name] = substitute(String(value), evaluate);
  const log: string[] = [];
  let comment: string | undefined;

  for (const step of job.steps) {
    const label = step.name ?? step.uses ?? 'run';
    const stepEnv: Record<string, string> = { ...env };
    for (const [name, value] of Object.entries(step.env ?? {})) stepEnv[name] = substitute(String(value), evaluate);
    const withValue = (name: string) => substitute(String(step.with?.[name] ?? ''), expressions({ headSha: options.headSha, env: stepEnv, workspace }));
    if (step.uses !== undefined) {
      const action = step.uses.replace(/@.*/, '');
      if (action === 'actions/checkout') checkout(workspace, env.TF_ROOT, options.sources ?? {});
      else if (action === 'actions/cache/save') cache.set(withValue('key'), fs.readFileSync(path.join(workspace, withValue('path'))));
      else if (action === 'actions/cache/restore') {
        const saved = cache.get(withValue('key'));
        if (saved === undefined) {
          log.push(`${label}: cache miss for ${withValue('key')}`);
          if (step.with?.['fail-on-cache-miss'] === true) return { code: 1, log: log.join('\n'), summary: '' };
        } else {
          fs.mkdirSync(path.dirname(path.join(workspace, withValue('path'))), { recursive: true });
          fs.writeFileSync(path.join(workspace, withValue('path')), saved);
        }
      } else if (action === 'actions/github-script') {
        const script = withValue('script');
        const reportFile = /readFileSync\(`\$\{process\.env\.TF_ROOT\}\/([^`]+)`/.exec(script)?.[1];
        if (reportFile === undefined) throw new Error(`the github-script step reads no report file the test recognises:\n${script}`);
        comment = fs.readFileSync(path.join(workspace, env.TF_ROOT, reportFile), 'utf8');
      } else if (action !== 'hashicorp/setup-terraform' && action !== 'aws-actions/configure-aws-credentials') {
        throw new Error(`the workflow uses ${step.uses}, which this test does not emulate`);
      }
      log.push(`${label}: done`);
      continue;
    }
    const script = substitute(step.run ?? '', expressions({ headSha: options.headSha, env: stepEnv, workspace }));
    const scriptFile = path.join(runnerTemp, 'step.sh');
    fs.writeFileSync(scriptFile, script);
    const cwd = step['working-directory'] === undefined ? workspace : path.join(workspace, substitute(step['working-directory'], evaluate));
    const result = await runScript(
      scriptFile,
      cwd,
      {
        ...stepEnv,
        PATH: [...extraPath, toolsDirectory].join(':'),
        HOME: runnerTemp,
        RUNNER_TEMP: runnerTemp,
        GITHUB_WORKSPACE: workspace,
        GITHUB_PATH: files.path,
        GITHUB_ENV: files.env,
        GITHUB_STEP_SUMMARY: files.summary,
        SSL_CERT_FILE: authority.caFile,
      },
      JOB_TIMEOUT_MS,
    );
    log.push(`${label}: exit ${result.status}\n${result.output}`);
    if (result.status !== 0) return { code: result.status, log: log.join('\n'), summary: fs.readFileSync(files.summary, 'utf8'), ...(comment === undefined ? {} : { comment }) };
    extraPath = fs.readFileSync(files.path, 'utf8').split('\n').filter(Boolean).reverse();
    for (const line of fs.readFileSync(files.env, 'utf8').split('\n').filter(Boolean)) env[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return { code: 0, log: log.join('\n'), summary: fs.readFileSync(files.summary, 'utf8'), ...(comment === undefined ? {} : { comment }) };
}

const listed = async () => (await emulator.client(TENANT).listEntries('blacklist')).map((entry) => `${entry.ip} ${entry.description}`).sort();
const expectSuccess = (run: JobRun) => expect({ code: run.code, log: run.code === 0 ? '' : run.log }).toEqual({ code: 0, log: '' });

test('no node on the PATH the steps get', () => {
  expect(fs.existsSync(path.join(toolsDirectory, 'node'))).toBe(false);
  expect(fs.readdirSync(toolsDirectory)).toContain('terraform');
});

/** The example's main.tf with the blacklist entry renamed: the second pull request, planned beside the first and stale once the first is applied. */
const renamed = () => ({ 'main.tf': fs.readFileSync(path.join(HCL_ROOT, 'main.tf'), 'utf8').replace('"port scanner"', '"port scanner (seen again)"') });

test(
  'plan on two pull requests: each saved plan is kept and svc plan-report is each comment; nothing changes on the service',
  async () => {
    const run = await runJob('plan', { headSha: 'a1'.repeat(20) });
    expectSuccess(run);
    expect(run.log).toContain('Install the svc command and the provider installation: exit 0');
    expect(run.comment).toBeDefined();
    expect(run.comment).toContain('203.0.113.9');
    expect(run.comment).toContain('198.51.100.0/24');
    expect(run.comment!.length).toBeLessThan(60_000);
    expect(run.log).not.toContain(emulator.apiKey);
    expect(cache.has(`svc-tfplan-${'a1'.repeat(20)}`)).toBe(true);

    // A second pull request planned against the same state: its plan goes stale when the first is applied (below).
    const second = await runJob('plan', { headSha: 'c3'.repeat(20), sources: renamed() });
    expectSuccess(second);
    expect(second.comment).toContain('port scanner (seen again)');
    expect(cache.has(`svc-tfplan-${'c3'.repeat(20)}`)).toBe(true);
    expect(await listed()).toEqual([]);
  },
  2 * JOB_TIMEOUT_MS,
);

test(
  'apply on merge: exactly the saved plan of the merged head commit',
  async () => {
    expect(await listed()).toEqual([]);
    const run = await runJob('apply', { headSha: 'a1'.repeat(20) });
    expectSuccess(run);
    expect(run.log).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect(await listed()).toEqual(['203.0.113.9 port scanner']);
  },
  JOB_TIMEOUT_MS,
);

test(
  'apply refuses a merged commit that has no saved plan, and a stale plan (the state moved after it was made)',
  async () => {
    const missing = await runJob('apply', { headSha: 'b2'.repeat(20) });
    expect(missing.code).toBe(1);
    expect(missing.log).toContain(`cache miss for svc-tfplan-${'b2'.repeat(20)}`);

    // The second pull request's plan, made before the first was applied: the state has moved since.
    const stale = await runJob('apply', { headSha: 'c3'.repeat(20), sources: renamed() });
    expect(stale.code).toBe(1);
    expect(stale.log).toMatch(/Saved plan is stale/);
    expect(await listed()).toEqual(['203.0.113.9 port scanner']);
  },
  2 * JOB_TIMEOUT_MS,
);

test(
  'scheduled drift: clean exits 0; an entry removed in the console fails the job with exit 2 and the report names it',
  async () => {
    const clean = await runJob('drift', { headSha: 'e5'.repeat(20) });
    expectSuccess(clean);
    const client = emulator.client(TENANT);
    const [entry] = await client.listEntries('blacklist');
    await client.deleteEntry('blacklist', entry.ip);
    const drifted = await runJob('drift', { headSha: 'e5'.repeat(20) });
    expect(drifted.code).toBe(2);
    expect(drifted.summary).toContain('203.0.113.9');
    expect(drifted.log).not.toContain(emulator.apiKey);
  },
  2 * JOB_TIMEOUT_MS,
);

/*
 * examples/pipelines/gitlab/svc-hcl.gitlab-ci.yml run as the GitLab runner runs a job: the job's
 * `before_script` and `script` lines (after `extends`) in order in one bash session with
 * `-eo pipefail`, the file's `variables` and the CI/CD variables in the environment, in a clone
 * of a git repository whose default branch got the merge request by a merge commit (the apply
 * job reads HEAD^2). A stand-in for the GitLab API on loopback takes the merge request note,
 * answers which merge request a commit merged, and serves the plan job's artifacts as GitLab
 * does (a zip of its `artifacts.paths`). The image's package line (`apk add curl`) is the
 * image's: the tools are on PATH. Its own tenant and state file, apart from the GitHub runs.
 */
describe('the GitLab CI file, plain HCL', () => {
  const GITLAB_FILE = path.join(__dirname, '..', '..', 'examples', 'pipelines', 'gitlab', 'svc-hcl.gitlab-ci.yml');
  const GITLAB_TENANT = 'pipeline-run-gitlab';
  /** What the GitLab jobs call besides the GitHub steps' tools: the apply job reads git and the API's JSON with grep. */
  const GITLAB_TOOLS = ['git', 'grep', 'cut', 'head'];

  interface GitlabJob {
    readonly extends?: string;
    readonly before_script?: readonly string[];
    readonly script: readonly string[];
    readonly artifacts?: { readonly paths: readonly string[] };
  }
  const gitlab = parseYaml(fs.readFileSync(GITLAB_FILE, 'utf8')) as { variables: Record<string, string> } & Record<string, GitlabJob>;

  const TOKENS = { noteToken: 'note-token', jobToken: 'job-token' };
  let gitlabEmulator: AcceptanceEmulator;
  let api: GitlabApiStandIn;
  let gitlabState: string;
  /** The second merge request the first test plans, whose plan the second test finds stale. */
  let second: { repository: string; head: string; merge: string };

  /** A repository whose default branch merged merge request `iid` (the example's HCL with `sources` laid over) by a merge commit. */
  function mergeRequest(iid: number, sources: Readonly<Record<string, string>> = {}): { repository: string; head: string; merge: string } {
    const repository = path.join(scratch, `gitlab-repository-${iid}`);
    const files: Record<string, string> = {};
    for (const file of fs.readdirSync(HCL_ROOT)) files[file] = fs.readFileSync(path.join(HCL_ROOT, file), 'utf8');
    Object.assign(files, sources, { 'backend.tf': `terraform {\n  backend "local" {\n    path = ${JSON.stringify(gitlabState)}\n  }\n}\n` });
    const inRoot = Object.fromEntries(Object.entries(files).map(([file, text]) => [path.posix.join(gitlab.variables.TF_ROOT, file), text]));
    const commits = mergedRepository(repository, iid, inRoot, scratch);
    api.mergedBy.set(commits.merge, iid);
    return { repository, ...commits };
  }

  /** The job after `extends`: the template's keys, the job's own over them. */
  function resolved(name: string): GitlabJob {
    const job = gitlab[name];
    return job.extends === undefined ? job : { ...gitlab[job.extends], ...job };
  }

  async function runGitlabJob(name: string, options: { repository: string; sha: string; source: string; iid?: number }): Promise<JobRun> {
    const job = resolved(name);
    const projectDir = fs.mkdtempSync(path.join(scratch, `gitlab-${name.replace(':', '-')}-`));
    git(['clone', '-q', options.repository, projectDir], scratch, scratch);
    git(['checkout', '-q', options.sha], projectDir, scratch);
    const home = fs.mkdtempSync(path.join(scratch, 'gitlab-home-'));
    const lines = [...(job.before_script ?? []), ...job.script].map((line) => (/^apk add /.test(line) ? `# the image's: ${line}` : line));
    const scriptFile = path.join(home, 'job.sh');
    fs.writeFileSync(scriptFile, `${lines.join('\n')}\n`);
    const result = await runScript(
      scriptFile,
      projectDir,
      {
        ...gitlab.variables,
        SVC_BASE_URL: gitlabEmulator.url,
        SVC_TENANT: GITLAB_TENANT,
        SVC_PROVIDER_MIRROR: `${site.url}/mirror/`,
        SVC_RELEASES: `${site.url}/releases/`,
        SVC_API_KEY: gitlabEmulator.apiKey,
        SVC_NOTE_TOKEN: TOKENS.noteToken,
        ...api.jobVariables({ projectDir, sha: options.sha, source: options.source, iid: options.iid }),
        PATH: toolsDirectory,
        HOME: home,
        SSL_CERT_FILE: authority.caFile,
      },
      JOB_TIMEOUT_MS,
    );
    // GitLab keeps the job's artifacts.paths (also of a failed job, with `when: always`).
    if (options.iid !== undefined && job.artifacts !== undefined && result.status === 0) {
      const entries = job.artifacts.paths
        .map((entry) => entry.replace('$TF_ROOT', gitlab.variables.TF_ROOT))
        .filter((entry) => fs.existsSync(path.join(projectDir, entry)))
        .map((entry) => ({ name: entry, data: fs.readFileSync(path.join(projectDir, entry)) }));
      api.artifacts.set(options.iid, zipArchive(entries, 1_700_000_000));
    }
    const reportFile = path.join(projectDir, gitlab.variables.TF_ROOT, 'drift.md');
    return { code: result.status, log: result.output, summary: fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : '' };
  }

  beforeAll(async () => {
    linkTools(toolsDirectory, GITLAB_TOOLS);
    gitlabEmulator = await startAcceptanceEmulator({ tenants: [GITLAB_TENANT] });
    api = await startGitlabApi(TOKENS);
    gitlabState = path.join(scratch, 'gitlab-state', 'security-policy.tfstate');
    fs.mkdirSync(path.dirname(gitlabState), { recursive: true });
  });

  afterAll(async () => {
    await api?.close();
    await gitlabEmulator?.stop();
  });

  const gitlabListed = async () => (await gitlabEmulator.client(GITLAB_TENANT).listEntries('blacklist')).map((entry) => `${entry.ip} ${entry.description}`).sort();

  test(
    'svc:plan on two merge requests posts svc plan-report as each note and keeps the saved plans; svc:apply after the first merge applies exactly its plan',
    async () => {
      const first = mergeRequest(1);
      const plan = await runGitlabJob('svc:plan', { repository: first.repository, sha: first.head, source: 'merge_request_event', iid: 1 });
      expectSuccess(plan);
      expect(api.notes.get(1)).toContain('203.0.113.9');
      expect(api.notes.get(1)).toContain('198.51.100.0/24');
      expect(plan.log).not.toContain(gitlabEmulator.apiKey);
      // A second merge request planned against the same state: its plan goes stale when the first is applied (below).
      second = mergeRequest(2, renamed());
      expectSuccess(await runGitlabJob('svc:plan', { repository: second.repository, sha: second.head, source: 'merge_request_event', iid: 2 }));
      expect(api.notes.get(2)).toContain('port scanner (seen again)');
      expect(await gitlabListed()).toEqual([]);

      const apply = await runGitlabJob('svc:apply', { repository: first.repository, sha: first.merge, source: 'push' });
      expectSuccess(apply);
      expect(apply.log).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
      expect(await gitlabListed()).toEqual(['203.0.113.9 port scanner']);
    },
    3 * JOB_TIMEOUT_MS,
  );

  test(
    'svc:apply refuses a commit that merged no merge request, and a stale plan (the state moved after it was made)',
    async () => {
      // A merge commit the API ties to no merge request (pushed straight to the default branch).
      const unreviewed = mergeRequest(3);
      api.mergedBy.delete(unreviewed.merge);
      const direct = await runGitlabJob('svc:apply', { repository: unreviewed.repository, sha: unreviewed.merge, source: 'push' });
      expect(direct.code).toBe(1);
      expect(direct.log).toContain(`no merge request merged in ${unreviewed.merge}, so nothing reviewed to apply`);

      // Merge request 2's plan, made before merge request 1 was applied: the state has moved since.
      const refused = await runGitlabJob('svc:apply', { repository: second.repository, sha: second.merge, source: 'push' });
      expect(refused.code).toBe(1);
      expect(refused.log).toMatch(/Saved plan is stale/);
      expect(await gitlabListed()).toEqual(['203.0.113.9 port scanner']);
    },
    2 * JOB_TIMEOUT_MS,
  );

  test(
    'svc:drift on a schedule: clean exits 0; an entry removed in the console fails the job with exit 2 and drift.md names it',
    async () => {
      const current = mergeRequest(4);
      expectSuccess(await runGitlabJob('svc:drift', { repository: current.repository, sha: current.merge, source: 'schedule' }));
      const client = gitlabEmulator.client(GITLAB_TENANT);
      await client.deleteEntry('blacklist', '203.0.113.9');
      const drifted = await runGitlabJob('svc:drift', { repository: current.repository, sha: current.merge, source: 'schedule' });
      expect(drifted.code).toBe(2);
      expect(drifted.summary).toContain('203.0.113.9');
      expect(drifted.log).not.toContain(gitlabEmulator.apiKey);
    },
    2 * JOB_TIMEOUT_MS,
  );
});
