/** `terraform console` in a workspace, with expressions piped on stdin (Workspace.terraform leaves stdin closed). */
import { spawn } from 'node:child_process';
import type { TerraformResult, Workspace } from '../../../scripts/terraform-harness/workspace';

/** Runs `terraform console`, one expression per line; never throws on a non-zero exit. */
export function terraformConsole(workspace: Workspace, expressions: readonly string[]): Promise<TerraformResult> {
  const args = ['console', '-no-color'];
  return new Promise((resolve, reject) => {
    const child = spawn('terraform', args, { cwd: workspace.dir, env: workspace.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error) => reject(new Error(`terraform could not be started (is it on PATH?): ${error.message}`)));
    child.once('close', (code, signal) => {
      resolve({
        args,
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        providerLog: '',
      });
    });
    child.stdin.end(expressions.map((expression) => `${expression}\n`).join(''));
  });
}
