/**
 * How the app prepares synthesized stacks so terraform finds the svc provider: the implied
 * local mirror link, the lock entry with the build's checksum, and when the provider is built.
 * (That terraform accepts both, and that the checksum is terraform's, cdktf-end-to-end.test.ts
 * shows with the real terraform.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureProviderBuilt } from '../../scripts/build-provider';
import { EXECUTABLE_NAME, PROVIDER_SOURCE, currentPlatform, packageVersion } from '../../src/provider-identity';
import {
  PROVIDER_BUILD_DIR_ENV,
  ProviderMirrorError,
  STACKS_PREPARED_AFTER_SYNTH_ENV,
  builtProviderMirror,
  cdktfDefaultPluginCache,
  filesystemMirror,
  prepareStacksForSvcProvider,
  providerBuildDir,
  sharedPluginCacheNote,
  stackSvcRequirement,
  svcProviderSetting,
  terraformCliConfig,
  linkImpliedMirror,
  lockSvcProvider,
  packageHash,
  prepareSynthesizedStacks,
  providerBuildState,
  svcRequirement,
  synthesizedStacks,
  unpreparedStacksNote,
  type ProviderMirror,
} from '../../src/pipeline/provider-mirror';

let scratch: string;
beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-provider-mirror-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

function mirror(hash: string, mirrorDir = path.join(scratch, 'build', 'mirror')): ProviderMirror {
  return { buildDir: path.dirname(mirrorDir), mirrorDir, cliConfigFile: path.join(path.dirname(mirrorDir), 'terraform.rc'), version: '0.1.0', hash, built: false };
}

const AWS_BLOCK = ['provider "registry.terraform.io/hashicorp/aws" {', '  version = "6.11.0"', '  hashes = [', '    "h1:aws=",', '  ]', '}', ''].join('\n');

describe('packageHash', () => {
  test('is an h1: checksum of the files\' contents and names, not their times', () => {
    const dir = path.join(scratch, 'package');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'terraform-provider-svc_v0.1.0'), 'bundle');
    const first = packageHash(dir);
    expect(first).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
    fs.utimesSync(path.join(dir, 'terraform-provider-svc_v0.1.0'), new Date(0), new Date(0));
    expect(packageHash(dir)).toBe(first);
    fs.appendFileSync(path.join(dir, 'terraform-provider-svc_v0.1.0'), '\n// rebuilt');
    expect(packageHash(dir)).not.toBe(first);
  });
});

describe('lockSvcProvider', () => {
  test('writes a new lock file with the svc entry', () => {
    expect(lockSvcProvider(scratch, mirror('h1:new='), '~> 0.1')).toBe(true);
    const text = fs.readFileSync(path.join(scratch, '.terraform.lock.hcl'), 'utf8');
    expect(text).toContain(['provider "registry.terraform.io/svc-prevent/svc" {', '  version     = "0.1.0"', '  constraints = "~> 0.1"', '  hashes = [', '    "h1:new=",', '  ]', '}'].join('\n'));
  });

  test('replaces a stale svc entry and keeps the other providers\' entries', () => {
    const file = path.join(scratch, '.terraform.lock.hcl');
    fs.writeFileSync(file, `# header\n\n${AWS_BLOCK}\nprovider "registry.terraform.io/svc-prevent/svc" {\n  version     = "0.1.0"\n  constraints = "~> 0.1"\n  hashes = [\n    "h1:old=",\n  ]\n}\n`);
    expect(lockSvcProvider(scratch, mirror('h1:new='), '~> 0.1')).toBe(true);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(AWS_BLOCK);
    expect(text).toContain('"h1:new="');
    expect(text).not.toContain('h1:old=');
    expect(text.match(/svc-prevent\/svc/g)).toHaveLength(1);
  });

  test('adds the svc entry to a lock file that has only other providers', () => {
    const file = path.join(scratch, '.terraform.lock.hcl');
    fs.writeFileSync(file, AWS_BLOCK);
    lockSvcProvider(scratch, mirror('h1:new='), '~> 0.1');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^provider "registry.terraform.io\/hashicorp\/aws"[\s\S]*\}\n\nprovider "registry.terraform.io\/svc-prevent\/svc"/);
  });

  test('leaves a current entry alone', () => {
    lockSvcProvider(scratch, mirror('h1:same='), '~> 0.1');
    expect(lockSvcProvider(scratch, mirror('h1:same='), '~> 0.1')).toBe(false);
  });
});

describe('linkImpliedMirror', () => {
  test('links terraform.d/plugins to the mirror, and re-points a link to another build', () => {
    linkImpliedMirror(scratch, '/builds/one/mirror');
    const link = path.join(scratch, 'terraform.d', 'plugins');
    expect(fs.readlinkSync(link)).toBe('/builds/one/mirror');
    linkImpliedMirror(scratch, '/builds/two/mirror');
    expect(fs.readlinkSync(link)).toBe('/builds/two/mirror');
  });

  test('refuses to replace a real directory', () => {
    fs.mkdirSync(path.join(scratch, 'terraform.d', 'plugins'), { recursive: true });
    expect(() => linkImpliedMirror(scratch, '/builds/one/mirror')).toThrow(ProviderMirrorError);
    expect(() => linkImpliedMirror(scratch, '/builds/one/mirror')).toThrow(/terraform\.d\/plugins exists and is not a link/);
  });
});

describe('svcRequirement', () => {
  const cases: Array<[name: string, json: unknown, expected: ReturnType<typeof svcRequirement>]> = [
    ['short source', { terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: '~> 0.1' } } } }, { constraint: '~> 0.1' }],
    ['full source, no version', { terraform: { required_providers: { svc: { source: 'registry.terraform.io/svc-prevent/svc' } } } }, { constraint: undefined }],
    ['AWS only', { terraform: { required_providers: { aws: { source: 'aws', version: '6.11.0' } } } }, null],
    ['no terraform block', {}, null],
  ];
  test.each(cases)('%s', (_name, json, expected) => expect(svcRequirement(json)).toEqual(expected));
});

describe('prepareSynthesizedStacks', () => {
  function writeApp(stacks: Record<string, unknown>): void {
    const manifest = { stacks: Object.fromEntries(Object.keys(stacks).map((name) => [name, { name, workingDirectory: `stacks/${name}`, synthesizedStackPath: `stacks/${name}/cdk.tf.json` }])) };
    fs.writeFileSync(path.join(scratch, 'manifest.json'), JSON.stringify(manifest));
    for (const [name, json] of Object.entries(stacks)) {
      fs.mkdirSync(path.join(scratch, 'stacks', name), { recursive: true });
      fs.writeFileSync(path.join(scratch, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json));
    }
  }

  test('prepares the stacks that use svc only, and asks for the build only then', () => {
    writeApp({
      aws: { terraform: { required_providers: { aws: { source: 'aws' } } } },
      policy: { terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: '~> 0.1' } } } },
    });
    const build = jest.fn(() => mirror('h1:x='));
    expect(prepareSynthesizedStacks(scratch, build)).toEqual(['policy']);
    expect(build).toHaveBeenCalledTimes(1);
    expect(fs.existsSync(path.join(scratch, 'stacks', 'policy', '.terraform.lock.hcl'))).toBe(true);
    expect(fs.existsSync(path.join(scratch, 'stacks', 'aws', '.terraform.lock.hcl'))).toBe(false);

    writeApp({ aws: { terraform: { required_providers: { aws: { source: 'aws' } } } } });
    const unused = jest.fn(() => mirror('h1:x='));
    expect(prepareSynthesizedStacks(scratch, unused)).toEqual([]);
    expect(unused).not.toHaveBeenCalled();
  });

  test('after a bare synth the app notes the unprepared svc stacks; once prepared, or under the npm scripts, it says nothing', () => {
    writeApp({
      aws: { terraform: { required_providers: { aws: { source: 'aws' } } } },
      policy: { terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: '~> 0.1' } } } },
    });
    expect(unpreparedStacksNote(scratch, {})).toMatch(/^note: policy uses registry\.terraform\.io\/svc-prevent\/svc, which no registry serves, .*Run npm run synth\|diff\|deploy\|destroy instead of npx cdktf/);
    expect(unpreparedStacksNote(scratch, { [STACKS_PREPARED_AFTER_SYNTH_ENV]: '1' })).toBeUndefined();
    fs.mkdirSync(path.join(scratch, 'build', 'mirror'), { recursive: true });
    prepareSynthesizedStacks(scratch, () => mirror('h1:x='));
    expect(unpreparedStacksNote(scratch, {})).toBeUndefined();
  });

  test('an output directory that was never synthesized says how to synthesize', () => {
    expect(() => synthesizedStacks(scratch)).toThrow(/manifest\.json does not exist; synthesize first \(npx cdktf synth --output /);
  });
});

describe('reading a build (providerBuildState, builtProviderMirror) and building it (ensureProviderBuilt)', () => {
  function fakeBuild(mtime: Date): string {
    const buildDir = path.join(scratch, 'build');
    const packageDir = path.join(buildDir, 'mirror', 'registry.terraform.io', 'svc-prevent', 'svc', packageVersion(), currentPlatform());
    fs.mkdirSync(packageDir, { recursive: true });
    const executable = path.join(packageDir, `terraform-provider-svc_v${packageVersion()}`);
    fs.writeFileSync(executable, 'fake bundle');
    fs.utimesSync(executable, mtime, mtime);
    fs.writeFileSync(path.join(buildDir, 'terraform.rc'), '');
    return buildDir;
  }

  test('uses a build newer than the sources as it is', () => {
    const buildDir = fakeBuild(new Date(Date.now() + 60_000));
    const result = ensureProviderBuilt({ buildDir });
    expect(result).toMatchObject({ buildDir, built: false, version: packageVersion() });
    expect(result.hash).toBe(packageHash(path.join(buildDir, 'mirror', 'registry.terraform.io', 'svc-prevent', 'svc', packageVersion(), currentPlatform())));
  });

  test('reading never builds: missing and stale builds are named, with the command that builds them', () => {
    const missing = path.join(scratch, 'nothing-here');
    expect(providerBuildState(missing)).toEqual({ state: 'missing' });
    expect(() => builtProviderMirror(missing)).toThrow(ProviderMirrorError);
    expect(() => builtProviderMirror(missing)).toThrow(`the svc provider is not built in ${missing}; run \`npm run build -- --out-dir ${missing}\``);
    expect(fs.existsSync(missing)).toBe(false);
    const buildDir = fakeBuild(new Date(0));
    expect(providerBuildState(buildDir).state).toBe('stale');
    expect(() => builtProviderMirror(buildDir)).toThrow(/is older than its sources; run `npm run build -- --out-dir /);
    expect(fs.readFileSync(path.join(buildDir, 'mirror', 'registry.terraform.io', 'svc-prevent', 'svc', packageVersion(), currentPlatform(), `terraform-provider-svc_v${packageVersion()}`), 'utf8')).toBe('fake bundle');
    const current = fakeBuild(new Date(Date.now() + 60_000));
    expect(builtProviderMirror(current)).toMatchObject({ buildDir: current, built: false, version: packageVersion() });
  });

  test('rebuilds a build older than the sources, saying why', () => {
    const buildDir = fakeBuild(new Date(0));
    const lines: string[] = [];
    const result = ensureProviderBuilt({ buildDir, log: (line) => lines.push(line) });
    expect(result.built).toBe(true);
    expect(lines).toEqual([`svc provider: sources changed since the last build; building into ${buildDir}`]);
    expect(fs.readFileSync(path.join(buildDir, 'terraform-provider-svc'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node/);
  });
});

describe('filesystemMirror: a mirror a team names, in terraform\'s unpacked layout', () => {
  const versionsDir = () => path.join(scratch, 'mirror', ...PROVIDER_SOURCE.split('/'));
  function release(version: string, platform = currentPlatform()): void {
    const directory = path.join(versionsDir(), version, platform);
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, `${EXECUTABLE_NAME}_v${version}`), `#!/bin/sh\necho ${version}\n`);
  }

  test('the newest version by number (a release candidate before its release), with the checksum of its package', () => {
    for (const version of ['0.2.0', '0.10.0-rc.1', '0.10.0', '0.9.3']) release(version);
    const found = filesystemMirror(path.join(scratch, 'mirror'));
    expect(found).toEqual({ buildDir: scratch, mirrorDir: path.join(scratch, 'mirror'), version: '0.10.0', hash: packageHash(path.join(versionsDir(), '0.10.0', currentPlatform())), built: false });
    expect(filesystemMirror(path.join(scratch, 'mirror'), '0.2.0').version).toBe('0.2.0');
  });

  test('refusals: no provider, a version it lacks, a build for another platform only', () => {
    expect(() => filesystemMirror(path.join(scratch, 'empty'))).toThrow(new ProviderMirrorError(`${path.join(scratch, 'empty')} holds no svc provider: expected ${path.join(scratch, 'empty', ...PROVIDER_SOURCE.split('/'), '<version>', currentPlatform())}/${EXECUTABLE_NAME}_v<version>`));
    release('0.1.0');
    expect(() => filesystemMirror(path.join(scratch, 'mirror'), '0.3.0')).toThrow(`${versionsDir()} has no version 0.3.0 of the svc provider; it has 0.1.0`);
    release('0.4.0', 'plan9_mips');
    expect(() => filesystemMirror(path.join(scratch, 'mirror'))).toThrow(`the svc provider 0.4.0 in ${path.join(scratch, 'mirror')} is not built for ${currentPlatform()} (it has plan9_mips)`);
  });

  test('prepareStacksForSvcProvider links and locks each svc stack to the named mirror', () => {
    release('0.5.0');
    const app = path.join(scratch, 'app');
    fs.mkdirSync(path.join(app, 'stacks', 'policy'), { recursive: true });
    fs.writeFileSync(path.join(app, 'manifest.json'), JSON.stringify({ stacks: { policy: { name: 'policy', workingDirectory: 'stacks/policy', synthesizedStackPath: 'stacks/policy/cdk.tf.json' } } }));
    fs.writeFileSync(path.join(app, 'stacks', 'policy', 'cdk.tf.json'), JSON.stringify({ terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: '0.5.0' } } } }));
    expect(prepareStacksForSvcProvider(app, { mirrorDir: path.join(scratch, 'mirror') })).toEqual(['policy']);
    expect(fs.readlinkSync(path.join(app, 'stacks', 'policy', 'terraform.d', 'plugins'))).toBe(path.join(scratch, 'mirror'));
    expect(fs.readFileSync(path.join(app, 'stacks', 'policy', '.terraform.lock.hcl'), 'utf8')).toContain(packageHash(path.join(versionsDir(), '0.5.0', currentPlatform())));
  });
});

describe('packageHash of a package with subdirectories', () => {
  test('files in subdirectories count with their relative path', () => {
    const directory = path.join(scratch, 'package');
    fs.mkdirSync(path.join(directory, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(directory, 'a'), 'a');
    fs.writeFileSync(path.join(directory, 'docs', 'b'), 'b');
    const before = packageHash(directory);
    fs.renameSync(path.join(directory, 'docs'), path.join(directory, 'notes'));
    expect(packageHash(directory)).not.toBe(before);
    expect(before).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
  });
});

describe('terraformCliConfig: the user\'s TF_CLI_CONFIG_FILE is kept, with a note when it hides the svc mirror', () => {
  const built = () => mirror('h1:x=');
  const config = (text: string) => {
    const file = path.join(scratch, 'user.tfrc');
    fs.writeFileSync(file, text);
    return file;
  };

  test('unset: the build\'s own config file', () => {
    expect(terraformCliConfig(built(), {})).toEqual({ file: built().cliConfigFile, usersOwn: false });
  });

  test.each([
    ['no provider_installation block', 'plugin_cache_dir = "/tmp/cache"\n'],
    ['a provider_installation only in comments', '# provider_installation {\n/* provider_installation { } */\n// provider_installation {\n'],
    ['a block that names the mirror already', 'provider_installation {\n  filesystem_mirror {\n    path = "MIRROR"\n  }\n}\n'],
  ])('%s: kept, no note', (_name, text) => {
    const file = config(text.replace('MIRROR', built().mirrorDir));
    expect(terraformCliConfig(built(), { TF_CLI_CONFIG_FILE: file })).toEqual({ file, usersOwn: true });
  });

  test('a file terraform cannot open is kept for terraform to report', () => {
    const missing = path.join(scratch, 'nowhere.tfrc');
    expect(terraformCliConfig(built(), { TF_CLI_CONFIG_FILE: missing })).toEqual({ file: missing, usersOwn: true });
  });

  test('a provider_installation block of its own: a note with the block to add, for a build and for a named mirror', () => {
    const file = config('provider_installation {\n  direct {}\n}\n');
    const note = terraformCliConfig(built(), { TF_CLI_CONFIG_FILE: file }).note!;
    expect(note).toContain(`your TF_CLI_CONFIG_FILE (${file}) has a provider_installation block`);
    expect(note).toContain(`Add the filesystem_mirror block of ${built().cliConfigFile} to that provider_installation block`);
    expect(note).toContain(`    path    = "${path.join(scratch, 'build', 'mirror')}"`);
    expect(note.split('\n').at(-1)).toBe(`or unset TF_CLI_CONFIG_FILE to use ${built().cliConfigFile}.`);
    const named = terraformCliConfig({ ...built(), cliConfigFile: undefined }, { TF_CLI_CONFIG_FILE: file }).note!;
    expect(named).toContain(`Add a filesystem_mirror block for ${path.join(scratch, 'build', 'mirror')}`);
    expect(named.split('\n').at(-1)).toBe('or unset TF_CLI_CONFIG_FILE.');
  });
});

