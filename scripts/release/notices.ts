/**
 * THIRD_PARTY_NOTICES for what this project redistributes, generated at build time from what a
 * file actually holds: the npm packages esbuild put into a bundle (its metafile's inputs), each
 * with its own licence text from node_modules, and, for a single executable, the Node.js binary
 * it is a copy of, with the LICENSE file of the pinned Node package (Node's licence and the
 * notices of the libraries Node bundles: OpenSSL, ICU, V8, llhttp, ...).
 *
 * A package whose licence is not on ALLOWED_LICENSES, or that ships no licence file, stops the
 * build (NoticesError): redistributing it needs a decision, not a silent line in a file.
 *
 * Used by the release (scripts/release/build.ts, every executable's zip) and by the library
 * build (scripts/build-library.ts, the npm tarball's provider bundle); any other executable
 * calls executableNotices() with its bundle's inputs and its Node binary.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPOSITORY = path.resolve(__dirname, '..', '..');

/** SPDX identifiers a bundled package may carry (permissive, or file-level copyleft like our own MPL-2.0). */
export const ALLOWED_LICENSES: readonly string[] = ['MIT', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', 'MPL-2.0', '0BSD', 'BlueOak-1.0.0'];

/** The file every notices file is written to, in a zip and in the npm tarball. */
export const NOTICES_FILE = 'THIRD_PARTY_NOTICES';
/** This project's own licence, at the root of the repository. */
export const LICENSE_FILE = 'LICENSE';

export type NoticesErrorCode = 'license_not_allowed' | 'license_text_missing' | 'package_unreadable' | 'node_license_missing';

export class NoticesError extends Error {
  constructor(
    readonly code: NoticesErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'NoticesError';
  }
}

export interface BundledPackage {
  /** Where it is installed, relative to the bundle's working directory, e.g. `node_modules/undici` (package-lock.json's key). */
  readonly location: string;
  readonly name: string;
  readonly version: string;
  /** The package.json's SPDX expression, e.g. `MIT` or `(MIT OR Apache-2.0)`. */
  readonly license: string;
  /** The licence file's name inside the package, e.g. `LICENSE.md`. */
  readonly licenseFile: string;
  readonly licenseText: string;
}

export interface NodeRuntime {
  readonly version: string;
  /** Node's LICENSE: Node's own licence followed by those of the libraries it bundles. */
  readonly licenseText: string;
}

export interface Notices {
  /** The THIRD_PARTY_NOTICES text. */
  readonly text: string;
  /** The npm packages inside, sorted by name then version. */
  readonly packages: readonly BundledPackage[];
  /** The Node.js runtime inside (executables only). */
  readonly node?: NodeRuntime;
}

/** `node_modules/<name>` or `node_modules/@scope/<name>`: the last one in a path is the package the file belongs to. */
function packageDirectory(file: string): string | undefined {
  const parts = file.split(/[\\/]/);
  const index = parts.lastIndexOf('node_modules');
  if (index === -1 || index + 1 >= parts.length) return undefined;
  const length = parts[index + 1].startsWith('@') ? 2 : 1;
  return parts.slice(0, index + 1 + length).join('/');
}

/** package.json's `license`, or the legacy `licenses` array / `license` object some old packages carry. */
function licenseOf(manifest: Record<string, unknown>): string | undefined {
  const { license, licenses } = manifest as { license?: unknown; licenses?: unknown };
  if (typeof license === 'string') return license;
  if (typeof license === 'object' && license !== null && typeof (license as { type?: unknown }).type === 'string') return (license as { type: string }).type;
  if (Array.isArray(licenses)) {
    const types = licenses.map((entry) => (entry as { type?: unknown }).type).filter((type): type is string => typeof type === 'string');
    if (types.length > 0) return types.length === 1 ? types[0] : `(${types.join(' OR ')})`;
  }
  return undefined;
}

/**
 * Whether an SPDX expression is acceptable: some alternative of an `OR` whose every `AND` term is
 * allowed. Parentheses are read flat, which is exact for the one-level expressions npm packages use.
 */
export function isAllowedLicense(expression: string): boolean {
  const flat = expression.replace(/[()]/g, ' ').trim();
  if (flat === '') return false;
  return flat.split(/\s+OR\s+/).some((alternative) => alternative.split(/\s+AND\s+/).every((term) => ALLOWED_LICENSES.includes(term.trim())));
}

const LICENSE_FILE_NAME = /^(licen[cs]e|copying)([.-].*)?$/i;

function readPackage(directory: string, location: string): BundledPackage {
  const manifestPath = path.join(directory, 'package.json');
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new NoticesError('package_unreadable', `${manifestPath} could not be read (${(error as Error).message}); run npm ci.`);
  }
  const name = String(manifest.name ?? path.basename(directory));
  const version = String(manifest.version ?? '');
  const license = licenseOf(manifest);
  if (license === undefined || !isAllowedLicense(license)) {
    throw new NoticesError(
      'license_not_allowed',
      `${name}@${version} is bundled but its licence is ${license === undefined ? 'not declared' : `"${license}"`}; allowed: ${ALLOWED_LICENSES.join(', ')}. Remove the dependency or review the licence and add it to ALLOWED_LICENSES in scripts/release/notices.ts.`,
    );
  }
  const licenseFile = fs
    .readdirSync(directory)
    .filter((file) => LICENSE_FILE_NAME.test(file) && fs.statSync(path.join(directory, file)).isFile())
    .sort()[0];
  if (licenseFile === undefined) {
    throw new NoticesError('license_text_missing', `${name}@${version} is bundled but ${directory} holds no LICENSE, LICENCE or COPYING file; its notice cannot be reproduced.`);
  }
  return { location, name, version, license, licenseFile, licenseText: fs.readFileSync(path.join(directory, licenseFile), 'utf8') };
}

