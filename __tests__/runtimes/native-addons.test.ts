/**
 * scripts/native-addons.js on the running Node: the terminal addon cdktf-cli loads has a prebuild
 * for this ABI (shipped, or built by npm ci's prepare script), it loads, and a second call builds
 * nothing. CI runs the script and this file on each supported Node line, where 24 and 26 have
 * their prebuild built (see .ci/run).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensurePty, prebuildFile } = require('../../scripts/native-addons.js') as {
  ensurePty(root: string, log: (line: string) => void): { status: 'present' | 'built' | 'absent'; file?: string };
  prebuildFile(packageDir: string): string;
};

const root = path.resolve(__dirname, '..', '..');

test('the prebuild for this Node is where the addon\'s loader looks, named by this ABI', () => {
  const file = prebuildFile('/pkg');
  expect(file).toBe(`/pkg/prebuilds/${process.platform}-${process.arch}/node.abi${process.versions.modules}.node`);
});

test('ensurePty finds (or builds once) a prebuild that loads in this Node; the next call builds nothing', () => {
  const logged: string[] = [];
  const first = ensurePty(root, (line) => logged.push(line));
  expect(['present', 'built']).toContain(first.status);
  expect(fs.existsSync(first.file!)).toBe(true);
  const second = ensurePty(root, (line) => logged.push(line));
  expect(second).toEqual({ status: 'present', file: first.file });
  // The addon itself loads through its package, as cdktf-cli loads it.
  const probe = spawnSync(process.execPath, ['-e', "require('@cdktf/node-pty-prebuilt-multiarch')"], { cwd: root, encoding: 'utf8' });
  expect({ status: probe.status, stderr: probe.status === 0 ? '' : probe.stderr }).toEqual({ status: 0, stderr: '' });
});

test('scripts/fetch-node.js refuses an unknown line with exit 2 and names the lines it has', () => {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'fetch-node.js'), '19', path.join(root, 'never-created')], { encoding: 'utf8' });
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/no Node line "19" in .*node-runtimes\.json; lines: 22, 24, 26, or lts/);
  expect(fs.existsSync(path.join(root, 'never-created'))).toBe(false);
});
