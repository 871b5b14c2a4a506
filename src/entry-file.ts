/**
 * Entry files of list entries: YAML (.yaml, .yml) or JSON (.json), the files SecurityPolicy reads
 * at synth (modules/security-policy) and `svc entries import` sends to the service,
 * either a top-level array of `{ ip, description? }` or `{ entries: [...] }`. Every entry is
 * checked here, at synth, and a problem names the file, the line and the field:
 *
 *   policy/blacklist.yaml:7: entries[2].ip: "10.0.0.300" is not an IPv4 or IPv6 address ... (octet 300 is above 255) ...
 *
 * Lines come from the `yaml` parser's source ranges (it also reads JSON, a subset of YAML 1.2);
 * a JSON file is first checked against the JSON grammar (json-syntax.ts), so YAML-only syntax
 * is refused there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { checkAddress } from './address';
import { descriptionProblem } from './description';
import { jsonSyntaxProblem } from './json-syntax';

/** The `field` of a problem with the whole file (unreadable, bad syntax); left out of the message. */
export const FILE_FIELD = '(file)';

export type EntryFileErrorCode =
  /** An entry of a file is wrong: its ip (not an address, host bits set, empty, missing), a wrong type, an unknown field. */
  | 'invalid_policy_entry'
  /** The file cannot be read, is not valid YAML/JSON, has an unknown extension or the wrong top-level shape. */
  | 'invalid_policy_file';

/** A problem in an entry file, naming file, line and field: `policy/blacklist.yaml:7: entries[2].ip: ...`. */
export class EntryFileError extends Error {
  readonly code: EntryFileErrorCode;
  readonly file: string;
  readonly line: number | undefined;
  /** The field path inside the file, e.g. `entries[2].ip`, or `(file)` for the whole file. */
  readonly field: string;
  /** The value found (never anything but the entry's own text). */
  readonly value: unknown;
  /** The message without the file, line and field. */
  readonly detail: string;

  constructor(details: { code: EntryFileErrorCode; file: string; line?: number; field: string; value?: unknown; message: string }) {
    const where = details.line === undefined ? details.file : `${details.file}:${details.line}`;
    super(details.field === FILE_FIELD ? `${where}: ${details.message}` : `${where}: ${details.field}: ${details.message}`);
    this.name = 'EntryFileError';
    this.code = details.code;
    this.file = details.file;
    this.line = details.line;
    this.field = details.field;
    this.value = details.value;
    this.detail = details.message;
  }
}

/** One entry of a file, checked. */
export interface EntryFileEntry {
  /** As written (the provider keeps the user's spelling in state). */
  readonly ip: string;
  readonly canonical: string;
  readonly description: string | undefined;
  /** The file as shown, the entry's line and its field path (`entries[2]`). */
  readonly source: { readonly file: string; readonly line: number | undefined; readonly field: string };
}

/** How a file is shown in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const absolute = path.resolve(file);
  const relative = path.relative(process.cwd(), absolute);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

/** Why an ip is not an address, after the value: `"10.0.0.300" <this>`. */
export function addressProblem(reason: string): string {
  return `is not an IPv4 or IPv6 address or CIDR range (${reason}); write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32`;
}

const ENTRY_FIELDS = ['ip', 'description'];
const FORMAT_HINT = 'a list of { ip, description? } objects, at the top level or under "entries"';

type FileFormat = 'yaml' | 'json';

function formatOf(file: string): FileFormat | undefined {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  if (extension === '.json') return 'json';
  return undefined;
}

function readText(file: string, shown: string): string {
  try {
    // Editors on Windows save a byte order mark, which is not part of the JSON or YAML text.
    return fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    const fix = code === 'ENOENT' ? 'check the path (paths in the config file are relative to its directory)' : 'check the file and its permissions';
    throw new EntryFileError({ code: 'invalid_policy_file', file: shown, field: FILE_FIELD, message: `cannot be read (${code}); ${fix}` });
  }
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < text.length; index += 1) if (text.charCodeAt(index) === 10) line += 1;
  return line;
}

/** Refuses a .json file that is not JSON (the yaml parser would accept trailing commas and comments), with its line. */
function checkJsonSyntax(text: string, shown: string): void {
  const problem = jsonSyntaxProblem(text);
  if (problem === undefined) return;
  throw new EntryFileError({ code: 'invalid_policy_file', file: shown, line: lineAt(text, problem.offset), field: FILE_FIELD, message: `is not valid JSON: ${problem.message}` });
}

function describeNode(node: unknown): string {
  // `entries:` with no value is a null scalar: say nothing is there, not "object null".
  if (node === null || node === undefined || (isScalar(node) && node.value === null)) return 'nothing';
  if (isAlias(node)) return `the alias *${node.source} (write the value out; entry files take no YAML anchors or aliases)`;
  if (isSeq(node)) return 'a list';
  if (isMap(node)) return 'an object';
  if (isScalar(node)) return `${typeof node.value} ${JSON.stringify(node.value)}`;
  return 'a value of another kind';
}

/**
 * Loads and checks one entry file. Relative paths are relative to the working directory; the
 * config parser makes paths from the config file absolute. Returns the entries in file order,
 * each with its line; duplicates are the caller's to find (they may span files).
 */
