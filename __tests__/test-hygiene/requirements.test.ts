/**
 * No silent skips (__tests__/support/requirements.ts): a test whose requirement is missing fails
 * under CI, naming what is missing, and is skipped with a printed reason elsewhere. The
 * behaviour is checked in a jest run of its own on a fixture, as CI and as a developer.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';
import { awsProviderMirror, commandOnPath, requirementMet, underCi } from '../support/requirements';

jest.setTimeout(120_000);

const REPOSITORY = path.resolve(__dirname, '../..');

describe('underCi', () => {
  it.each([
    { CI: undefined, expected: false },
    { CI: '', expected: false },
    { CI: 'false', expected: false },
    { CI: 'FALSE', expected: false },
    { CI: '0', expected: false },
    { CI: 'true', expected: true },
    { CI: '1', expected: true },
  ])('CI=$CI -> $expected', ({ CI, expected }) => {
    expect(underCi(CI === undefined ? {} : { CI })).toBe(expected);
  });
});

describe('requirements', () => {
  it('finds a command that runs, and names one that is not on PATH', () => {
    expect(commandOnPath('node')).toEqual({ name: 'node on PATH', missing: undefined });
    expect(commandOnPath('svc-no-such-command')).toEqual({ name: 'svc-no-such-command on PATH', missing: expect.stringMatching(/^svc-no-such-command is not on PATH \(.*ENOENT/) });
  });

  it('finds the newest hashicorp/aws in the mirror SVC_TF_PLUGIN_MIRROR names, and says where it looked when there is none', () => {
    const mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-requirements-mirror-'));
    try {
      const empty = awsProviderMirror({ SVC_TF_PLUGIN_MIRROR: mirror });
      expect(empty.version).toBeUndefined();
      expect(empty.requirement.missing).toContain(`hashicorp/aws is not in the provider mirror ${mirror} (no version under ${path.join(mirror, 'registry.terraform.io', 'hashicorp', 'aws')})`);
      for (const version of ['5.99.0', '5.100.0']) fs.mkdirSync(path.join(mirror, 'registry.terraform.io', 'hashicorp', 'aws', version), { recursive: true });
      expect(awsProviderMirror({ SVC_TF_PLUGIN_MIRROR: mirror })).toMatchObject({ mirror, requirement: { missing: undefined } });
    } finally {
      fs.rmSync(mirror, { recursive: true, force: true });
    }
  });

  it('requirementMet: true when met; a missing one throws under CI and returns false elsewhere', () => {
    const saved = process.env.CI;
    const missing = { name: 'a tool', missing: 'no-such-tool is not on PATH' };
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      process.env.CI = 'true';
      expect(requirementMet({ name: 'node', missing: undefined }, 'a check')).toBe(true);
      expect(() => requirementMet(missing, 'a check')).toThrow('a check: no-such-tool is not on PATH. CI must provide it');
      delete process.env.CI;
      expect(requirementMet(missing, 'a check')).toBe(false);
      expect(warn).toHaveBeenCalledWith('skipped: a check, because no-such-tool is not on PATH (under CI this is a failure)');
    } finally {
      warn.mockRestore();
      if (saved === undefined) delete process.env.CI;
      else process.env.CI = saved;
    }
  });
});

interface JestRun {
  readonly failed: number;
  readonly pending: number;
  readonly passed: number;
  readonly messages: string;
  readonly stderr: string;
}

/** jest on the fixture alone, with CI set or not; its JSON report and stderr. */
function runFixture(ci: boolean): Promise<JestRun> {
  const env = { ...process.env };
  delete env.CI;
  if (ci) env.CI = 'true';
  const args = [
    require.resolve('jest/bin/jest'),
    '--config', path.join(REPOSITORY, 'jest.config.js'),
    '--rootDir', REPOSITORY,
    '--roots', path.join(REPOSITORY, '__tests__', 'test-hygiene', 'fixtures'),
    '--testMatch', '**/missing-requirement.fixture.ts',
    // --testMatch replaces both tiers' lists (jest.config.js): one tier runs the fixture once.
    '--selectProjects', 'unit',
    '--json', '--ci=false',
  ];
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, args, { cwd: REPOSITORY, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => {
      try {
        const report = JSON.parse(stdout) as { numFailedTests: number; numPendingTests: number; numPassedTests: number; testResults: Array<{ message: string }> };
        resolve({ failed: report.numFailedTests, pending: report.numPendingTests, passed: report.numPassedTests, messages: report.testResults.map((result) => result.message).join('\n'), stderr });
      } catch (error) {
        reject(new Error(`jest on the fixture gave no JSON report (${String(error)}); stderr:\n${stderr}`));
      }
    });
  });
}

test('under CI a missing requirement is a failure that names it; elsewhere a skip that says why', async () => {
  const asCi = await runFixture(true);
  expect({ failed: asCi.failed, pending: asCi.pending, passed: asCi.passed }).toEqual({ failed: 2, pending: 0, passed: 0 });
  expect(asCi.messages).toContain('no-such-tool is not on PATH. CI must provide it');
  expect(asCi.messages).toContain('has what it needs: a tool');

  const asDeveloper = await runFixture(false);
  expect({ failed: asDeveloper.failed, pending: asDeveloper.pending, passed: asDeveloper.passed }).toEqual({ failed: 0, pending: 2, passed: 0 });
  expect(asDeveloper.stderr).toContain('skipped: "a test needing a tool", because no-such-tool is not on PATH (under CI this is a failure)');
  expect(asDeveloper.stderr).toContain('skipped: "a group needing a tool", because no-such-tool is not on PATH');
});
