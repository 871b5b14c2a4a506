/**
 * The release (issue 13): the run's shared release (support/shared-release.ts: `buildRelease`
 * once per jest run, signed with a throwaway key, read-only here; what a test damages is a copy);
 * then real terraform, with PATH holding terraform only (no node for terraform nor the
 * provider), installs the provider over real HTTPS from the generated network mirror and,
 * separately, from the generated registry, applies an entry against the emulator, and refuses
 * a tampered zip and a wrong signature.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformStack, Testing } from 'cdktf';
import { BlacklistEntry } from '../../modules/svc-provider/blacklist-entry';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { buildRelease, ReleaseError, type ReleaseResult } from '../../scripts/release/build';
import { MAIN_ASSET, MAIN_CACHE_ASSET, SERVICE_ASSET, SERVICE_CACHE_ASSET } from '../../scripts/release/executable-assets';
import { executableName, executableSbomName, packageSbomName, parseSums, PROJECT_NAME, publicKeyName, signatureName, sumsName, svcSbomName, svcZipName, zipName, manifestName } from '../../scripts/release/layout';
import { main as releaseSiteMain, readRelease, SiteError, writeNetworkMirror, writeRegistry } from '../../scripts/release/static-sites';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { hclString } from '../../scripts/terraform-harness/hcl';
import { readZipEntries } from '../provider-acceptance/support/zip';
import { track } from '../support/child-processes';
import { makeTestKeyring } from './support/gpg';
import { makeTestCertificateAuthority, serveStaticSite, type StaticSite, type TestCertificateAuthority } from './support/https-site';
import { sharedRelease } from './support/shared-release';
import { cleanEnvironment, lockFileHashes, terraform, terraformOnlyPath, type CleanMachine } from './support/terraform';

const VERSION = '0.1.0';
/** The svc command's zips and their SBOMs. */
const SVC_ZIPS = [svcZipName('0.1.0', 'linux', 'amd64'), svcZipName('0.1.0', 'linux', 'arm64')];
const SVC_SBOMS = [svcSbomName('0.1.0', 'linux', 'amd64'), svcSbomName('0.1.0', 'linux', 'arm64')];
/** The HCL modules of terraform/modules, as the release names their archives. */
const MODULE_ARCHIVES = [`terraform-aws-control-plane_${'0.1.0'}.tar.gz`, `terraform-svc-security-policy_${'0.1.0'}.tar.gz`];
const REGISTRY_HOST = 'registry.svc-prevent.test';
const TENANT = 'release';
/** Building both executables (postject rewrites ~120 MB per executable) takes a minute or two on a busy machine (here or in the file that builds the run's release). */
const BUILD_TIMEOUT_MS = 10 * 60_000;
const TERRAFORM_TIMEOUT_MS = 3 * 60_000;

let scratch: string;

/** The shipped bytes: a release zip's first entry (its executable), unzipped with mode 0755 into `directory` under the scratch one. */
function unzippedExecutable(zipFile: string, directory: string): string {
  const [entry] = readZipEntries(fs.readFileSync(path.join(release.outDir, zipFile)));
  const executable = path.join(scratch, directory, entry.name);
  fs.mkdirSync(path.dirname(executable), { recursive: true });
  fs.writeFileSync(executable, entry.data, { mode: 0o755 });
  return executable;
}
let fingerprint: string;
let release: ReleaseResult;
let progress: readonly string[];
let authority: TestCertificateAuthority;
let machine: CleanMachine;
let emulator: AcceptanceEmulator;
const sites: StaticSite[] = [];

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'release-'));
  ({ release, fingerprint, progress } = await sharedRelease());
  process.stderr.write(`the run's release build (${release.outDir}):\n${progress.join('\n')}\n`);
  authority = makeTestCertificateAuthority(path.join(scratch, 'ca'));
  fs.mkdirSync(path.join(scratch, 'home'));
  machine = { binDirectory: terraformOnlyPath(path.join(scratch, 'terraform-only')), caFile: authority.caFile, home: path.join(scratch, 'home') };
  emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(sites.map((site) => site.close()));
  await emulator?.stop();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

