/**
 * Writes a zip archive, byte for byte the same for the same input: a fixed modification time
 * (DOS time, UTC), each entry's unix mode, no extra fields, no comment. The `zip` tool would
 * add the build machine's clock, uid/gid and time zone. Deflate level 6: level 9 takes four
 * times as long for 0.3% less.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

const LOCAL_FILE_HEADER = 0x04034b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Made by unix (3), zip spec 2.0: unzip then honours the unix mode in the external attributes. */
const VERSION_MADE_BY = (3 << 8) | 20;
const VERSION_NEEDED = 20;
const DEFLATE = 8;
const REGULAR_FILE = 0o100000;
export const EXECUTABLE_MODE = 0o755;
export const READABLE_MODE = 0o644;
const ZIP32_LIMIT = 0xffffffff;

export interface ZipEntryInput {
  readonly name: string;
  readonly data: Buffer;
  /** Unix permission bits. @default 0o644 */
  readonly mode?: number;
}

/** MS-DOS date and time of a moment (UTC, two-second steps; the format starts in 1980). */
function dosDateTime(seconds: number): { date: number; time: number } {
  const moment = new Date(Math.max(seconds, 315532800) * 1000);
  const date = ((moment.getUTCFullYear() - 1980) << 9) | ((moment.getUTCMonth() + 1) << 5) | moment.getUTCDate();
  const time = (moment.getUTCHours() << 11) | (moment.getUTCMinutes() << 5) | Math.floor(moment.getUTCSeconds() / 2);
  return { date, time };
}

/** A zip of `entries` in the order given (the release puts the executable first). */
export function zipArchive(entries: readonly ZipEntryInput[], modifiedSeconds: number): Buffer {
  const { date, time } = dosDateTime(modifiedSeconds);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const compressed = deflateRawSync(entry.data, { level: 6 });
    if (entry.data.length >= ZIP32_LIMIT || compressed.length >= ZIP32_LIMIT) throw new Error(`${entry.name} is too large for a zip without zip64 (${entry.data.length} bytes)`);
    const nameBytes = Buffer.from(entry.name, 'utf8');
    const checksum = crc32(entry.data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_FILE_HEADER, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(0, 6); // flags
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28); // extra field length

    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_DIRECTORY_HEADER, 0);
    central.writeUInt16LE(VERSION_MADE_BY, 4);
    central.writeUInt16LE(VERSION_NEEDED, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(DEFLATE, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    // extra length, comment length, disk number, internal attributes: 0
    central.writeUInt32LE(((REGULAR_FILE | (entry.mode ?? READABLE_MODE)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42); // offset of the local header

    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  if (offset >= ZIP32_LIMIT) throw new Error(`the archive is too large for a zip without zip64 (${offset} bytes)`);
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}


/**
 * One entry of a zip as zipArchive writes them (deflated, no zip64, no comment): the bench takes
 * the released executable from an existing release this way. Throws when the archive is not of
 * that form, has no such entry, or the entry's CRC-32 does not match.
 */
export function readZipEntry(archive: Buffer, name: string): Buffer {
  const endOffset = archive.length - 22;
  if (endOffset < 0 || archive.readUInt32LE(endOffset) !== END_OF_CENTRAL_DIRECTORY) throw new Error('not a zip written by this project (no end of central directory record at its end)');
  const entries = archive.readUInt16LE(endOffset + 10);
  let at = archive.readUInt32LE(endOffset + 16);
  for (let index = 0; index < entries; index += 1) {
    if (archive.readUInt32LE(at) !== CENTRAL_DIRECTORY_HEADER) throw new Error(`central directory entry ${index} is damaged`);
    const method = archive.readUInt16LE(at + 10);
    const checksum = archive.readUInt32LE(at + 16);
    const compressedSize = archive.readUInt32LE(at + 20);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localOffset = archive.readUInt32LE(at + 42);
    const entryName = archive.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (method !== DEFLATE) throw new Error(`${name} is not deflated (method ${method})`);
    const dataStart = localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const data = inflateRawSync(archive.subarray(dataStart, dataStart + compressedSize));
    if (crc32(data) !== checksum) throw new Error(`${name}: CRC-32 mismatch`);
    return data;
  }
  throw new Error(`no entry ${name}`);
}
