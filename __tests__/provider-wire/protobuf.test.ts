import {
  decodeMessage,
  encodeMessage,
  ProtobufError,
  type MessageDescriptor,
} from '../../src/provider/protocol/protobuf';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

const Scalars: MessageDescriptor = {
  name: 'test.Scalars',
  fields: [
    { name: 'int32', number: 1, kind: 'int32' },
    { name: 'int64', number: 2, kind: 'int64' },
    { name: 'uint32', number: 3, kind: 'uint32' },
    { name: 'uint64', number: 4, kind: 'uint64', bigint: true },
    { name: 'bool', number: 5, kind: 'bool' },
    { name: 'text', number: 6, kind: 'string' },
    { name: 'bytes', number: 7, kind: 'bytes' },
    { name: 'double', number: 8, kind: 'double' },
    { name: 'sint64', number: 9, kind: 'sint64' },
    { name: 'big', number: 10, kind: 'int64', bigint: true },
    { name: 'fixed64', number: 11, kind: 'fixed64' },
    { name: 'sfixed32', number: 12, kind: 'sfixed32' },
    { name: 'float', number: 13, kind: 'float' },
    { name: 'enumValue', number: 14, kind: 'enum' },
  ],
};

const Inner: MessageDescriptor = {
  name: 'test.Inner',
  fields: [
    { name: 'label', number: 1, kind: 'string' },
    { name: 'children', number: 2, kind: 'message', message: () => Inner, repeated: true },
  ],
};

const Outer: MessageDescriptor = {
  name: 'test.Outer',
  fields: [
    { name: 'numbers', number: 1, kind: 'int64', repeated: true },
    { name: 'names', number: 2, kind: 'string', repeated: true },
    { name: 'inner', number: 3, kind: 'message', message: () => Inner },
    { name: 'labels', number: 4, kind: 'map', key: 'string', value: 'string' },
    { name: 'inners', number: 5, kind: 'map', key: 'string', value: () => Inner },
    { name: 'byNumber', number: 6, kind: 'map', key: 'int32', value: 'bool' },
    { name: 'choiceText', number: 7, kind: 'string', oneof: 'choice' },
    { name: 'choiceNumber', number: 8, kind: 'int64', oneof: 'choice' },
  ],
};

describe('varints: known encodings both ways', () => {
  const cases: { name: string; field: string; value: number | bigint | boolean; wire: string }[] = [
    { name: 'int32 1', field: 'int32', value: 1, wire: '08 01' },
    { name: 'int32 300 (two bytes)', field: 'int32', value: 300, wire: '08 ac 02' },
    { name: 'int32 max', field: 'int32', value: 2147483647, wire: '08 ff ff ff ff 07' },
    { name: 'int32 -1 is sign-extended to 10 bytes', field: 'int32', value: -1, wire: '08 ff ff ff ff ff ff ff ff ff 01' },
    { name: 'int32 min', field: 'int32', value: -2147483648, wire: '08 80 80 80 80 f8 ff ff ff ff 01' },
    { name: 'int64 2^32 (carry into the high word)', field: 'int64', value: 4294967296, wire: '10 80 80 80 80 10' },
    { name: 'int64 2^53-1 (largest safe)', field: 'int64', value: Number.MAX_SAFE_INTEGER, wire: '10 ff ff ff ff ff ff ff 0f' },
    { name: 'int64 -1', field: 'int64', value: -1, wire: '10 ff ff ff ff ff ff ff ff ff 01' },
    { name: 'int64 -2^53+1 (smallest safe)', field: 'int64', value: -Number.MAX_SAFE_INTEGER, wire: '10 81 80 80 80 80 80 80 f0 ff 01' },
    { name: 'uint32 max', field: 'uint32', value: 4294967295, wire: '18 ff ff ff ff 0f' },
    { name: 'uint64 max as bigint', field: 'uint64', value: 18446744073709551615n, wire: '20 ff ff ff ff ff ff ff ff ff 01' },
    { name: 'int64 max as bigint', field: 'big', value: 9223372036854775807n, wire: '50 ff ff ff ff ff ff ff ff 7f' },
    { name: 'int64 min as bigint', field: 'big', value: -9223372036854775808n, wire: '50 80 80 80 80 80 80 80 80 80 01' },
    { name: 'sint64 -1 zigzags to 1', field: 'sint64', value: -1, wire: '48 01' },
    { name: 'sint64 2 zigzags to 4', field: 'sint64', value: 2, wire: '48 04' },
    { name: 'bool true', field: 'bool', value: true, wire: '28 01' },
    { name: 'enum 2', field: 'enumValue', value: 2, wire: '70 02' },
  ];
  test.each(cases)('$name', ({ field, value, wire }) => {
    expect(encodeMessage(Scalars, { [field]: value }).toString('hex')).toBe(hex(wire).toString('hex'));
    expect(decodeMessage(Scalars, hex(wire))[field]).toEqual(value);
  });

  test('a 64-bit value beyond the safe range is refused for a number field, with the field named', () => {
    const error = captureError(() => decodeMessage(Scalars, hex('10 ff ff ff ff ff ff ff ff 7f')));
    expect(error).toBeInstanceOf(ProtobufError);
    expect(error).toMatchObject({ code: 'integer_out_of_range' });
    expect((error as Error).message).toContain('test.Scalars.int64');
  });

  test('a varint longer than 10 bytes is an error', () => {
    expect(() => decodeMessage(Scalars, hex('08 ff ff ff ff ff ff ff ff ff ff 01'))).toThrow(
      expect.objectContaining({ code: 'varint_too_long' }),
    );
  });
});

