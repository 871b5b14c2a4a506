/** A missing or old terraform is named before the demo starts anything. */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compareVersions, requireTerraform } from '../../src/pipeline/terraform-cli';

const root = path.join(__dirname, '..', '..');

test.each<[string, string, number]>([
  ['1.11.4', '1.10.0', 1],
  ['1.10.0', '1.10.0', 0],
  ['1.9.8', '1.10.0', -1],
  ['1.10.0-beta1', '1.10.0', 0],
  ['2.0', '1.10.0', 1],
])('compareVersions(%s, %s) = %d', (a, b, expected) => expect(compareVersions(a, b)).toBe(expected));

describe('requireTerraform', () => {
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(path.join(tmpdir(), 'svc-terraform-cli-'));
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  test('the real terraform passes', () => expect(compareVersions(requireTerraform(), '1.10.0')).toBeGreaterThanOrEqual(0));
  test('none on PATH is named with how to fix', () => {
    expect(() => requireTerraform({ ...process.env, PATH: path.join(bin, 'empty') })).toThrow(/terraform could not be run \(ENOENT\); install Terraform 1\.10\.0 or later/);
  });
  test('an old one is named with its version', () => {
    const fake = path.join(bin, 'old');
    mkdirSync(fake);
    writeFileSync(path.join(fake, 'terraform'), '#!/bin/sh\necho \'{"terraform_version":"1.9.8"}\'\n');
    chmodSync(path.join(fake, 'terraform'), 0o755);
    expect(() => requireTerraform({ ...process.env, PATH: fake })).toThrow('terraform 1.9.8 on PATH is too old');
  });
  test('npm run demo stops before starting anything', () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'svc-demo-tmp-'));
    try {
      const result = spawnSync(process.execPath, [path.join(root, 'bin', 'run-ts.js'), path.join(root, 'scripts', 'demo.ts')], {
        cwd: root,
        env: { ...process.env, PATH: path.join(bin, 'empty'), TMPDIR: scratch },
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('demo failed: terraform could not be run (ENOENT)');
      expect(result.stdout).not.toContain('emulator');
      expect(readdirSync(scratch).filter((name) => name.startsWith('svc-demo-'))).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
