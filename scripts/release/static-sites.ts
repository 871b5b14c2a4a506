/**
 * `npm run release:mirror` and `npm run release:registry`: turn a release directory (what
 * `npm run release` wrote) into static files that any HTTPS host (S3, Artifactory, nginx, a
 * Pages site) serves as one of terraform's two ways to install providers from an organisation
 * (help/releasing.md):
 *
 * - the provider network mirror protocol (`provider_installation { network_mirror { url } }`):
 *     <out>/<hostname>/<namespace>/svc/index.json      {"versions": {"<v>": {}}}
 *     <out>/<hostname>/<namespace>/svc/<v>.json        archives per platform, with zh: hashes
 *     <out>/<hostname>/<namespace>/svc/<zips>
 * - the provider registry protocol (a private registry at the host's name):
 *     <out>/.well-known/terraform.json                 {"providers.v1": "<base>/v1/providers/"}
 *     <out>/v1/providers/<namespace>/svc/versions
 *     <out>/v1/providers/<namespace>/svc/<v>/download/<os>/<arch>
 *     <out>/v1/providers/<namespace>/svc/<v>/<zips, SHA256SUMS, SHA256SUMS.sig>
 *   and, on the same site, the module registry protocol for the release's HCL modules
 *   (module-registry.ts: `modules.v1`, `v1/modules/<namespace>/<name>/<system>/...`).
 *
 * Running it again for another version into the same directory adds that version and keeps
 * the others. Every zip is checked against the release's SHA256SUMS before it is published.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readModuleArchives } from './module-archives';
import { writeModuleRegistry } from './module-registry';
import { DEFAULT_NAMESPACE, PROJECT_NAME, PROTOCOL_VERSIONS, PROVIDER_TYPE, parseSums, publicKeyName, signatureName, sumsName } from './layout';

export const DEFAULT_MIRROR_HOSTNAME = 'registry.terraform.io';

export class SiteError extends Error {
  constructor(
    readonly code: 'cli_usage' | 'release_invalid' | 'signature_missing' | 'key_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'SiteError';
  }
}

export interface ReleaseArchive {
  readonly os: string;
  readonly arch: string;
  readonly file: string;
  readonly sha256: string;
}

export interface ReadRelease {
  readonly directory: string;
  readonly version: string;
  readonly archives: readonly ReleaseArchive[];
  readonly sums: string;
  readonly signature?: string;
}

/** Finds the one version in a release directory and checks its zips against its SHA256SUMS. */
export function readRelease(directory: string): ReadRelease {
  if (!fs.existsSync(directory)) throw new SiteError('release_invalid', `the release directory ${directory} does not exist; run npm run release first or pass --release-dir.`);
  const sumsPattern = new RegExp(`^${PROJECT_NAME}_(.+)_SHA256SUMS$`);
  const versions = fs.readdirSync(directory).flatMap((name) => sumsPattern.exec(name)?.[1] ?? []);
  if (versions.length !== 1) {
    throw new SiteError('release_invalid', `${directory} must hold exactly one ${PROJECT_NAME}_<version>_SHA256SUMS, found ${versions.length === 0 ? 'none' : versions.join(', ')}.`);
  }
  const [version] = versions;
  const sums = path.join(directory, sumsName(version));
  const zipPattern = new RegExp(`^${PROJECT_NAME}_${version.replace(/\./g, '\\.')}_([a-z0-9]+)_([a-z0-9]+)\\.zip$`);
  const archives: ReleaseArchive[] = [];
  for (const [name, sha256] of parseSums(fs.readFileSync(sums, 'utf8'))) {
    const match = zipPattern.exec(name);
    if (match === null) continue;
    const file = path.join(directory, name);
    if (!fs.existsSync(file)) throw new SiteError('release_invalid', `${path.basename(sums)} lists ${name}, which is not in ${directory}.`);
    const actual = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    if (actual !== sha256) throw new SiteError('release_invalid', `${name} has sha256 ${actual}, but ${path.basename(sums)} says ${sha256}; the release is damaged, build it again.`);
    archives.push({ os: match[1], arch: match[2], file, sha256 });
  }
  if (archives.length === 0) throw new SiteError('release_invalid', `${path.basename(sums)} lists no ${PROJECT_NAME}_${version}_<os>_<arch>.zip.`);
  const signature = path.join(directory, signatureName(version));
  return { directory, version, archives, sums, ...(fs.existsSync(signature) ? { signature } : {}) };
}

function readJson<T>(file: string, fallback: T): T {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : fallback;
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function copyInto(directory: string, file: string): void {
  fs.mkdirSync(directory, { recursive: true });
  fs.copyFileSync(file, path.join(directory, path.basename(file)));
}

/** Semantic versions in ascending order (prereleases before their release), for stable output. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split('-')[0].split('.').map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < 3; index += 1) if (left[index] !== right[index]) return left[index] - right[index];
  return (b.includes('-') ? 1 : 0) - (a.includes('-') ? 1 : 0) || a.localeCompare(b);
}

export interface MirrorOptions {
  readonly release: ReadRelease;
  readonly outDir: string;
  /** The registry hostname of the provider's source address. @default registry.terraform.io */
  readonly hostname?: string;
  /** @default svc-prevent */
  readonly namespace?: string;
}

