/**
 * svc-moved-blocks' command line in-process, without terraform: --help, each usage error (exit
 * 2, with the usage), a stack that cannot be read (exit 1), and --module naming the module call.
 * leaving-cdktf.test.ts runs the blocks through terraform.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { USAGE, main } from '../../src/migration/moved-blocks-cli';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-moved-blocks-cli-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(argv: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const code = main(argv, (text) => (stdout += text), (text) => (stderr += text));
  return { code, stdout, stderr };
}

test('--help prints the usage on stdout and exits 0', () => {
  expect(run(['cdktf.out/stacks/x', '--help'])).toEqual({ code: 0, stdout: `${USAGE}\n`, stderr: '' });
});

test.each([
  ['no stack', [], 'name the synthesized stack, e.g. cdktf.out/stacks/security-policy'],
  ['--module without a name', ['stack', '--module'], '--module needs a name, e.g. --module security_policy'],
  ['an unknown option', ['stack', '--out', 'x'], 'unknown option --out'],
  ['two stacks', ['a', 'b'], 'one stack at a time: "a" and "b" were given'],
])('a usage error (%s) exits 2 with the usage on stderr', (_name, argv, message) => {
  expect(run(argv)).toEqual({ code: 2, stdout: '', stderr: `svc-moved-blocks: ${message}\n\n${USAGE}\n` });
});

test('a stack that cannot be read exits 1 naming the file', () => {
  const missing = run([path.join(dir, 'nowhere')]);
  expect(missing).toEqual({ code: 1, stdout: '', stderr: `svc-moved-blocks: ${path.join(dir, 'nowhere')} does not exist; run cdktf synth first (the JSON output, not --hcl)\n` });
  fs.writeFileSync(path.join(dir, 'cdk.tf.json'), '{ not json');
  const broken = run([dir]);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toMatch(new RegExp(`^svc-moved-blocks: ${path.join(dir, 'cdk.tf.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not JSON \\(.*\\); give the cdk.tf.json that cdktf synth writes\\n$`));
});

test('--module names the module call the blocks move into; a cdk.tf.json named directly works as its directory does', () => {
  const file = path.join(dir, 'cdk.tf.json');
  fs.writeFileSync(file, JSON.stringify({ resource: { svc_blacklist_entry: { scanner: { ip: '203.0.113.9' } }, svc_whitelist: { all: { entries: {} } } } }));
  const result = run([file, '--module', 'policy']);
  expect(result).toEqual({
    code: 0,
    stdout: 'moved {\n  from = svc_blacklist_entry.scanner\n  to   = module.policy.svc_blacklist_entry.this["203.0.113.9"]\n}\n\nmoved {\n  from = svc_whitelist.all\n  to   = module.policy.svc_whitelist.this[0]\n}\n',
    stderr: 'svc-moved-blocks: 2 moved block(s) into module.policy\n',
  });
  expect(run([dir, '--module', 'policy'])).toEqual(result);
});
