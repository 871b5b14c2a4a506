/**
 * A throwaway cdktf project directory that runs this repository's app (main.ts), for the demo
 * and the end-to-end test: cdktf writes cdktf.out/ there, and the stacks' local state files
 * (`terraform.<stack>.tfstate`, placed in the directory cdktf runs from) land there too, so
 * nothing of the user's cdktf.out or state is touched. The real cdktf CLI runs in it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPOSITORY = path.resolve(__dirname, '..', '..');
export const CDKTF_CLI = path.join(REPOSITORY, 'node_modules', 'cdktf-cli', 'bundle', 'bin', 'cdktf.js');
/** Runs a .ts file of the checkout through bin/launch.js's transpile cache, as cdktf.json's app does. */
const RUN_TS = path.join(REPOSITORY, 'bin', 'run-ts.js');
const APP = path.join(REPOSITORY, 'main.ts');

function quoted(file: string): string {
  return `"${file.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** Writes `<dir>/cdktf.json` running the repository's main.ts with the current node. */
export function createCdktfProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const config = {
    language: 'typescript',
    app: [process.execPath, RUN_TS, APP].map(quoted).join(' '),
    projectId: 'svc-prevent-scratch',
    sendCrashReports: 'false',
    terraformProviders: [],
    terraformModules: [],
    codeMakerOutput: '.gen',
    context: {},
  };
  fs.writeFileSync(path.join(dir, 'cdktf.json'), `${JSON.stringify(config, null, 2)}\n`);
}

export interface CdktfResult {
  readonly args: readonly string[];
  readonly code: number;
  /** stdout and stderr together, ANSI sequences and cdktf's spinner lines removed. */
  readonly output: string;
}

export class CdktfCommandError extends Error {
  readonly code = 'cdktf_command_failed';
  constructor(
    readonly result: CdktfResult,
    tailLines = 40,
  ) {
    const tail = result.output.trimEnd().split('\n').slice(-tailLines).join('\n');
    super(`cdktf ${result.args.join(' ')} exited with code ${result.code}; its last output:\n${tail}`);
    this.name = 'CdktfCommandError';
  }
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g;
/** cdktf redraws a status block while it works; those lines say nothing a log needs. */
const STATUS_LINE = /^\s*(?:[⠁-⣿]\s+\w+|\d+ Stacks? deploying|\d+ Stacks? destroying|\d+ Stacks? (?:done|waiting))/;

export function cleanCdktfOutput(text: string): string[] {
  return text
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !STATUS_LINE.test(line));
}

export interface RunCdktfOptions {
  /** The project directory (with cdktf.json). */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Each cleaned output line as it comes. */
  readonly onLine?: (line: string) => void;
}

/** Runs the cdktf CLI with CHECKPOINT_DISABLE=1; never throws on a non-zero exit (see CdktfCommandError). */
export function runCdktf(args: readonly string[], options: RunCdktfOptions): Promise<CdktfResult> {
  return new Promise((resolve, reject) => {
    // CHECKPOINT_DISABLE: cdktf's version check phones home on every run (and logs an error offline).
    const child = spawn(process.execPath, [CDKTF_CLI, ...args], { cwd: options.cwd, env: { ...options.env, CHECKPOINT_DISABLE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let pending = '';
    const take = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.lastIndexOf('\n');
      if (complete === -1) return;
      for (const line of cleanCdktfOutput(pending.slice(0, complete))) {
        lines.push(line);
        options.onLine?.(line);
      }
      pending = pending.slice(complete + 1);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (error) => reject(new Error(`the cdktf CLI could not be started with ${process.execPath}: ${error.message}`)));
    child.once('close', (code, signal) => {
      for (const line of cleanCdktfOutput(pending)) {
        lines.push(line);
        options.onLine?.(line);
      }
      resolve({ args, code: code ?? (signal ? 128 : 1), output: lines.join('\n') });
    });
  });
}

/** An environment without inherited TF_* / SVC_* / CDKTF_* settings that would change what runs. */
export function isolatedEnvironment(extra: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_|CDKTF_)/.test(name)));
  return Object.fromEntries(Object.entries({ ...base, ...extra }).filter(([, value]) => value !== undefined)) as NodeJS.ProcessEnv;
}