describe('reading stacks: HCL (cdktf synth --hcl) as well as JSON', () => {
  const write = (name: string, text: string) => {
    const file = path.join(scratch, name);
    fs.writeFileSync(file, text);
    return file;
  };

  test('stackSvcRequirement reads cdktf\'s HCL rendering of required_providers', () => {
    const hcl = 'terraform {\n  required_providers {\n    aws = {\n      version = "6.11.0"\n      source = "aws"\n    }\n    svc = {\n      version = "~> 0.1"\n      source = "registry.terraform.io/svc-prevent/svc"\n    }\n  }\n}\n';
    expect(stackSvcRequirement(write('cdk.tf', hcl))).toEqual({ constraint: '~> 0.1' });
    expect(stackSvcRequirement(write('unpinned.tf', 'terraform {\n  required_providers {\n    svc = {\n      source = "svc-prevent/svc"\n    }\n  }\n}\n'))).toEqual({ constraint: undefined });
    expect(stackSvcRequirement(write('aws.tf', 'terraform {\n  required_providers {\n    aws = {\n      source = "aws"\n    }\n  }\n}\n'))).toBeNull();
  });

  test.each([
    ['JSON, one block', 'a.tf.json', { provider: { svc: { base_url: 'https://svc.example', tenant: '${var.tenant}' } } }, 'https://svc.example', undefined],
    ['JSON, a list of blocks: the first', 'b.tf.json', { provider: { svc: [{ base_url: 'https://first.example' }, { base_url: 'https://second.example', tenant: 'acme' }] } }, 'https://first.example', undefined],
    ['JSON without a svc provider', 'c.tf.json', { provider: { aws: {} } }, undefined, undefined],
    ['HCL', 'd.tf', 'provider "svc" {\n  base_url = "https://svc.example"\n  tenant   = var.tenant\n}\n', 'https://svc.example', undefined],
    ['HCL with a literal tenant', 'e.tf', 'provider "svc" {\n  base_url = ""\n  tenant = "acme"\n}\n', undefined, 'acme'],
  ])('svcProviderSetting: %s', (_name, file, content, baseUrl, tenant) => {
    const written = write(file, typeof content === 'string' ? content : JSON.stringify(content));
    expect(svcProviderSetting(written, 'base_url')).toBe(baseUrl);
    expect(svcProviderSetting(written, 'tenant')).toBe(tenant);
  });
});

