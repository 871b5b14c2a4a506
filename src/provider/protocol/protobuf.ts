/**
 * A small proto3 wire codec driven by plain-object message descriptors (see tfplugin6.ts).
 * No .proto parsing and no code generation: descriptors are object literals, compiled lazily
 * into a field-number lookup the first time a message type is seen, so start-up stays cheap.
 *
 * Decoding: unknown fields are skipped by wire type; repeated scalars are accepted packed and
 * unpacked; absent fields take their proto3 defaults (0, '', false, empty Buffer, [], {}),
 * absent message fields, unset oneof members and absent `optional` scalars are `undefined`.
 * Encoding: proto3 implicit presence (default scalars are not written), oneof members,
 * `optional` scalars and message fields are written whenever they are defined, repeated
 * numeric scalars are packed.
 *
 * A descriptor declared `as const` also gives its TypeScript shape: MessageValue<typeof D> is
 * what decodeMessage(D, ...) returns, so the wire declaration and the type cannot disagree.
 */

export type ScalarKind =
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'bool'
  | 'enum'
  | 'fixed32'
  | 'sfixed32'
  | 'float'
  | 'fixed64'
  | 'sfixed64'
  | 'double'
  | 'string'
  | 'bytes';

export interface ScalarField {
  readonly name: string;
  readonly number: number;
  readonly kind: ScalarKind;
  readonly repeated?: boolean;
  /** Members of one oneof have explicit presence: written even when they hold the default. */
  readonly oneof?: string;
  /**
   * Explicit presence without a oneof (proto3 `optional`): decoded as `undefined` when absent
   * from the wire instead of as its default, and written whenever it is defined.
   */
  readonly optional?: boolean;
  /** 64-bit integer kinds decode to bigint instead of number (number throws when unsafe). */
  readonly bigint?: boolean;
  /** For `enum` fields: the TypeScript enum of its values. Read only by MessageValue (the type). */
  readonly enum?: Readonly<Record<string, string | number>>;
}

export interface MessageField {
  readonly name: string;
  readonly number: number;
  readonly kind: 'message';
  /** A thunk, so descriptors can refer to each other (Attribute -> Object -> Attribute). */
  readonly message: () => MessageDescriptor;
  readonly repeated?: boolean;
  readonly oneof?: string;
}

export interface MapField {
  readonly name: string;
  readonly number: number;
  readonly kind: 'map';
  /** Map keys travel as strings in the decoded Record; integer keys are converted. */
  readonly key: 'string' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'bool';
  readonly value: ScalarKind | (() => MessageDescriptor);
}

export type FieldDescriptor = ScalarField | MessageField | MapField;

export interface MessageDescriptor {
  /** The proto's full name, e.g. `tfplugin6.Diagnostic`: used in error messages. */
  readonly name: string;
  readonly fields: readonly FieldDescriptor[];
}

// ---------------------------------------------------------------- the TypeScript shape of a descriptor

type SixtyFourBitKind = 'int64' | 'uint64' | 'sint64' | 'fixed64' | 'sfixed64';

type ScalarValue<Field> = Field extends { readonly kind: 'string' }
  ? string
  : Field extends { readonly kind: 'bytes' }
    ? Buffer
    : Field extends { readonly kind: 'bool' }
      ? boolean
      : Field extends { readonly kind: 'enum'; readonly enum: infer Enum }
        ? Enum[keyof Enum]
        : Field extends { readonly kind: SixtyFourBitKind; readonly bigint: true }
          ? bigint
          : number;

type FieldValue<Field> = Field extends { readonly kind: 'message'; readonly message: () => infer Message }
  ? MessageValue<Message>
  : Field extends { readonly kind: 'map'; readonly value: infer Value }
    ? Readonly<Record<string, Value extends () => infer Message ? MessageValue<Message> : ScalarValue<{ readonly kind: Value }>>>
    : ScalarValue<Field>;

