import type { ValueType } from '../../src/provider/core/types';
import { types } from '../../src/provider/core/types';
import { UNKNOWN, type Value } from '../../src/provider/core/values';
import { compareBytewise, decodeJsonValue, decodeValue, encodeValue, ValueCodecError } from '../../src/provider/protocol/msgpack';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const toHex = (bytes: Buffer): string => bytes.toString('hex');

const entryType = types.object({ ip: types.string, description: types.string });
const listResourceType = types.object({
  id: types.string,
  entries: types.set(entryType),
  tags: types.map(types.string),
  ports: types.list(types.number),
  enabled: types.bool,
});

function codecError(action: () => unknown): ValueCodecError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ValueCodecError);
  return thrown as ValueCodecError;
}

describe('msgpack: hand-written fixtures (the format, not just our own round trip)', () => {
  const cases: Array<[name: string, type: ValueType, value: Value, bytes: string]> = [
    ['null', types.string, null, 'c0'],
    ['unknown is extension 0 with one zero byte', types.string, UNKNOWN, 'd4 00 00'],
    ['empty string', types.string, '', 'a0'],
    ['short string', types.string, 'ab', 'a2 61 62'],
    ['unicode string counts bytes', types.string, 'é', 'a2 c3 a9'],
    ['32-byte string uses str8', types.string, 'x'.repeat(32), `d9 20 ${'78'.repeat(32)}`],
    ['31 ASCII characters are a fixstr', types.string, 'x'.repeat(31), `bf ${'78'.repeat(31)}`],
    ['31 characters that are 32 bytes use str8', types.string, `${'x'.repeat(30)}é`, `d9 20 ${'78'.repeat(30)} c3 a9`],
    ['DEL is ASCII, U+0080 is not', types.string, '\u007f\u0080', 'a3 7f c2 80'],
    ['zero', types.number, 0, '00'],
    ['positive fixint max', types.number, 127, '7f'],
    ['128 is uint8', types.number, 128, 'cc 80'],
    ['256 is uint16', types.number, 256, 'cd 01 00'],
    ['2^31 is uint32', types.number, 2 ** 31, 'ce 80 00 00 00'],
    ['2^32 is uint64', types.number, 2 ** 32, 'cf 00 00 00 01 00 00 00 00'],
    ['2^53-1 is uint64', types.number, 2 ** 53 - 1, 'cf 00 1f ff ff ff ff ff ff'],
    ['-1 is a negative fixint', types.number, -1, 'ff'],
    ['-32 is the last negative fixint', types.number, -32, 'e0'],
    ['-33 is int8', types.number, -33, 'd0 df'],
    ['-129 is int16', types.number, -129, 'd1 ff 7f'],
    ['-2^31 is int32', types.number, -(2 ** 31), 'd2 80 00 00 00'],
    ['-2^31-1 is int64', types.number, -(2 ** 31) - 1, 'd3 ff ff ff ff 7f ff ff ff'],
    ['1.5 is float64', types.number, 1.5, 'cb 3f f8 00 00 00 00 00 00'],
    ['2^64 is beyond int64: float64', types.number, 2 ** 64, 'cb 43 f0 00 00 00 00 00 00'],
    ['infinity is float64', types.number, Infinity, 'cb 7f f0 00 00 00 00 00 00'],
    ['true', types.bool, true, 'c3'],
    ['false', types.bool, false, 'c2'],
    ['list', types.list(types.number), [1, 2], '92 01 02'],
    ['set', types.set(types.string), ['a'], '91 a1 61'],
    ['map keys sorted', types.map(types.bool), { b: true, a: false }, '82 a1 61 c2 a1 62 c3'],
    [
      'object keys sorted, null attribute present',
      entryType,
      { ip: '10.0.0.1', description: null },
      '82 ab 6465736372697074696f6e c0 a2 6970 a8 31302e302e302e31',
    ],
  ];
  test.each(cases)('encode %s', (_name, type, value, bytes) => {
    expect(toHex(encodeValue(type, value))).toBe(toHex(hex(bytes)));
  });
  test.each(cases)('decode %s', (_name, type, value, bytes) => {
    expect(decodeValue(type, hex(bytes))).toEqual(value);
  });
});

