/** Wall-clock timing of terraform commands and child processes. */
import type { TerraformResult, Workspace } from '../terraform-harness/workspace';

export class BenchCommandError extends Error {
  readonly code = 'bench_command_failed';
  constructor(message: string) {
    super(message);
    this.name = 'BenchCommandError';
  }
}

export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n') || '(empty)';
}

/** Runs `terraform <args>` in the workspace; throws unless it exits with one of `codes`. Returns the seconds it took. */
export async function timeTerraform(workspace: Workspace, args: readonly string[], codes: readonly number[] = [0]): Promise<{ seconds: number; result: TerraformResult }> {
  const start = process.hrtime.bigint();
  const result = await workspace.terraform(args);
  const seconds = secondsSince(start);
  if (!codes.includes(result.code)) {
    throw new BenchCommandError(
      `terraform ${args.join(' ')} exited with ${result.code} (expected ${codes.join(' or ')}) in ${workspace.dir}\n` +
        `--- stdout (end) ---\n${tail(result.stdout)}\n--- stderr (end) ---\n${tail(result.stderr)}`,
    );
  }
  return { seconds, result };
}

/** `-detailed-exitcode`: exit 0 when there are no changes (a refresh of applied resources), 2 when there are (a create). */
export const PLAN = ['plan', '-input=false', '-no-color', '-detailed-exitcode'] as const;
export const PLAN_NO_CHANGES_EXIT = [0] as const;
export const PLAN_CHANGES_EXIT = [2] as const;
export const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'] as const;
export const INIT = ['init', '-input=false', '-no-color'] as const;
