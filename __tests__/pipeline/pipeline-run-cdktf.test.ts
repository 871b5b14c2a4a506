/**
 * The cdktf flavours of examples/pipelines (issue 29) run as their runners would, like
 * pipeline-run.test.ts runs the HCL ones: github/svc-cdktf.yml step by step (bash
 * `-eo pipefail`, the workflow's, job's and step's env, `${{ }}` expressions, GITHUB_ENV and
 * GITHUB_STEP_SUMMARY, the working directories; the `uses:` steps by what they do) and
 * gitlab/svc-cdktf.gitlab-ci.yml job by job (`before_script` and `script` in one bash session, in
 * a clone of a repository whose default branch merged the merge request by a merge commit, with a
 * stand-in for the GitLab API). Every shell line of the templates runs as written, `npm ci` and
 * `npx cdktf synth` included, against the emulator.
 *
 * The project in the checkout is another team's cdktf project: package.json and package-lock.json
 * of svc-prevent installed from this run's packed tarball (../library/support.ts) with cdktf,
 * constructs and cdktf-cli, a cdktf.json, an entry file and a small program using SecurityPolicy
 * whose stack has a local backend (state in this test's scratch directory, shared by the jobs of
 * one flavour as the S3 object would be; the templates say S3 with use_lockfile).
 *
 * What stands in for the runner's machine, and why:
 * - `npm ci` runs with `npm_config_offline=true`: the jobs have no network, so npm installs the
 *   lock from the npm cache this machine's `npm ci` filled. The templates' cache of it (GitHub's
 *   setup-node `cache: npm`, GitLab's `cache: paths: [.npm/]`) is restored as a link to an npm
 *   cache of this run whose packages (`_cacache`) are that cache's.
 * - cdktf-cli's terminal addon is compiled once per run, not once per job
 *   (support/terminal-addon.ts): the first job whose `npm ci` compiles it (below: no prebuilt
 *   binary for this Node) leaves its build in the run's npm cache as prebuild-install's cache
 *   entry (`_prebuilds/`), and the package's install script (`check-prebuild.js ||
 *   prebuild-install || install.js`) takes it there in every later job, as it would from a
 *   runner's restored npm cache holding that entry. That is the test's shortcut, not what a
 *   runner does: prebuild-install writes the entry only for a download, and there is none for
 *   this Node, so on a runner every job compiles. The first job compiles as a runner's does, and
 *   the first test checks which way each job's `npm ci` went.
 * - the GitLab image's lines (`apt-get install unzip`, the terraform download from
 *   releases.hashicorp.com) are the image's: unzip and terraform are on PATH. Nothing else is
 *   skipped, and the test checks that these are the only two lines left out.
 * - PATH holds node, npm and npx (setup-node), terraform (setup-terraform) and the shell tools
 *   the lines call, then the machine's /usr/bin and /bin: the runner images (GitHub's ubuntu,
 *   GitLab's node:24-bookworm) carry python3, make and g++, and `npm ci` needs them on Node 24
 *   and later, where cdktf-cli's terminal addon has no prebuilt binary and its install script
 *   builds it with node-gyp. node-gyp would download Node's headers from nodejs.org; the jobs
 *   have no network, so `npm_config_nodedir` names the headers that ship beside this node
 *   binary (the npm registry's node-linux-* packages carry them). TF_CLI_CONFIG_FILE is an empty file (the stack's provider comes
 *   from the package's mirror, linked into it at synth).
 *
 * Each flavour runs each of its jobs: a pull/merge request planned (the report as the comment or
 * note, the saved plan kept) and applied after merge, the apply job re-run on the same merge and
 * refusing the plan as stale, and the scheduled drift job clean, then failing with exit 2 after
 * an entry is removed through the emulator. Each flavour has its own tenant and state. (A second
 * request planned beside the first and refused once the first is applied is pipeline-run.test.ts's
 * story for both CI systems; here it took two more jobs, each an `npm ci` and a synth, for the
 * same apply lines and the same refusal.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { zipArchive } from '../../scripts/release/zip';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { packedLibrary, writeConsumerManifests } from '../library/support';
import { git, githubExpressions, mergedRepository, runScript, startGitlabApi, substitute, toolsDirectory, type GitlabApiStandIn } from './support/ci-runner';
import { addonSource, keepCompiledAddon, LOOPBACK_BINARY_HOST, runnerNpmCache, type AddonSource } from './support/terminal-addon';

const SETUP_TIMEOUT_MS = 10 * 60_000;
const JOB_TIMEOUT_MS = 4 * 60_000;
const EXAMPLES = path.join(__dirname, '..', '..', 'examples', 'pipelines');
/** What the jobs' lines call besides bash's builtins: node and npm (setup-node), terraform, the shell tools; git, curl and unzip for GitLab's apply. */
const TOOLS = ['bash', 'sh', 'node', 'npm', 'npx', 'terraform', 'cat', 'mkdir', 'rm', 'cp', 'git', 'grep', 'cut', 'head', 'curl', 'unzip'];
/** The prefix of the node running the suite (<prefix>/bin/node), where its headers are when it ships them. */
const NODE_PREFIX = path.resolve(process.execPath, '..', '..');
const ENTRY_FILE = 'entries:\n  - ip: 203.0.113.9\n    description: port scanner\n';

