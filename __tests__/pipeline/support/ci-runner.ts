/**
 * What pipeline-run.test.ts (the HCL templates) and pipeline-run-cdktf.test.ts (the cdktf ones)
 * need to run a CI job's shell lines as a runner does: a script under bash without blocking the
 * test's process (the emulator answers from it), the `${{ }}` substitution of GitHub expressions,
 * a PATH of chosen tools only, a git repository whose default branch merged a merge request by a
 * merge commit, and a stand-in for the three GitLab API routes the GitLab jobs call.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { track } from '../../support/child-processes';

/** A step's or job's script under bash as the runners start it (`-eo pipefail`), killed after `timeoutMs`. */
export function runScript(scriptFile: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = track(spawn('/bin/bash', ['--noprofile', '--norc', '-eo', 'pipefail', scriptFile], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status: status ?? 1, output });
    });
  });
}

/** `${{ expression }}` replaced by `evaluate(expression)`. */
export const substitute = (text: string, evaluate: (expression: string) => string): string =>
  text.replace(/\$\{\{(.*?)\}\}/g, (_match, expression: string) => evaluate(expression));

/**
 * What a workflow's `${{ }}` expressions evaluate to: `env.<NAME>` from `env` (the workflow's,
 * job's and step's), any other from `known`; an expression in neither fails the run.
 */
export function githubExpressions(known: Readonly<Record<string, string>>, env: Readonly<Record<string, string>>): (expression: string) => string {
  return (expression) => {
    const trimmed = expression.trim();
    if (trimmed.startsWith('env.')) {
      const value = env[trimmed.slice(4)];
      if (value === undefined) throw new Error(`the workflow reads env.${trimmed.slice(4)}, which is not set`);
      return value;
    }
    const value = known[trimmed];
    if (value === undefined) throw new Error(`the workflow uses \${{ ${trimmed} }}, which this test does not know`);
    return value;
  };
}

/** A directory of symlinks to `tools` (executables, not shell builtins) as this machine has them: the only PATH a job gets. */
export function toolsDirectory(directory: string, tools: readonly string[]): string {
  fs.mkdirSync(directory, { recursive: true });
  for (const tool of tools) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (!found.startsWith('/')) throw new Error(`${tool} is not on this machine's PATH; the pipeline jobs call it`);
    if (!fs.existsSync(path.join(directory, tool))) fs.symlinkSync(found, path.join(directory, tool));
  }
  return directory;
}

export function git(args: readonly string[], cwd: string, home: string): string {
  const run = spawnSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: home, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/**
 * A repository in `repository` whose default branch `main` merged branch `mr-<iid>` (holding
 * `files`, path -> content) by a merge commit, as GitLab merges a merge request.
 */
export function mergedRepository(repository: string, iid: number, files: Readonly<Record<string, string>>, home: string): { head: string; merge: string } {
  fs.mkdirSync(repository, { recursive: true });
  git(['init', '-q', '-b', 'main'], repository, home);
  fs.writeFileSync(path.join(repository, 'README'), 'base\n');
  git(['add', '-A'], repository, home);
  git(['commit', '-q', '-m', 'base'], repository, home);
  git(['checkout', '-q', '-b', `mr-${iid}`], repository, home);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repository, file)), { recursive: true });
    fs.writeFileSync(path.join(repository, file), text);
  }
  git(['add', '-A'], repository, home);
  git(['commit', '-q', '-m', `merge request ${iid}`], repository, home);
  const head = git(['rev-parse', 'HEAD'], repository, home);
  git(['checkout', '-q', 'main'], repository, home);
  git(['merge', '-q', '--no-ff', '-m', `Merge branch mr-${iid}`, `mr-${iid}`], repository, home);
  return { head, merge: git(['rev-parse', 'HEAD'], repository, home) };
}

export interface GitlabApiStandIn {
  readonly url: string;
  /** Merge request iid -> the body of the last note posted on it. */
  readonly notes: Map<number, string>;
  /** Merge commit -> the merge request it merged. */
  readonly mergedBy: Map<string, number>;
  /** Merge request iid -> the zip of its latest svc:plan job's artifacts. */
  readonly artifacts: Map<number, Buffer>;
  /** The variables GitLab predefines for a job of project 42 (its API, job token, commit, pipeline source, merge request). */
  jobVariables(job: { projectDir: string; sha: string; source: string; iid?: number }): Record<string, string>;
  close(): Promise<void>;
}

/**
 * The GitLab API routes the templates' jobs call, for project 42: post a merge request note
 * (PRIVATE-TOKEN `noteToken`), the merge requests a commit merged and the svc:plan artifacts of
 * a merge request's head (JOB-TOKEN `jobToken`). Each refuses a request without its token.
 */
export async function startGitlabApi(tokens: { noteToken: string; jobToken: string }): Promise<GitlabApiStandIn> {
  const notes = new Map<number, string>();
  const mergedBy = new Map<string, number>();
  const artifacts = new Map<number, Buffer>();
  const commitsRoute = /^\/api\/v4\/projects\/42\/repository\/commits\/([0-9a-f]{40})\/merge_requests$/;
  const notesRoute = /^\/api\/v4\/projects\/42\/merge_requests\/(\d+)\/notes$/;
  const artifactsRoute = /^\/api\/v4\/projects\/42\/jobs\/artifacts\/refs%2Fmerge-requests%2F(\d+)%2Fhead\/download\?job=svc:plan$/;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = request.url ?? '';
      const reply = (status: number, body: string | Buffer, type = 'application/json') => response.writeHead(status, { 'content-type': type }).end(body);
      if (request.method === 'POST' && notesRoute.test(url)) {
        if (request.headers['private-token'] !== tokens.noteToken) return reply(401, '{"message":"401 Unauthorized"}');
        notes.set(Number(notesRoute.exec(url)![1]), new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('body') ?? '');
        return reply(201, '{"id":1}');
      }
      if (request.headers['job-token'] !== tokens.jobToken) return reply(401, '{"message":"401 Unauthorized"}');
      const commit = commitsRoute.exec(url);
      if (request.method === 'GET' && commit !== null) {
        const iid = mergedBy.get(commit[1]);
        return reply(200, JSON.stringify(iid === undefined ? [] : [{ id: 1000 + iid, iid, state: 'merged' }]));
      }
      const artifact = artifactsRoute.exec(url);
      if (request.method === 'GET' && artifact !== null) {
        const zip = artifacts.get(Number(artifact[1]));
        return zip === undefined ? reply(404, '{"message":"404 Not found"}') : reply(200, zip, 'application/zip');
      }
      return reply(404, `{"message":"not emulated: ${request.method} ${url}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    notes,
    mergedBy,
    artifacts,
    jobVariables: (job) => ({
      CI_PROJECT_DIR: job.projectDir,
      CI_PROJECT_ID: '42',
      CI_API_V4_URL: `${url}/api/v4`,
      CI_JOB_TOKEN: tokens.jobToken,
      CI_COMMIT_SHA: job.sha,
      CI_COMMIT_BRANCH: job.source === 'push' ? 'main' : '',
      CI_DEFAULT_BRANCH: 'main',
      CI_PIPELINE_SOURCE: job.source,
      ...(job.iid === undefined ? {} : { CI_MERGE_REQUEST_IID: String(job.iid) }),
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
