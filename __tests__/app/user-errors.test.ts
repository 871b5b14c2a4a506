/**
 * A user's mistake reaches them as one line naming the file, field and value: main.ts (what
 * cdktf runs) prints a user error's message without the stack trace that cdktf would otherwise
 * print twice around it; bugs keep their stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Testing } from 'cdktf';
import { buildApp } from '../../main';
import { AppConfigError } from '../../app/config';
import { isUserError, runReportingUserErrors } from '../../app/user-errors';
import { ControlPlaneValidationError } from '../../modules/control-plane/errors';
import { DeploymentPolicyPropError } from '../../modules/deployment-policy/errors';
import { PolicyFileError, SecurityPolicyConfigError } from '../../modules/security-policy/errors';

const root = path.join(__dirname, '..', '..');
const shipped = JSON.parse(readFileSync(path.join(root, 'svc.config.json'), 'utf8'));

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'svc-user-errors-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The shipped configuration, changed, with its entry files absolute, written to the scratch directory. */
function configFile(name: string, change: (config: any) => void): string {
  const config = structuredClone(shipped);
  for (const list of ['blacklist', 'blocklist', 'whitelist']) config.securityPolicy[list].files = config.securityPolicy[list].files.map((file: string) => path.join(root, file));
  change(config);
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe('every kind of mistake in the configuration is a user error', () => {
  const cases: Array<[name: string, change: (config: any) => void, errorClass: new (...args: any[]) => Error]> = [
    ['app field of the wrong type (AppConfigError)', (config) => (config.aws.region = 5), AppConfigError],
    ['securityPolicy field of the wrong type (SecurityPolicyConfigError)', (config) => (config.securityPolicy.tenantSso.enabled = 'yes'), SecurityPolicyConfigError],
    ['bad entry in a policy file (PolicyFileError)', (config) => (config.securityPolicy.blacklist.files = [path.join(scratch, 'bad.yaml')]), PolicyFileError],
    ['missing policy file (PolicyFileError)', (config) => (config.securityPolicy.blacklist.files = [path.join(scratch, 'missing.yaml')]), PolicyFileError],
    ['bad template parameter (ControlPlaneValidationError)', (config) => (config.controlPlane.VPC = 'vpc_bad'), ControlPlaneValidationError],
    ['bad account id (DeploymentPolicyPropError)', (config) => (config.aws.accountId = '12'), DeploymentPolicyPropError],
  ];
  test.each(cases)('%s', (name, change, errorClass) => {
    // The case's name says which class it expects: the table and the names cannot drift apart.
    expect(name).toContain(`(${errorClass.name})`);
    writeFileSync(path.join(scratch, 'bad.yaml'), '- ip: 203.0.113.1\n- ip: 300.1.1.1\n');
    let thrown: unknown;
    try {
      buildApp(Testing.app(), configFile(name.replace(/\W+/g, '-'), change));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toBeInstanceOf(errorClass);
    expect(isUserError(thrown)).toBe(true);
  });

  test('a bug is not', () => {
    expect(isUserError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(() => runReportingUserErrors(() => {
      throw new TypeError('a bug');
    })).toThrow('a bug');
  });
});

test('main.ts prints a user error as its message alone and exits 1', () => {
  const file = configFile('region-number', (config) => (config.aws.region = 5));
  const result = spawnSync(process.execPath, [path.join(root, 'bin', 'run-ts.js'), path.join(root, 'main.ts')], {
    cwd: scratch,
    env: { ...process.env, SVC_CONFIG: file, CDKTF_OUTDIR: path.join(scratch, 'cdktf.out') },
    encoding: 'utf8',
  });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`${file}: aws.region: expected a non-empty string, got 5`);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('throw new');
});
