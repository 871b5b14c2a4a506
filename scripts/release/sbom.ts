/**
 * CycloneDX 1.5 software bills of materials, one per release artifact, the same bytes for the
 * same commit (help/releasing.md#software-bill-of-materials):
 *
 *   the npm package   `npm sbom --sbom-format cyclonedx` of the installed tree (no dev or peer
 *                     dependencies), plus any package bundled into its provider script that is
 *                     not a dependency;
 *   an executable     written here: the executable itself (its sha256), the Node.js runtime it is
 *                     a copy of, and the npm packages esbuild bundled into it (the same list as
 *                     its THIRD_PARTY_NOTICES), with package-lock.json's integrity as a hash.
 *
 * What npm would make differ between two runs is fixed: the timestamp is the commit's time
 * (SOURCE_DATE_EPOCH), the serial number a UUID derived from the document's own content, and
 * the root component named by package.json rather than by the checkout's directory. So is what
 * differs between npm versions (10.9 and 11.19 write the same tree differently: the tool's
 * version, `author` as a name or with an address, `cdx:npm:package:path` properties, external
 * references present or not): each component keeps only the fields that are facts of the
 * package (PACKAGE_COMPONENT_FIELDS), and the tools name npm's sbom command without its version.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BundledPackage, NodeRuntime } from './notices';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const SCHEMA = 'http://cyclonedx.org/schema/bom-1.5.schema.json';

export class SbomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SbomError';
  }
}

type Json = Record<string, any>;

/** An RFC 4122 UUID (version 5 layout: name-based, SHA hash) from `seed`: the same seed, the same serial number. */
export function serialNumberFrom(seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The document as text, its timestamp the given moment and its serial number derived from everything else in it. */
function finish(document: Json, sourceDateEpoch: number): string {
  const content: Json = { ...document, metadata: { ...document.metadata, timestamp: new Date(sourceDateEpoch * 1000).toISOString() } };
  delete content.serialNumber;
  const body = JSON.stringify(content);
  const { $schema, bomFormat, specVersion, ...rest } = content;
  return `${JSON.stringify({ $schema, bomFormat, specVersion, serialNumber: serialNumberFrom(body), ...rest }, null, 2)}\n`;
}

/** CycloneDX's licence choice for an SPDX expression or a single identifier. */
function licenses(expression: string): Json[] {
  return /\s(OR|AND|WITH)\s|[()]/.test(expression) ? [{ expression }] : [{ license: { id: expression } }];
}

/** sha512 integrity (`sha512-<base64>`) as a CycloneDX hash, when there is one. */
function integrityHash(integrity: unknown): Json[] {
  if (typeof integrity !== 'string' || !integrity.startsWith('sha512-')) return [];
  return [{ alg: 'SHA-512', content: Buffer.from(integrity.slice('sha512-'.length), 'base64').toString('hex') }];
}

function lockPackages(): Record<string, Json> {
  return (JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package-lock.json'), 'utf8')) as { packages: Record<string, Json> }).packages;
}

function packageComponent(found: BundledPackage, lock: Record<string, Json>): Json {
  const key = found.location.slice(found.location.indexOf('node_modules/'));
  const locked = lock[key];
  return {
    'bom-ref': `${found.name}@${found.version}`,
    type: 'library',
    name: found.name,
    version: found.version,
    scope: 'required',
    purl: `pkg:npm/${found.name.replace(/^@/, '%40')}@${found.version}`,
    licenses: licenses(found.license),
    hashes: locked?.version === found.version ? integrityHash(locked.integrity) : [],
  };
}

/** The pinned integrity of the node-linux-<arch> package (scripts/node-runtimes.json) the runtime came from. */
function nodeIntegrity(nodeArch: string, version: string): unknown {
  const runtimes = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'scripts', 'node-runtimes.json'), 'utf8')) as { integrity: Record<string, string> };
  return runtimes.integrity[`node-linux-${nodeArch}@${version}`];
}

export interface ExecutableSbomInput {
  /** The executable's file name, e.g. terraform-provider-svc_v0.1.0. */
  readonly executable: string;
  readonly version: string;
  /** Terraform's `<os>_<arch>`, e.g. linux_amd64. */
  readonly platform: string;
  /** Node's name of the architecture (the node-linux-<nodeArch> package). */
  readonly nodeArch: string;
  readonly executableSha256: string;
  readonly packages: readonly BundledPackage[];
  readonly node: NodeRuntime;
  readonly sourceDateEpoch: number;
  /** @default 'MPL-2.0' */
  readonly license?: string;
}