describe('msgpack: decoding every number encoding', () => {
  const cases: Array<[name: string, bytes: string, value: number]> = [
    ['uint8', 'cc ff', 255],
    ['uint16', 'cd ff ff', 65535],
    ['uint32', 'ce ff ff ff ff', 4294967295],
    ['uint64', 'cf 00 00 00 00 00 00 00 05', 5],
    ['int8 positive', 'd0 05', 5],
    ['int8 negative', 'd0 80', -128],
    ['int16', 'd1 80 00', -32768],
    ['int32', 'd2 ff ff ff fe', -2],
    ['int64', 'd3 ff ff ff ff ff ff ff ff', -1],
    ['int64 2^53-1', 'd3 00 1f ff ff ff ff ff ff', 2 ** 53 - 1],
    ['float32', 'ca 3f c0 00 00', 1.5],
    ['float64', 'cb c0 04 00 00 00 00 00 00', -2.5],
    ['number as decimal string (go-cty: too big for int64/float64)', 'a3 31 2e 35', 1.5],
  ];
  test.each(cases)('%s', (_name, bytes, value) => {
    expect(decodeValue(types.number, hex(bytes))).toBe(value);
  });
});

describe('msgpack: round trips', () => {
  const nested = types.object({
    name: types.string,
    entries: types.set(entryType),
    by_team: types.map(types.list(types.number)),
    single: types.object({ flag: types.bool }),
  });
  const cases: Array<[name: string, type: ValueType, value: Value]> = [
    ['string with unicode', types.string, 'Grüße, 世界 🌍'],
    ['empty string', types.string, ''],
    ['long string (str16)', types.string, 'y'.repeat(70000)],
    ['number 0', types.number, 0],
    ['number -1', types.number, -1],
    ['number 2^31', types.number, 2 ** 31],
    ['number 2^53-1', types.number, 2 ** 53 - 1],
    ['number -(2^53-1)', types.number, -(2 ** 53 - 1)],
    ['number 1.5', types.number, 1.5],
    ['number -0.1', types.number, -0.1],
    ['number -infinity', types.number, -Infinity],
    ['bool', types.bool, true],
    ['empty list', types.list(types.string), []],
    ['list of 20 (array16)', types.list(types.number), Array.from({ length: 20 }, (_, index) => index)],
    ['set', types.set(types.string), ['b', 'a']],
    ['map', types.map(types.number), { x: 1, y: 2 }],
    ['empty map', types.map(types.number), {}],
    ['map with a __proto__ key', types.map(types.string), JSON.parse('{"__proto__":"x","a":"b"}') as Value],
    ['map of 17 (map16)', types.map(types.bool), Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, index % 2 === 0]))],
    [
      'nested object',
      nested,
      {
        name: 'n',
        entries: [
          { ip: '10.0.0.1', description: 'a' },
          { ip: '10.0.0.2', description: null },
        ],
        by_team: { red: [1, 2.5], blue: [] },
        single: { flag: false },
      },
    ],
    ['null at the root', nested, null],
    ['null at every level', nested, { name: null, entries: [{ ip: null, description: null }], by_team: { red: null }, single: null }],
    ['unknown at the root', nested, UNKNOWN],
    [
      'unknown at every level',
      nested,
      { name: UNKNOWN, entries: [{ ip: UNKNOWN, description: 'd' }, UNKNOWN], by_team: { red: [UNKNOWN], blue: UNKNOWN }, single: { flag: UNKNOWN } },
    ],
  ];
  test.each(cases)('%s', (_name, type, value) => {
    expect(decodeValue(type, encodeValue(type, value))).toEqual(value);
  });

  test('bytes that are a slice of a larger buffer (as the protobuf decoder hands them over)', () => {
    const type = types.object({ n: types.number, s: types.string, f: types.number });
    const value = { n: -(2 ** 40), s: 'slice', f: 0.25 };
    const encoded = encodeValue(type, value);
    const larger = Buffer.concat([Buffer.from([0xff, 0xff, 0xff]), encoded, Buffer.from([0xc1])]);
    expect(decodeValue(type, larger.subarray(3, 3 + encoded.length))).toEqual(value);
  });
  test('a map __proto__ key stays data, not a prototype', () => {
    const decoded = decodeValue(types.map(types.string), hex('81 a9 5f5f70726f746f5f5f a1 78')) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });
});

