/** Shared by the SecurityPolicy tests: a temporary working directory with entry files, and synth to JSON. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { SvcProvider } from '../../modules/svc-provider/provider';

export interface SynthesizedStack {
  readonly resource: Record<string, Record<string, Record<string, unknown>>>;
  readonly data?: Record<string, Record<string, Record<string, unknown>>>;
  readonly output?: Record<string, { value: unknown; description?: string }>;
  readonly provider?: Record<string, unknown>;
  readonly locals?: Record<string, unknown>;
}

/**
 * Makes each test run in its own temporary directory (so messages show `policy/x.yaml`, as a
 * user running synth from the project root sees them) and returns a writer for files there.
 */
export function useTemporaryWorkingDirectory(): { dir(): string; write(relative: string, text: string): string } {
  let dir: string | undefined;
  let previous: string | undefined;
  beforeEach(() => {
    previous = process.cwd();
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-security-policy-')));
    process.chdir(dir);
  });
  afterEach(() => {
    if (previous !== undefined) process.chdir(previous);
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });
  const current = () => {
    if (dir === undefined) throw new Error('useTemporaryWorkingDirectory: no test is running');
    return dir;
  };
  return {
    dir: current,
    write(relative, text) {
      const file = path.join(current(), relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
  };
}

/** A stack with a default svc provider, for constructs under test. */
export function svcStack(): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'stack');
  new SvcProvider(stack, 'svc', {});
  return stack;
}

export function synthJson(stack: TerraformStack): SynthesizedStack {
  return JSON.parse(Testing.synth(stack)) as SynthesizedStack;
}

/** The error a function throws (fails the test when it throws nothing). */
export function thrownBy(action: () => unknown): Error & { code?: string } {
  try {
    action();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected an error, but none was thrown');
}
