import { spawnSync } from 'child_process';
import * as path from 'path';
import { deploymentPolicyDocument, splitPolicyDocument, MANAGED_POLICY_MAX_CHARACTERS } from '../../modules/deployment-policy';
import { main } from '../../modules/deployment-policy/cli';

const COMMAND = path.resolve(__dirname, '../../bin/svc-deployment-policy.js');
const ACCOUNT = '123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';

function run(args: string[]) {
  const result = spawnSync(process.execPath, [COMMAND, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = main(args, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

describe('svc-deployment-policy (child process)', () => {
  test('prints the policy JSON for the given stack, account and zone', () => {
    const result = run(['--stack-name', 'TeamA', '--account-id', ACCOUNT, '--hosted-zone-id', ZONE]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(deploymentPolicyDocument({ stackName: 'TeamA', accountId: ACCOUNT, hostedZoneId: ZONE }));
    expect(result.stderr).toMatch(/--part 1 to --part \d/);
  });

  test('prints one part that fits a managed policy with --part', () => {
    const result = run([`--account-id=${ACCOUNT}`, `--hosted-zone-id=${ZONE}`, '--part', '2']);
    expect(result.code).toBe(0);
    const part = JSON.parse(result.stdout);
    expect(part).toEqual(splitPolicyDocument(deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE }))[1]);
    expect(JSON.stringify(part).length).toBeLessThanOrEqual(MANAGED_POLICY_MAX_CHARACTERS);
  });

  test('an unknown flag exits 2 naming it', () => {
    const result = run(['--acount-id', ACCOUNT, '--hosted-zone-id', ZONE]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown option "--acount-id"; see --help');
  });

  test('a bad value exits 2 naming the flag and the value, with nothing on stdout', () => {
    const result = run(['--account-id', '12345', '--hosted-zone-id', ZONE]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('svc-deployment-policy: --account-id = "12345": an AWS account id is exactly 12 digits. Fix: give the 12 digits');
  });
});

describe('svc-deployment-policy (in process)', () => {
  test.each([
    ['a stack name over 14 characters', ['--stack-name', 'ControlPlaneProd', '--account-id', ACCOUNT, '--hosted-zone-id', ZONE], 'svc-deployment-policy: --stack-name = "ControlPlaneProd": it has 16 characters'],
    ['a malformed hosted zone id', ['--account-id', ACCOUNT, '--hosted-zone-id', 'example.com'], 'svc-deployment-policy: --hosted-zone-id = "example.com": a Route53 hosted zone id looks like'],
    ['a missing hosted zone id', ['--account-id', ACCOUNT], '--hosted-zone-id is required'],
    ['a missing account id', ['--hosted-zone-id', ZONE], '--account-id is required'],
    ['an unknown flag', ['--acount-id', ACCOUNT], 'unknown option "--acount-id"'],
    ['a flag without value', ['--account-id'], '--account-id needs a value'],
    ['a flag given twice', ['--account-id', ACCOUNT, '--account-id', ACCOUNT, '--hosted-zone-id', ZONE], '--account-id is given twice'],
    ['a part that does not exist', ['--account-id', ACCOUNT, '--hosted-zone-id', ZONE, '--part', '9'], '--part = "9": this policy has 3 parts. Fix: give a part number from 1 to 3'],
    ['a part that is no number', ['--account-id', ACCOUNT, '--hosted-zone-id', ZONE, '--part', 'two'], '--part = "two": not a part number'],
  ])('%s: exit 2 with a message', (_name, args, message) => {
    const result = runInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  test('--help prints usage and exits 0', () => {
    const result = runInProcess(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: svc-deployment-policy');
    expect(result.stdout).toContain('--stack-name');
    expect(result.stdout).toContain('aws iam create-policy');
  });
});