/** The SBOM of one single executable: itself, its Node runtime, the npm packages bundled into it. */
export function executableSbom(input: ExecutableSbomInput): string {
  const lock = lockPackages();
  const self = `${input.executable}@${input.version}`;
  const node = {
    'bom-ref': `node@${input.node.version}`,
    type: 'platform',
    name: 'node',
    version: input.node.version,
    scope: 'required',
    description: `Node.js runtime, the binary of the npm package node-linux-${input.nodeArch}, which the executable is a copy of without its symbol table and debug information`,
    purl: `pkg:npm/node-linux-${input.nodeArch}@${input.node.version}`,
    licenses: licenses('MIT'),
    hashes: integrityHash(nodeIntegrity(input.nodeArch, input.node.version)),
  };
  const packages = input.packages.map((found) => packageComponent(found, lock));
  const document = {
    $schema: SCHEMA,
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      lifecycles: [{ phase: 'build' }],
      tools: [{ vendor: 'svc-prevent', name: 'scripts/release/sbom.ts', version: input.version }],
      component: {
        'bom-ref': self,
        type: 'application',
        name: input.executable,
        version: input.version,
        description: `the svc Terraform provider for ${input.platform}, a Node.js single executable application`,
        licenses: licenses(input.license ?? 'MPL-2.0'),
        hashes: [{ alg: 'SHA-256', content: input.executableSha256 }],
        properties: [{ name: 'svc:platform', value: input.platform }],
      },
    },
    components: [node, ...packages],
    dependencies: [
      { ref: self, dependsOn: [node['bom-ref'], ...packages.map((component) => component['bom-ref'])] },
      { ref: node['bom-ref'], dependsOn: [] },
      ...packages.map((component) => ({ ref: component['bom-ref'], dependsOn: [] })),
    ],
  };
  return finish(document, input.sourceDateEpoch);
}

/** `name@version` of every package the lock does not flag as development-only or peer-only. */
function runtimePackages(lock: Record<string, Json>): Set<string> {
  const runtime = new Set<string>();
  for (const [location, entry] of Object.entries(lock)) {
    if (location === '' || entry.dev === true || entry.devOptional === true || entry.peer === true) continue;
    const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    runtime.add(`${name}@${entry.version}`);
  }
  return runtime;
}

/**
 * The fields of a component of the package SBOM that are facts of the package whichever npm
 * wrote them: its identity, purl, licence and the lock's hash. `author`, npm's properties and
 * external references are left out (they depend on npm's version, not on the package).
 */
export const PACKAGE_COMPONENT_FIELDS = ['bom-ref', 'type', 'name', 'version', 'scope', 'description', 'purl', 'licenses', 'hashes'] as const;

function npmIndependent(component: Json): Json {
  const kept: Json = {};
  for (const field of PACKAGE_COMPONENT_FIELDS) if (component[field] !== undefined) kept[field] = component[field];
  return kept;
}

/**
 * The SBOM of the npm package: `npm sbom` of this repository's installed tree, without what the
 * lock flags as dev or peer only, the root named as package.json names it, and any package bundled into
 * the provider script that is not a dependency added as a component.
 */
export function packageSbom(options: { readonly sourceDateEpoch: number; readonly bundled: readonly BundledPackage[]; readonly npm?: string }): string {
  // The whole tree, filtered below by the lock's own flags: npm 11's `--omit dev` also drops a
  // runtime dependency that a development package happens to depend on too (yaml, through
  // @actions/workflow-parser).
  const npm = spawnSync(options.npm ?? 'npm', ['sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'library'], {
    cwd: REPOSITORY,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (npm.error !== undefined || npm.status !== 0) throw new SbomError(`npm sbom failed (exit ${npm.status}): ${(npm.stderr ?? '').trim() || npm.error?.message}; run npm ci first.`);
  const document = JSON.parse(npm.stdout) as Json;
  const manifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as { name: string; homepage?: string; repository: { url: string }; bugs: { url?: string } };
  // npm names the root by the checkout's directory (and marks the development manifest private,
  // a property npmIndependent leaves out with the others).
  const root: Json = { ...npmIndependent(document.metadata.component as Json), name: manifest.name };
  root.externalReferences = [
    { type: 'vcs', url: manifest.repository.url },
    { type: 'website', url: manifest.homepage },
    { type: 'issue-tracker', url: manifest.bugs.url },
  ].filter((reference) => typeof reference.url === 'string' && reference.url.length > 0);
  document.metadata = {
    lifecycles: [{ phase: 'build' }],
    // npm's version is left out: the document below holds nothing that depends on it.
    tools: [
      { vendor: 'npm', name: 'cli', externalReferences: [{ type: 'documentation', url: 'https://docs.npmjs.com/cli/commands/npm-sbom' }] },
      { vendor: 'svc-prevent', name: 'scripts/release/sbom.ts', version: root.version },
    ],
    component: root,
  };
  const lock = lockPackages();
  const runtime = runtimePackages(lock);
  const keep = (ref: string) => ref === root['bom-ref'] || runtime.has(ref);
  document.components = (document.components as Json[]).filter((component) => keep(`${component.name}@${component.version}`)).map(npmIndependent);
  document.dependencies = (document.dependencies as Json[])
    .filter((entry) => keep(entry.ref))
    .map((entry) => ({ ...entry, dependsOn: (entry.dependsOn as string[]).filter(keep) }));
  const components = document.components as Json[];
  const present = new Set(components.map((component) => `${component.name}@${component.version}`));
  const rootDependencies = (document.dependencies as Json[]).find((entry) => entry.ref === root['bom-ref']);
  for (const found of options.bundled) {
    if (present.has(`${found.name}@${found.version}`)) continue;
    const component = packageComponent(found, lock);
    components.push({ ...component, properties: [{ name: 'svc:bundled-into', value: 'lib/provider/mirror (the provider script)' }] });
    document.dependencies.push({ ref: component['bom-ref'], dependsOn: [] });
    rootDependencies?.dependsOn.push(component['bom-ref']);
  }
  return finish(document, options.sourceDateEpoch);
}