type Occurrences<Field> = Field extends { readonly repeated: true } ? readonly FieldValue<Field>[] : FieldValue<Field>;

/** Fields that decode to `undefined` when absent (see the module comment); the rest always have a value. */
type MayBeAbsent<Field> = Field extends { readonly repeated: true }
  ? false
  : Field extends { readonly kind: 'message' } | { readonly oneof: string } | { readonly optional: true }
    ? true
    : false;

type NameOf<Field> = Field extends { readonly name: infer Name extends string } ? Name : never;

type Flatten<T> = { [Key in keyof T]: T[Key] };

/**
 * A message as decodeMessage returns it and encodeMessage takes it, derived from its descriptor
 * declared `as const`: names are the field names; singular messages, oneof members and
 * `optional` scalars are optional properties; repeated fields are arrays and maps Records.
 * A descriptor typed only as MessageDescriptor gives Record<string, unknown>.
 */
export type MessageValue<Descriptor> = Descriptor extends { readonly fields: readonly (infer Field)[] }
  ? string extends NameOf<Field>
    ? Record<string, unknown>
    : Flatten<
        { readonly [F in Field as MayBeAbsent<F> extends true ? never : NameOf<F>]: Occurrences<F> } & {
          readonly [F in Field as MayBeAbsent<F> extends true ? NameOf<F> : never]?: Occurrences<F>;
        }
      >
  : never;

export type ProtobufErrorCode =
  | 'truncated'
  | 'varint_too_long'
  | 'wire_type_mismatch'
  | 'unsupported_wire_type'
  | 'integer_out_of_range'
  | 'invalid_field_number'
  | 'invalid_value';

export class ProtobufError extends Error {
  constructor(
    readonly code: ProtobufErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ProtobufError';
  }
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;

const TWO_POW_32 = 4294967296;
/** Above this (absolute) high word a 64-bit value may not fit a double exactly. */
const SAFE_HIGH_WORD = 0x200000;

function wireTypeOf(kind: ScalarKind): number {
  switch (kind) {
    case 'fixed32':
    case 'sfixed32':
    case 'float':
      return WIRE_FIXED32;
    case 'fixed64':
    case 'sfixed64':
    case 'double':
      return WIRE_FIXED64;
    case 'string':
    case 'bytes':
      return WIRE_LENGTH_DELIMITED;
    default:
      return WIRE_VARINT;
  }
}

function isPackable(kind: ScalarKind): boolean {
  return kind !== 'string' && kind !== 'bytes';
}

// ---------------------------------------------------------------- descriptor compilation

interface CompiledMessage {
  readonly descriptor: MessageDescriptor;
  readonly byNumber: ReadonlyMap<number, FieldDescriptor>;
}

const compiled = new WeakMap<MessageDescriptor, CompiledMessage>();

function compile(descriptor: MessageDescriptor): CompiledMessage {
  let result = compiled.get(descriptor);
  if (result === undefined) {
    const byNumber = new Map<number, FieldDescriptor>();
    for (const field of descriptor.fields) byNumber.set(field.number, field);
    result = { descriptor, byNumber };
    compiled.set(descriptor, result);
  }
  return result;
}

/** The synthetic map-entry message (key = 1, value = 2) for one map field. */
const mapEntries = new WeakMap<MapField, MessageDescriptor>();

function mapEntryOf(owner: MessageDescriptor, field: MapField): MessageDescriptor {
  let entry = mapEntries.get(field);
  if (entry === undefined) {
    const valueField: FieldDescriptor =
      typeof field.value === 'function'
        ? { name: 'value', number: 2, kind: 'message', message: field.value }
        : { name: 'value', number: 2, kind: field.value };
    entry = {
      name: `${owner.name}.${field.name}Entry`,
      fields: [{ name: 'key', number: 1, kind: field.key }, valueField],
    };
    mapEntries.set(field, entry);
  }
  return entry;
}

// ---------------------------------------------------------------- reader

export class ProtobufReader {
  position: number;

