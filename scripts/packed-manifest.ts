/**
 * The package.json a consumer of the npm package gets: what installing and using the library
 * needs, and none of this repository's development (scripts, devDependencies, `private`, the
 * allowScripts of its own install). `prepare` above all: npm lists a package with one among the
 * install scripts of a consumer project and warns, for a file (scripts/native-addons.js) that is
 * not even shipped.
 *
 * npm reads the manifest from disk after prepack, so `npm pack` and `npm publish` ship the one
 * written here: prepack (scripts/build-library.ts --pack) builds lib/, keeps the development
 * manifest in build/, and writes this one in its place; postpack (--restore-manifest) puts the
 * development manifest back. A pack that died between the two leaves the copy in build/, and the
 * next prepack or postpack restores it first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPOSITORY = path.resolve(__dirname, '..');
const MANIFEST = path.join(REPOSITORY, 'package.json');
/** Where the development manifest waits while npm packs (build/ is git-ignored). */
export const DEVELOPMENT_MANIFEST_COPY = path.join(REPOSITORY, 'build', 'package.development.json');

/** The fields a consumer's npm, node, TypeScript and a registry page read, in the order they are written. */
export const PACKED_FIELDS: readonly string[] = [
  'name',
  'version',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'repository',
  'license',
  'author',
  'engines',
  'main',
  'types',
  'exports',
  'typesVersions',
  'files',
  'bin',
  'dependencies',
  'peerDependencies',
  'peerDependenciesMeta',
];

/** Fields the packed manifest must have: without them a registry page has no links and npm no engine check. */
const REQUIRED_FIELDS: readonly string[] = ['name', 'version', 'description', 'license', 'repository', 'homepage', 'bugs', 'keywords', 'engines'];

export class PackedManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackedManifestError';
  }
}

/** The consumer's manifest from the development one: PACKED_FIELDS only, every REQUIRED_FIELDS present. */
export function packedManifest(development: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const missing = REQUIRED_FIELDS.filter((field) => development[field] === undefined);
  if (missing.length > 0) throw new PackedManifestError(`package.json has no ${missing.join(', ')}; the published package needs them (help/releasing.md#the-npm-package).`);
  return Object.fromEntries(PACKED_FIELDS.filter((field) => development[field] !== undefined).map((field) => [field, development[field]]));
}

/** Puts the development manifest back if a pack left it aside; true when it did. */
export function restoreDevelopmentManifest(): boolean {
  if (!fs.existsSync(DEVELOPMENT_MANIFEST_COPY)) return false;
  fs.copyFileSync(DEVELOPMENT_MANIFEST_COPY, MANIFEST);
  fs.rmSync(DEVELOPMENT_MANIFEST_COPY);
  return true;
}

/** Keeps the development manifest in build/ and writes the consumer's in its place (prepack's last step). */
export function writePackedManifest(): void {
  restoreDevelopmentManifest();
  const text = fs.readFileSync(MANIFEST, 'utf8');
  const packed = packedManifest(JSON.parse(text) as Record<string, unknown>);
  fs.mkdirSync(path.dirname(DEVELOPMENT_MANIFEST_COPY), { recursive: true });
  fs.writeFileSync(DEVELOPMENT_MANIFEST_COPY, text);
  fs.writeFileSync(MANIFEST, `${JSON.stringify(packed, null, 2)}\n`);
}
