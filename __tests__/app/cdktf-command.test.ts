/**
 * `npm run synth|diff|deploy|destroy -- --help`: what the wrapper adds and cdktf's own flags,
 * without building the provider or writing anything.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { asksForHelp, cdktfEnvironment } from '../../scripts/cdktf-command';
import { sharedPluginCacheNote, terraformCliConfig, type ProviderMirror } from '../../src/pipeline/provider-mirror';

const root = path.join(__dirname, '..', '..');

test.each<[string[], boolean]>([
  [['--help'], true],
  [['security-policy', '-h'], true],
  [['security-policy', '--auto-approve'], false],
])('asksForHelp(%j) is %s', (rest, expected) => expect(asksForHelp(rest)).toBe(expected));

test('deploy --help prints the usage and cdktf\'s flags and builds nothing', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'svc-cdktf-help-'));
  try {
    const buildDir = path.join(scratch, 'build');
    const result = spawnSync(process.execPath, [path.join(root, 'bin', 'run-ts.js'), path.join(root, 'scripts', 'cdktf-command.ts'), 'deploy', '--help'], {
      cwd: scratch,
      env: { ...process.env, SVC_PROVIDER_BUILD_DIR: buildDir, CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: npm run <synth|diff|deploy|destroy>');
    expect(result.stdout).toContain('--auto-approve');
    expect(readdirSync(scratch)).toEqual([]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

describe('the CLI config cdktf and terraform get (cdktfEnvironment, terraformCliConfig)', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'svc-cli-config-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  const build = (): ProviderMirror => ({
    buildDir: path.join(scratch, 'dist'),
    mirrorDir: path.join(scratch, 'dist', 'mirror'),
    cliConfigFile: path.join(scratch, 'dist', 'terraform.rc'),
    version: '0.1.0',
    hash: 'h1:x',
    built: false,
  });
  const PROVIDER_INSTALLATION = 'provider_installation {\n  network_mirror { url = "https://mirror.example.com/" }\n}\n';
  const cases: Array<[name: string, userFile: string | undefined, usersOwn: boolean, noted: boolean]> = [
    ['no TF_CLI_CONFIG_FILE: the build\'s terraform.rc', undefined, false, false],
    ['credentials and a plugin cache: kept, no note (the implied mirror link serves svc)', 'plugin_cache_dir = "/tmp/cache"\ncredentials "app.terraform.io" { token = "t" }\n', true, false],
    ['a provider_installation only in a comment: kept, no note', '# provider_installation {\nplugin_cache_dir = "/tmp/cache"\n', true, false],
    ['its own provider_installation: kept, with the note', PROVIDER_INSTALLATION, true, true],
    ['its own provider_installation naming the svc mirror already: kept, no note', 'MIRROR', true, false],
  ];
  test.each(cases)('%s', (_name, userFile, usersOwn, noted) => {
    const mirror = build();
    const file = path.join(scratch, 'user.tfrc');
    if (userFile !== undefined) {
      const text = userFile === 'MIRROR' ? `provider_installation {\n  filesystem_mirror {\n    path = "${mirror.mirrorDir}"\n  }\n  direct {}\n}\n` : userFile;
      writeFileSync(file, text);
    }
    const userEnv = { PATH: '/bin', ...(userFile === undefined ? {} : { TF_CLI_CONFIG_FILE: file }) };
    const { env, note } = cdktfEnvironment(userEnv, mirror);
    expect(env).toMatchObject({ TF_CLI_CONFIG_FILE: usersOwn ? file : mirror.cliConfigFile, CHECKPOINT_DISABLE: '1', CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1', SVC_PROVIDER_BUILD_DIR: mirror.buildDir, PATH: '/bin' });
    expect(terraformCliConfig(mirror, userEnv).usersOwn).toBe(usersOwn);
    if (!noted) expect(note).toBeUndefined();
    else {
      expect(note).toContain(`your TF_CLI_CONFIG_FILE (${file}) has a provider_installation block`);
      expect(note).toContain(`Add the filesystem_mirror block of ${mirror.cliConfigFile}`);
      expect(note).toContain(`    path    = "${mirror.mirrorDir}"\n    include = ["registry.terraform.io/svc-prevent/svc"]`);
    }
  });
});

describe('cdktf\'s shared plugin cache (sharedPluginCacheNote)', () => {
  const home = '/home/dev';
  const defaultCache = path.join(home, '.terraform.d', 'plugin-cache');
  test.each<[string, NodeJS.ProcessEnv, boolean]>([
    ['a bare `npx cdktf`: cdktf set its default cache', { TF_PLUGIN_CACHE_DIR: defaultCache }, true],
    ['the same path spelled with a trailing slash', { TF_PLUGIN_CACHE_DIR: `${defaultCache}/` }, true],
    ['npm run deploy: CDKTF_DISABLE_PLUGIN_CACHE_ENV=1', { TF_PLUGIN_CACHE_DIR: defaultCache, CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1' }, false],
    ['CDKTF_DISABLE_PLUGIN_CACHE_ENV=true', { TF_PLUGIN_CACHE_DIR: defaultCache, CDKTF_DISABLE_PLUGIN_CACHE_ENV: 'true' }, false],
    ['a cache of the user\'s own choosing', { TF_PLUGIN_CACHE_DIR: '/var/cache/terraform' }, false],
    ['no cache', {}, false],
  ])('%s -> note: %s', (_name, env, noted) => {
    const note = sharedPluginCacheNote(env, home);
    expect(note !== undefined).toBe(noted);
    if (noted) expect(note).toContain('export CDKTF_DISABLE_PLUGIN_CACHE_ENV=1');
  });
});
