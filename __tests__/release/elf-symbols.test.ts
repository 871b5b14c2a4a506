/**
 * The release's Node binaries without their symbols (scripts/release/elf-symbols.ts), checked
 * on the pinned binaries of both architectures: .symtab, .strtab and .debug_* are gone, the
 * segments and every section a segment maps are byte for byte where they were, binutils'
 * readelf reads the result without a warning, and this machine's binary (x64) still runs.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_CACHE_DIR, fetchNode } from '../../scripts/release/build';
import { ElfStripError, withoutSymbols } from '../../scripts/release/elf-symbols';

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-elf-symbols-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** readelf's output; a warning on stderr fails the test (it is how readelf reports a malformed file). */
function readelf(args: readonly string[], file: string): string {
  const result = spawnSync('readelf', [...args, '--wide', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  return result.stdout;
}

interface ListedSection {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly loaded: boolean;
  /** NOBITS sections (.bss) take no bytes of the file. */
  readonly inFile: boolean;
}

/** `readelf -S`: every section but the null one, with its file offset, size and whether it is loaded (flag A). */
function sections(file: string): ListedSection[] {
  const listed: ListedSection[] = [];
  for (const line of readelf(['-S'], file).split('\n')) {
    const match = /^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)/.exec(line);
    if (match === null || /^\s*\[\s*0\]/.test(line)) continue;
    listed.push({
      name: match[1],
      offset: parseInt(match[3], 16),
      size: parseInt(match[4], 16),
      loaded: /A/.test(match[5]) && !/^\d+$/.test(match[5]),
      inFile: match[2] !== 'NOBITS',
    });
  }
  return listed;
}

const REMOVED = (name: string) => name === '.symtab' || name === '.strtab' || name.startsWith('.debug_');

describe.each(['x64', 'arm64'] as const)('the pinned Node binary for linux %s', (arch) => {
  let original: string;
  let stripped: string;
  let input: Buffer;
  let output: Buffer;
  beforeAll(() => {
    original = fetchNode(arch, DEFAULT_CACHE_DIR);
    input = fs.readFileSync(original);
    output = withoutSymbols(input);
    stripped = path.join(scratch, `node-${arch}`);
    fs.writeFileSync(stripped, output, { mode: 0o755 });
  });

  test('loses its symbol table, the symbols\' names and the debug information, and nothing else', () => {
    const before = sections(original).map((section) => section.name);
    expect(before).toEqual(expect.arrayContaining(['.symtab', '.strtab', '.debug_info', '.text', '.dynsym', '.dynstr', '.shstrtab']));
    expect(sections(stripped).map((section) => section.name)).toEqual(before.filter((name) => !REMOVED(name)));
    expect(input.length - output.length).toBeGreaterThan(15 * 1024 * 1024);
  });

  test('keeps its machine, its segments and every loaded section byte for byte where they were', () => {
    const header = (file: string) => readelf(['-h'], file).split('\n').filter((line) => !/Start of section headers|Number of section headers|Section header string table index/.test(line));
    expect(header(stripped)).toEqual(header(original));
    expect(readelf(['-l'], stripped)).toBe(readelf(['-l'], original));
    const loaded = sections(original).filter((section) => section.loaded);
    expect(loaded.length).toBeGreaterThan(10);
    for (const section of loaded) {
      const after = sections(stripped).find((candidate) => candidate.name === section.name);
      expect(after).toEqual(section);
      if (!section.inFile) continue;
      expect(output.subarray(section.offset, section.offset + section.size).equals(input.subarray(section.offset, section.offset + section.size))).toBe(true);
    }
  });

  test('is left as it is the second time (nothing more to remove)', () => {
    expect(withoutSymbols(output)).toBe(output);
  });
});

test('this machine\'s binary runs as the original does, also through the modules a provider loads', () => {
  if (process.arch !== 'x64') return;
  const original = fetchNode('x64', DEFAULT_CACHE_DIR);
  const stripped = path.join(scratch, 'node-runs');
  fs.writeFileSync(stripped, withoutSymbols(fs.readFileSync(original)), { mode: 0o755 });
  const script = "const crypto = require('node:crypto'); require('node:http2'); require('node:tls'); process.stdout.write([process.version, crypto.createHash('sha256').update('svc').digest('hex'), new Intl.NumberFormat('de-DE').format(1234.5)].join(' '))";
  const run = (node: string) => spawnSync(node, ['-e', script], { encoding: 'utf8', env: {} });
  const expected = run(original);
  expect(expected.status).toBe(0);
  expect(run(stripped)).toMatchObject({ status: 0, stdout: expected.stdout, stderr: '' });
});

describe('input it does not handle is refused before anything is written', () => {
  test.each([
    ['a file that is not ELF', Buffer.from('#!/bin/sh\necho not a binary\n'.padEnd(80, ' '))],
    ['32-bit ELF', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1]), Buffer.alloc(57)])],
    ['big-endian ELF', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 2, 1]), Buffer.alloc(57)])],
  ])('%s', (_name, bytes) => {
    expect(() => withoutSymbols(bytes)).toThrow(ElfStripError);
    expect(() => withoutSymbols(bytes)).toThrow(/only 64-bit little-endian ELF/);
  });

  test('a section header table that runs past the end of the file', () => {
    const node = fs.readFileSync(fetchNode('x64', DEFAULT_CACHE_DIR));
    const cut = node.subarray(0, node.length - 100);
    expect(() => withoutSymbols(cut)).toThrow(expect.objectContaining({ code: 'unexpected_layout', message: 'the section header table runs past the end of the file' }));
  });
});