async function serve(root: string): Promise<StaticSite> {
  const site = await serveStaticSite(root, authority);
  sites.push(site);
  return site;
}

/** A command run without blocking this process (the emulator answers from it), its output collected. */
function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs `run` and returns its result with what it wrote to stdout (not passed through). */
function captureStdout(run: () => number): { code: number; stdout: string } {
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    return { code: run(), stdout: chunks.join('') };
  } finally {
    spy.mockRestore();
  }
}

/** A copy of the release directory to damage. */
function copyRelease(name: string): string {
  const copy = path.join(scratch, name);
  fs.cpSync(release.outDir, copy, { recursive: true });
  return copy;
}

function sumsOfZips(): string[] {
  // The provider's zips only: svc's zips share the SHA256SUMS but are no provider package.
  return [...parseSums(fs.readFileSync(release.sums, 'utf8'))].filter(([name]) => name.startsWith(`${PROJECT_NAME}_`) && name.endsWith('.zip')).map(([, hash]) => `zh:${hash}`).sort();
}

/**
 * Terraform's `h1:` hash of a zip (dirhash Hash1): sha256 over "<sha256 hex>  <name>\n" of
 * each file, sorted. A mirror install records only this for the platform it installed.
 */
function h1OfZip(arch: string): string {
  const zip = path.join(release.outDir, zipName(VERSION, 'linux', arch));
  expect(sumsOfZips()).toContain(`zh:${createHash('sha256').update(fs.readFileSync(zip)).digest('hex')}`);
  const lines = readZipEntries(fs.readFileSync(zip))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((entry) => `${createHash('sha256').update(entry.data).digest('hex')}  ${entry.name}\n`);
  return `h1:${createHash('sha256').update(lines.join('')).digest('base64')}`;
}

function configuration(source: string, ip: string): string {
  return [
    'terraform {',
    '  required_providers {',
    `    svc = { source = ${hclString(source)}, version = ${hclString(VERSION)} }`,
    '  }',
    '}',
    '',
    'provider "svc" {',
    `  base_url = ${hclString(emulator.url)}`,
    `  tenant   = ${hclString(TENANT)}`,
    '}',
    '',
    'resource "svc_blacklist_entry" "released" {',
    `  ip          = ${hclString(ip)}`,
    '  description = "applied by the released provider"',
    '}',
    '',
  ].join('\n');
}

function networkMirrorConfig(url: string): string {
  return ['provider_installation {', '  network_mirror {', `    url = ${hclString(`${url}/`)}`, '  }', '}', ''].join('\n');
}

