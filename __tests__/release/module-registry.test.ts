/**
 * The HCL modules leave the repository (issue 29): the release's module archives
 * (module-archives.ts) served as the module registry protocol (module-registry.ts) over real
 * HTTPS, and `terraform get` with PATH holding terraform only installs
 * `<host>/svc-prevent/security-policy/svc` at the version asked for. The host is 127.0.0.1:<port>,
 * so terraform runs its own service discovery (`/.well-known/terraform.json`) with no `host`
 * block. The full release test installs the same module and applies it with the released
 * provider.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hclString } from '../../scripts/terraform-harness/hcl';
import { MODULES_DIRECTORY, moduleTarball, readModuleArchives, writeModuleArchives, type ModuleArchive } from '../../scripts/release/module-archives';
import { HEADERS_FILE, parseHeadersFile, writeModuleRegistry } from '../../scripts/release/module-registry';
import { makeTestCertificateAuthority, serveStaticSite, type StaticSite, type TestCertificateAuthority } from './support/https-site';
import { cleanEnvironment, terraform, terraformOnlyPath, type CleanMachine } from './support/terraform';

jest.setTimeout(180_000);

const NAMESPACE = 'svc-prevent';
const EPOCH = 1_700_000_000;

let scratch: string;
let authority: TestCertificateAuthority;
let machine: CleanMachine;
let site: StaticSite;
let siteRoot: string;

/** The module archives of this checkout as version `version` of a release in `<scratch>/release-<version>`, with their SHA256SUMS. */
function releaseModules(version: string): { directory: string; archives: ModuleArchive[]; sums: string } {
  const directory = path.join(scratch, `release-${version}`);
  fs.mkdirSync(directory, { recursive: true });
  const archives = writeModuleArchives({ version, outDir: directory, modifiedSeconds: EPOCH });
  const sums = path.join(directory, `terraform-provider-svc_${version}_SHA256SUMS`);
  fs.writeFileSync(sums, archives.map((archive) => `${archive.sha256}  ${path.basename(archive.file)}\n`).join(''));
  return { directory, archives, sums };
}

function publish(version: string): void {
  const release = releaseModules(version);
  const archives = readModuleArchives(release.directory, version, release.sums, (message) => new Error(message));
  writeModuleRegistry({ version, archives, outDir: siteRoot, namespace: NAMESPACE });
}

/** Every file of a directory, relative path -> sha256, without terraform's working files. */
function fileDigests(root: string): Record<string, string> {
  const digests: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else digests[name] = createHash('sha256').update(fs.readFileSync(path.join(root, name))).digest('hex');
    }
  };
  walk('');
  return digests;
}

function moduleSource(): string {
  return `${new URL(site.url).host}/${NAMESPACE}/security-policy/svc`;
}

/** A root module calling the registry module, and `terraform get` there as a machine without node runs it. */
async function getModule(name: string, version: string): Promise<{ code: number; output: string; dir: string }> {
  const dir = path.join(scratch, 'workspaces', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'main.tf'), `module "security_policy" {\n  source  = ${hclString(moduleSource())}\n  version = ${hclString(version)}\n}\n`);
  const cliConfig = path.join(scratch, 'workspaces', `${name}.tfrc`);
  fs.writeFileSync(cliConfig, '');
  const result = await terraform(dir, ['get', '-no-color'], cleanEnvironment(machine, cliConfig));
  return { ...result, dir };
}

function installedVersion(dir: string): string | undefined {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.terraform', 'modules', 'modules.json'), 'utf8')) as { Modules: Array<{ Key: string; Version?: string }> };
  return manifest.Modules.find((module) => module.Key === 'security_policy')?.Version;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'module-registry-'));
  authority = makeTestCertificateAuthority(path.join(scratch, 'ca'));
  fs.mkdirSync(path.join(scratch, 'home'));
  machine = { binDirectory: terraformOnlyPath(path.join(scratch, 'terraform-only')), caFile: authority.caFile, home: path.join(scratch, 'home') };
  siteRoot = path.join(scratch, 'site');
  fs.mkdirSync(siteRoot);
  site = await serveStaticSite(siteRoot, authority);
});

