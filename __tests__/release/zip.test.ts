/** scripts/release/zip.ts: the zips the release writes read back entry by entry (the bench's --release-dir reads the executable this way). */
import { EXECUTABLE_MODE, readZipEntry, zipArchive } from '../../scripts/release/zip';

const entries = [
  { name: 'terraform-provider-svc_v0.1.0', data: Buffer.from('#!/bin/sh\n'.repeat(5000)), mode: EXECUTABLE_MODE },
  { name: 'LICENSE', data: Buffer.from('license text\n') },
  { name: 'THIRD_PARTY_NOTICES', data: Buffer.alloc(0) },
];
const archive = zipArchive(entries, 1_700_000_000);

describe('readZipEntry', () => {
  test.each(entries.map((entry) => [entry.name, entry.data] as const))('reads back %s byte for byte', (name, data) => {
    expect(readZipEntry(archive, name).equals(data)).toBe(true);
  });

  test('an entry the zip does not hold is named', () => {
    expect(() => readZipEntry(archive, 'terraform-provider-svc_v9.9.9')).toThrow('no entry terraform-provider-svc_v9.9.9');
  });

  test('a damaged entry is refused by its CRC-32', () => {
    const damaged = Buffer.from(archive);
    // The central directory's CRC-32 of the first entry: 16 bytes into the directory, whose offset the end record holds.
    const centralDirectory = damaged.readUInt32LE(damaged.length - 22 + 16);
    damaged.writeUInt32LE((damaged.readUInt32LE(centralDirectory + 16) ^ 1) >>> 0, centralDirectory + 16);
    expect(() => readZipEntry(damaged, entries[0].name)).toThrow(`${entries[0].name}: CRC-32 mismatch`);
  });

  test('something else than a zip is refused', () => {
    expect(() => readZipEntry(Buffer.from('not a zip at all, just some text'), 'LICENSE')).toThrow(/not a zip written by this project/);
  });
});
