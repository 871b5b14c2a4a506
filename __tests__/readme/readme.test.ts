/**
 * The README is a contract with a new user: its two commands must exist and run, and every
 * page it links must be there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from '../support/child-processes';
import { runCommand } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const root = path.join(__dirname, '..', '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('README', () => {
  test('names exactly the two set-up commands, and both are npm scripts', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm run demo', 'npm test']);
    expect(packageJson.scripts.demo).toBeDefined();
    expect(packageJson.scripts.test).toBeDefined();
  });

  test('every local link points at a file that exists', () => {
    const links = [...readme.matchAll(/\]\(([^)#]+)\)/g)].map((match) => match[1]).filter((link) => !/^https?:/.test(link));
    expect(links.length).toBeGreaterThan(0);
    const missing = links.filter((link) => !existsSync(path.join(root, link)));
    expect(missing).toEqual([]);
  });

  test('every executable the README runs through npx is a package bin', () => {
    const named = [...readme.matchAll(/npx (svc-[a-z-]+)/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) {
      expect(packageJson.bin[name]).toBeDefined();
      expect(existsSync(path.join(root, packageJson.bin[name]))).toBe(true);
    }
  });
});

describe('npm run demo', () => {
  test('deploys the shipped security policy through cdktf into the emulator, shows the drift, repairs it and cleans up', async () => {
    // A generous bound, not a speed check: it only keeps a hung demo from hanging the suite. The
    // demo runs in a process group of its own, so a time-out ends its emulator and terraform too.
    const result = await runCommand('npm', ['run', '--silent', 'demo'], { cwd: root, timeoutMs: STEP_BUDGET_MS.demo });
    expect(result.stderr).not.toMatch(/demo failed/);
    expect({ status: result.status, signal: result.signal, tail: result.status === 0 ? '' : `${result.stdout}\n${result.stderr}`.slice(-3000) }).toEqual({ status: 0, signal: null, tail: '' });
    const output = result.stdout;
    expect(output).toMatch(/svc-emulator listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toContain('$ cdktf deploy security-policy --auto-approve');
    expect(output).toMatch(/Apply complete! Resources: 10 added, 0 changed, 0 destroyed\./);
    expect(output).toMatch(/whitelist: 192\.0\.2\.0\/28, 192\.0\.2\.100, 2001:db8:cafe::1/);
    expect(output).toMatch(/output saml_main_acs_url = "https:\/\/sso\.example\.com\/\S+\/acs"/);
    expect(output).toContain('Lists/new_entry');
    // The out-of-band changes, as the drift check reports them.
    expect(output).toMatch(/svc_blacklist_entry\.blacklist_\S+ {2}deleted outside terraform/);
    expect(output).toMatch(/svc_channel_sso\.channel_main {2}changed outside terraform\n\s+enabled: true -> false/);
    expect(output).toMatch(/svc drift: 1 root: 0 clean, 1 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 2/);
    expect(output).toMatch(/Apply complete! Resources: 1 added, 1 changed, 0 destroyed\./);
    expect(output).toMatch(/svc drift: 1 root: 1 clean, 0 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 0/);
    expect(output).toMatch(/Destroy complete! Resources: 10 destroyed\./);
    expect(output).toContain('the API holds 0 blacklist entries, 0 blocklist entries, 0 whitelist entries');
    expect(output).toMatch(/control-plane\/cdk\.tf\.json: \d+ resources of \d+ types/);
    expect(output).toMatch(/deploying it needs an AWS account/);
    expect(output).toContain('Done:');
    // The throwaway API key travels as TF_VAR_api_key and is never printed; the scratch project is removed.
    const scratch = /(\/\S*svc-demo-[^/\s]+)\/svc\.config\.json/.exec(output)?.[1];
    expect(scratch).toBeDefined();
    expect(existsSync(scratch!)).toBe(false);
  }, testTimeoutFor(STEP_BUDGET_MS.demo));

  test('Ctrl-C mid-demo stops the emulator, removes the scratch project and exits 130', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'demo-interrupt-'));
    // A process group of its own, so a time-out kills the emulator and terraform it started too.
    const demo = track(spawn(process.execPath, [path.join(root, 'bin', 'run-ts.js'), 'scripts/demo.ts'], { cwd: root, env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), { group: true });
    let stdout = '';
    let stderr = '';
    demo.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        demo.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const listening = /svc-emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          // Interrupt once the scratch project is written, so there is something to remove.
          if (listening !== null && stdout.includes('Deploy the security-policy stack')) resolve(listening[1]);
        });
        void exited.then((code) => reject(new Error(`the demo exited (${code}) before it deployed:\n${stdout}\n${stderr}`)));
      });
      const scratch = readdirSync(tmp).filter((name) => name.startsWith('svc-demo-'));
      expect(scratch).toHaveLength(1);
      demo.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`demo interrupted (SIGINT): stopping the emulator and removing ${path.join(tmp, scratch[0])}`);
      expect(readdirSync(tmp).filter((name) => name.startsWith('svc-demo-'))).toEqual([]);
      const health = await fetch(`${url}/_emulator/health`).then(
        (response) => `answered ${response.status}`,
        () => 'unreachable',
      );
      expect(health).toBe('unreachable');
    } finally {
      if (demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  test('--help describes it without starting anything', () => {
    const result = spawnSync('npm', ['run', '--silent', 'demo', '--', '--help'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run demo/);
    expect(result.stdout).not.toContain('listening');
  });

  test('an unknown argument fails with the demo failed line', () => {
    const result = spawnSync('npm', ['run', '--silent', 'demo', '--', '--fast'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/demo failed: unknown argument "--fast"/);
  });
});
