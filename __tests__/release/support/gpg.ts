/** Throwaway GPG keys for the release tests, in a private GNUPGHOME removed (agent stopped) by dispose(). */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TestKeyring {
  /** GNUPGHOME for gpg and the release build. */
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** Makes a passphrase-less RSA signing key and returns its fingerprint. */
  generateKey(name: string): string;
  dispose(): void;
}

export function makeTestKeyring(): TestKeyring {
  // Short: gpg-agent's socket lives in GNUPGHOME and a unix socket path is limited to ~107 bytes.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gpg-'));
  fs.chmodSync(home, 0o700);
  const env = { ...process.env, GNUPGHOME: home };
  const gpg = (args: readonly string[]) => {
    const run = spawnSync('gpg', ['--batch', ...args], { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`gpg ${args.join(' ')} failed (exit ${run.status}): ${run.stderr}`);
    return run.stdout;
  };
  return {
    home,
    env,
    generateKey(name) {
      const userId = `${name} <${name.replace(/\W+/g, '-')}@release-test.svc-prevent.test>`;
      gpg(['--passphrase', '', '--quick-generate-key', userId, 'rsa2048', 'sign', 'never']);
      const fingerprint = gpg(['--with-colons', '--list-secret-keys', userId])
        .split('\n')
        .find((line) => line.startsWith('fpr:'))
        ?.split(':')[9];
      if (fingerprint === undefined) throw new Error(`gpg made no key for ${userId}`);
      return fingerprint;
    },
    dispose() {
      spawnSync('gpgconf', ['--kill', 'all'], { env });
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
