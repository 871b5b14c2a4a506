/**
 * `npm run synth|diff|deploy|destroy -- --help`: what the wrapper adds and cdktf's own flags,
 * without building the provider or writing anything.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { asksForHelp } from '../../scripts/cdktf-command';

const root = path.join(__dirname, '..', '..');

test.each<[string[], boolean]>([
  [['--help'], true],
  [['security-policy', '-h'], true],
  [['security-policy', '--auto-approve'], false],
])('asksForHelp(%j) is %s', (rest, expected) => expect(asksForHelp(rest)).toBe(expected));

test('deploy --help prints the usage and cdktf\'s flags and builds nothing', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'svc-cdktf-help-'));
  try {
    const buildDir = path.join(scratch, 'build');
    const result = spawnSync(process.execPath, [path.join(root, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', path.join(root, 'scripts', 'cdktf-command.ts'), 'deploy', '--help'], {
      cwd: scratch,
      env: { ...process.env, SVC_PROVIDER_BUILD_DIR: buildDir, CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: npm run <synth|diff|deploy|destroy>');
    expect(result.stdout).toContain('--auto-approve');
    expect(readdirSync(scratch)).toEqual([]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
