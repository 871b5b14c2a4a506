/**
 * Terraform values (cty) as msgpack, decoded and encoded against the schema's value type, the
 * way go-cty's msgpack package does it:
 *   null -> nil; unknown -> extension type 0 (`d4 00 00`); on decode ANY extension is unknown
 *   (refined unknowns arrive as type 12 with a payload we do not need);
 *   string -> str; number -> the smallest int when integral within int64, else float64
 *   (decoding accepts every int/uint width, float32/64 and numeric strings);
 *   list/set -> array; map -> map with string keys; object -> map with every attribute,
 *   keys sorted when encoding.
 * Also the JSON form terraform stores state in (UpgradeResourceState's raw_state.json).
 * Every error names the attribute path, e.g. `entries[2].ip: expected string, got bool`.
 */
import type { AttributePath, PathStep } from '../core/diagnostics';
import type { ValueType } from '../core/types';
import { formatAttributePath, isPlainObject } from '../core/value-shape';
import { UNKNOWN, type ObjectValue, type Value } from '../core/values';

/** A value that does not fit its type, or bytes that are not the msgpack/JSON of one. */
export class ValueCodecError extends Error {
  readonly code = 'value_codec';
  readonly path: AttributePath;
  constructor(
    path: AttributePath,
    readonly reason: string,
  ) {
    super(`${formatAttributePath(path)}: ${reason}`);
    this.name = 'ValueCodecError';
    // A copy, steps too: the codec walks values with one path (and one step per map) it changes in place.
    this.path = path.map((step) => (typeof step === 'object' ? { key: step.key } : step));
  }
}

// ---- decoding ----

/**
 * Large maps decoded lately, with their bytes. Terraform sends a resource's configuration in
 * ValidateResourceConfig and again in PlanResourceChange, where a create's proposed_new_state
 * holds the same maps once more: the plan's process decoded a whole list of 10,000 entries three
 * times. A map whose bytes equal those of one decoded before with the same type is that value:
 * equal bytes of one type decode to equal values, and values are read-only (core/values.ts).
 * Only maps of at least SHARED_MAP_MIN_ENTRIES, the last SHARED_MAPS_KEPT of them (their bytes copied,
 * so no request buffer is kept).
 */
const SHARED_MAP_MIN_ENTRIES = 1000;
const SHARED_MAPS_KEPT = 4;
const sharedMaps: Array<{ readonly type: ValueType; readonly bytes: Buffer; readonly value: Value }> = [];

/** Decodes one msgpack value of `type`; the bytes must hold exactly that value. */
export function decodeValue(type: ValueType, bytes: Uint8Array): Value {
  const reader = new MsgpackReader(bytes);
  const value = reader.readValue(type, []);
  if (reader.offset !== bytes.length) {
    throw new ValueCodecError([], `${bytes.length - reader.offset} unexpected bytes after the value`);
  }
  return value;
}

/**
 * Reads values with one `path` that each step extends and shortens in place (an error copies
 * it): a map of 10,000 entries no longer allocates a path per entry.
 */
