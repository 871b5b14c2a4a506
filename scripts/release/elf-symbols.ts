/**
 * The Node binary of a release executable without its symbol table, the symbols' names and its
 * DWARF debug information: 18 of its 127 MB (x64), none of which a running process reads.
 * Terraform hashes a provider's whole package before every command that starts it (to check it
 * against .terraform.lock.hcl), about 85 ms for 122 MiB on the bench machine: without them a plan
 * of one entry takes 12 to 15 ms less, and the linux_amd64 zip is 3.2 MiB smaller
 * (help/performance-history.md, "Why the dev build plans faster").
 *
 * Only sections at the end of the file that no segment maps are removed, so every byte the
 * program loads stays where it was; the sections after them (the section names) move up and the
 * section header table is written again without the removed ones. Written here rather than run
 * with binutils' `strip`: Debian's strip does not know arm64, and its generic ELF target wrote an
 * arm64 binary with no machine type at all.
 */

/** Why an input was refused; nothing is written for it. */
export type ElfStripErrorCode = 'not_elf64_little_endian' | 'unexpected_layout';

export class ElfStripError extends Error {
  constructor(
    readonly code: ElfStripErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ElfStripError';
  }
}

const ELF_HEADER_BYTES = 64;
const SECTION_HEADER_BYTES = 64;
const PROGRAM_HEADER_BYTES = 56;
const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_RELA = 4;
const SHT_NOBITS = 8;
const SHT_REL = 9;
const SHF_ALLOC = 0x2n;
const SHF_INFO_LINK = 0x40n;
/** e_shnum at or above this means the real count is elsewhere (SHN_LORESERVE); no Node binary does that. */
const SHN_LORESERVE = 0xff00;

interface Section {
  readonly index: number;
  readonly name: string;
  readonly type: number;
  readonly flags: bigint;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly alignment: number;
  readonly header: Buffer;
}

/** `elf` without its symbol table, the symbols' names and `.debug_*`; the same bytes when it has none of them. */
export function withoutSymbols(elf: Buffer): Buffer {
  checkIdentity(elf);
  const sectionTable = Number(elf.readBigUInt64LE(0x28));
  const sectionCount = elf.readUInt16LE(0x3c);
  const namesIndex = elf.readUInt16LE(0x3e);
  if (elf.readUInt16LE(0x3a) !== SECTION_HEADER_BYTES || sectionCount === 0 || sectionCount >= SHN_LORESERVE || namesIndex >= sectionCount) {
    throw new ElfStripError('unexpected_layout', `section header table: ${sectionCount} entries of ${elf.readUInt16LE(0x3a)} bytes, names in section ${namesIndex}`);
  }
  if (sectionTable + sectionCount * SECTION_HEADER_BYTES > elf.length) throw new ElfStripError('unexpected_layout', 'the section header table runs past the end of the file');
  const sections = readSections(elf, sectionTable, sectionCount, namesIndex);

  const symbolTables = sections.filter((section) => section.type === SHT_SYMTAB && !isLoaded(section));
  const removed = new Set<number>();
  for (const table of symbolTables) {
    removed.add(table.index);
    const names = sections[table.link];
    if (names !== undefined && names.type === SHT_STRTAB && !isLoaded(names) && names.index !== namesIndex) removed.add(names.index);
  }
  for (const section of sections) if (section.name.startsWith('.debug_') && !isLoaded(section)) removed.add(section.index);
  if (removed.size === 0) return elf;

  const kept = sections.filter((section) => !removed.has(section.index));
  for (const section of kept) {
    const linksRemoved = removed.has(section.link) || (infoIsSection(section) && removed.has(section.info));
    if (linksRemoved) throw new ElfStripError('unexpected_layout', `section ${section.name} refers to a section that would be removed`);
  }
  // Everything from the first removed section on is rewritten: no segment may reach into it.
  const cut = Math.min(...sections.filter((section) => removed.has(section.index)).map((section) => section.offset));
  const loadedEnd = programHeadersEnd(elf);
  if (loadedEnd > cut) throw new ElfStripError('unexpected_layout', `a segment ends at byte ${loadedEnd}, after the first removed section (${cut})`);
  if (sectionTable < cut) throw new ElfStripError('unexpected_layout', 'the section header table is not at the end of the file');
  for (const section of kept) {
    if (section.offset < cut && section.type !== SHT_NOBITS && section.offset + section.size > cut) {
      throw new ElfStripError('unexpected_layout', `section ${section.name} overlaps the removed sections`);
    }
  }

  const parts: Buffer[] = [elf.subarray(0, cut)];
  let position = cut;
  const pad = (alignment: number) => {
    const aligned = Math.ceil(position / alignment) * alignment;
    if (aligned > position) parts.push(Buffer.alloc(aligned - position));
    position = aligned;
  };
  const newOffset = new Map<number, number>();
  for (const section of kept) {
    if (section.offset < cut || section.type === SHT_NOBITS) continue;
    pad(Math.max(1, section.alignment));
    newOffset.set(section.index, position);
    parts.push(elf.subarray(section.offset, section.offset + section.size));
    position += section.size;
  }
  pad(8);
  const newTable = position;
  const newIndex = new Map(kept.map((section, index) => [section.index, index]));
  for (const section of kept) {
    const header = Buffer.from(section.header);
    header.writeBigUInt64LE(BigInt(newOffset.get(section.index) ?? section.offset), 0x18);
    if (section.link !== 0) header.writeUInt32LE(newIndex.get(section.link) as number, 0x28);
    if (infoIsSection(section) && section.info !== 0) header.writeUInt32LE(newIndex.get(section.info) as number, 0x2c);
    parts.push(header);
  }
  const output = Buffer.concat(parts);
  output.writeBigUInt64LE(BigInt(newTable), 0x28);
  output.writeUInt16LE(kept.length, 0x3c);
  output.writeUInt16LE(newIndex.get(namesIndex) as number, 0x3e);
  return output;
}