describe('scalars', () => {
  test('every kind round-trips', () => {
    const message = {
      int32: -42,
      int64: -1234567890123,
      uint32: 3000000000,
      uint64: 12345678901234567890n,
      bool: true,
      text: 'grüße ✓',
      bytes: Buffer.from([0, 1, 2, 255]),
      double: -1.5e300,
      sint64: -987654321,
      big: -5n,
      fixed64: 2 ** 40 + 7,
      sfixed32: -7,
      float: 0.5,
      enumValue: 1,
    };
    expect(decodeMessage(Scalars, encodeMessage(Scalars, message))).toEqual(message);
  });

  test('defaults are not written, and an empty message decodes to every default', () => {
    const defaults = {
      int32: 0, int64: 0, uint32: 0, uint64: 0n, bool: false, text: '', bytes: Buffer.alloc(0),
      double: 0, sint64: 0, big: 0n, fixed64: 0, sfixed32: 0, float: 0, enumValue: 0,
    };
    expect(encodeMessage(Scalars, defaults)).toHaveLength(0);
    expect(decodeMessage(Scalars, Buffer.alloc(0))).toEqual(defaults);
  });

  test('a known field with the wrong wire type names the message and field', () => {
    // field 6 (text) sent as a varint
    expect(() => decodeMessage(Scalars, hex('30 01'))).toThrow(/test\.Scalars\.text \(field 6\) arrived with wire type 0/);
  });

  test('a length running past the end is reported as truncated', () => {
    expect(() => decodeMessage(Scalars, hex('32 05 61 62'))).toThrow(expect.objectContaining({ code: 'truncated' }));
  });
});

describe('unknown fields are skipped', () => {
  const cases = [
    { name: 'varint', unknown: '78 96 01' }, // field 15, 150
    { name: 'fixed64', unknown: '79 01 02 03 04 05 06 07 08' },
    { name: 'length-delimited', unknown: '7a 03 61 62 63' },
    { name: 'fixed32', unknown: '7d 01 02 03 04' },
    { name: 'group with a field inside', unknown: '7b 08 01 7c' },
    { name: 'large field number', unknown: 'f8 ff ff ff 0f 01' }, // field 2^29-1
  ];
  test.each(cases)('$name', ({ unknown }) => {
    const wire = Buffer.concat([hex('08 07'), hex(unknown), hex('32 02 6f 6b')]);
    expect(decodeMessage(Scalars, wire)).toMatchObject({ int32: 7, text: 'ok' });
  });

  test('an invalid wire type is an error, not an endless loop', () => {
    expect(() => decodeMessage(Scalars, hex('7e 00'))).toThrow(expect.objectContaining({ code: 'unsupported_wire_type' }));
  });
});