class MsgpackReader {
  offset = 0;
  private readonly view: DataView;
  /** The same bytes as a Buffer, so strings decode without a Buffer made for each. */
  private readonly buffer: Buffer;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  readValue(type: ValueType, path: PathStep[]): Value {
    const code = this.peek(path);
    if (isExtension(code)) {
      this.skip(path);
      return UNKNOWN;
    }
    if (code === 0xc0) {
      this.offset++;
      return null;
    }
    switch (type.kind) {
      case 'string':
        return this.readString(path, 'string');
      case 'number':
        return this.readNumber(path);
      case 'bool':
        if (code === 0xc2 || code === 0xc3) {
          this.offset++;
          return code === 0xc3;
        }
        throw this.mismatch('bool', code, path);
      case 'list':
      case 'set': {
        const length = this.readArrayLength(path, type.kind);
        const elements: Value[] = [];
        for (let index = 0; index < length; index++) {
          path.push(index);
          elements.push(this.readValue(type.element, path));
          path.pop();
        }
        return elements;
      }
      case 'map': {
        const start = this.offset;
        const shared = this.sharedMapAt(type);
        if (shared !== undefined) return shared;
        const length = this.readMapLength(path, 'map');
        const map: Record<string, Value> = {};
        // One path step for the map's entries, renamed at each key: a map of 10,000 entries makes
        // one step, not 10,000 (an error copies the path with its steps).
        const step = { key: '' };
        for (let entry = 0; entry < length; entry++) {
          const key = this.readString(path, 'string map key');
          step.key = key;
          path.push(step);
          if (Object.prototype.hasOwnProperty.call(map, key)) throw new ValueCodecError(path, 'map key appears twice');
          setOwn(map, key, this.readValue(type.element, path));
          path.pop();
        }
        if (length >= SHARED_MAP_MIN_ENTRIES) {
          if (sharedMaps.length >= SHARED_MAPS_KEPT) sharedMaps.shift();
          sharedMaps.push({ type, bytes: Buffer.from(this.buffer.subarray(start, this.offset)), value: map });
        }
        return map;
      }
      case 'object': {
        const length = this.readMapLength(path, 'object');
        const object: Record<string, Value> = {};
        for (let entry = 0; entry < length; entry++) {
          const name = this.readString(path, 'attribute name');
          const attributeType = Object.prototype.hasOwnProperty.call(type.attributes, name) ? type.attributes[name] : undefined;
          if (attributeType === undefined) {
            throw new ValueCodecError([...path, name], `attribute is not in the schema (expected one of: ${listNames(type)})`);
          }
          if (Object.prototype.hasOwnProperty.call(object, name)) {
            throw new ValueCodecError([...path, name], 'attribute appears twice');
          }
          path.push(name);
          setOwn(object, name, this.readValue(attributeType, path));
          path.pop();
        }
        const missing = Object.keys(type.attributes).filter((name) => !Object.prototype.hasOwnProperty.call(object, name));
        if (missing.length > 0) {
          throw new ValueCodecError(path, `object lacks attribute(s) ${missing.join(', ')} (terraform sends every attribute, null when unset)`);
        }
        return object;
      }
    }
  }

  /** A map decoded before whose bytes (and type) are those at the offset, read past; or undefined. */
  private sharedMapAt(type: ValueType): Value | undefined {
    for (const shared of sharedMaps) {
      const end = this.offset + shared.bytes.length;
      if (shared.type !== type || end > this.bytes.length || !shared.bytes.equals(this.buffer.subarray(this.offset, end))) continue;
      this.offset = end;
      return shared.value;
    }
    return undefined;
  }

  private readString(path: PathStep[], expected: string): string {
    const code = this.peek(path);
    let length: number;
    if (code >= 0xa0 && code <= 0xbf) {
      this.offset++;
      length = code & 0x1f;
    } else if (code === 0xd9 || code === 0xc4) {
      length = this.readUnsigned(1, path);
    } else if (code === 0xda || code === 0xc5) {
      length = this.readUnsigned(2, path);
    } else if (code === 0xdb || code === 0xc6) {
      length = this.readUnsigned(4, path);
    } else {
      throw this.mismatch(expected, code, path);
    }
    const start = this.take(length, path);
    return this.buffer.toString('utf8', start, start + length);
  }

  private readNumber(path: PathStep[]): number {
    const code = this.peek(path);
    if (code <= 0x7f) {
      this.offset++;
      return code;
    }
    if (code >= 0xe0) {
      this.offset++;
      return code - 0x100;
    }
    const start = this.offset + 1;
    switch (code) {
      case 0xcc:
        return this.readUnsigned(1, path);
      case 0xcd:
        return this.readUnsigned(2, path);
      case 0xce:
        return this.readUnsigned(4, path);
      case 0xcf:
        this.take(8, path, start);
        return Number(this.view.getBigUint64(start));
      case 0xd0:
        this.take(1, path, start);
        return this.view.getInt8(start);
      case 0xd1:
        this.take(2, path, start);
        return this.view.getInt16(start);
      case 0xd2:
        this.take(4, path, start);
        return this.view.getInt32(start);
      case 0xd3:
        this.take(8, path, start);
        return Number(this.view.getBigInt64(start));
      case 0xca:
        this.take(4, path, start);
        return this.view.getFloat32(start);
      case 0xcb:
        this.take(8, path, start);
        return this.view.getFloat64(start);
      default: {
        // go-cty writes numbers too large or precise for int64/float64 as decimal strings.
        if (!isStringCode(code)) throw this.mismatch('number', code, path);
        const text = this.readString(path, 'number');
        const number = Number(text);
        if (text.trim() === '' || Number.isNaN(number)) {
          throw new ValueCodecError(path, `expected number, got string ${JSON.stringify(text)}`);
        }
        return number;
      }
    }
  }