describe('msgpack: any extension decodes as unknown', () => {
  const cases: Array<[name: string, bytes: string]> = [
    ['fixext1 type 0 (plain unknown)', 'd4 00 00'],
    ['refined unknown: ext8 type 12, not null', 'c7 03 0c 81 01 c2'],
    ['refined unknown: ext8 type 12, string prefix', 'c7 06 0c 81 02 a3 31 30 2e'],
    ['fixext2', 'd5 0c 81 01'],
    ['fixext4', 'd6 05 00 00 00 00'],
    ['fixext8', 'd7 01 00 00 00 00 00 00 00 00'],
    ['fixext16', `d8 01 ${'00'.repeat(16)}`],
    ['ext16', 'c8 00 02 0c 80 00'],
    ['ext32', 'c9 00 00 00 01 07 00'],
  ];
  test.each(cases)('%s at the root', (_name, bytes) => {
    expect(decodeValue(types.string, hex(bytes))).toBe(UNKNOWN);
  });
  test.each(cases)('%s inside an object, followed by another attribute', (_name, bytes) => {
    const type = types.object({ a: types.string, b: types.number });
    expect(decodeValue(type, hex(`82 a1 61 ${bytes} a1 62 07`))).toEqual({ a: UNKNOWN, b: 7 });
  });
  test('a config captured from terraform 1.11.4: ip = "10.3.0.${other.created % 200}" is a refined unknown', () => {
    // ip arrives as ext8 type 12: { 1: false (not null), 2: "10.3.0." (string prefix) }.
    const type = types.object({
      created: types.number,
      description: types.string,
      expires: types.number,
      id: types.string,
      ip: types.string,
      tenant: types.string,
    });
    const bytes = hex(
      '86a763726561746564c0ab6465736372697074696f6ec0a765787069726573c0a26964c0a26970c70c0c8201c202a731302e332e302ea674656e616e74c0',
    );
    expect(decodeValue(type, bytes)).toEqual({ created: null, description: null, expires: null, id: null, ip: UNKNOWN, tenant: null });
  });
  test('a refined unknown in a set element', () => {
    const type = types.set(entryType);
    const bytes = hex('91 82 ab 6465736372697074696f6e c0 a2 6970 c7 03 0c 81 01 c2');
    expect(decodeValue(type, bytes)).toEqual([{ description: null, ip: UNKNOWN }]);
  });
});