function registryConfig(url: string): string {
  return [
    `host ${hclString(REGISTRY_HOST)} {`,
    `  services = { "providers.v1" = ${hclString(`${url}/v1/providers/`)} }`,
    '}',
    'provider_installation {',
    `  direct { include = [${hclString(`${REGISTRY_HOST}/*/*`)}] }`,
    '}',
    '',
  ].join('\n');
}

/** A clean working directory and CLI config; returns how to run terraform there. */
function workspace(name: string, cliConfig: string, main: string): { dir: string; run: (args: string[]) => ReturnType<typeof terraform> } {
  const dir = path.join(scratch, 'workspaces', name);
  fs.mkdirSync(dir, { recursive: true });
  const cliConfigFile = path.join(dir, '..', `${name}.tfrc`);
  fs.writeFileSync(cliConfigFile, cliConfig);
  fs.writeFileSync(path.join(dir, 'main.tf'), main);
  const env = cleanEnvironment(machine, cliConfigFile, { SVC_API_KEY: emulator.apiKey });
  return { dir, run: (args) => terraform(dir, [...args, '-no-color'], env) };
}

describe('the release directory', () => {
  test('holds the goreleaser layout for the package version, signed', () => {
    expect(release.version).toBe(VERSION);
    const summed = [
      zipName(VERSION, 'linux', 'amd64'),
      zipName(VERSION, 'linux', 'arm64'),
      executableSbomName(VERSION, 'linux', 'amd64'),
      executableSbomName(VERSION, 'linux', 'arm64'),
      ...SVC_ZIPS,
      ...SVC_SBOMS,
      ...MODULE_ARCHIVES,
      packageSbomName(VERSION),
      manifestName(VERSION),
    ];
    expect(fs.readdirSync(release.outDir).sort()).toEqual([...summed, sumsName(VERSION), signatureName(VERSION), publicKeyName(VERSION)].sort());
    expect(JSON.parse(fs.readFileSync(release.manifest, 'utf8'))).toEqual({ version: 1, metadata: { protocol_versions: ['6.0'] } });
    expect([...parseSums(fs.readFileSync(release.sums, 'utf8')).keys()].sort()).toEqual([...summed].sort());
    expect(release.modules.map((module) => path.basename(module.file))).toEqual(MODULE_ARCHIVES);
  });

  test('each executable\'s SBOM names its sha256, the Node runtime and the packages its THIRD_PARTY_NOTICES lists', () => {
    for (const arch of ['amd64', 'arm64'] as const) {
      const entries = readZipEntries(fs.readFileSync(path.join(release.outDir, zipName(VERSION, 'linux', arch))));
      const sbom = JSON.parse(fs.readFileSync(path.join(release.outDir, executableSbomName(VERSION, 'linux', arch)), 'utf8'));
      expect(sbom.metadata.component.hashes).toEqual([{ alg: 'SHA-256', content: createHash('sha256').update(entries[0].data).digest('hex') }]);
      const [node, ...bundled] = sbom.components as Array<{ name: string; version: string }>;
      expect(node).toMatchObject({ name: 'node', version: '24.21.0' });
      const listed = [...entries[2].data.toString('utf8').matchAll(/^  (\S+) (\d\S*) \(/gm)].map((match) => `${match[1]}@${match[2]}`).filter((name) => !name.startsWith('Node.js'));
      expect(bundled.map((component) => `${component.name}@${component.version}`)).toEqual(listed);
    }
    const library = JSON.parse(fs.readFileSync(path.join(release.outDir, packageSbomName(VERSION)), 'utf8'));
    expect(library.metadata.component).toMatchObject({ name: 'svc-prevent', version: VERSION });
  });

  test('each zip holds the executable terraform-provider-svc_v<version>, mode 0755, for its architecture, with LICENSE and THIRD_PARTY_NOTICES', () => {
    const elfMachine = { amd64: 62, arm64: 183 } as const;
    for (const arch of ['amd64', 'arm64'] as const) {
      const zip = fs.readFileSync(path.join(release.outDir, zipName(VERSION, 'linux', arch)));
      const entries = readZipEntries(zip);
      expect(entries.map((entry) => entry.name)).toEqual([executableName(VERSION), 'LICENSE', 'THIRD_PARTY_NOTICES']);
      // The first central directory entry's external attributes carry the executable's unix mode
      // (the end record, 22 bytes at the end with no comment, gives where the directory starts).
      const central = zip.readUInt32LE(zip.length - 22 + 16);
      expect((zip.readUInt32LE(central + 38) >>> 16).toString(8)).toBe('100755');
      expect(entries[1].data.equals(fs.readFileSync(path.join(__dirname, '..', '..', 'LICENSE')))).toBe(true);
      const notices = entries[2].data.toString('utf8');
      expect(notices).toContain(`Third-party notices for ${executableName(VERSION)} (linux_${arch})`);
      // Node's own LICENSE from the pinned package: Node's licence and those of what it bundles.
      expect(notices).toContain('  Node.js 24.21.0 (MIT');
      expect(notices).toMatch(/- OpenSSL, located at deps\/openssl/);
      expect(notices).toMatch(/^  undici \d+\.\d+\.\d+ \(MIT\)$/m);
      const data = entries[0].data;
      expect(data.readUInt32BE(0)).toBe(0x7f454c46);
      expect(data.readUInt16LE(18)).toBe(elfMachine[arch]);
      expect(data.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')).toBe(true);
    }
    expect(release.platforms.map((platform) => [platform.arch, platform.codeCache])).toEqual([
      ['amd64', true],
      ['arm64', false],
    ]);
  });

  test('sha256sum -c passes, and gpg verifies the signature with the exported public key', () => {
    const check = spawnSync('sha256sum', ['-c', path.basename(release.sums)], { cwd: release.outDir, encoding: 'utf8' });
    expect(check.stdout).toContain(`${zipName(VERSION, 'linux', 'amd64')}: OK`);
    expect(check.status).toBe(0);
    const verifier = makeTestKeyring();
    try {
      expect(spawnSync('gpg', ['--batch', '--import', release.publicKey as string], { env: verifier.env }).status).toBe(0);
      const verify = spawnSync('gpg', ['--batch', '--verify', release.signature as string, release.sums], { env: verifier.env, encoding: 'utf8' });
      expect(verify.stderr).toContain('Good signature');
      expect(verify.status).toBe(0);
    } finally {
      verifier.dispose();
    }
  });

  test('the linux_amd64 executable answers --version with no node and no PATH, and says how it is installed when run by hand', () => {
    const executable = unzippedExecutable(zipName(VERSION, 'linux', 'amd64'), 'unzipped');
    const version = spawnSync(executable, ['--version'], { env: {}, encoding: 'utf8' });
    expect(version.stdout).toBe(`${PROJECT_NAME} ${VERSION} (node v24.21.0, linux_x64)\n`);
    expect(version.status).toBe(0);
    const byHand = spawnSync(executable, [], { env: {}, encoding: 'utf8' });
    expect(byHand.status).toBe(1);
    expect(byHand.stderr).toContain('terraform starts it');
    expect(byHand.stdout).toBe('');
  });

  test('the linux_amd64 executable accepts the code caches it carries (a rejected one would only cost time at every start)', () => {
    const executable = unzippedExecutable(zipName(VERSION, 'linux', 'amd64'), 'caches');
    // Preloaded into the executable itself: its Node, its options and V8 flags, its assets, as its loader compiles them.
    const check = path.join(scratch, 'caches', 'check-caches.js');
    fs.writeFileSync(
      check,
      [
        "const { getAsset } = require('node:sea'); const { Script } = require('node:vm');",
        `const pairs = ${JSON.stringify([[MAIN_ASSET, MAIN_CACHE_ASSET], [SERVICE_ASSET, SERVICE_CACHE_ASSET]])};`,
        "const answers = pairs.map(([source, cache]) => [source, new Script(getAsset(source, 'utf8'), { filename: source, cachedData: Buffer.from(getAsset(cache)) }).cachedDataRejected]);",
        'process.stdout.write(JSON.stringify(Object.fromEntries(answers))); process.exit(0);',
      ].join('\n'),
    );
    const run = spawnSync(executable, [], { env: { NODE_OPTIONS: `--require ${check}` }, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ [MAIN_ASSET]: false, [SERVICE_ASSET]: false });
  });

  test('each svc zip holds the executable svc, mode 0755, for its architecture, with LICENSE and THIRD_PARTY_NOTICES; sha256sum -c covers them', () => {
    const elfMachine = { amd64: 62, arm64: 183 } as const;
    for (const arch of ['amd64', 'arm64'] as const) {
      const zip = fs.readFileSync(path.join(release.outDir, svcZipName(VERSION, 'linux', arch)));
      const entries = readZipEntries(zip);
      expect(entries.map((entry) => entry.name)).toEqual(['svc', 'LICENSE', 'THIRD_PARTY_NOTICES']);
      expect(entries[1].data.toString('utf8')).toContain('Mozilla Public License Version 2.0');
      expect(entries[2].data.toString('utf8')).toMatch(/undici/);
      expect(entries[2].data.toString('utf8')).toMatch(/Node\.js/);
      const sbom = JSON.parse(fs.readFileSync(path.join(release.outDir, svcSbomName(VERSION, 'linux', arch)), 'utf8'));
      expect(sbom.metadata.component.hashes).toEqual([{ alg: 'SHA-256', content: createHash('sha256').update(entries[0].data).digest('hex') }]);
      // The first central directory entry (svc) carries the executable's unix mode.
      const central = zip.readUInt32LE(zip.length - 22 + 16);
      expect((zip.readUInt32LE(central + 38) >>> 16).toString(8)).toBe('100755');
      expect(entries[0].data.readUInt16LE(18)).toBe(elfMachine[arch]);
      expect(entries[0].data.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')).toBe(true);
    }
    const check = spawnSync('sha256sum', ['-c', path.basename(release.sums)], { cwd: release.outDir, encoding: 'utf8' });
    for (const file of [...SVC_ZIPS, ...SVC_SBOMS]) expect(check.stdout).toContain(`${file}: OK`);
    expect(release.commands.map((command) => [command.arch, command.codeCache])).toEqual([
      ['amd64', true],
      ['arm64', false],
    ]);
  });

  test('the released svc runs with no node on PATH: --help, and entries list against the emulator with the key from the environment only', async () => {
    const bin = path.dirname(unzippedExecutable(svcZipName(VERSION, 'linux', 'amd64'), 'svc-only'));
    // PATH holds svc alone: no node (nor anything else) it could find.
    const environment = { PATH: bin, HOME: machine.home };
    expect(fs.readdirSync(bin)).toEqual(['svc']);

    const help = await runCommand('svc', ['--help'], environment);
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: svc <command>/);
    expect(help.stdout).toContain('entries');

    await emulator.client(TENANT).addEntry('blacklist', { ip: '192.0.2.77', description: 'listed by the released svc' });
    const withService = { ...environment, SVC_BASE_URL: emulator.url, SVC_TENANT: TENANT, SVC_API_KEY: emulator.apiKey };
    const list = await runCommand('svc', ['entries', 'list', 'blacklist', '--format', 'json'], withService);
    expect({ status: list.status, stderr: list.stderr }).toEqual({ status: 0, stderr: '' });
    expect(list.stdout).toContain('192.0.2.77');
    expect(list.stdout).toContain('listed by the released svc');
    expect(list.stdout + list.stderr).not.toContain(emulator.apiKey);

    const badKey = await runCommand('svc', ['entries', 'list', 'blacklist'], { ...withService, SVC_API_KEY: 'not-the-key-0123456789' });
    expect(badKey.status).toBe(1);
    expect(badKey.stdout + badKey.stderr).not.toContain('not-the-key-0123456789');
  });

  test('the build reported its progress', () => {
    expect(progress.join('\n')).toMatch(/linux_amd64: injecting the provider .* with code cache/);
    expect(progress.join('\n')).toMatch(/signed: .*SHA256SUMS\.sig/);
  });
});

describe('clear errors', () => {
  test('a signing key gpg does not have stops the build before anything is built', async () => {
    const keyring = makeTestKeyring();
    try {
      keyring.generateKey('another release key');
      const attempt = () => buildRelease({ outDir: path.join(scratch, 'never'), signing: { key: 'nobody@nowhere.example' }, env: keyring.env });
      await expect(attempt()).rejects.toThrow(ReleaseError);
      await expect(attempt()).rejects.toThrow(/SVC_RELEASE_GPG_KEY="nobody@nowhere\.example" names no secret key in gpg's keyring/);
      expect(fs.existsSync(path.join(scratch, 'never'))).toBe(false);
    } finally {
      keyring.dispose();
    }
  });

  test('the registry generator refuses an unsigned release, and both refuse a damaged zip', () => {
    const unsigned = copyRelease('unsigned');
    fs.rmSync(path.join(unsigned, signatureName(VERSION)));
    expect(() => writeRegistry({ release: readRelease(unsigned), outDir: path.join(scratch, 'unsigned-site') })).toThrow(/needs a signed release.*SVC_RELEASE_GPG_KEY/);
    const damaged = copyRelease('damaged');
    fs.appendFileSync(path.join(damaged, zipName(VERSION, 'linux', 'arm64')), 'x');
    expect(() => readRelease(damaged)).toThrow(SiteError);
    expect(() => readRelease(damaged)).toThrow(new RegExp(`${zipName(VERSION, 'linux', 'arm64').replace(/\./g, '\\.')} has sha256 [0-9a-f]{64}, but .*SHA256SUMS says`));
  });
});

describe('terraform installs the released provider without node', () => {
  test(
    'from the network mirror: init, apply an entry, lock file hashes are the SHA256SUMS',
    async () => {
      const root = path.join(scratch, 'mirror-site');
      writeNetworkMirror({ release: readRelease(release.outDir), outDir: root });
      const site = await serve(root);
      const { dir, run } = workspace('mirror', networkMirrorConfig(site.url), configuration('svc-prevent/svc', '192.0.2.10'));
      const init = await run(['init', '-input=false']);
      expect(init.output).toContain(`Installed svc-prevent/svc v${VERSION} (verified checksum)`);
      expect(init.code).toBe(0);
      expect(site.requests).toContain('/registry.terraform.io/svc-prevent/svc/index.json');
      // The mirror's documents carry the SHA256SUMS as zh: hashes; terraform checked the zip against
      // them and records the h1: of what it installed (a mirror is not an authority for the others).
      const versionDocument = JSON.parse(fs.readFileSync(path.join(root, 'registry.terraform.io', 'svc-prevent', 'svc', `${VERSION}.json`), 'utf8')) as {
        archives: Record<string, { hashes: string[] }>;
      };
      expect(Object.values(versionDocument.archives).flatMap((archive) => archive.hashes).sort()).toEqual(sumsOfZips());
      expect(lockFileHashes(dir, 'registry.terraform.io/svc-prevent/svc')).toEqual([h1OfZip('amd64')]);
      // What help/releasing.md tells a team on several platforms to run: both platforms' h1:, from the zips in SHA256SUMS.
      const lock = await run(['providers', 'lock', `-net-mirror=${site.url}/`, '-platform=linux_amd64', '-platform=linux_arm64']);
      expect(lock.code).toBe(0);
      expect(lockFileHashes(dir, 'registry.terraform.io/svc-prevent/svc')).toEqual([h1OfZip('amd64'), h1OfZip('arm64')].sort());
      const apply = await run(['apply', '-auto-approve', '-input=false']);
      expect(apply.output).toContain('Apply complete! Resources: 1 added');
      expect(apply.code).toBe(0);
      expect((await emulator.client(TENANT).listEntries('blacklist')).map((entry) => entry.ip)).toContain('192.0.2.10');
    },
    TERRAFORM_TIMEOUT_MS,
  );

  test(
    'from the registry protocol: init verifies the signature, apply an entry, lock file hashes are the SHA256SUMS',
    async () => {
      const root = path.join(scratch, 'registry-site');
      writeRegistry({ release: readRelease(release.outDir), outDir: root });
      const site = await serve(root);
      const { dir, run } = workspace('registry', registryConfig(site.url), configuration(`${REGISTRY_HOST}/svc-prevent/svc`, '192.0.2.11'));
      const init = await run(['init', '-input=false']);
      expect(init.output).toContain(`Installed ${REGISTRY_HOST}/svc-prevent/svc v${VERSION} (self-signed, key ID ${fingerprint.slice(-16)})`);
      expect(init.code).toBe(0);
      // A zh: for every line of the SHA256SUMS (terraform takes them all, the manifest's and the SBOMs' too), plus the h1: of the package it installed.
      const allSums = [...parseSums(fs.readFileSync(release.sums, 'utf8')).values()].map((hash) => `zh:${hash}`);
      expect(allSums).toHaveLength(6 + SVC_ZIPS.length + SVC_SBOMS.length + MODULE_ARCHIVES.length);
      expect(lockFileHashes(dir, `${REGISTRY_HOST}/svc-prevent/svc`)).toEqual([h1OfZip('amd64'), ...allSums].sort());
      const apply = await run(['apply', '-auto-approve', '-input=false']);
      expect(apply.output).toContain('Apply complete! Resources: 1 added');
      expect(apply.code).toBe(0);
      expect((await emulator.client(TENANT).listEntries('blacklist')).map((entry) => entry.ip)).toContain('192.0.2.11');
      // The discovery document a registry host serves at its root.
      expect(JSON.parse(fs.readFileSync(path.join(root, '.well-known', 'terraform.json'), 'utf8'))).toEqual({ 'providers.v1': '/v1/providers/' });
    },
    TERRAFORM_TIMEOUT_MS,
  );
});

test(
  'the registry site serves the HCL module too: <host>/svc-prevent/security-policy/svc installs with terraform alone on PATH and applies with the released provider',
  async () => {
    const root = path.join(scratch, 'module-site');
    const written = captureStdout(() => releaseSiteMain(['registry', '--release-dir', release.outDir, '--out-dir', root]));
    expect(written.code).toBe(0);
    expect(written.stdout).toContain('module registry files for svc-prevent/control-plane/aws, svc-prevent/security-policy/svc 0.1.0');
    expect(JSON.parse(fs.readFileSync(path.join(root, '.well-known', 'terraform.json'), 'utf8'))).toEqual({ 'providers.v1': '/v1/providers/', 'modules.v1': '/v1/modules/' });
    // The provider comes from the network mirror: the module asks for svc-prevent/svc.
    writeNetworkMirror({ release: readRelease(release.outDir), outDir: path.join(root, 'mirror') });
    const site = await serve(root);
    const source = `${new URL(site.url).host}/svc-prevent/security-policy/svc`;
    const main = [
      'terraform {',
      '  required_providers {',
      '    svc = { source = "svc-prevent/svc" }',
      '  }',
      '}',
      '',
      'provider "svc" {',
      `  base_url = ${hclString(emulator.url)}`,
      `  tenant   = ${hclString(TENANT)}`,
      '}',
      '',
      'module "security_policy" {',
      `  source  = ${hclString(source)}`,
      `  version = ${hclString(VERSION)}`,
      `  tenant  = ${hclString(TENANT)}`,
      '  blacklist = { entries = { "192.0.2.16" = "applied through the released module" } }',
      '}',
      '',
    ].join('\n');
    const { run } = workspace('module', networkMirrorConfig(`${site.url}/mirror`), main);
    const init = await run(['init', '-input=false']);
    expect({ code: init.code, output: init.code === 0 ? '' : init.output }).toEqual({ code: 0, output: '' });
    expect(init.output).toContain(`Downloading ${source} ${VERSION} for security_policy...`);
    expect(init.output).toContain(`Installed svc-prevent/svc v${VERSION} (verified checksum)`);
    expect(site.requests).toEqual(expect.arrayContaining(['/.well-known/terraform.json', `/v1/modules/svc-prevent/security-policy/svc/${VERSION}/download`]));
    const apply = await run(['apply', '-auto-approve', '-input=false']);
    expect(apply.output).toContain('Apply complete! Resources: 1 added');
    expect((await emulator.client(TENANT).listEntries('blacklist')).map((entry) => entry.ip)).toContain('192.0.2.16');
  },
  TERRAFORM_TIMEOUT_MS,
);

test(
  'a cdktf stack whose SvcProvider names the registry (source) installs the released provider from it and applies',
  async () => {
    const root = path.join(scratch, 'registry-cdktf');
    writeRegistry({ release: readRelease(release.outDir), outDir: root });
    const site = await serve(root);
    const stack = new TerraformStack(Testing.app(), 'released');
    new SvcProvider(stack, 'svc', { source: `${REGISTRY_HOST}/svc-prevent/svc`, baseUrl: emulator.url, tenant: TENANT });
    new BlacklistEntry(stack, 'entry', { ip: '192.0.2.15', description: 'applied from a cdktf stack' });
    const { dir, run } = workspace('registry-cdktf', registryConfig(site.url), '');
    fs.rmSync(path.join(dir, 'main.tf'));
    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), Testing.synth(stack));
    const init = await run(['init', '-input=false']);
    expect(init.output).toContain(`Installed ${REGISTRY_HOST}/svc-prevent/svc v${VERSION} (self-signed`);
    expect(init.code).toBe(0);
    const apply = await run(['apply', '-auto-approve', '-input=false']);
    expect(apply.output).toContain('Apply complete! Resources: 1 added');
    expect((await emulator.client(TENANT).listEntries('blacklist')).map((entry) => entry.ip)).toContain('192.0.2.15');
  },
  TERRAFORM_TIMEOUT_MS,
);

describe('terraform refuses', () => {
  /** Replaces the amd64 zip on a generated site by one with the same name and other bytes. */
  function tamper(zip: string): void {
    const bytes = fs.readFileSync(zip);
    bytes[bytes.length - 30] ^= 0xff;
    fs.writeFileSync(zip, bytes);
  }

  test(
    'a tampered zip from the network mirror',
    async () => {
      const root = path.join(scratch, 'mirror-tampered');
      const providerDir = writeNetworkMirror({ release: readRelease(release.outDir), outDir: root });
      tamper(path.join(providerDir, zipName(VERSION, 'linux', 'amd64')));
      const site = await serve(root);
      const { run } = workspace('mirror-tampered', networkMirrorConfig(site.url), configuration('svc-prevent/svc', '192.0.2.12'));
      const init = await run(['init', '-input=false']);
      expect(init.code).not.toBe(0);
      expect(init.output).toMatch(/Failed to install provider[\s\S]*provider package doesn't match\s+the expected checksum/);
    },
    TERRAFORM_TIMEOUT_MS,
  );

  test(
    'a tampered zip from the registry',
    async () => {
      const root = path.join(scratch, 'registry-tampered');
      const providerDir = writeRegistry({ release: readRelease(release.outDir), outDir: root });
      tamper(path.join(providerDir, VERSION, zipName(VERSION, 'linux', 'amd64')));
      const site = await serve(root);
      const { run } = workspace('registry-tampered', registryConfig(site.url), configuration(`${REGISTRY_HOST}/svc-prevent/svc`, '192.0.2.13'));
      const init = await run(['init', '-input=false']);
      expect(init.code).not.toBe(0);
      const expected = parseSums(fs.readFileSync(release.sums, 'utf8')).get(zipName(VERSION, 'linux', 'amd64'));
      expect(init.output).toMatch(new RegExp(`Failed to install provider[\\s\\S]*archive has incorrect checksum\\s+zh:[0-9a-f]{64} \\(expected\\s+zh:${expected}\\)`));
    },
    TERRAFORM_TIMEOUT_MS,
  );

  test(
    'a SHA256SUMS signed by another key than the one the registry names',
    async () => {
      const impostor = makeTestKeyring();
      try {
        const other = impostor.generateKey('impostor');
        const forged = copyRelease('forged');
        const signed = spawnSync('gpg', ['--batch', '--yes', '--local-user', other, '--detach-sign', '--output', path.join(forged, signatureName(VERSION)), path.join(forged, sumsName(VERSION))], {
          env: impostor.env,
        });
        expect(signed.status).toBe(0);
        const root = path.join(scratch, 'registry-forged');
        writeRegistry({ release: readRelease(forged), outDir: root });
        const site = await serve(root);
        const { run } = workspace('registry-forged', registryConfig(site.url), configuration(`${REGISTRY_HOST}/svc-prevent/svc`, '192.0.2.14'));
        const init = await run(['init', '-input=false']);
        expect(init.code).not.toBe(0);
        expect(init.output).toMatch(/Failed to install provider[\s\S]*authentication signature from unknown issuer/);
      } finally {
        impostor.dispose();
      }
    },
    TERRAFORM_TIMEOUT_MS,
  );
});
