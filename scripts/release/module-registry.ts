/**
 * The module registry protocol as static files, next to the provider registry that
 * static-sites.ts writes (one host answers both):
 *
 *     <out>/.well-known/terraform.json                         {"modules.v1": "<base>/v1/modules/", ...}
 *     <out>/v1/modules/<namespace>/<name>/<system>/versions     {"modules": [{"versions": [{"version": "<v>"}]}]}
 *     <out>/v1/modules/<namespace>/<name>/<system>/<v>/download {"location": "./<archive>"}
 *     <out>/v1/modules/<namespace>/<name>/<system>/<v>/<archive>
 *     <out>/_headers                                            X-Terraform-Get for each download
 *
 * Terraform reads a download's location only from its `X-Terraform-Get` response header (a 200
 * whose body says `{"location": ...}` is refused by terraform 1.11; OpenTofu reads the body), and
 * a static host sends no such header by itself. `_headers` is the per-path header file that
 * Netlify and Cloudflare Pages read; for another host (nginx, CloudFront), configure the same
 * header for each download path (help/releasing.md). Relative locations resolve against the
 * download URL, so the site needs no base URL.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModuleArchive } from './module-archives';

export interface ModuleRegistryOptions {
  readonly version: string;
  readonly archives: ReadonlyArray<Omit<ModuleArchive, 'directory'>>;
  readonly outDir: string;
  readonly namespace: string;
  /** Prefix for the URLs (e.g. https://registry.example.com); relative ones when absent. */
  readonly baseUrl?: string;
}

export const HEADERS_FILE = '_headers';
export const TERRAFORM_GET_HEADER = 'X-Terraform-Get';

function readJson<T>(file: string, fallback: T): T {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : fallback;
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Semantic versions ascending, prereleases before their release. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split('-')[0].split('.').map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < 3; index += 1) if (left[index] !== right[index]) return left[index] - right[index];
  return (b.includes('-') ? 1 : 0) - (a.includes('-') ? 1 : 0) || a.localeCompare(b);
}

/** `_headers` as path -> header lines, in the Netlify / Cloudflare Pages format (a path, then indented `Name: value` lines). */
export function parseHeadersFile(text: string): Map<string, string[]> {
  const rules = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s/.test(line)) {
      if (current === undefined) throw new Error(`${HEADERS_FILE}: a header line before any path: ${JSON.stringify(line)}`);
      current.push(line.trim());
    } else {
      current = [];
      rules.set(line.trim(), current);
    }
  }
  return rules;
}

function writeHeadersFile(file: string, rules: Map<string, string[]>): void {
  const paths = [...rules.keys()].sort();
  fs.writeFileSync(file, paths.map((rulePath) => [rulePath, ...rules.get(rulePath)!.map((header) => `  ${header}`)].join('\n')).join('\n\n') + '\n');
}

/** Writes (or adds this version to) the module registry; returns each module's registry address path (`<ns>/<name>/<system>`). */
export function writeModuleRegistry(options: ModuleRegistryOptions): string[] {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const modulesPath = '/v1/modules/';
  const wellKnown = path.join(options.outDir, '.well-known', 'terraform.json');
  writeJson(wellKnown, { ...readJson<Record<string, unknown>>(wellKnown, {}), 'modules.v1': `${base}${modulesPath}` });

  const headersFile = path.join(options.outDir, HEADERS_FILE);
  const headers = fs.existsSync(headersFile) ? parseHeadersFile(fs.readFileSync(headersFile, 'utf8')) : new Map<string, string[]>();
  const addresses: string[] = [];
  for (const archive of options.archives) {
    const address = `${options.namespace}/${archive.name}/${archive.system}`;
    const moduleDir = path.join(options.outDir, 'v1', 'modules', ...address.split('/'));
    const versionDir = path.join(moduleDir, options.version);
    fs.mkdirSync(versionDir, { recursive: true });
    fs.copyFileSync(archive.file, path.join(versionDir, path.basename(archive.file)));
    const downloadPath = `${base === '' ? '' : new URL(base).pathname.replace(/\/+$/, '')}${modulesPath}${address}/${options.version}/download`;
    const location = base === '' ? `./${path.basename(archive.file)}` : `${base}${modulesPath}${address}/${options.version}/${path.basename(archive.file)}`;
    writeJson(path.join(versionDir, 'download'), { location });
    headers.set(downloadPath, [`${TERRAFORM_GET_HEADER}: ${location}`, 'Content-Type: application/json']);

    const versionsFile = path.join(moduleDir, 'versions');
    type Versions = { modules: Array<{ versions: Array<{ version: string }> }> };
    const known = readJson<Versions>(versionsFile, { modules: [{ versions: [] }] }).modules[0]?.versions.map((entry) => entry.version) ?? [];
    const versions = [...new Set([...known, options.version])].sort(compareVersions);
    writeJson(versionsFile, { modules: [{ versions: versions.map((version) => ({ version })) }] });
    addresses.push(address);
  }
  writeHeadersFile(headersFile, headers);
  return addresses;
}