  private readArrayLength(path: PathStep[], expected: string): number {
    const code = this.peek(path);
    if (code >= 0x90 && code <= 0x9f) {
      this.offset++;
      return code & 0x0f;
    }
    if (code === 0xdc) return this.readUnsigned(2, path);
    if (code === 0xdd) return this.readUnsigned(4, path);
    throw this.mismatch(expected, code, path);
  }

  private readMapLength(path: PathStep[], expected: string): number {
    const code = this.peek(path);
    if (code >= 0x80 && code <= 0x8f) {
      this.offset++;
      return code & 0x0f;
    }
    if (code === 0xde) return this.readUnsigned(2, path);
    if (code === 0xdf) return this.readUnsigned(4, path);
    throw this.mismatch(expected, code, path);
  }

  /** Skips the code byte, then reads a big-endian unsigned integer of `size` bytes. */
  private readUnsigned(size: 1 | 2 | 4, path: PathStep[]): number {
    const start = this.take(size, path, this.offset + 1);
    this.offset = start + size;
    if (size === 1) return this.view.getUint8(start);
    if (size === 2) return this.view.getUint16(start);
    return this.view.getUint32(start);
  }

  /** Checks `length` bytes exist at `start` (default: the current offset), moves past them, returns `start`. */
  private take(length: number, path: PathStep[], start = this.offset): number {
    if (start + length > this.bytes.length) throw new ValueCodecError(path, 'msgpack data ends in the middle of a value');
    this.offset = start + length;
    return start;
  }

  private peek(path: PathStep[]): number {
    if (this.offset >= this.bytes.length) throw new ValueCodecError(path, 'msgpack data ends where a value was expected');
    return this.bytes[this.offset];
  }

  /** Skips one whole value of any kind (used for extensions: unknown values). */
  private skip(path: PathStep[]): void {
    const code = this.peek(path);
    const extensionSizes: Record<number, number> = { 0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16 };
    if (code in extensionSizes) {
      this.take(2 + extensionSizes[code], path); // code, type, data
      return;
    }
    const lengthSize = code === 0xc7 ? 1 : code === 0xc8 ? 2 : 4;
    const length = this.readUnsigned(lengthSize as 1 | 2 | 4, path);
    this.take(1 + length, path); // type, data
  }

  private mismatch(expected: string, code: number, path: PathStep[]): ValueCodecError {
    return new ValueCodecError(path, `expected ${expected}, got ${describeCode(code)}`);
  }
}

function isExtension(code: number): boolean {
  return (code >= 0xd4 && code <= 0xd8) || (code >= 0xc7 && code <= 0xc9);
}

function isStringCode(code: number): boolean {
  return (code >= 0xa0 && code <= 0xbf) || (code >= 0xd9 && code <= 0xdb) || (code >= 0xc4 && code <= 0xc6);
}

function describeCode(code: number): string {
  if (code <= 0x7f || code >= 0xe0 || (code >= 0xcc && code <= 0xd3)) return 'integer';
  if (code === 0xca || code === 0xcb) return 'float';
  if (code === 0xc2 || code === 0xc3) return 'bool';
  if ((code >= 0xa0 && code <= 0xbf) || (code >= 0xd9 && code <= 0xdb)) return 'string';
  if (code >= 0xc4 && code <= 0xc6) return 'binary';
  if ((code >= 0x80 && code <= 0x8f) || code === 0xde || code === 0xdf) return 'map';
  if ((code >= 0x90 && code <= 0x9f) || code === 0xdc || code === 0xdd) return 'array';
  return `byte 0x${code.toString(16).padStart(2, '0')} (not msgpack)`;
}

function listNames(type: { readonly attributes: Readonly<Record<string, ValueType>> }): string {
  return Object.keys(type.attributes).sort().join(', ') || '(none)';
}

/** Assigns even a key like `__proto__` as an own property. */
function setOwn(target: Record<string, Value>, key: string, value: Value): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

// ---- encoding ----

const UNKNOWN_BYTES = [0xd4, 0x00, 0x00];
const INT64_LIMIT = 2 ** 63;