describe('msgpack: decoding errors name the attribute path', () => {
  const entry = (ip: string) => `82 ab 6465736372697074696f6e c0 a2 6970 ${ip}`;
  const cases: Array<[name: string, type: ValueType, bytes: string, message: string]> = [
    ['bool where a string belongs, in a set element', types.object({ entries: types.list(entryType) }),
      `81 a7 656e7472696573 93 ${entry('a1 61')} ${entry('a1 62')} ${entry('c3')}`, 'entries[2].ip: expected string, got bool'],
    ['string where a number belongs', types.object({ n: types.number }), '81 a1 6e a1 78', 'n: expected number, got string "x"'],
    ['array where an object belongs', entryType, '90', '(root): expected object, got array'],
    ['map value of the wrong kind', types.map(types.bool), '81 a1 6b 01', '["k"]: expected bool, got integer'],
    ['attribute not in the schema', entryType, '83 ab 6465736372697074696f6e c0 a2 6970 c0 a1 78 c0', 'x: attribute is not in the schema'],
    ['attribute missing', entryType, '81 a2 6970 c0', '(root): object lacks attribute(s) description'],
    ['truncated string', types.string, 'a5 61 62', 'ends in the middle of a value'],
    ['truncated array', types.list(types.number), '92 01', '[1]: msgpack data ends where a value was expected'],
    ['trailing bytes', types.number, '01 02', '1 unexpected bytes after the value'],
    ['non-string map key', types.map(types.string), '81 01 a1 61', 'expected string map key, got integer'],
    ['reserved byte', types.string, 'c1', 'not msgpack'],
  ];
  test.each(cases)('%s', (_name, type, bytes, message) => {
    const error = codecError(() => decodeValue(type, hex(bytes)));
    expect(error.code).toBe('value_codec');
    expect(error.message).toContain(message);
  });
});

describe('msgpack: an error keeps its own path (the codec walks values with one path it shortens again)', () => {
  test('decoding: the path of the failing element, unchanged by the steps after it', () => {
    const type = types.object({ entries: types.map(types.list(types.bool)) });
    // {"entries": {"a": [true], "b": [false, "x"]}}
    const error = codecError(() => decodeValue(type, hex('81 a7 656e7472696573 82 a1 61 91 c3 a1 62 92 c2 a1 78')));
    expect(error.path).toEqual(['entries', { key: 'b' }, 1]);
    expect(error.message).toBe('entries["b"][1]: expected bool, got string');
  });

  test('decoding: a map key given twice names that key', () => {
    const error = codecError(() => decodeValue(types.map(types.string), hex('82 a1 6b a1 61 a1 6b a1 62')));
    expect(error.path).toEqual([{ key: 'k' }]);
  });

  test('encoding: the path of the failing value after good siblings', () => {
    const type = types.object({ entries: types.map(types.list(types.bool)) });
    const error = codecError(() => encodeValue(type, { entries: { a: [true], b: [false, 'x'] } }));
    expect(error.path).toEqual(['entries', { key: 'b' }, 1]);
    expect(error.message).toBe('entries["b"][1]: expected bool, got string');
  });
});

describe('msgpack: map keys in the order of their UTF-8 bytes (go-cty sorts them so)', () => {
  // ASCII, Latin-1, the BMP above the surrogates (U+E000, U+FFFD), astral (surrogate pairs), prefixes.
  const keys = ['b', 'a', 'ab', '', '10.0.0.2', '10.0.0.10', '\u00e9', '\ue000', '\ufffd', '\u{1f600}', '\u{10000}', 'a\u{1f600}', 'a\ue000', 'Z'];
  const byBytes = (left: string, right: string) => Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));

  test('compareBytewise agrees with comparing the UTF-8 bytes for every pair', () => {
    for (const left of keys) for (const right of keys) expect(Math.sign(compareBytewise(left, right))).toBe(byBytes(left, right));
  });

  test('an encoded map holds its keys in that order', () => {
    const map = Object.fromEntries(keys.map((key) => [key, key]));
    const decoded = decodeValue(types.map(types.string), encodeValue(types.map(types.string), map)) as Record<string, string>;
    // Object keys keep insertion order for non-integer strings: the decoder inserts in wire order.
    expect(Object.keys(decoded)).toEqual([...keys].sort(byBytes));
  });
});

describe('msgpack: encoding checks the value against the type', () => {
  const cases: Array<[name: string, type: ValueType, value: unknown, message: string]> = [
    ['number for a string', listResourceType, { id: 1, entries: null, tags: null, ports: null, enabled: null }, 'id: expected string, got number'],
    ['missing attribute', entryType, { ip: 'x' }, 'description: attribute is missing'],
    ['extra attribute', entryType, { ip: 'x', description: null, extra: 1 }, 'extra: attribute is not in the schema'],
    ['bad set element', types.set(entryType), [{ ip: true, description: null }], '[0].ip: expected string, got boolean'],
    ['NaN', types.number, Number.NaN, 'NaN cannot be stored'],
    ['object for a list', types.list(types.string), {}, 'expected list, got object'],
  ];
  test.each(cases)('%s', (_name, type, value, message) => {
    expect(codecError(() => encodeValue(type, value as Value)).message).toContain(message);
  });
});

