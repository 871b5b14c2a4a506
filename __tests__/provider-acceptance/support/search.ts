/** Finding a secret in what terraform leaves behind: files (zip entries unpacked) and command output. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readZipEntries } from './zip';

/** Regular files under `dir` (symlinks not followed) whose bytes contain `needle`, relative paths. */
export function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  const visit = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile() && fs.readFileSync(full).includes(needle)) found.push(path.relative(dir, full));
    }
  };
  visit(dir);
  return found;
}

/** Names of the entries of a zip file (e.g. a saved plan) whose uncompressed bytes contain `needle`. */
export function zipEntriesContaining(zipFile: string, needle: string): string[] {
  return readZipEntries(fs.readFileSync(zipFile))
    .filter((entry) => entry.data.includes(needle))
    .map((entry) => entry.name);
}