afterAll(async () => {
  await site?.close();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

test('the archives are the same bytes for the same files, and hold each module at their root without terraform working files', () => {
  const root = path.join(scratch, 'module-copy');
  fs.cpSync(path.join(MODULES_DIRECTORY, 'svc-security-policy'), root, { recursive: true });
  const first = moduleTarball(root, EPOCH);
  expect(moduleTarball(root, EPOCH).equals(first)).toBe(true);
  fs.mkdirSync(path.join(root, 'examples', 'maps', '.terraform'), { recursive: true });
  fs.writeFileSync(path.join(root, 'examples', 'maps', '.terraform', 'x'), 'cache');
  fs.writeFileSync(path.join(root, 'examples', 'maps', 'terraform.tfstate'), '{}');
  fs.writeFileSync(path.join(root, 'examples', 'maps', '.terraform.lock.hcl'), '');
  expect(moduleTarball(root, EPOCH).equals(first)).toBe(true);
  fs.appendFileSync(path.join(root, 'main.tf'), '\n');
  expect(moduleTarball(root, EPOCH).equals(first)).toBe(false);

  const { archives } = releaseModules('0.0.9');
  expect(archives.map((archive) => path.basename(archive.file))).toEqual(['terraform-aws-control-plane_0.0.9.tar.gz', 'terraform-svc-security-policy_0.0.9.tar.gz']);
});

test('a damaged archive is refused by name before anything is published', () => {
  const release = releaseModules('0.0.8');
  fs.appendFileSync(release.archives[1].file, 'x');
  expect(() => readModuleArchives(release.directory, '0.0.8', release.sums, (message) => new Error(message))).toThrow(
    /terraform-svc-security-policy_0\.0\.8\.tar\.gz has sha256 [0-9a-f]{64}, but terraform-provider-svc_0\.0\.8_SHA256SUMS says [0-9a-f]{64}; the release is damaged/,
  );
});

describe('the module registry site', () => {
  beforeAll(() => {
    publish('0.1.0');
    publish('0.2.0');
  });

  test('answers the protocol: discovery, versions, download with X-Terraform-Get', () => {
    expect(JSON.parse(fs.readFileSync(path.join(siteRoot, '.well-known', 'terraform.json'), 'utf8'))).toEqual({ 'modules.v1': '/v1/modules/' });
    const moduleDir = path.join(siteRoot, 'v1', 'modules', NAMESPACE, 'security-policy', 'svc');
    expect(JSON.parse(fs.readFileSync(path.join(moduleDir, 'versions'), 'utf8'))).toEqual({ modules: [{ versions: [{ version: '0.1.0' }, { version: '0.2.0' }] }] });
    expect(JSON.parse(fs.readFileSync(path.join(moduleDir, '0.1.0', 'download'), 'utf8'))).toEqual({ location: './terraform-svc-security-policy_0.1.0.tar.gz' });
    expect(parseHeadersFile(fs.readFileSync(path.join(siteRoot, HEADERS_FILE), 'utf8')).get(`/v1/modules/${NAMESPACE}/security-policy/svc/0.1.0/download`)).toEqual([
      'X-Terraform-Get: ./terraform-svc-security-policy_0.1.0.tar.gz',
      'Content-Type: application/json',
    ]);
    expect(fs.existsSync(path.join(siteRoot, 'v1', 'modules', NAMESPACE, 'control-plane', 'aws', '0.2.0', 'terraform-aws-control-plane_0.2.0.tar.gz'))).toBe(true);
  });

  test('terraform get, with terraform alone on PATH, installs the module at the version asked for over HTTPS', async () => {
    const exact = await getModule('exact', '0.1.0');
    expect({ code: exact.code, output: exact.code === 0 ? '' : exact.output }).toEqual({ code: 0, output: '' });
    expect(exact.output).toContain(`Downloading ${moduleSource()} 0.1.0 for security_policy...`);
    expect(installedVersion(exact.dir)).toBe('0.1.0');
    expect(fileDigests(path.join(exact.dir, '.terraform', 'modules', 'security_policy'))).toEqual(fileDigests(path.join(MODULES_DIRECTORY, 'svc-security-policy')));
    expect(site.requests).toEqual(
      expect.arrayContaining([
        '/.well-known/terraform.json',
        `/v1/modules/${NAMESPACE}/security-policy/svc/versions`,
        `/v1/modules/${NAMESPACE}/security-policy/svc/0.1.0/download`,
        `/v1/modules/${NAMESPACE}/security-policy/svc/0.1.0/terraform-svc-security-policy_0.1.0.tar.gz`,
      ]),
    );

    const newest = await getModule('constraint', '~> 0.1');
    expect({ code: newest.code, output: newest.code === 0 ? '' : newest.output }).toEqual({ code: 0, output: '' });
    expect(installedVersion(newest.dir)).toBe('0.2.0');
  });

  test('without the X-Terraform-Get header (a host that ignores _headers) terraform refuses the download, as help/releasing.md warns', async () => {
    const headers = path.join(siteRoot, HEADERS_FILE);
    const saved = fs.readFileSync(headers);
    fs.rmSync(headers);
    try {
      const result = await getModule('no-header', '0.1.0');
      expect(result.code).toBe(1);
      expect(result.output.replace(/\s+/g, ' ')).toContain('failed to get download URL');
    } finally {
      fs.writeFileSync(headers, saved);
    }
  });
});