/** Writes (or adds this version to) a provider network mirror. Returns the provider's directory. */
export function writeNetworkMirror(options: MirrorOptions): string {
  const { release } = options;
  const providerDir = path.join(options.outDir, options.hostname ?? DEFAULT_MIRROR_HOSTNAME, options.namespace ?? DEFAULT_NAMESPACE, PROVIDER_TYPE);
  const archives: Record<string, { url: string; hashes: string[] }> = {};
  for (const archive of release.archives) {
    copyInto(providerDir, archive.file);
    // Relative to <version>.json; terraform resolves it against that document's URL.
    archives[`${archive.os}_${archive.arch}`] = { url: path.basename(archive.file), hashes: [`zh:${archive.sha256}`] };
  }
  writeJson(path.join(providerDir, `${release.version}.json`), { archives });
  const indexFile = path.join(providerDir, 'index.json');
  const index = readJson<{ versions: Record<string, object> }>(indexFile, { versions: {} });
  index.versions[release.version] = {};
  const versions = Object.keys(index.versions).sort(compareVersions);
  writeJson(indexFile, { versions: Object.fromEntries(versions.map((version) => [version, {}])) });
  return providerDir;
}

export interface RegistryOptions {
  readonly release: ReadRelease;
  readonly outDir: string;
  /** @default svc-prevent */
  readonly namespace?: string;
  /** The armored public key that made the signature. @default <release>/..._signing-key.asc */
  readonly publicKeyFile?: string;
  /** Prefix for every URL (e.g. https://registry.example.com); host-relative paths when absent. */
  readonly baseUrl?: string;
}

/** The long key id of an armored public key, read by gpg without importing it. */
export function keyIdOf(armoredKey: string): string {
  const shown = spawnSync('gpg', ['--batch', '--with-colons', '--import-options', 'show-only', '--import'], { input: armoredKey, encoding: 'utf8' });
  if (shown.error !== undefined) throw new SiteError('key_invalid', `gpg could not be run to read the public key (${shown.error.message}); install gpg.`);
  const publicKey = shown.stdout.split('\n').find((line) => line.startsWith('pub:'));
  if (shown.status !== 0 || publicKey === undefined) throw new SiteError('key_invalid', `gpg finds no public key in the given file: ${shown.stderr.trim()}`);
  return publicKey.split(':')[4];
}

/** Writes (or adds this version to) a provider registry. Returns the provider's directory. */
export function writeRegistry(options: RegistryOptions): string {
  const { release } = options;
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (release.signature === undefined) {
    throw new SiteError('signature_missing', `the registry protocol needs a signed release, and ${release.directory} has no ${signatureName(release.version)}; build it with SVC_RELEASE_GPG_KEY set.`);
  }
  const publicKeyFile = options.publicKeyFile ?? path.join(release.directory, publicKeyName(release.version));
  if (!fs.existsSync(publicKeyFile)) throw new SiteError('key_invalid', `no public key at ${publicKeyFile}; pass --public-key <armored file> with the key that signed the release.`);
  const armored = fs.readFileSync(publicKeyFile, 'utf8');
  if (!armored.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) throw new SiteError('key_invalid', `${publicKeyFile} is not an ASCII-armored public key (gpg --armor --export <fingerprint>).`);
  const keyId = keyIdOf(armored);

  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const providersPath = '/v1/providers/';
  const providerPath = `${providersPath}${namespace}/${PROVIDER_TYPE}`;
  const providerDir = path.join(options.outDir, ...providerPath.split('/').filter(Boolean));
  const versionDir = path.join(providerDir, release.version);
  const fileUrl = (file: string) => `${base}${providerPath}/${release.version}/${path.basename(file)}`;

  // Merged: the module registry (module-registry.ts) answers on the same host.
  const wellKnown = path.join(options.outDir, '.well-known', 'terraform.json');
  writeJson(wellKnown, { ...readJson<Record<string, unknown>>(wellKnown, {}), 'providers.v1': `${base}${providersPath}` });
  for (const file of [...release.archives.map((archive) => archive.file), release.sums, release.signature]) copyInto(versionDir, file);
  for (const archive of release.archives) {
    writeJson(path.join(versionDir, 'download', archive.os, archive.arch), {
      protocols: PROTOCOL_VERSIONS,
      os: archive.os,
      arch: archive.arch,
      filename: path.basename(archive.file),
      download_url: fileUrl(archive.file),
      shasums_url: fileUrl(release.sums),
      shasums_signature_url: fileUrl(release.signature),
      shasum: archive.sha256,
      signing_keys: { gpg_public_keys: [{ key_id: keyId, ascii_armor: armored, trust_signature: '', source: namespace, source_url: null }] },
    });
  }
  const versionsFile = path.join(providerDir, 'versions');
  type VersionEntry = { version: string; protocols: readonly string[]; platforms: Array<{ os: string; arch: string }> };
  const existing = readJson<{ versions: VersionEntry[] }>(versionsFile, { versions: [] }).versions.filter((entry) => entry.version !== release.version);
  const entry: VersionEntry = { version: release.version, protocols: PROTOCOL_VERSIONS, platforms: release.archives.map(({ os, arch }) => ({ os, arch })) };
  writeJson(versionsFile, { versions: [...existing, entry].sort((a, b) => compareVersions(a.version, b.version)) });
  return providerDir;
}

