/**
 * The README is a contract with a new user: its two commands must exist and run, and every
 * page it links must be there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

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
  test('runs every step against the emulator and cleans up', () => {
    const result = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(result.stderr).not.toMatch(/demo failed/);
    expect(result.status).toBe(0);
    const output = result.stdout;
    expect(output).toMatch(/svc-emulator listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toContain('chunk 3/3: 2500/2500 entries');
    expect(output).toMatch(/validation_failed: .*10\.0\.0\.1\/24/);
    expect(output).toMatch(/\[5\] Blocklist[\s\S]*blocklist: 0 entries/);
    expect(output).toContain('block 3: 192.0.2.66 is now on the blacklist (blocks: 3)');
    expect(output).toContain('Lists/new_entry');
    expect(output).toMatch(/blacklist: removed 2502/);
    expect(output).toContain('Done:');
  });

  test('--help describes it without starting anything', () => {
    const result = spawnSync('npm', ['run', '--silent', 'demo', '--', '--help'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run demo/);
    expect(result.stdout).not.toContain('listening');
  });
});