  constructor(
    readonly buffer: Buffer,
    start = 0,
    readonly end = buffer.length,
  ) {
    this.position = start;
  }

  get done(): boolean {
    return this.position >= this.end;
  }

  private need(count: number): void {
    if (this.position + count > this.end) {
      throw new ProtobufError(
        'truncated',
        `protobuf message ends early: needed ${count} byte(s) at offset ${this.position}, message ends at ${this.end}`,
      );
    }
  }

  /**
   * A varint as two unsigned 32-bit words. Most values fit the low word, so the common path
   * is a few shifts; the high word is only assembled for 64-bit values.
   */
  readVarint64(): { low: number; high: number } {
    let low = 0;
    let high = 0;
    let shift = 0;
    for (let index = 0; index < 10; index++) {
      this.need(1);
      const byte = this.buffer[this.position++]!;
      if (index < 4) {
        low |= (byte & 0x7f) << shift;
      } else if (index === 4) {
        // bits 28..31 go to the low word, bits 32..34 to the high word
        low |= (byte & 0x0f) << 28;
        high = (byte & 0x7f) >> 4;
      } else {
        high |= (byte & 0x7f) << (shift - 32);
      }
      shift += 7;
      if ((byte & 0x80) === 0) return { low: low >>> 0, high: high >>> 0 };
    }
    throw new ProtobufError('varint_too_long', `protobuf varint longer than 10 bytes at offset ${this.position}`);
  }

  /** A varint known to be small (tags, lengths): the fast path, no 64-bit assembly. */
  readVarint32(): number {
    const buffer = this.buffer;
    if (this.position < this.end) {
      const first = buffer[this.position]!;
      if (first < 0x80) {
        this.position++;
        return first;
      }
    }
    const { low } = this.readVarint64();
    return low;
  }

  readLength(): number {
    const length = this.readVarint64();
    if (length.high !== 0 || length.low > this.end - this.position) {
      throw new ProtobufError(
        'truncated',
        `protobuf length ${length.high * TWO_POW_32 + length.low} at offset ${this.position} runs past the end of the message (${this.end})`,
      );
    }
    return length.low;
  }

  readFixed32(): number {
    this.need(4);
    const value = this.buffer.readUInt32LE(this.position);
    this.position += 4;
    return value;
  }

  readFixed64(): { low: number; high: number } {
    this.need(8);
    const low = this.buffer.readUInt32LE(this.position);
    const high = this.buffer.readUInt32LE(this.position + 4);
    this.position += 8;
    return { low, high };
  }

  /** Skips one field's value of the given wire type (unknown fields, groups included). */
  skip(wireType: number, fieldNumber: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.readVarint64();
        return;
      case WIRE_FIXED64:
        this.need(8);
        this.position += 8;
        return;
      case WIRE_LENGTH_DELIMITED: {
        const length = this.readLength();
        this.position += length;
        return;
      }
      case WIRE_FIXED32:
        this.need(4);
        this.position += 4;
        return;
      case WIRE_START_GROUP:
        for (;;) {
          this.need(1);
          const tag = this.readVarint32();
          const innerWireType = tag & 7;
          if (innerWireType === WIRE_END_GROUP) {
            if (tag >>> 3 !== fieldNumber) {
              throw new ProtobufError('invalid_value', `protobuf group ${fieldNumber} closed by end-group ${tag >>> 3}`);
            }
            return;
          }
          this.skip(innerWireType, tag >>> 3);
        }
      default:
        throw new ProtobufError(
          'unsupported_wire_type',
          `protobuf wire type ${wireType} (field ${fieldNumber}) at offset ${this.position} is not a valid wire type`,
        );
    }
  }
}

/** Two words as a signed 64-bit integer: a number when exact, a bigint otherwise. */
function signed64(low: number, high: number): number | bigint {
  const signedHigh = high | 0;
  if (signedHigh >= -SAFE_HIGH_WORD && signedHigh < SAFE_HIGH_WORD) return signedHigh * TWO_POW_32 + low;
  return BigInt.asIntN(64, (BigInt(high) << 32n) | BigInt(low));
}