function checkIdentity(elf: Buffer): void {
  const isElf = elf.length >= ELF_HEADER_BYTES && elf.readUInt32BE(0) === 0x7f454c46;
  if (!isElf || elf[4] !== 2 || elf[5] !== 1) {
    const what = !isElf ? 'not an ELF file' : `ELF class ${elf[4]}, data encoding ${elf[5]}`;
    throw new ElfStripError('not_elf64_little_endian', `${what}: only 64-bit little-endian ELF (the Node binaries of linux x64 and arm64) is handled`);
  }
}

function readSections(elf: Buffer, table: number, count: number, namesIndex: number): Section[] {
  const raw = Array.from({ length: count }, (_, index) => elf.subarray(table + index * SECTION_HEADER_BYTES, table + (index + 1) * SECTION_HEADER_BYTES));
  const namesAt = Number(raw[namesIndex].readBigUInt64LE(0x18));
  return raw.map((header, index) => {
    const nameStart = namesAt + header.readUInt32LE(0);
    const nameEnd = elf.indexOf(0, nameStart);
    const section: Section = {
      index,
      name: elf.toString('latin1', nameStart, nameEnd === -1 ? nameStart : nameEnd),
      type: header.readUInt32LE(4),
      flags: header.readBigUInt64LE(8),
      offset: Number(header.readBigUInt64LE(0x18)),
      size: Number(header.readBigUInt64LE(0x20)),
      link: header.readUInt32LE(0x28),
      info: header.readUInt32LE(0x2c),
      alignment: Number(header.readBigUInt64LE(0x30)),
      header,
    };
    if (section.type !== SHT_NOBITS && section.offset + section.size > elf.length) {
      throw new ElfStripError('unexpected_layout', `section ${section.name} runs past the end of the file`);
    }
    return section;
  });
}

function isLoaded(section: Section): boolean {
  return (section.flags & SHF_ALLOC) !== 0n;
}

/** sh_info names a section for relocations and where SHF_INFO_LINK says so; otherwise it is a count. */
function infoIsSection(section: Section): boolean {
  return section.type === SHT_REL || section.type === SHT_RELA || (section.flags & SHF_INFO_LINK) !== 0n;
}

/** The end of the furthest byte any program header covers in the file. */
function programHeadersEnd(elf: Buffer): number {
  const table = Number(elf.readBigUInt64LE(0x20));
  const count = elf.readUInt16LE(0x38);
  if (count > 0 && elf.readUInt16LE(0x36) !== PROGRAM_HEADER_BYTES) throw new ElfStripError('unexpected_layout', `program headers of ${elf.readUInt16LE(0x36)} bytes`);
  let end = table + count * PROGRAM_HEADER_BYTES;
  for (let index = 0; index < count; index += 1) {
    const header = table + index * PROGRAM_HEADER_BYTES;
    end = Math.max(end, Number(elf.readBigUInt64LE(header + 8)) + Number(elf.readBigUInt64LE(header + 0x20)));
  }
  return end;
}
