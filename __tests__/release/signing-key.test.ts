/**
 * help/releasing.md's signing key, made as the page says: its ```sh block that runs
 * `gpg --batch --gen-key` from a parameter file, run literally (bash, no terminal, stdin
 * closed) in a throwaway HOME. The key it exports must be a 4096-bit RSA signing key that signs
 * a SHA256SUMS gpg then verifies, with the public half readable by the registry generator.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { keyIdOf } from '../../scripts/release/static-sites';
import { codeBlocks, shellCommands } from '../help/support/markdown';

jest.setTimeout(120_000);

const PAGE = 'releasing.md';

/** The page's commands that make the key, as a shell runs them. */
function keyCommands(): string[] {
  const block = codeBlocks(PAGE).find((candidate) => candidate.language === 'sh' && candidate.code.includes('gpg --batch --gen-key'));
  if (block === undefined) throw new Error(`help/${PAGE} has no sh block with gpg --batch --gen-key`);
  return shellCommands(block).map((command) => command.command);
}

let home: string;
let gnupgHome: string;
let run: ReturnType<typeof spawnSync>;

beforeAll(() => {
  // Short: gpg-agent's socket lives under GNUPGHOME and a unix socket path is limited to ~107 bytes.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'gpgk-'));
  gnupgHome = path.join(home, '.gnupg-svc-release');
  const script = ['set -eu', ...keyCommands()].join('\n');
  run = spawnSync('bash', ['-c', script], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, TMPDIR: process.env.TMPDIR ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 110_000,
  });
});

afterAll(() => {
  if (home === undefined) return;
  spawnSync('gpgconf', ['--kill', 'all'], { env: { ...process.env, GNUPGHOME: gnupgHome } });
  fs.rmSync(home, { recursive: true, force: true });
});

const gpg = (args: readonly string[]) => spawnSync('gpg', ['--batch', ...args], { env: { ...process.env, GNUPGHOME: gnupgHome }, encoding: 'utf8' });

test('the commands run without a prompt and export both halves of the key', () => {
  expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
  expect(fs.readFileSync(path.join(home, 'release-signing-key.asc'), 'utf8')).toMatch(/^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
  const publicKey = fs.readFileSync(path.join(home, 'release-signing-key.pub.asc'), 'utf8');
  expect(publicKey).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
  // The registry generator reads the key id the same way.
  expect(keyIdOf(publicKey)).toMatch(/^[0-9A-F]{16}$/);
});

test('the key is a 4096-bit RSA key that can sign, without a passphrase', () => {
  const listing = gpg(['--with-colons', '--list-secret-keys']).stdout;
  const secretKey = listing.split('\n').find((line) => line.startsWith('sec:'))?.split(':');
  // Field 3 is the length, 4 the algorithm (1: RSA), 12 the capabilities.
  expect({ length: secretKey?.[2], algorithm: secretKey?.[3], signs: secretKey?.[11]?.includes('s') }).toEqual({ length: '4096', algorithm: '1', signs: true });
  const sums = path.join(home, 'terraform-provider-svc_0.1.0_SHA256SUMS');
  fs.writeFileSync(sums, `${'0'.repeat(64)}  terraform-provider-svc_0.1.0_linux_amd64.zip\n`);
  const signed = gpg(['--pinentry-mode', 'error', '--detach-sign', sums]);
  expect({ status: signed.status, stderr: signed.status === 0 ? '' : signed.stderr }).toEqual({ status: 0, stderr: '' });
  const verified = gpg(['--verify', `${sums}.sig`, sums]);
  expect(verified.status).toBe(0);
  expect(verified.stderr).toContain('Good signature from "svc-prevent release signing <releases@example.com>"');
});