export const USAGE = `Usage: npm run release:mirror -- [options]     provider network mirror
       npm run release:registry -- [options]   provider registry protocol, and the module
                                               registry protocol for the release's HCL modules

Writes static files that serve a release (npm run release) from any HTTPS host; run again for
another version into the same --out-dir to add it. See help/releasing.md.

Options:
  --release-dir <dir>  the release (default release/)
  --out-dir <dir>      where the site goes (required)
  --namespace <name>   the provider's namespace (default ${DEFAULT_NAMESPACE})
  --hostname <name>    mirror only: the hostname of the provider's source address
                       (default ${DEFAULT_MIRROR_HOSTNAME}, as in "svc-prevent/svc")
  --public-key <file>  registry only: armored public key that signed the release
                       (default the release's ${PROJECT_NAME}_<version>_signing-key.asc)
  --base-url <url>     registry only: prefix for the URLs in the documents
                       (default none: host-relative paths such as /v1/providers/...)
  --help, -h           show this help`;

/** The module registry of the release's HCL modules, on the same site as the provider registry. */
function writeReleasedModules(release: ReadRelease, outDir: string, namespace: string, baseUrl: string | undefined): void {
  const archives = readModuleArchives(release.directory, release.version, release.sums, (message) => new SiteError('release_invalid', message));
  if (archives.length === 0) return;
  const addresses = writeModuleRegistry({ version: release.version, archives, outDir, namespace, ...(baseUrl === undefined ? {} : { baseUrl }) });
  process.stdout.write(
    `module registry files for ${addresses.join(', ')} ${release.version} written under ${path.join(outDir, 'v1', 'modules')}; ` +
      `serve each .../download with the X-Terraform-Get header of ${path.join(outDir, '_headers')}\n`,
  );
}

export function main(argv: readonly string[]): number {
  try {
    const [kind, ...rest] = argv;
    if (kind === '--help' || kind === '-h' || rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (kind !== 'mirror' && kind !== 'registry') throw new SiteError('cli_usage', `the first argument must be mirror or registry, got "${kind ?? ''}".`);
    const allowed = kind === 'mirror' ? ['--release-dir', '--out-dir', '--namespace', '--hostname'] : ['--release-dir', '--out-dir', '--namespace', '--public-key', '--base-url'];
    const values = new Map<string, string>();
    for (let index = 0; index < rest.length; index += 1) {
      const argument = rest[index];
      const [flag, inline] = argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
      if (!allowed.includes(flag)) throw new SiteError('cli_usage', `unknown argument "${argument}" for ${kind}; options: ${allowed.join(', ')}.`);
      const value = inline ?? rest[(index += 1)];
      if (value === undefined || value === '' || value.startsWith('--')) throw new SiteError('cli_usage', `${flag} needs a value.`);
      values.set(flag, value);
    }
    const outDir = values.get('--out-dir');
    if (outDir === undefined) throw new SiteError('cli_usage', '--out-dir is required, e.g. --out-dir site');
    const namespace = values.get('--namespace');
    if (namespace !== undefined && !/^[a-z0-9][a-z0-9-]*$/i.test(namespace)) throw new SiteError('cli_usage', `--namespace must be letters, digits and dashes, got "${namespace}".`);
    const release = readRelease(path.resolve(values.get('--release-dir') ?? path.join(__dirname, '..', '..', 'release')));
    const baseUrl = values.get('--base-url');
    if (baseUrl !== undefined && !/^https:\/\/[^/]+/.test(baseUrl)) throw new SiteError('cli_usage', `--base-url must be an https:// URL, got "${baseUrl}".`);
    const common = { release, outDir: path.resolve(outDir), ...(namespace === undefined ? {} : { namespace }) };
    const hostname = values.get('--hostname');
    const publicKeyFile = values.get('--public-key');
    const written =
      kind === 'mirror'
        ? writeNetworkMirror({ ...common, ...(hostname === undefined ? {} : { hostname }) })
        : writeRegistry({ ...common, ...(publicKeyFile === undefined ? {} : { publicKeyFile: path.resolve(publicKeyFile) }), ...(baseUrl === undefined ? {} : { baseUrl }) });
    process.stdout.write(`${kind === 'mirror' ? 'network mirror' : 'registry'} files for ${PROJECT_NAME} ${release.version} written under ${written}\n`);
    if (kind === 'registry') writeReleasedModules(release, common.outDir, namespace ?? DEFAULT_NAMESPACE, baseUrl);
    return 0;
  } catch (error) {
    if (!(error instanceof SiteError)) throw error;
    process.stderr.write(`release-site: ${error.message}\n`);
    return error.code === 'cli_usage' ? 2 : 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
