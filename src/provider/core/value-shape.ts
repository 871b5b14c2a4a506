/**
 * The shape of values against their types: the value type a schema implies, whether a value a
 * hook returned conforms to it, where an unknown hides, and how an attribute path reads in a
 * message. Protocol-free: the codec and the plan checks both build on it.
 */
import type { AttributePath, PathStep } from './diagnostics';
import type { AttributeSchema, Schema } from './schema';
import type { ValueType } from './types';
import { UNKNOWN, type ObjectValue, type Value } from './values';

/** The object type of a resource's, data source's or provider's whole value. */
export function impliedType(schema: Schema): ValueType {
  return impliedAttributesType(schema.attributes);
}

/** The value type of one attribute; a nested attribute's is its object wrapped per nesting. */
export function attributeType(attribute: AttributeSchema): ValueType {
  if (attribute.nested === undefined) return attribute.type;
  const objectType = impliedAttributesType(attribute.nested.attributes);
  switch (attribute.nested.nesting) {
    case 'single':
      return objectType;
    case 'list':
      return { kind: 'list', element: objectType };
    case 'set':
      return { kind: 'set', element: objectType };
    case 'map':
      return { kind: 'map', element: objectType };
  }
}

function impliedAttributesType(attributes: Readonly<Record<string, AttributeSchema>>): ValueType {
  const attributeTypes: Record<string, ValueType> = {};
  for (const [name, attribute] of Object.entries(attributes)) attributeTypes[name] = attributeType(attribute);
  return { kind: 'object', attributes: attributeTypes };
}

/** `entries[2].ip`, `tags["team"]`; the whole value is `(root)`. */
export function formatAttributePath(path: AttributePath): string {
  let text = '';
  for (const step of path) {
    if (typeof step === 'string') text += text === '' ? step : `.${step}`;
    else if (typeof step === 'number') text += `[${step}]`;
    else text += `[${JSON.stringify(step.key)}]`;
  }
  return text === '' ? '(root)' : text;
}

export interface ShapeProblem {
  readonly path: AttributePath;
  readonly reason: string;
}

/** What a value is, for messages: `string`, `list`, `object`, `unknown`, ... */
export function describeValueKind(value: unknown): string {
  if (value === null) return 'null';
  if (value === UNKNOWN) return 'unknown';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isPlainObject(value: unknown): value is ObjectValue {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The first place where `value` does not have the type's shape (wrong kind, an object
 * attribute missing or not in the type), or undefined when it conforms. Null and UNKNOWN
 * conform to every type. `path` is extended and shortened in place (a problem holds a copy).
 */
export function findShapeProblem(type: ValueType, value: unknown, path: PathStep[] = []): ShapeProblem | undefined {
  if (value === null || value === UNKNOWN) return undefined;
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? undefined : mismatch('string', value, path);
    case 'bool':
      return typeof value === 'boolean' ? undefined : mismatch('bool', value, path);
    case 'number':
      if (typeof value !== 'number') return mismatch('number', value, path);
      return Number.isNaN(value) ? { path: [...path], reason: 'NaN is not a number terraform can store' } : undefined;
    case 'list':
    case 'set': {
      if (!Array.isArray(value)) return mismatch(type.kind, value, path);
      for (let index = 0; index < value.length; index++) {
        path.push(index);
        const problem = findShapeProblem(type.element, value[index], path);
        path.pop();
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'map': {
      if (!isPlainObject(value)) return mismatch('map', value, path);
      const element = type.element;
      for (const key of Object.keys(value)) {
        const elementValue = value[key];
        // A string in a map of strings (a whole list's 10,000 descriptions) needs no path step.
        if (element.kind === 'string' && typeof elementValue === 'string') continue;
        path.push({ key });
        const problem = findShapeProblem(element, elementValue, path);
        path.pop();
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'object': {
      if (!isPlainObject(value)) return mismatch('object', value, path);
      for (const name of Object.keys(value)) {
        if (!(name in type.attributes)) {
          return { path: [...path, name], reason: 'attribute is not in the schema' };
        }
      }
      for (const [name, attributeValueType] of Object.entries(type.attributes)) {
        const attributeValue = value[name];
        if (attributeValue === undefined) {
          return { path: [...path, name], reason: 'attribute is missing (every schema attribute must be present; use null when unset)' };
        }
        path.push(name);
        const problem = findShapeProblem(attributeValueType, attributeValue, path);
        path.pop();
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}

/** A value of the wrong kind at `path` (a copy: the walk goes on changing its path). */
function mismatch(expected: string, value: unknown, path: readonly PathStep[]): ShapeProblem {
  return { path: [...path], reason: `expected ${expected}, got ${describeValueKind(value)}` };
}

/** The path of the first UNKNOWN inside a value of `type`, or undefined when it is wholly known. */
export function findUnknownPath(type: ValueType, value: Value, path: PathStep[] = []): AttributePath | undefined {
  if (value === UNKNOWN) return [...path];
  if (value === null || typeof value !== 'object') return undefined;
  switch (type.kind) {
    case 'list':
    case 'set': {
      const elements = value as readonly Value[];
      for (let index = 0; index < elements.length; index++) {
        const found = findUnknownPath(type.element, elements[index], [...path, index]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'map':
      for (const [key, element] of Object.entries(value as ObjectValue)) {
        const found = findUnknownPath(type.element, element, [...path, { key }]);
        if (found !== undefined) return found;
      }
      return undefined;
    case 'object':
      for (const [name, attributeValueType] of Object.entries(type.attributes)) {
        const found = findUnknownPath(attributeValueType, (value as ObjectValue)[name] ?? null, [...path, name]);
        if (found !== undefined) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}