describe('JSON state decoding against the current schema', () => {
  test('attributes missing from the stored JSON become null; unknown ones are dropped', () => {
    const json = JSON.stringify({ id: 'acme/blacklist', entries: [{ ip: '10.0.0.1', old_field: 1 }], removed: 'x', enabled: true });
    expect(decodeJsonValue(listResourceType, Buffer.from(json))).toEqual({
      id: 'acme/blacklist',
      entries: [{ ip: '10.0.0.1', description: null }],
      tags: null,
      ports: null,
      enabled: true,
    });
  });
  test('numbers, numeric strings and maps', () => {
    const type = types.object({ n: types.number, s: types.number, m: types.map(types.number) });
    expect(decodeJsonValue(type, '{"n":1.5,"s":"42","m":{"a":1}}')).toEqual({ n: 1.5, s: 42, m: { a: 1 } });
  });
  test('a wrong kind names the path', () => {
    expect(codecError(() => decodeJsonValue(listResourceType, '{"entries":[{"ip":5}]}')).message).toBe(
      'entries[0].ip: expected string, got number in stored JSON',
    );
  });
  test('invalid JSON', () => {
    expect(codecError(() => decodeJsonValue(listResourceType, '{')).message).toContain('not valid JSON');
  });
});

describe('msgpack: the longer headers and the rarer mismatches', () => {
  test.each([
    ['str 16', types.string, 'da 00 02 68 69', 'hi'],
    ['bin 16 as a string (go-cty may write bytes)', types.string, 'c5 00 01 61', 'a'],
    ['array 32', types.list(types.number), 'dd 00 00 00 01 07', [7]],
    ['map 32', types.map(types.number), 'df 00 00 00 01 a1 6b 01', { k: 1 }],
    ['a negative fixint', types.number, 'ff', -1],
  ])('decodes %s', (_name, type, bytes, value) => {
    expect(decodeValue(type, hex(bytes))).toEqual(value);
  });

  test.each([
    ['an attribute twice', types.object({ a: types.string }), '82 a1 61 c0 a1 61 c0', 'a: attribute appears twice'],
    ['an attribute of an object type without attributes', types.object({}), '81 a1 78 c0', 'x: attribute is not in the schema (expected one of: (none))'],
    ['a bool where a number belongs', types.number, 'c3', '(root): expected number, got bool'],
    ['a float where a string belongs', types.string, 'cb 3f f0 00 00 00 00 00 00', '(root): expected string, got float'],
    ['binary where a bool belongs', types.bool, 'c4 01 61', '(root): expected bool, got binary'],
    ['a map where a string belongs', types.string, '80', '(root): expected string, got map'],
    ['a map where a list belongs', types.list(types.string), 'de 00 00', '(root): expected list, got map'],
    ['an array where a map belongs', types.map(types.string), 'dc 00 00', '(root): expected map, got array'],
  ])('refuses %s', (_name, type, bytes, message) => {
    expect(codecError(() => decodeValue(type, hex(bytes))).message).toBe(message);
  });

  test('a string of 256 bytes or more gets a 16-bit length, 65,536 or more a 32-bit one; a long list and map too', () => {
    const medium = 'x'.repeat(300);
    const encoded = encodeValue(types.string, medium);
    expect([...encoded.subarray(0, 3)]).toEqual([0xda, 0x01, 0x2c]);
    expect(decodeValue(types.string, encoded)).toBe(medium);
    const long = 'y'.repeat(0x10000);
    expect(encodeValue(types.string, long)[0]).toBe(0xdb);
    const list = Array.from({ length: 0x10000 }, () => true);
    const listBytes = encodeValue(types.list(types.bool), list);
    expect([...listBytes.subarray(0, 5)]).toEqual([0xdd, 0x00, 0x01, 0x00, 0x00]);
    expect(decodeValue(types.list(types.bool), listBytes)).toEqual(list);
    const map = Object.fromEntries(Array.from({ length: 0x10000 }, (_, index) => [`k${index}`, index % 2 === 0]));
    const mapBytes = encodeValue(types.map(types.bool), map);
    expect(mapBytes[0]).toBe(0xdf);
    expect(decodeValue(types.map(types.bool), mapBytes)).toEqual(map);
  });

  test.each([
    ['text for a number', types.number, 'x', 'expected number, got string'],
    ['an array for a map', types.map(types.string), ['a'], 'expected map, got array'],
    ['text for an object', entryType, 'x', 'expected object, got string'],
  ])('encoding refuses %s', (_name, type, value, message) => {
    expect(codecError(() => encodeValue(type, value as Value)).message).toBe(`(root): ${message}`);
  });

  test.each([
    ['an empty string for a number', types.number, '""', 'expected number, got string in stored JSON'],
    ['text that is no number', types.number, '"ten"', 'expected number, got string in stored JSON'],
    ['a number for a bool', types.bool, '1', 'expected bool, got number in stored JSON'],
    ['an object for a list', types.list(types.string), '{}', 'expected list, got object in stored JSON'],
    ['an array for a map', types.map(types.string), '[]', 'expected map, got array in stored JSON'],
    ['an array for an object', entryType, '[]', 'expected object, got array in stored JSON'],
  ])('stored JSON with %s is refused', (_name, type, json, message) => {
    expect(codecError(() => decodeJsonValue(type, json)).message).toBe(`(root): ${message}`);
  });
});

