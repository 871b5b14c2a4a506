/**
 * A scratch checkout: the repository's tracked and new (not ignored) files copied, node_modules
 * linked. For tests that run a command which changes the checkout it runs in (`npm pack`
 * rewrites package.json and lib/ while it runs; getting-started.md's commands add cdktf.out and
 * state), so that nothing running beside them in the repository sees it half-done.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');

export function copyRepository(target: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPOSITORY_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const source = path.join(REPOSITORY_ROOT, file);
    if (!fs.existsSync(source) || !fs.statSync(source).isFile()) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    fs.copyFileSync(source, path.join(target, file));
  }
  fs.symlinkSync(path.join(REPOSITORY_ROOT, 'node_modules'), path.join(target, 'node_modules'));
}