/** The team's program: SecurityPolicy on the svc provider (SVC_BASE_URL, SVC_TENANT and SVC_API_KEY from the job), state in `stateFile`. */
const program = (stateFile: string) => `const { App, LocalBackend, TerraformStack } = require('cdktf');
const { SvcProvider, prepareStacksForSvcProvider } = require('svc-prevent/provider');
const { SecurityPolicy } = require('svc-prevent/security-policy');

const app = new App();
const policy = new TerraformStack(app, 'policy');
new LocalBackend(policy, { path: ${JSON.stringify(stateFile)} });
new SecurityPolicy(policy, 'security-policy', {
  provider: new SvcProvider(policy, 'svc', {}),
  blacklist: { files: ['policy/blacklist.yaml'] },
  whitelist: { entries: [{ ip: '198.51.100.0/24', description: 'head office' }] },
});
app.synth();
prepareStacksForSvcProvider(app.outdir);
`;
const CDKTF_JSON = `${JSON.stringify({ language: 'javascript', app: 'node main.js', projectId: 'team-project', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} }, null, 2)}\n`;

interface JobRun {
  readonly code: number;
  readonly log: string;
  /** GitHub: the step summary; GitLab: the drift job's drift.md. */
  readonly summary: string;
  /** GitHub: the comment github-script would have posted. */
  readonly comment?: string;
  /** How the job's `npm ci` got cdktf-cli's terminal addon (support/terminal-addon.ts). */
  readonly addon?: AddonSource;
}

let scratch: string;
let tools: string;
/** The npm cache the jobs' cache steps restore (see the header). */
let npmCache: string;
/** The run's one compiled addon, as prebuild-install's cache entry in npmCache; undefined until a job compiles it. */
let keptAddon: string | undefined;
let emptyCliConfig: string;
/** package.json and package-lock.json of the team's project (svc-prevent from the tarball, cdktf, constructs, cdktf-cli). */
let manifests: Record<string, string>;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-run-cdktf-'));
  const library = await packedLibrary();
  // Every checkout is a direct child of `scratch`, like this project, so the lock's relative
  // `file:` path to the tarball holds in each of them. Written, not installed: the jobs install.
  const project = path.join(scratch, 'team-project');
  writeConsumerManifests(project, library, { npmPeers: ['cdktf', 'constructs', 'cdktf-cli'] });
  manifests = Object.fromEntries(['package.json', 'package-lock.json'].map((file) => [file, fs.readFileSync(path.join(project, file), 'utf8')]));
  fs.rmSync(project, { recursive: true, force: true });
  tools = toolsDirectory(path.join(scratch, 'tools'), TOOLS);
  npmCache = runnerNpmCache(path.join(scratch, 'npm-cache'), spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim());
  emptyCliConfig = path.join(scratch, 'empty.terraform.rc');
  fs.writeFileSync(emptyCliConfig, '');
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The team's repository: its files, path -> content. */
const projectFiles = (stateFile: string): Record<string, string> => ({
  ...manifests,
  'cdktf.json': CDKTF_JSON,
  'main.js': program(stateFile),
  'policy/blacklist.yaml': ENTRY_FILE,
  '.gitignore': 'node_modules/\ncdktf.out/\n.npm/\n',
});

