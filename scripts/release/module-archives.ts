/**
 * The HCL modules of terraform/modules/ as release files: one `terraform-<system>-<name>_<version>.tar.gz`
 * per module, named as Terraform names module repositories (`terraform-svc-security-policy_0.1.0.tar.gz`
 * for terraform/modules/svc-security-policy), the module's files at the archive's root,
 * listed in the release's SHA256SUMS (and so under its signature). Byte for byte the same for
 * the same input: entries sorted, a fixed modification time, mode 0644 (0755 for directories),
 * owner 0, gzip without a name or time. Terraform's state and lock files of a module's examples
 * never go in.
 *
 * The module registry site (module-registry.ts) serves each one as
 * `<namespace>/<name>/<system>` with name the directory without `svc-` and system the provider
 * the module is for (`svc-prevent/security-policy/svc`, `svc-prevent/control-plane/aws`).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseSums } from './layout';

const REPOSITORY = path.resolve(__dirname, '..', '..');
export const MODULES_DIRECTORY = path.join(REPOSITORY, 'terraform', 'modules');

/** A module as the release ships it and the registry names it. */
export interface ReleasedModule {
  /** Its directory under terraform/modules (`svc-security-policy`). */
  readonly directory: string;
  /** The registry's module name (`security-policy`). */
  readonly name: string;
  /** The registry's target system: the provider the module is for (`svc`, `aws`). */
  readonly system: string;
}

export interface ModuleArchive extends ReleasedModule {
  /** The archive's path. */
  readonly file: string;
  readonly sha256: string;
}

export const moduleArchiveName = (module: Pick<ReleasedModule, 'name' | 'system'>, version: string): string => `terraform-${module.system}-${module.name}_${version}.tar.gz`;

/** Terraform's working files, which an example run leaves and a release must not carry. */
const WORKING_FILE = /^(\.terraform|\.terraform\.lock\.hcl|terraform\.tfstate.*|.*\.tfstate(\.backup)?|crash\.log)$/;

/**
 * The modules under `modulesDirectory`: every directory named `svc-<name>`. The system is `svc`
 * when its versions.tf requires svc-prevent/svc, else the type of the first provider it requires.
 */
export function releasedModules(modulesDirectory = MODULES_DIRECTORY): ReleasedModule[] {
  return fs
    .readdirSync(modulesDirectory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^svc-[a-z0-9-]+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .map((directory) => {
      const versions = path.join(modulesDirectory, directory, 'versions.tf');
      const text = fs.existsSync(versions) ? fs.readFileSync(versions, 'utf8') : '';
      const sources = [...text.matchAll(/source\s*=\s*"(?:[^"/]+\/)?[^"/]+\/([a-z0-9-]+)"/g)].map((match) => match[1]);
      if (sources.length === 0) throw new Error(`${path.relative(REPOSITORY, versions)} names no provider source; a released module declares the provider it is for in required_providers.`);
      const system = text.includes('"svc-prevent/svc"') ? 'svc' : sources[0];
      return { directory, name: directory.replace(/^svc-/, ''), system };
    });
}

/** The files of a module directory to archive, relative and sorted, with the directories among them. */
function moduleEntries(root: string): Array<{ name: string; directory: boolean }> {
  const entries: Array<{ name: string; directory: boolean }> = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (WORKING_FILE.test(entry.name)) continue;
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        entries.push({ name: `${name}/`, directory: true });
        walk(name);
      } else if (entry.isFile()) {
        entries.push({ name, directory: false });
      }
    }
  };
  walk('');
  return entries;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header block. */
function tarHeader(name: string, size: number, directory: boolean, modifiedSeconds: number): Buffer {
  const header = Buffer.alloc(512, 0);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new Error(`${name} is longer than the 100 bytes a plain ustar name holds; shorten the path.`);
  nameBytes.copy(header, 0);
  header.write(octal(directory ? 0o755 : 0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(modifiedSeconds, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write(directory ? '5' : '0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  header.write('root', 265, 'ascii');
  header.write('root', 297, 'ascii');
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

/** A gzipped ustar archive of a module directory, the same bytes for the same files and time. */
export function moduleTarball(root: string, modifiedSeconds: number): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of moduleEntries(root)) {
    const data = entry.directory ? Buffer.alloc(0) : fs.readFileSync(path.join(root, entry.name));
    blocks.push(tarHeader(entry.name, data.length, entry.directory, modifiedSeconds), data, Buffer.alloc((512 - (data.length % 512)) % 512, 0));
  }
  blocks.push(Buffer.alloc(1024, 0));
  // level 9: the archives are small, and gzip's header holds no name or time from Node.
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

/** Writes every module's archive into `outDir` (removing this release's earlier ones) and returns them. */
export function writeModuleArchives(options: { readonly version: string; readonly outDir: string; readonly modifiedSeconds: number; readonly modulesDirectory?: string }): ModuleArchive[] {
  const modulesDirectory = options.modulesDirectory ?? MODULES_DIRECTORY;
  return releasedModules(modulesDirectory).map((module) => {
    const prefix = moduleArchiveName(module, '');
    for (const stale of fs.readdirSync(options.outDir).filter((name) => name.startsWith(prefix) && name.endsWith('.tar.gz'))) {
      fs.rmSync(path.join(options.outDir, stale), { force: true });
    }
    const file = path.join(options.outDir, moduleArchiveName(module, options.version));
    const archive = moduleTarball(path.join(modulesDirectory, module.directory), options.modifiedSeconds);
    fs.writeFileSync(file, archive);
    return { ...module, file, sha256: createHash('sha256').update(archive).digest('hex') };
  });
}

/**
 * The module archives a release directory's SHA256SUMS lists (`terraform-<system>-<name>_<version>.tar.gz`),
 * each checked against its sum; a listed archive that is missing or damaged is an error (`fail`
 * words it for the caller). The names carry the registry address, so no checkout is needed.
 */
export function readModuleArchives(directory: string, version: string, sums: string, fail: (message: string) => Error): Array<Omit<ModuleArchive, 'directory'>> {
  const pattern = new RegExp(`^terraform-([a-z0-9]+)-([a-z0-9-]+)_${version.replace(/\./g, '\\.')}\\.tar\\.gz$`);
  const archives: Array<Omit<ModuleArchive, 'directory'>> = [];
  for (const [name, expected] of parseSums(fs.readFileSync(sums, 'utf8'))) {
    const match = pattern.exec(name);
    if (match === null || match[1] === 'provider') continue;
    const file = path.join(directory, name);
    if (!fs.existsSync(file)) throw fail(`${path.basename(sums)} lists ${name}, which is not in ${directory}.`);
    const actual = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    if (actual !== expected) throw fail(`${name} has sha256 ${actual}, but ${path.basename(sums)} says ${expected}; the release is damaged, build it again.`);
    archives.push({ system: match[1], name: match[2], file, sha256: actual });
  }
  return archives;
}