function unsigned64(low: number, high: number): number | bigint {
  if (high < SAFE_HIGH_WORD) return high * TWO_POW_32 + low;
  return (BigInt(high) << 32n) | BigInt(low);
}

function as64(value: number | bigint, field: ScalarField, owner: MessageDescriptor): number | bigint {
  if (field.bigint === true) return BigInt(value);
  if (typeof value === 'number') return value;
  throw new ProtobufError(
    'integer_out_of_range',
    `${owner.name}.${field.name} holds ${value}, beyond JavaScript's safe integer range; declare the field with bigint: true to read it`,
  );
}

function readScalar(reader: ProtobufReader, field: ScalarField, owner: MessageDescriptor): unknown {
  switch (field.kind) {
    case 'int32':
    case 'enum':
      return reader.readVarint64().low | 0;
    case 'uint32':
      return reader.readVarint64().low;
    case 'sint32': {
      const { low } = reader.readVarint64();
      return (low >>> 1) ^ -(low & 1);
    }
    case 'int64': {
      const { low, high } = reader.readVarint64();
      return as64(signed64(low, high), field, owner);
    }
    case 'uint64': {
      const { low, high } = reader.readVarint64();
      return as64(unsigned64(low, high), field, owner);
    }
    case 'sint64': {
      const { low, high } = reader.readVarint64();
      const unsigned = (BigInt(high) << 32n) | BigInt(low);
      const decoded = (unsigned >> 1n) ^ -(unsigned & 1n);
      return as64(Number.isSafeInteger(Number(decoded)) ? Number(decoded) : decoded, field, owner);
    }
    case 'bool': {
      const { low, high } = reader.readVarint64();
      return low !== 0 || high !== 0;
    }
    case 'fixed32':
      return reader.readFixed32();
    case 'sfixed32':
      return reader.readFixed32() | 0;
    case 'float': {
      reader.readFixed32();
      return reader.buffer.readFloatLE(reader.position - 4);
    }
    case 'fixed64': {
      const { low, high } = reader.readFixed64();
      return as64(unsigned64(low, high), field, owner);
    }
    case 'sfixed64': {
      const { low, high } = reader.readFixed64();
      return as64(signed64(low, high), field, owner);
    }
    case 'double': {
      reader.readFixed64();
      return reader.buffer.readDoubleLE(reader.position - 8);
    }
    case 'string': {
      const length = reader.readLength();
      const text = reader.buffer.toString('utf8', reader.position, reader.position + length);
      reader.position += length;
      return text;
    }
    case 'bytes': {
      const length = reader.readLength();
      // A view into the request buffer: each request has its own buffer, so no copy is needed.
      const bytes = reader.buffer.subarray(reader.position, reader.position + length);
      reader.position += length;
      return bytes;
    }
  }
}

function defaultOf(kind: ScalarKind, bigint: boolean | undefined): unknown {
  switch (kind) {
    case 'string':
      return '';
    case 'bytes':
      return Buffer.alloc(0);
    case 'bool':
      return false;
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return bigint === true ? 0n : 0;
    default:
      return 0;
  }
}

function mapKeyToString(key: unknown): string {
  return typeof key === 'string' ? key : String(key);
}

function wireTypeError(owner: MessageDescriptor, field: FieldDescriptor, wireType: number): ProtobufError {
  return new ProtobufError(
    'wire_type_mismatch',
    `${owner.name}.${field.name} (field ${field.number}) arrived with wire type ${wireType}, which does not fit its type ${field.kind}`,
  );
}

/** Decodes one message; the result has every declared field (defaults for absent ones). */
export function decodeMessage<Descriptor extends MessageDescriptor>(
  descriptor: Descriptor,
  buffer: Buffer,
  start = 0,
  end = buffer.length,
): MessageValue<Descriptor> {
  return readMessage(descriptor, new ProtobufReader(buffer, start, end)) as MessageValue<Descriptor>;
}