describe('where the build is, and the shared plugin cache note', () => {
  test('providerBuildDir: the environment\'s directory, resolved, else the repository\'s dist', () => {
    expect(providerBuildDir({ [PROVIDER_BUILD_DIR_ENV]: 'relative/build' })).toBe(path.resolve('relative/build'));
    expect(providerBuildDir({ [PROVIDER_BUILD_DIR_ENV]: '' })).toBe(providerBuildDir({}));
    expect(path.basename(providerBuildDir({}))).toBe('dist');
  });

  test('a note only for cdktf\'s own per-user cache, unless the cache is turned off', () => {
    const home = path.join(scratch, 'home');
    const cache = cdktfDefaultPluginCache(home);
    expect(sharedPluginCacheNote({ TF_PLUGIN_CACHE_DIR: cache }, home)).toMatch(/^note: cdktf set TF_PLUGIN_CACHE_DIR=.*plugin-cache, a cache every checkout on this machine shares/);
    expect(sharedPluginCacheNote({ TF_PLUGIN_CACHE_DIR: cache, CDKTF_DISABLE_PLUGIN_CACHE_ENV: 'true' }, home)).toBeUndefined();
    expect(sharedPluginCacheNote({ TF_PLUGIN_CACHE_DIR: path.join(scratch, 'other-cache') }, home)).toBeUndefined();
    expect(sharedPluginCacheNote({}, home)).toBeUndefined();
  });
});
