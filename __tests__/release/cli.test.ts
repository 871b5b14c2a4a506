/** The release commands' own messages: help, refusals before any build, exit codes. */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const runTs = path.join(root, 'bin', 'run-ts.js');

function run(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [runTs, path.join(root, 'scripts', 'release', script), ...args], { cwd: root, env, encoding: 'utf8' });
}

test('npm run release -- --help names the layout and the signing variables', () => {
  const help = run('build.ts', ['--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run release/);
  for (const text of ['terraform-provider-svc_<version>_linux_amd64.zip', 'SVC_RELEASE_GPG_KEY', 'SVC_RELEASE_GPG_PASSPHRASE', 'SOURCE_DATE_EPOCH', '--no-code-cache']) expect(help.stdout).toContain(text);
});

test('--sign without SVC_RELEASE_GPG_KEY fails at once with exit 1 and says what to set', () => {
  const env = { ...process.env, SVC_RELEASE_GPG_KEY: '' };
  const refused = run('build.ts', ['--sign', '--out-dir', path.join(os.tmpdir(), 'never-built')], env);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('release: --sign was given but SVC_RELEASE_GPG_KEY is not set');
  expect(fs.existsSync(path.join(os.tmpdir(), 'never-built'))).toBe(false);
});

test('an unknown option is a usage error (exit 2)', () => {
  const refused = run('build.ts', ['--platform', 'darwin_arm64']);
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain('release: unknown argument "--platform"');
});

test.each([
  ['mirror', ['mirror', '--out-dir', 'site', '--release-dir', 'no-such-release'], 1, 'the release directory'],
  ['registry', ['registry', '--out-dir', 'site', '--release-dir', 'no-such-release'], 1, 'the release directory'],
  ['no --out-dir', ['mirror'], 2, '--out-dir is required'],
  ['mirror-only option on registry', ['registry', '--hostname', 'x', '--out-dir', 'site'], 2, 'unknown argument "--hostname" for registry'],
  ['neither', ['serve'], 2, 'the first argument must be mirror or registry, got "serve"'],
])('release:mirror / release:registry: %s', (_name, args, code, message) => {
  const result = run('static-sites.ts', args);
  expect(result.stderr).toContain(message);
  expect(result.status).toBe(code);
});