function readMessage(descriptor: MessageDescriptor, reader: ProtobufReader): Record<string, unknown> {
  const { byNumber } = compile(descriptor);
  const result: Record<string, unknown> = {};
  for (const field of descriptor.fields) {
    if (field.kind === 'map') result[field.name] = {};
    else if (field.repeated === true) result[field.name] = [];
    else if (field.kind === 'message' || field.oneof !== undefined || field.optional === true) result[field.name] = undefined;
    else result[field.name] = defaultOf(field.kind, field.bigint);
  }

  while (!reader.done) {
    const tag = reader.readVarint32();
    const fieldNumber = tag >>> 3;
    const wireType = tag & 7;
    if (fieldNumber === 0) {
      throw new ProtobufError('invalid_field_number', `${descriptor.name}: field number 0 at offset ${reader.position} is invalid`);
    }
    const field = byNumber.get(fieldNumber);
    if (field === undefined) {
      reader.skip(wireType, fieldNumber);
      continue;
    }

    if (field.kind === 'message') {
      if (wireType !== WIRE_LENGTH_DELIMITED) throw wireTypeError(descriptor, field, wireType);
      const length = reader.readLength();
      const inner = readMessage(field.message(), new ProtobufReader(reader.buffer, reader.position, reader.position + length));
      reader.position += length;
      if (field.repeated === true) {
        (result[field.name] as unknown[]).push(inner);
      } else {
        if (field.oneof !== undefined) clearOneof(descriptor, field.oneof, result);
        // proto3: a repeated occurrence of a singular message field merges; for our messages
        // (sent once by terraform) the last one wins, which is what merging gives them too.
        result[field.name] = inner;
      }
      continue;
    }

    if (field.kind === 'map') {
      if (wireType !== WIRE_LENGTH_DELIMITED) throw wireTypeError(descriptor, field, wireType);
      const length = reader.readLength();
      const entryDescriptor = mapEntryOf(descriptor, field);
      const entry = readMessage(entryDescriptor, new ProtobufReader(reader.buffer, reader.position, reader.position + length));
      reader.position += length;
      // An entry without its message value means the empty message.
      const value =
        entry.value === undefined && typeof field.value === 'function'
          ? readMessage(field.value(), new ProtobufReader(Buffer.alloc(0)))
          : entry.value;
      (result[field.name] as Record<string, unknown>)[mapKeyToString(entry.key)] = value;
      continue;
    }

    const expected = wireTypeOf(field.kind);
    if (field.repeated === true) {
      const list = result[field.name] as unknown[];
      if (wireType === WIRE_LENGTH_DELIMITED && isPackable(field.kind)) {
        const length = reader.readLength();
        const packed = new ProtobufReader(reader.buffer, reader.position, reader.position + length);
        while (!packed.done) list.push(readScalar(packed, field, descriptor));
        reader.position += length;
      } else if (wireType === expected) {
        list.push(readScalar(reader, field, descriptor));
      } else {
        throw wireTypeError(descriptor, field, wireType);
      }
      continue;
    }

    if (wireType !== expected) throw wireTypeError(descriptor, field, wireType);
    if (field.oneof !== undefined) clearOneof(descriptor, field.oneof, result);
    result[field.name] = readScalar(reader, field, descriptor);
  }
  return result;
}

/** Last member seen wins, as protobuf specifies for oneofs. */
function clearOneof(descriptor: MessageDescriptor, oneof: string, result: Record<string, unknown>): void {
  for (const field of descriptor.fields) {
    if (field.kind !== 'map' && field.oneof === oneof) result[field.name] = undefined;
  }
}

// ---------------------------------------------------------------- writer

export class ProtobufWriter {
  private buffer: Buffer;
  length = 0;