/** What every job's environment has besides the template's own variables (see the header). */
const machineEnvironment = (home: string) => ({
  PATH: `${tools}:/usr/bin:/bin`,
  HOME: home,
  TF_CLI_CONFIG_FILE: emptyCliConfig,
  npm_config_offline: 'true',
  ...(fs.existsSync(path.join(NODE_PREFIX, 'include', 'node', 'node.h')) ? { npm_config_nodedir: NODE_PREFIX } : {}),
  npm_config_update_notifier: 'false',
  ...LOOPBACK_BINARY_HOST,
});

/** After a job: which way its `npm ci` got the addon; the first one compiled is kept for the later jobs. */
function noteAddon(checkout: string): AddonSource | undefined {
  const addon = addonSource(checkout);
  if (addon === 'compiled' && keptAddon === undefined) keptAddon = keepCompiledAddon(checkout, npmCache);
  return addon;
}

/**
 * A job's directories, removed when it ends: a checkout's node_modules is 440 MB in 18,000 files,
 * and the jobs' left to the file's afterAll made that its slowest step under load.
 */
async function removeJobDirectories(...directories: readonly string[]): Promise<void> {
  for (const directory of directories) await fs.promises.rm(directory, { recursive: true, force: true });
}

const expectSuccess = (run: JobRun) => expect({ code: run.code, log: run.code === 0 ? '' : run.log }).toEqual({ code: 0, log: '' });
const listed = async (emulator: AcceptanceEmulator, tenant: string) =>
  (await emulator.client(tenant).listEntries('blacklist')).map((entry) => `${entry.ip} ${entry.description}`).sort();