/** Encodes a value of `type`; the value must conform to it (every object attribute present). */
export function encodeValue(type: ValueType, value: Value): Buffer {
  const writer = new MsgpackWriter();
  writeValue(writer, type, value, []);
  return writer.finish();
}

function writeValue(writer: MsgpackWriter, type: ValueType, value: Value, path: PathStep[]): void {
  if (value === UNKNOWN) {
    writer.bytes(UNKNOWN_BYTES);
    return;
  }
  if (value === null) {
    writer.byte(0xc0);
    return;
  }
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw mismatch('string', value, path);
      writer.string(value);
      return;
    case 'number':
      if (typeof value !== 'number') throw mismatch('number', value, path);
      if (Number.isNaN(value)) throw new ValueCodecError(path, 'NaN cannot be stored as a terraform number');
      writer.number(value);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw mismatch('bool', value, path);
      writer.byte(value ? 0xc3 : 0xc2);
      return;
    case 'list':
    case 'set':
      if (!Array.isArray(value)) throw mismatch(type.kind, value, path);
      writer.arrayHeader(value.length);
      (value as readonly Value[]).forEach((element, index) => {
        path.push(index);
        writeValue(writer, type.element, element, path);
        path.pop();
      });
      return;
    case 'map': {
      if (!isPlainObject(value)) throw mismatch('map', value, path);
      const keys = Object.keys(value).sort(compareBytewise);
      writer.mapHeader(keys.length);
      const step = { key: '' };
      for (const key of keys) {
        writer.string(key);
        step.key = key;
        path.push(step);
        writeValue(writer, type.element, value[key], path);
        path.pop();
      }
      return;
    }
    case 'object': {
      if (!isPlainObject(value)) throw mismatch('object', value, path);
      for (const name of Object.keys(value)) {
        if (!Object.prototype.hasOwnProperty.call(type.attributes, name)) {
          throw new ValueCodecError([...path, name], `attribute is not in the schema (expected one of: ${listNames(type)})`);
        }
      }
      const names = Object.keys(type.attributes).sort(compareBytewise);
      writer.mapHeader(names.length);
      for (const name of names) {
        const attributeValue = value[name];
        if (attributeValue === undefined) {
          throw new ValueCodecError([...path, name], 'attribute is missing (every schema attribute must be present; use null when unset)');
        }
        writer.string(name);
        path.push(name);
        writeValue(writer, type.attributes[name], attributeValue, path);
        path.pop();
      }
      return;
    }
  }
}

function mismatch(expected: string, value: Value, path: PathStep[]): ValueCodecError {
  return new ValueCodecError(path, `expected ${expected}, got ${Array.isArray(value) ? 'array' : typeof value}`);
}

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

/**
 * Go's sort.Strings order (bytes of UTF-8). UTF-16 code units compare in the same order as
 * UTF-8 bytes except around surrogates, so only a difference at a surrogate is compared as
 * bytes: sorting a map of 10,000 keys no longer makes two Buffers per comparison.
 */
export function compareBytewise(left: string, right: string): number {
  const shorter = Math.min(left.length, right.length);
  for (let index = 0; index < shorter; index += 1) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    if (isSurrogate(a) || isSurrogate(b)) return Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));
    return a - b;
  }
  return left.length - right.length;
}

class MsgpackWriter {
  private buffer = Buffer.allocUnsafe(256);
  private length = 0;

  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  bytes(values: readonly number[]): void {
    for (const value of values) this.byte(value);
  }

