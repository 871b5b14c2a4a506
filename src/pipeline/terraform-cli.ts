/**
 * The terraform CLI the demo and the drift check run: found on PATH and new enough for the
 * security-policy stack (its api_key variable is ephemeral, which terraform reads from 1.10 on;
 * the README asks for 1.11). Checked first, so a missing or old terraform is named before
 * anything starts, not as cdktf's "execvp(3) failed" halfway through a deploy.
 */
import { spawnSync } from 'node:child_process';

export const MINIMUM_TERRAFORM_VERSION = '1.10.0';

export class TerraformCliError extends Error {
  readonly code = 'terraform_cli';
  constructor(message: string) {
    super(message);
    this.name = 'TerraformCliError';
  }
}

/** -1, 0 or 1 for dotted versions (a pre-release suffix such as -beta1 is ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.replace(/-.*$/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** The version of the terraform on PATH; throws TerraformCliError when it is missing or older than the minimum. */
export function requireTerraform(env: NodeJS.ProcessEnv = process.env, minimum = MINIMUM_TERRAFORM_VERSION): string {
  const result = spawnSync('terraform', ['version', '-json'], { env: { ...env, CHECKPOINT_DISABLE: '1' }, encoding: 'utf8' });
  if (result.error !== undefined) {
    throw new TerraformCliError(`terraform could not be run (${(result.error as NodeJS.ErrnoException).code ?? result.error.message}); install Terraform ${minimum} or later and put it on PATH (terraform version)`);
  }
  let version: string | undefined;
  try {
    version = (JSON.parse(result.stdout) as { terraform_version?: string }).terraform_version;
  } catch {
    version = undefined; // an old terraform without -json prints text; its version is below the minimum anyway
  }
  if (version === undefined || compareVersions(version, minimum) < 0) {
    throw new TerraformCliError(`terraform ${version ?? '(version unknown)'} on PATH is too old; the security-policy stack needs ${minimum} or later (ephemeral variables)`);
  }
  return version;
}