/**
 * The npm packages among a bundle's inputs (paths relative to `workingDir`, as esbuild's
 * metafile names them), each read from its own directory: name, version, licence and licence
 * text. Inputs outside node_modules are this repository's own code (LICENSE covers them).
 */
export function bundledPackages(inputs: Iterable<string>, workingDir: string = REPOSITORY): BundledPackage[] {
  const directories = new Set<string>();
  for (const input of inputs) {
    const directory = packageDirectory(input);
    if (directory !== undefined) directories.add(directory);
  }
  const packages = new Map<string, BundledPackage>();
  for (const directory of directories) {
    const found = readPackage(path.resolve(workingDir, directory), directory);
    packages.set(`${found.name}@${found.version}`, found);
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** The Node.js runtime of a binary fetched by scripts/fetch-node.js (`<dir>/package/bin/node`): its version and LICENSE. */
export function nodeRuntime(nodeBinary: string): NodeRuntime {
  const packageDir = path.dirname(path.dirname(nodeBinary));
  const licensePath = path.join(packageDir, 'LICENSE');
  if (!fs.existsSync(licensePath)) {
    throw new NoticesError('node_license_missing', `${licensePath} does not exist: the Node binary ${nodeBinary} is not from a node-linux-* package of scripts/fetch-node.js, so its licence cannot be reproduced.`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version?: string };
  return { version: String(manifest.version), licenseText: fs.readFileSync(licensePath, 'utf8') };
}

const RULE = '='.repeat(78);

/** The THIRD_PARTY_NOTICES text for `subject` (what the file accompanies) holding `packages` and, for an executable, `node`. */
export function noticesText(subject: string, packages: readonly BundledPackage[], node?: NodeRuntime): string {
  const lines = [
    `Third-party notices for ${subject}`,
    `Generated by scripts/release/notices.ts from what ${subject} holds; do not edit.`,
    '',
    `${subject} is licensed under the Mozilla Public License 2.0 (the file LICENSE beside this one).`,
    'It contains the following third-party software, each under its own licence, reproduced below:',
    '',
    ...(node === undefined ? [] : [`  Node.js ${node.version} (MIT, with the licences of the libraries Node bundles)`]),
    ...packages.map((found) => `  ${found.name} ${found.version} (${found.license})`),
  ];
  const sections = [
    ...(node === undefined ? [] : [{ title: `Node.js ${node.version}`, text: node.licenseText }]),
    ...packages.map((found) => ({ title: `${found.name} ${found.version} (${found.license}, from its ${found.licenseFile})`, text: found.licenseText })),
  ];
  for (const section of sections) lines.push('', RULE, section.title, RULE, '', section.text.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** Notices for an npm-installed bundle (the npm tarball's provider script): its packages, no Node runtime. */
export function bundleNotices(subject: string, inputs: Iterable<string>, workingDir: string = REPOSITORY): Notices {
  const packages = bundledPackages(inputs, workingDir);
  return { text: noticesText(subject, packages), packages };
}

/**
 * Notices for a single executable: the packages of its bundles (esbuild metafile inputs,
 * relative to `workingDir`) and the Node runtime it is a copy of (the pinned binary from
 * scripts/fetch-node.js). Any executable this project ships calls this.
 */
export function executableNotices(options: { readonly subject: string; readonly inputs: Iterable<string>; readonly nodeBinary: string; readonly workingDir?: string }): Notices {
  const packages = bundledPackages(options.inputs, options.workingDir ?? REPOSITORY);
  const node = nodeRuntime(options.nodeBinary);
  return { text: noticesText(options.subject, packages, node), packages, node };
}

/** This project's LICENSE text, which every artifact carries beside its notices. */
export function projectLicense(): Buffer {
  return fs.readFileSync(path.join(REPOSITORY, LICENSE_FILE));
}