  string(text: string): void {
    if (text.length < 32 && this.shortAscii(text)) return;
    const size = Buffer.byteLength(text, 'utf8');
    if (size < 32) this.byte(0xa0 | size);
    else if (size < 0x100) this.header(0xd9, size, 1);
    else if (size < 0x10000) this.header(0xda, size, 2);
    else this.header(0xdb, size, 4);
    this.reserve(size);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  arrayHeader(count: number): void {
    if (count < 16) this.byte(0x90 | count);
    else if (count < 0x10000) this.header(0xdc, count, 2);
    else this.header(0xdd, count, 4);
  }

  mapHeader(count: number): void {
    if (count < 16) this.byte(0x80 | count);
    else if (count < 0x10000) this.header(0xde, count, 2);
    else this.header(0xdf, count, 4);
  }

  /** Integers within int64 as the smallest int (non-negative ones unsigned, as go-cty's encoder does); the rest as float64. */
  number(value: number): void {
    if (!Number.isInteger(value) || value < -INT64_LIMIT || value >= INT64_LIMIT) {
      this.reserve(9);
      this.buffer[this.length] = 0xcb;
      this.buffer.writeDoubleBE(value, this.length + 1);
      this.length += 9;
      return;
    }
    if (value >= 0) {
      if (value <= 0x7f) this.byte(value);
      else if (value <= 0xff) this.header(0xcc, value, 1);
      else if (value <= 0xffff) this.header(0xcd, value, 2);
      else if (value <= 0xffffffff) this.header(0xce, value, 4);
      else {
        this.reserve(9);
        this.buffer[this.length] = 0xcf;
        this.buffer.writeBigUInt64BE(BigInt(value), this.length + 1);
        this.length += 9;
      }
      return;
    }
    if (value >= -32) this.byte(value + 0x100);
    else if (value >= -0x80) this.signed(0xd0, value, 1);
    else if (value >= -0x8000) this.signed(0xd1, value, 2);
    else if (value >= -0x80000000) this.signed(0xd2, value, 4);
    else {
      this.reserve(9);
      this.buffer[this.length] = 0xd3;
      this.buffer.writeBigInt64BE(BigInt(value), this.length + 1);
      this.length += 9;
    }
  }

  private header(code: number, value: number, size: 1 | 2 | 4): void {
    this.reserve(1 + size);
    this.buffer[this.length] = code;
    this.buffer.writeUIntBE(value, this.length + 1, size);
    this.length += 1 + size;
  }

  private signed(code: number, value: number, size: 1 | 2 | 4): void {
    this.reserve(1 + size);
    this.buffer[this.length] = code;
    this.buffer.writeIntBE(value, this.length + 1, size);
    this.length += 1 + size;
  }

  /**
   * A string of fewer than 32 ASCII characters (map keys, short descriptions: a whole list's
   * 20,000 strings) written byte by byte, without two calls into node's UTF-8 encoder; false,
   * with nothing written, for any other.
   */
  private shortAscii(text: string): boolean {
    for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) > 0x7f) return false;
    this.reserve(1 + text.length);
    const buffer = this.buffer;
    let at = this.length;
    buffer[at++] = 0xa0 | text.length;
    for (let index = 0; index < text.length; index += 1) buffer[at++] = text.charCodeAt(index);
    this.length = at;
    return true;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

// ---- JSON (stored state) ----

/**
 * Decodes terraform's JSON state of an object against the CURRENT type: attributes missing
 * from the stored JSON become null and attributes the schema no longer has are dropped, so
 * state written by an older schema still loads.
 */
export function decodeJsonValue(type: ValueType, json: Buffer | string): Value {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof json === 'string' ? json : json.toString('utf8'));
  } catch (error) {
    throw new ValueCodecError([], `stored state is not valid JSON (${(error as Error).message})`);
  }
  return fromJson(type, parsed, []);
}

function fromJson(type: ValueType, value: unknown, path: PathStep[]): Value {
  if (value === null || value === undefined) return null;
  const mismatch = () =>
    new ValueCodecError(path, `expected ${type.kind}, got ${Array.isArray(value) ? 'array' : typeof value} in stored JSON`);
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw mismatch();
      return value;
    case 'number': {
      if (typeof value === 'number') return value;
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      if (Number.isNaN(number)) throw mismatch();
      return number;
    }
    case 'bool':
      if (typeof value !== 'boolean') throw mismatch();
      return value;
    case 'list':
    case 'set':
      if (!Array.isArray(value)) throw mismatch();
      return value.map((element: unknown, index) => fromJson(type.element, element, [...path, index]));
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) throw mismatch();
      const map: Record<string, Value> = {};
      for (const [key, element] of Object.entries(value as Record<string, unknown>)) {
        setOwn(map, key, fromJson(type.element, element, [...path, { key }]));
      }
      return map;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw mismatch();
      const stored = value as Record<string, unknown>;
      const object: Record<string, Value> = {};
      for (const [name, attributeType] of Object.entries(type.attributes)) {
        const storedValue = Object.prototype.hasOwnProperty.call(stored, name) ? stored[name] : null;
        setOwn(object, name, fromJson(attributeType, storedValue, [...path, name]));
      }
      return object as ObjectValue;
    }
  }
}