describe('msgpack: a large map decoded again is the value decoded before (terraform sends it in several requests)', () => {
  const resourceType = types.object({ entries: types.map(types.string), mode: types.string });
  const entries = Object.fromEntries(Array.from({ length: 1500 }, (_, index) => [`10.0.${index >> 8}.${index & 255}`, `entry ${index}`]));

  test('the same bytes in another request (a config, then a proposed state with other attributes) give the same map object', () => {
    const config = decodeValue(resourceType, encodeValue(resourceType, { entries, mode: null })) as Record<string, Value>;
    const proposed = decodeValue(resourceType, encodeValue(resourceType, { entries, mode: UNKNOWN })) as Record<string, Value>;
    expect(config.entries).toEqual(entries);
    expect(proposed.entries).toBe(config.entries);
    expect(proposed.mode).toBe(UNKNOWN);
  });

  test('one description changed, one entry more, another type or a small map: decoded afresh, and right', () => {
    const first = (decodeValue(resourceType, encodeValue(resourceType, { entries, mode: null })) as Record<string, Value>).entries;
    const changedEntries = { ...entries, '10.0.5.219': 'changed' };
    const changed = (decodeValue(resourceType, encodeValue(resourceType, { entries: changedEntries, mode: null })) as Record<string, Value>).entries;
    expect(changed).not.toBe(first);
    expect(changed).toEqual(changedEntries);
    const longerEntries = { ...entries, '10.9.9.9': '' };
    expect(decodeValue(types.map(types.string), encodeValue(types.map(types.string), longerEntries))).toEqual(longerEntries);
    const otherType = types.map(types.string);
    const sameBytesOtherType = decodeValue(otherType, encodeValue(otherType, entries));
    expect(sameBytesOtherType).toEqual(entries);
    expect(sameBytesOtherType).not.toBe(first);
    const small = { a: 'x' };
    expect(decodeValue(otherType, encodeValue(otherType, small))).not.toBe(decodeValue(otherType, encodeValue(otherType, small)));
  });
});
