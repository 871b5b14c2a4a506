/**
 * The file `svc entries import` reads: YAML or JSON exactly as SecurityPolicy's entry files
 * (src/entry-file.ts: a list of `{ ip, description? }`, at the top level or under `entries`), or
 * CSV (`ip,description`, a header line optional, RFC 4180 quoting) for lists exported from a
 * spreadsheet or another tool. Every entry is checked before anything is sent; a problem names
 * the file, the line and the field; two entries for one address are refused, naming both lines.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkAddress } from '../../address';
import { descriptionProblem } from '../../description';
import { EntryFileError, addressProblem, displayPath, loadEntryFile } from '../../entry-file';
import { SvcCommandError } from './command';

export interface ImportedEntry {
  readonly ip: string;
  readonly canonical: string;
  readonly description: string;
  /** `policy/blacklist.csv:4` */
  readonly where: string;
}

const CSV_COLUMNS = ['ip', 'description'] as const;

/** The cells of one CSV line, or a message when its quoting is broken. */
export function csvCells(line: string): string[] | string {
  const cells: string[] = [];
  let index = 0;
  for (;;) {
    if (line[index] === '"') {
      let cell = '';
      index += 1;
      for (;;) {
        const quote = line.indexOf('"', index);
        if (quote === -1) return `a quoted field is not closed (column ${cells.length + 1}); a quote inside one is written ""`;
        cell += line.slice(index, quote);
        if (line[quote + 1] === '"') {
          cell += '"';
          index = quote + 2;
          continue;
        }
        index = quote + 1;
        break;
      }
      if (index < line.length && line[index] !== ',') return `text after the closing quote of column ${cells.length + 1}; quote the whole field`;
      cells.push(cell);
    } else {
      const comma = line.indexOf(',', index);
      const end = comma === -1 ? line.length : comma;
      const cell = line.slice(index, end);
      if (cell.includes('"')) return `a quote inside an unquoted field (column ${cells.length + 1}); quote the whole field and write the quote as ""`;
      cells.push(cell.trim());
      index = end;
    }
    if (index >= line.length) return cells;
    index += 1; // the comma
    if (index === line.length) {
      cells.push('');
      return cells;
    }
  }
}

function loadCsv(file: string, shown: string): ImportedEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new SvcCommandError(`${shown}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`);
  }
  const lines = text.split(/\r?\n/);
  const entries: ImportedEntry[] = [];
  let columns: readonly string[] | undefined;
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (line.trim() === '') return;
    const cells = csvCells(line);
    if (typeof cells === 'string') throw new SvcCommandError(`${shown}:${lineNumber}: ${cells}`);
    if (columns === undefined) {
      const header = cells.map((cell) => cell.trim().toLowerCase());
      columns = header[0] === 'ip' || header[0] === 'description' ? header : ['ip', 'description'];
      if (columns === header) {
        const unknown = header.find((name) => !(CSV_COLUMNS as readonly string[]).includes(name));
        if (unknown !== undefined) throw new SvcCommandError(`${shown}:${lineNumber}: unknown column ${JSON.stringify(unknown)}; the columns are ip and description`);
        if (!header.includes('ip')) throw new SvcCommandError(`${shown}:${lineNumber}: the header has no ip column`);
        return;
      }
    }
    if (cells.length > columns.length) throw new SvcCommandError(`${shown}:${lineNumber}: ${cells.length} fields; a line holds ${columns.join(',')} (quote a description that holds a comma)`);
    const value = (name: string) => cells[columns!.indexOf(name)] ?? '';
    const ip = value('ip');
    const checked = checkAddress(ip);
    if (ip === '') throw new SvcCommandError(`${shown}:${lineNumber}: ip is empty; every line needs an address, e.g. 203.0.113.9,scanner`);
    if (!checked.ok) throw new SvcCommandError(`${shown}:${lineNumber}: ip: ${JSON.stringify(ip)} ${addressProblem(checked.error.reason)}`);
    const description = value('description');
    const problem = descriptionProblem(description);
    if (problem !== undefined) throw new SvcCommandError(`${shown}:${lineNumber}: description ${problem}`);
    entries.push({ ip, canonical: checked.canonical, description, where: `${shown}:${lineNumber}` });
  });
  return entries;
}

/** Reads and checks the whole file; refuses two entries for one canonical address. */
export function loadImportFile(file: string): ImportedEntry[] {
  const shown = displayPath(file);
  const extension = path.extname(file).toLowerCase();
  let entries: ImportedEntry[];
  if (extension === '.csv') entries = loadCsv(file, shown);
  else if (extension === '.yaml' || extension === '.yml' || extension === '.json') {
    try {
      entries = loadEntryFile(file).map((entry) => ({
        ip: entry.ip,
        canonical: entry.canonical,
        description: entry.description ?? '',
        where: entry.source.line === undefined ? entry.source.file : `${entry.source.file}:${entry.source.line}`,
      }));
    } catch (error) {
      if (error instanceof EntryFileError) throw new SvcCommandError(error.message);
      throw error;
    }
  } else {
    throw new SvcCommandError(`FILE ${JSON.stringify(shown)} has the extension ${JSON.stringify(extension)}; give a .yaml, .yml, .json or .csv file`);
  }
  const seen = new Map<string, ImportedEntry>();
  for (const entry of entries) {
    const earlier = seen.get(entry.canonical);
    if (earlier !== undefined) {
      throw new SvcCommandError(`${entry.where}: ${entry.ip} is the same address as ${earlier.ip} at ${earlier.where}; keep one entry per address`);
    }
    seen.set(entry.canonical, entry);
  }
  return entries;
}