describe('repeated, maps, nested messages, oneofs', () => {
  test('repeated numbers are written packed and read both packed and unpacked', () => {
    const packed = encodeMessage(Outer, { numbers: [1, 300, -1] });
    expect(packed.toString('hex')).toBe(hex('0a 0d 01 ac 02 ff ff ff ff ff ff ff ff ff 01').toString('hex'));
    const unpacked = hex('08 01 08 ac 02 08 ff ff ff ff ff ff ff ff ff 01');
    expect(decodeMessage(Outer, unpacked)).toMatchObject({ numbers: [1, 300, -1] });
    // both forms in one message concatenate
    expect(decodeMessage(Outer, Buffer.concat([packed, hex('08 05')]))).toMatchObject({ numbers: [1, 300, -1, 5] });
  });

  test('repeated strings, including empty ones, keep order', () => {
    const message = { names: ['a', '', 'c'] };
    expect(decodeMessage(Outer, encodeMessage(Outer, message))).toMatchObject(message);
  });

  test('nested and recursive messages round-trip', () => {
    const message = {
      inner: { label: 'root', children: [{ label: 'a', children: [{ label: 'a1', children: [] }] }, { label: '', children: [] }] },
    };
    expect(decodeMessage(Outer, encodeMessage(Outer, message))).toMatchObject(message);
  });

  test('an empty nested message is present, an absent one is undefined', () => {
    expect(encodeMessage(Outer, { inner: { label: '', children: [] } }).toString('hex')).toBe('1a00');
    expect(decodeMessage(Outer, hex('1a 00'))).toMatchObject({ inner: { label: '', children: [] } });
    expect(decodeMessage(Outer, Buffer.alloc(0)).inner).toBeUndefined();
  });

  test('maps of strings, messages and integer keys round-trip', () => {
    const message = {
      labels: { a: 'x', 'with space': '', '': 'empty key' },
      inners: { one: { label: 'first', children: [] }, two: { label: '', children: [] } },
      byNumber: { '-3': true, '7': false },
    };
    expect(decodeMessage(Outer, encodeMessage(Outer, message))).toMatchObject(message);
  });

  test('a map entry is a key=1/value=2 message', () => {
    expect(encodeMessage(Outer, { labels: { k: 'v' } }).toString('hex')).toBe(hex('22 06 0a 01 6b 12 01 76').toString('hex'));
    // an entry whose message value is absent decodes to the empty message
    expect(decodeMessage(Outer, hex('2a 03 0a 01 6b'))).toMatchObject({ inners: { k: { label: '', children: [] } } });
  });

  test('a oneof member holding its default is still written (explicit presence)', () => {
    expect(encodeMessage(Outer, { choiceNumber: 0 }).toString('hex')).toBe('4000');
    expect(decodeMessage(Outer, hex('40 00'))).toMatchObject({ choiceText: undefined, choiceNumber: 0 });
  });

  test('the last oneof member on the wire wins', () => {
    expect(decodeMessage(Outer, hex('3a 01 61 40 05'))).toMatchObject({ choiceText: undefined, choiceNumber: 5 });
    expect(decodeMessage(Outer, hex('40 05 3a 01 61'))).toMatchObject({ choiceText: 'a', choiceNumber: undefined });
  });
});