describe('the GitHub workflow, cdktf project', () => {
  const TENANT = 'pipeline-run-cdktf';
  interface Step {
    readonly name?: string;
    readonly uses?: string;
    readonly run?: string;
    readonly with?: Record<string, unknown>;
    readonly env?: Record<string, string>;
    readonly 'working-directory'?: string;
  }
  const workflow = parseYaml(fs.readFileSync(path.join(EXAMPLES, 'github', 'svc-cdktf.yml'), 'utf8')) as {
    env: Record<string, string>;
    jobs: Record<string, { env?: Record<string, string>; steps: readonly Step[] }>;
  };
  const cache = new Map<string, Buffer>();
  let emulator: AcceptanceEmulator;
  let stateFile: string;

  beforeAll(async () => {
    emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
    stateFile = path.join(scratch, 'github-state', 'policy.tfstate');
    fs.mkdirSync(path.dirname(stateFile));
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  function expressions(context: { headSha: string; env: Record<string, string> }): (expression: string) => string {
    const known: Record<string, string> = {
      'vars.SVC_BASE_URL': emulator.url,
      'vars.SVC_TENANT': TENANT,
      'vars.AWS_STATE_ROLE': 'arn:aws:iam::123456789012:role/state',
      'secrets.SVC_API_KEY': emulator.apiKey,
      'github.event.pull_request.head.sha': context.headSha,
    };
    return githubExpressions(known, context.env);
  }

  /** Runs one job of the workflow on the pull request whose head commit is `headSha`. */
  async function runJob(id: string, options: { headSha: string }): Promise<JobRun> {
    const workspace = fs.mkdtempSync(path.join(scratch, `github-${id}-`));
    const runnerTemp = fs.mkdtempSync(path.join(scratch, `github-${id}-temp-`));
    try {
      const run = await runSteps(id, options, workspace, runnerTemp);
      return { ...run, addon: noteAddon(workspace) };
    } finally {
      await removeJobDirectories(workspace, runnerTemp);
    }
  }

  /** The job's steps in `workspace`, with `runnerTemp` as RUNNER_TEMP and HOME. */
  async function runSteps(id: string, options: { headSha: string }, workspace: string, runnerTemp: string): Promise<JobRun> {
    const job = workflow.jobs[id];
    const files = { env: path.join(runnerTemp, 'github_env'), summary: path.join(runnerTemp, 'summary.md') };
    for (const file of Object.values(files)) fs.writeFileSync(file, '');
    const env: Record<string, string> = {};
    const evaluate = expressions({ headSha: options.headSha, env });
    for (const [name, value] of Object.entries({ ...workflow.env, ...job.env })) env[name] = substitute(String(value), evaluate);
    const log: string[] = [];
    let comment: string | undefined;
    const finished = (code: number): JobRun => ({ code, log: log.join('\n'), summary: fs.readFileSync(files.summary, 'utf8'), ...(comment === undefined ? {} : { comment }) });

    for (const step of job.steps) {
      const label = step.name ?? step.uses ?? 'run';
      const stepEnv: Record<string, string> = { ...env };
      for (const [name, value] of Object.entries(step.env ?? {})) stepEnv[name] = substitute(String(value), evaluate);
      const stepEvaluate = expressions({ headSha: options.headSha, env: stepEnv });
      const withValue = (name: string) => substitute(String(step.with?.[name] ?? ''), stepEvaluate);
      if (step.uses !== undefined) {
        const action = step.uses.replace(/@.*/, '');
        if (action === 'actions/checkout') {
          for (const [file, text] of Object.entries(projectFiles(stateFile))) {
            fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
            fs.writeFileSync(path.join(workspace, file), text);
          }
        } else if (action === 'actions/setup-node') {
          // node is on PATH; `cache: npm` restores ~/.npm.
          if (withValue('cache') === 'npm') fs.symlinkSync(npmCache, path.join(runnerTemp, '.npm'), 'dir');
        } else if (action === 'actions/cache/save') {
          cache.set(withValue('key'), fs.readFileSync(path.join(workspace, withValue('path'))));
        } else if (action === 'actions/cache/restore') {
          const saved = cache.get(withValue('key'));
          if (saved === undefined) {
            log.push(`${label}: cache miss for ${withValue('key')}`);
            if (step.with?.['fail-on-cache-miss'] === true) return finished(1);
          } else {
            fs.writeFileSync(path.join(workspace, withValue('path')), saved);
          }
        } else if (action === 'actions/github-script') {
          const reportFile = /readFileSync\(`([^`]+)`/.exec(withValue('script'))?.[1];
          if (reportFile === undefined) throw new Error(`the github-script step reads no report file the test recognises:\n${withValue('script')}`);
          comment = fs.readFileSync(path.join(workspace, reportFile.replace('${process.env.STACK}', env.STACK)), 'utf8');
        } else if (action !== 'hashicorp/setup-terraform' && action !== 'aws-actions/configure-aws-credentials') {
          throw new Error(`the workflow uses ${step.uses}, which this test does not emulate`);
        }
        log.push(`${label}: done`);
        continue;
      }
      const scriptFile = path.join(runnerTemp, 'step.sh');
      fs.writeFileSync(scriptFile, substitute(step.run ?? '', stepEvaluate));
      const cwd = step['working-directory'] === undefined ? workspace : path.join(workspace, substitute(step['working-directory'], evaluate));
      const result = await runScript(
        scriptFile,
        cwd,
        { ...stepEnv, ...machineEnvironment(runnerTemp), RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: workspace, GITHUB_ENV: files.env, GITHUB_STEP_SUMMARY: files.summary },
        JOB_TIMEOUT_MS,
      );
      log.push(`${label}: exit ${result.status}\n${result.output}`);
      if (result.status !== 0) return finished(result.status);
      for (const line of fs.readFileSync(files.env, 'utf8').split('\n').filter(Boolean)) env[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
    return finished(0);
  }

  test(
    'plan on a pull request: npm ci (the file\'s first compiles cdktf-cli\'s terminal addon) and cdktf synth, the saved plan kept, svc plan-report as the comment; nothing changes on the service',
    async () => {
      const first = await runJob('plan', { headSha: 'a1'.repeat(20) });
      expectSuccess(first);
      expect(first.log).toContain('Generated Terraform code for the stacks: policy');
      expect(first.comment).toContain('203.0.113.9');
      expect(first.comment).toContain('198.51.100.0/24');
      expect(first.log).not.toContain(emulator.apiKey);
      expect(cache.has(`svc-tfplan-${'a1'.repeat(20)}`)).toBe(true);
      // The file's first job: node-gyp builds the addon (the path every runner takes); a Node the
      // package ships a prebuild for needs no build.
      expect(['compiled', 'shipped prebuild']).toContain(first.addon);
      expect(await listed(emulator, TENANT)).toEqual([]);
    },
    JOB_TIMEOUT_MS,
  );

  test(
    'apply on merge: exactly the saved plan of the merged head commit (npm ci takes the addon the plan job compiled from the npm cache); a re-run finds that plan stale and refuses it',
    async () => {
      const compiledBefore = keptAddon !== undefined;
      const apply = await runJob('apply', { headSha: 'a1'.repeat(20) });
      expectSuccess(apply);
      expect(apply.log).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
      expect(await listed(emulator, TENANT)).toEqual(['203.0.113.9 port scanner']);

      // The job re-run on the same merge: its saved plan was made against the state before the apply above.
      // (pipeline-run.test.ts refuses a second pull request's plan the same way, for both CI systems.)
      const stale = await runJob('apply', { headSha: 'a1'.repeat(20) });
      expect(stale.code).toBe(1);
      expect(stale.log).toMatch(/Saved plan is stale/);
      expect(await listed(emulator, TENANT)).toEqual(['203.0.113.9 port scanner']);
      expect((await emulator.client(TENANT).listEntries('whitelist')).map((entry) => entry.description)).toEqual(['head office']);
      // After a job that compiled the addon (the plan job, or this apply when the test runs alone),
      // prebuild-install finds that build in the npm cache; a shipped prebuild needs neither.
      const shipped = apply.addon === 'shipped prebuild';
      expect([apply.addon, stale.addon]).toEqual(shipped ? ['shipped prebuild', 'shipped prebuild'] : [compiledBefore ? 'npm cache' : 'compiled', 'npm cache']);
    },
    2 * JOB_TIMEOUT_MS,
  );

  test(
    'scheduled drift: clean exits 0; an entry removed through the API fails the job with exit 2 and the summary names it',
    async () => {
      expectSuccess(await runJob('drift', { headSha: 'c3'.repeat(20) }));
      await emulator.client(TENANT).deleteEntry('blacklist', '203.0.113.9');
      const drifted = await runJob('drift', { headSha: 'c3'.repeat(20) });
      expect(drifted.code).toBe(2);
      expect(drifted.summary).toContain('203.0.113.9');
      expect(drifted.log).not.toContain(emulator.apiKey);
    },
    2 * JOB_TIMEOUT_MS,
  );
});

describe('the GitLab CI file, cdktf project', () => {
  const TENANT = 'pipeline-run-cdktf-gitlab';
  const TOKENS = { noteToken: 'note-token', jobToken: 'job-token' };
  interface GitlabJob {
    readonly extends?: string;
    readonly before_script?: readonly string[];
    readonly script: readonly string[];
    readonly artifacts?: { readonly paths: readonly string[] };
  }
  const gitlab = parseYaml(fs.readFileSync(path.join(EXAMPLES, 'gitlab', 'svc-cdktf.gitlab-ci.yml'), 'utf8')) as { variables: Record<string, string> } & Record<string, GitlabJob>;
  /** The image's lines (see the header): installing unzip and downloading terraform. */
  const imageLine = (line: string) => /^apt-get /.test(line) || /releases\.hashicorp\.com\/terraform\//.test(line);

  let emulator: AcceptanceEmulator;
  let api: GitlabApiStandIn;
  let stateFile: string;

  beforeAll(async () => {
    emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
    api = await startGitlabApi(TOKENS);
    stateFile = path.join(scratch, 'gitlab-state', 'policy.tfstate');
    fs.mkdirSync(path.dirname(stateFile));
  });
  afterAll(async () => {
    await api?.close();
    await emulator?.stop();
  });

  const resolved = (name: string): GitlabJob => {
    const job = gitlab[name];
    return job.extends === undefined ? job : { ...gitlab[job.extends], ...job };
  };

  function mergeRequest(iid: number): { repository: string; head: string; merge: string } {
    const repository = path.join(scratch, `gitlab-repository-${iid}`);
    const commits = mergedRepository(repository, iid, projectFiles(stateFile), scratch);
    api.mergedBy.set(commits.merge, iid);
    return { repository, ...commits };
  }

  /** Runs one job of the CI file in a fresh clone; the clone is removed after it. */
  async function runGitlabJob(name: string, options: { repository: string; sha: string; source: string; iid?: number }): Promise<JobRun> {
    const projectDir = fs.mkdtempSync(path.join(scratch, `gitlab-${name.replace(':', '-')}-`));
    const home = fs.mkdtempSync(path.join(scratch, 'gitlab-home-'));
    try {
      const run = await runGitlabScript(name, options, projectDir, home);
      return { ...run, addon: noteAddon(projectDir) };
    } finally {
      await removeJobDirectories(projectDir, home);
    }
  }

  /** The job's lines in one bash session in `projectDir`, a clone of the repository at `options.sha`, with `home` as HOME. */
  async function runGitlabScript(name: string, options: { repository: string; sha: string; source: string; iid?: number }, projectDir: string, home: string): Promise<JobRun> {
    const job = resolved(name);
    git(['clone', '-q', options.repository, projectDir], scratch, scratch);
    git(['checkout', '-q', options.sha], projectDir, scratch);
    // The job's `cache: paths: [.npm/]`, restored.
    fs.symlinkSync(npmCache, path.join(projectDir, '.npm'), 'dir');
    const lines = [...(job.before_script ?? []), ...job.script].map((line) => (imageLine(line) ? `# the image's: ${line}` : line));
    const scriptFile = path.join(home, 'job.sh');
    fs.writeFileSync(scriptFile, `${lines.join('\n')}\n`);
    const result = await runScript(
      scriptFile,
      projectDir,
      {
        ...gitlab.variables,
        ...machineEnvironment(home),
        SVC_BASE_URL: emulator.url,
        SVC_TENANT: TENANT,
        SVC_API_KEY: emulator.apiKey,
        SVC_NOTE_TOKEN: TOKENS.noteToken,
        ...api.jobVariables({ projectDir, sha: options.sha, source: options.source, iid: options.iid }),
      },
      JOB_TIMEOUT_MS,
    );
    // GitLab keeps the job's artifacts.paths.
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

  test('only the image lines are left out of the jobs: installing unzip and downloading terraform', () => {
    const left = ['svc:plan', 'svc:apply', 'svc:drift'].flatMap((name) => [...(resolved(name).before_script ?? []), ...resolved(name).script]).filter(imageLine);
    expect(new Set(left).size).toBe(2);
  });

  test(
    'svc:plan on a merge request posts svc plan-report as the note and keeps the saved plan; svc:apply applies it; a re-run of svc:apply finds that plan stale and refuses it',
    async () => {
      const first = mergeRequest(1);
      const plan = await runGitlabJob('svc:plan', { repository: first.repository, sha: first.head, source: 'merge_request_event', iid: 1 });
      expectSuccess(plan);
      expect(plan.log).toContain('Generated Terraform code for the stacks: policy');
      expect(api.notes.get(1)).toContain('203.0.113.9');
      expect(api.notes.get(1)).toContain('198.51.100.0/24');
      expect(plan.log).not.toContain(emulator.apiKey);
      expect(await listed(emulator, TENANT)).toEqual([]);

      const apply = await runGitlabJob('svc:apply', { repository: first.repository, sha: first.merge, source: 'push' });
      expectSuccess(apply);
      expect(apply.log).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
      expect(await listed(emulator, TENANT)).toEqual(['203.0.113.9 port scanner']);

      // The job re-run on the same merge: the merge request's saved plan was made against the state before the apply above.
      // (pipeline-run.test.ts refuses a second merge request's plan the same way.)
      const stale = await runGitlabJob('svc:apply', { repository: first.repository, sha: first.merge, source: 'push' });
      expect(stale.code).toBe(1);
      expect(stale.log).toMatch(/Saved plan is stale/);
      expect(await listed(emulator, TENANT)).toEqual(['203.0.113.9 port scanner']);
      expect((await emulator.client(TENANT).listEntries('whitelist')).map((entry) => entry.description)).toEqual(['head office']);
      // After a job that compiled the addon (this file's first, or this test's first alone), the build in the npm cache.
      const later = plan.addon === 'shipped prebuild' ? 'shipped prebuild' : 'npm cache';
      expect([apply.addon, stale.addon]).toEqual([later, later]);
    },
    3 * JOB_TIMEOUT_MS,
  );

  test(
    'svc:drift on a schedule: clean exits 0; an entry removed through the API fails the job with exit 2 and drift.md names it',
    async () => {
      const current = mergeRequest(3);
      expectSuccess(await runGitlabJob('svc:drift', { repository: current.repository, sha: current.merge, source: 'schedule' }));
      await emulator.client(TENANT).deleteEntry('blacklist', '203.0.113.9');
      const drifted = await runGitlabJob('svc:drift', { repository: current.repository, sha: current.merge, source: 'schedule' });
      expect(drifted.code).toBe(2);
      expect(drifted.summary).toContain('203.0.113.9');
      expect(drifted.log).not.toContain(emulator.apiKey);
    },
    2 * JOB_TIMEOUT_MS,
  );
});