export function loadEntryFile(file: string): EntryFileEntry[] {
  const shown = displayPath(file);
  const format = formatOf(file);
  if (format === undefined) {
    throw new EntryFileError({
      code: 'invalid_policy_file',
      file: shown,
      field: FILE_FIELD,
      message: `has an unknown extension ${JSON.stringify(path.extname(file))}; name it .yaml, .yml or .json`,
    });
  }
  const text = readText(file, shown);
  if (format === 'json') checkJsonSyntax(text, shown);

  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (node: YamlNode | null | undefined, fallback?: number): number | undefined =>
    node?.range ? lineCounter.linePos(node.range[0]).line : fallback;
  const fail = (line: number | undefined, field: string, message: string, value?: unknown, code: 'invalid_policy_entry' | 'invalid_policy_file' = 'invalid_policy_entry') =>
    new EntryFileError({ code, file: shown, ...(line === undefined ? {} : { line }), field, value, message });

  const syntaxError = document.errors[0];
  if (syntaxError !== undefined) {
    // The parser's own words for this one tell a programmer to call another function.
    const reason = syntaxError.code === 'MULTIPLE_DOCS' ? 'holds more than one document (a --- line); keep one list per file, or split it into files' : syntaxError.message;
    throw fail(lineCounter.linePos(syntaxError.pos[0]).line, FILE_FIELD, `is not valid ${format === 'json' ? 'JSON' : 'YAML'}: ${reason}`, undefined, 'invalid_policy_file');
  }

  const contents = document.contents;
  // A file of comments only declares no entries (e.g. a whitelist kept empty on purpose).
  if (contents === null || (isScalar(contents) && contents.value === null)) return [];

  let items: YamlNode | null | undefined = contents;
  let prefix = '';
  if (isMap(contents)) {
    for (const pair of contents.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (key !== 'entries') {
        throw fail(lineOf(pair.key as YamlNode), String(key), `unknown field; the file holds ${FORMAT_HINT}`, undefined, 'invalid_policy_file');
      }
    }
    items = contents.get('entries', true) as YamlNode | undefined;
    prefix = 'entries';
    if (!isSeq(items)) {
      throw fail(lineOf(items, lineOf(contents)), 'entries', `expected a list of { ip, description? } objects, got ${describeNode(items)}`, undefined, 'invalid_policy_file');
    }
  }
  if (!isSeq(items)) {
    throw fail(lineOf(contents), '(top level)', `expected ${FORMAT_HINT}, got ${describeNode(contents)}`, undefined, 'invalid_policy_file');
  }

  return items.items.map((item, index): EntryFileEntry => {
    const field = `${prefix}[${index}]`;
    const itemNode = item as YamlNode | null;
    const itemLine = lineOf(itemNode, lineOf(items as YamlNode));
    if (!isMap(item)) {
      throw fail(itemLine, field, `expected an object { ip, description? }, got ${describeNode(item)}`, isScalar(item) ? item.value : undefined);
    }
    for (const pair of item.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (typeof key !== 'string' || !ENTRY_FIELDS.includes(key)) {
        throw fail(lineOf(pair.key as YamlNode, itemLine), `${field}.${String(key)}`, `unknown field; an entry has ${ENTRY_FIELDS.join(' and ')}`);
      }
    }
    const ipNode = item.get('ip', true) as YamlNode | undefined;
    if (ipNode === undefined || (isScalar(ipNode) && ipNode.value === null)) {
      const hasKey = item.has('ip');
      throw fail(lineOf(ipNode, itemLine), `${field}.ip`, hasKey ? 'has no value; give the address or CIDR range, e.g. ip: 203.0.113.9' : 'is missing; every entry needs an ip, e.g. ip: 203.0.113.9');
    }
    const ipLine = lineOf(ipNode, itemLine);
    if (!isScalar(ipNode) || typeof ipNode.value !== 'string') {
      const value = isScalar(ipNode) ? ipNode.value : undefined;
      throw fail(ipLine, `${field}.ip`, `expected a string, got ${describeNode(ipNode)}; quote the address`, value);
    }
    const ip = ipNode.value;
    const checked = checkAddress(ip);
    if (!checked.ok) throw fail(ipLine, `${field}.ip`, `${JSON.stringify(ip)} ${addressProblem(checked.error.reason)}`, ip);

    const descriptionNode = item.get('description', true) as YamlNode | undefined;
    let description: string | undefined;
    if (descriptionNode !== undefined && !(isScalar(descriptionNode) && descriptionNode.value === null)) {
      if (!isScalar(descriptionNode) || typeof descriptionNode.value !== 'string') {
        const value = isScalar(descriptionNode) ? descriptionNode.value : undefined;
        throw fail(lineOf(descriptionNode, itemLine), `${field}.description`, `expected text, got ${describeNode(descriptionNode)}; put it in quotes`, value);
      }
      description = descriptionNode.value;
      const problem = descriptionProblem(descriptionNode.value);
      if (problem !== undefined) throw fail(lineOf(descriptionNode, itemLine), `${field}.description`, problem, descriptionNode.value);
    }
    return { ip, canonical: checked.canonical, description, source: { file: shown, line: ipLine, field } };
  });
}
