/**
 * cty types in terraform's compact JSON form, as the schema's attribute `type` bytes carry them:
 * `"string"`, `"number"`, `"bool"`, `["list",T]`, `["set",T]`, `["map",T]`,
 * `["object",{"name":T}]`. The dynamic pseudo-type and tuples are not used by this provider.
 */
import type { ValueType } from '../core/types';

export class TypeJsonError extends Error {
  readonly code = 'type_json';
  constructor(message: string) {
    super(message);
    this.name = 'TypeJsonError';
  }
}

/** The JSON structure of a type (object attributes in sorted order, so output is stable). */
export function typeToJson(type: ValueType): unknown {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return type.kind;
    case 'list':
    case 'set':
    case 'map':
      return [type.kind, typeToJson(type.element)];
    case 'object': {
      const attributes: Record<string, unknown> = {};
      for (const name of Object.keys(type.attributes).sort()) attributes[name] = typeToJson(type.attributes[name]);
      return ['object', attributes];
    }
  }
}

export function encodeType(type: ValueType): Buffer {
  return Buffer.from(JSON.stringify(typeToJson(type)), 'utf8');
}

export function decodeType(bytes: Buffer | string): ValueType {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch (error) {
    throw new TypeJsonError(`type JSON is not valid JSON: ${(error as Error).message}`);
  }
  return typeFromJson(parsed);
}

export function typeFromJson(json: unknown): ValueType {
  if (json === 'string' || json === 'number' || json === 'bool') return { kind: json };
  if (json === 'dynamic') {
    throw new TypeJsonError('the dynamic pseudo-type ("dynamic") is not supported by this provider; give the attribute a concrete type');
  }
  if (Array.isArray(json) && json.length === 2) {
    const [kind, inner] = json as [unknown, unknown];
    if (kind === 'list' || kind === 'set' || kind === 'map') return { kind, element: typeFromJson(inner) };
    if (kind === 'object' && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      const attributes: Record<string, ValueType> = {};
      for (const [name, attributeJson] of Object.entries(inner)) attributes[name] = typeFromJson(attributeJson);
      return { kind: 'object', attributes };
    }
  }
  throw new TypeJsonError(
    `unsupported type JSON ${JSON.stringify(json)}: expected "string", "number", "bool", ["list",T], ["set",T], ["map",T] or ["object",{...}]`,
  );
}