  constructor(initialSize = 256) {
    this.buffer = Buffer.allocUnsafe(initialSize);
  }

  private reserve(count: number): void {
    if (this.length + count <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + count) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** An unsigned value below 2^32 (tags, lengths, uint32, non-negative int32). */
  writeVarint32(value: number): void {
    this.reserve(5);
    let remaining = value >>> 0;
    while (remaining > 0x7f) {
      this.buffer[this.length++] = (remaining & 0x7f) | 0x80;
      remaining >>>= 7;
    }
    this.buffer[this.length++] = remaining;
  }

  /** Any 64-bit pattern given as two unsigned 32-bit words. */
  writeVarint64(low: number, high: number): void {
    if (high === 0) {
      this.writeVarint32(low);
      return;
    }
    this.reserve(10);
    let lowWord = low >>> 0;
    let highWord = high >>> 0;
    while (highWord > 0 || lowWord > 0x7f) {
      this.buffer[this.length++] = (lowWord & 0x7f) | 0x80;
      lowWord = ((lowWord >>> 7) | (highWord << 25)) >>> 0;
      highWord >>>= 7;
    }
    this.buffer[this.length++] = lowWord;
  }

  writeFixed32(value: number): void {
    this.reserve(4);
    this.buffer.writeUInt32LE(value >>> 0, this.length);
    this.length += 4;
  }

  writeFixed64(low: number, high: number): void {
    this.reserve(8);
    this.buffer.writeUInt32LE(low >>> 0, this.length);
    this.buffer.writeUInt32LE(high >>> 0, this.length + 4);
    this.length += 8;
  }

  writeFloat(value: number): void {
    this.reserve(4);
    this.buffer.writeFloatLE(value, this.length);
    this.length += 4;
  }

  writeDouble(value: number): void {
    this.reserve(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  writeBytes(bytes: Uint8Array): void {
    this.writeVarint32(bytes.length);
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  writeString(text: string): void {
    const byteLength = Buffer.byteLength(text, 'utf8');
    this.writeVarint32(byteLength);
    this.reserve(byteLength);
    this.buffer.write(text, this.length, byteLength, 'utf8');
    this.length += byteLength;
  }

  writeTag(fieldNumber: number, wireType: number): void {
    this.writeVarint32(((fieldNumber << 3) | wireType) >>> 0);
  }

  /** A copy of the bytes written so far. */
  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

/** Splits a 64-bit integer (number or bigint, signed or unsigned) into its two words. */
function words64(value: number | bigint, where: string): { low: number; high: number } {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new ProtobufError('invalid_value', `${where} must be an integer, got ${value}`);
    }
    if (value >= 0 && value < TWO_POW_32) return { low: value, high: 0 };
    if (Number.isSafeInteger(value)) {
      if (value >= 0) return { low: value % TWO_POW_32, high: Math.floor(value / TWO_POW_32) };
      return words64(BigInt(value), where);
    }
    throw new ProtobufError('integer_out_of_range', `${where} = ${value} is beyond the safe integer range; pass a bigint`);
  }
  if (value < -(1n << 63n) || value >= 1n << 64n) {
    throw new ProtobufError('integer_out_of_range', `${where} = ${value} does not fit 64 bits`);
  }
  const pattern = BigInt.asUintN(64, value);
  return { low: Number(pattern & 0xffffffffn), high: Number(pattern >> 32n) };
}

function isDefault(kind: ScalarKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return value === '';
    case 'bytes':
      return (value as Uint8Array).length === 0;
    case 'bool':
      return value === false;
    default:
      return value === 0 || value === 0n;
  }
}

function writeScalarValue(writer: ProtobufWriter, kind: ScalarKind, value: unknown, where: string): void {
  switch (kind) {
    case 'int32':
    case 'enum': {
      const number = value as number;
      if (number >= 0) writer.writeVarint32(number);
      else writer.writeVarint64(number | 0, 0xffffffff); // negative int32 is sign-extended to 10 bytes
      return;
    }
    case 'uint32':
      writer.writeVarint32(value as number);
      return;
    case 'sint32': {
      const number = value as number;
      writer.writeVarint32(((number << 1) ^ (number >> 31)) >>> 0);
      return;
    }
    case 'int64':
    case 'uint64': {
      const { low, high } = words64(value as number | bigint, where);
      writer.writeVarint64(low, high);
      return;
    }
    case 'sint64': {
      const big = BigInt(value as number | bigint);
      const zigzag = BigInt.asUintN(64, (big << 1n) ^ (big >> 63n));
      writer.writeVarint64(Number(zigzag & 0xffffffffn), Number(zigzag >> 32n));
      return;
    }
    case 'bool':
      writer.writeVarint32(value === true ? 1 : 0);
      return;
    case 'fixed32':
    case 'sfixed32':
      writer.writeFixed32(value as number);
      return;
    case 'float':
      writer.writeFloat(value as number);
      return;
    case 'fixed64':
    case 'sfixed64': {
      const { low, high } = words64(value as number | bigint, where);
      writer.writeFixed64(low, high);
      return;
    }
    case 'double':
      writer.writeDouble(value as number);
      return;
    case 'string':
      if (typeof value !== 'string') throw new ProtobufError('invalid_value', `${where} must be a string, got ${typeof value}`);
      writer.writeString(value);
      return;
    case 'bytes':
      if (!(value instanceof Uint8Array)) throw new ProtobufError('invalid_value', `${where} must be a Buffer, got ${typeof value}`);
      writer.writeBytes(value);
      return;
  }
}

function mapKeyFromString(kind: MapField['key'], key: string): unknown {
  switch (kind) {
    case 'string':
      return key;
    case 'bool':
      return key === 'true';
    case 'int64':
    case 'uint64':
      return BigInt(key);
    default:
      return Number(key);
  }
}

/** Encodes a message object; `undefined` fields are absent. */
export function encodeMessage(descriptor: MessageDescriptor, message: object): Buffer {
  const writer = new ProtobufWriter();
  writeMessage(writer, descriptor, message as Record<string, unknown>);
  return writer.finish();
}

function writeMessage(writer: ProtobufWriter, descriptor: MessageDescriptor, message: Record<string, unknown>): void {
  for (const field of descriptor.fields) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    const where = `${descriptor.name}.${field.name}`;

    if (field.kind === 'message') {
      const items = field.repeated === true ? (value as readonly object[]) : [value as object];
      for (const item of items) {
        writer.writeTag(field.number, WIRE_LENGTH_DELIMITED);
        writer.writeBytes(encodeMessage(field.message(), item));
      }
      continue;
    }

    if (field.kind === 'map') {
      const entryDescriptor = mapEntryOf(descriptor, field);
      for (const [key, entryValue] of Object.entries(value as Record<string, unknown>)) {
        writer.writeTag(field.number, WIRE_LENGTH_DELIMITED);
        writer.writeBytes(encodeMessage(entryDescriptor, { key: mapKeyFromString(field.key, key), value: entryValue }));
      }
      continue;
    }

    if (field.repeated === true) {
      const items = value as readonly unknown[];
      if (items.length === 0) continue;
      if (isPackable(field.kind)) {
        const packed = new ProtobufWriter(items.length * 2 + 8);
        for (const item of items) writeScalarValue(packed, field.kind, item, where);
        writer.writeTag(field.number, WIRE_LENGTH_DELIMITED);
        writer.writeBytes(packed.finish());
      } else {
        for (const item of items) {
          writer.writeTag(field.number, WIRE_LENGTH_DELIMITED);
          writeScalarValue(writer, field.kind, item, where);
        }
      }
      continue;
    }

    if (field.oneof === undefined && field.optional !== true && isDefault(field.kind, value)) continue;
    writer.writeTag(field.number, wireTypeOf(field.kind));
    writeScalarValue(writer, field.kind, value, where);
  }
}