function captureError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('the rarer kinds, keys and refusals', () => {
  const Rare: MessageDescriptor = {
    name: 'test.Rare',
    fields: [
      { name: 'small', number: 1, kind: 'sint32' },
      { name: 'fixed', number: 2, kind: 'fixed32' },
      { name: 'signedFixed', number: 3, kind: 'sfixed64' },
      { name: 'hugeZigzag', number: 4, kind: 'sint64', bigint: true },
      { name: 'flag', number: 5, kind: 'bool' },
      { name: 'byFlag', number: 6, kind: 'map', key: 'bool', value: 'string' },
      { name: 'byLong', number: 7, kind: 'map', key: 'int64', value: 'string' },
      { name: 'choiceText', number: 8, kind: 'string', oneof: 'choice' },
      { name: 'choiceInner', number: 9, kind: 'message', message: () => Inner, oneof: 'choice' },
      { name: 'text', number: 10, kind: 'string' },
      { name: 'blob', number: 11, kind: 'bytes' },
    ],
  };

  test.each([
    ['sint32 -3 zigzags to 5', 'small', -3, '08 05'],
    ['fixed32', 'fixed', 0x01020304, '15 04 03 02 01'],
    ['sfixed64 -2', 'signedFixed', -2, '19 fe ff ff ff ff ff ff ff'],
    ['sint64 beyond the safe range as a bigint', 'hugeZigzag', 2n ** 60n, '20 80 80 80 80 80 80 80 80 20'],
  ])('%s, both ways', (_name, field, value, wire) => {
    expect(encodeMessage(Rare, { [field]: value }).toString('hex')).toBe(hex(wire).toString('hex'));
    expect(decodeMessage(Rare, hex(wire))[field]).toEqual(value);
  });

  test('a bool whose only set bit is in the high word is true', () => {
    expect(decodeMessage(Rare, hex('28 80 80 80 80 10')).flag).toBe(true);
  });

  test('maps with bool and int64 keys round-trip', () => {
    const message = { byFlag: { true: 'yes', false: 'no' }, byLong: { '4294967296': 'past 32 bits', '-1': 'minus one' } };
    const decoded = decodeMessage(Rare, encodeMessage(Rare, message));
    expect(decoded.byFlag).toEqual(message.byFlag);
    expect(decoded.byLong).toEqual(message.byLong);
  });

  test('a message member of a oneof clears the member read before it', () => {
    const wire = Buffer.concat([encodeMessage(Rare, { choiceText: 'first' }), encodeMessage(Rare, { choiceInner: { label: 'second', children: [] } })]);
    const decoded = decodeMessage(Rare, wire);
    expect(decoded.choiceText).toBeUndefined();
    expect(decoded.choiceInner).toEqual({ label: 'second', children: [] });
  });

  test('an empty repeated field writes nothing', () => {
    expect(encodeMessage(Outer, { numbers: [], names: [] })).toHaveLength(0);
  });

  test.each([
    ['field number 0', Rare, '00 01', /test\.Rare: field number 0 at offset 1 is invalid/],
    ['a message field sent as a varint', Outer, '18 01', /test\.Outer\.inner \(field 3\) arrived with wire type 0/],
    ['a map field sent as a varint', Outer, '20 01', /test\.Outer\.labels \(field 4\) arrived with wire type 0/],
    ['a repeated string sent as a varint', Outer, '10 01', /test\.Outer\.names \(field 2\) arrived with wire type 0/],
    ['an unknown group closed by another field', Rare, '63 5c', /protobuf group 12 closed by end-group 11/],
    ['a fixed32 cut short', Rare, '15 01 02', /protobuf message ends early: needed 4 byte\(s\) at offset 1, message ends at 3/],
  ])('decoding refuses %s', (_name, descriptor, wire, message) => {
    expect(() => decodeMessage(descriptor, hex(wire))).toThrow(message);
  });

  test.each([
    ['a fraction in an int64', Scalars, { int64: 1.5 }, 'invalid_value', 'test.Scalars.int64 must be an integer, got 1.5'],
    ['an unsafe number in an int64', Scalars, { int64: 2 ** 60 }, 'integer_out_of_range', `test.Scalars.int64 = ${2 ** 60} is beyond the safe integer range; pass a bigint`],
    ['a bigint beyond 64 bits', Scalars, { big: 1n << 64n }, 'integer_out_of_range', 'test.Scalars.big = 18446744073709551616 does not fit 64 bits'],
    ['a number in a string field', Rare, { text: 5 }, 'invalid_value', 'test.Rare.text must be a string, got number'],
    ['text in a bytes field', Rare, { blob: 'abc' }, 'invalid_value', 'test.Rare.blob must be a Buffer, got string'],
  ])('encoding refuses %s, naming the field', (_name, descriptor, message, code, text) => {
    const error = captureError(() => encodeMessage(descriptor, message));
    expect(error).toBeInstanceOf(ProtobufError);
    expect(error).toMatchObject({ code, message: text });
  });
});
