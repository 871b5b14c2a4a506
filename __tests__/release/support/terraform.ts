/**
 * Terraform as a machine without node runs it: PATH holds a directory with terraform and
 * nothing else, HOME is empty, the CLI config and the CA to trust come from the test.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { track } from '../../support/child-processes';

export interface TerraformRun {
  readonly code: number;
  readonly output: string;
}

/** A directory holding only a link to the terraform found on this PATH. */
export function terraformOnlyPath(directory: string): string {
  const found = spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') throw new Error('terraform is not on PATH; the release tests drive the real binary');
  fs.mkdirSync(directory, { recursive: true });
  fs.symlinkSync(found, path.join(directory, 'terraform'));
  return directory;
}

export interface CleanMachine {
  readonly binDirectory: string;
  readonly caFile: string;
  readonly home: string;
}

export function cleanEnvironment(machine: CleanMachine, cliConfigFile: string, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: machine.binDirectory,
    HOME: machine.home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    TF_CLI_CONFIG_FILE: cliConfigFile,
    SSL_CERT_FILE: machine.caFile,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    ...extra,
  };
}

export function terraform(directory: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<TerraformRun> {
  return new Promise((resolve, reject) => {
    const child = track(spawn('terraform', [...args], { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** The hashes (`zh:` and `h1:`) the lock file records for a provider, sorted. */
export function lockFileHashes(directory: string, source: string): string[] {
  const lock = fs.readFileSync(path.join(directory, '.terraform.lock.hcl'), 'utf8');
  const block = lock.split(/\nprovider /).find((text) => text.trimStart().startsWith(`"${source}"`));
  if (block === undefined) throw new Error(`the lock file has no block for ${source}:\n${lock}`);
  return [...block.matchAll(/"((?:zh|h1):[^"]+)"/g)].map((match) => match[1]).sort();
}
