/**
 * Equality of terraform values as terraform sees it: guided by the type, because a set is an
 * array whose order carries no meaning, while a list's order does.
 */
import type { ValueType } from './types';
import { UNKNOWN, type ObjectValue, type Value } from './values';

/**
 * True when both values are the same terraform value. UNKNOWN equals only UNKNOWN; callers
 * that must treat unknown as "may differ" check for it first.
 */
export function valuesEqual(type: ValueType, left: Value, right: Value): boolean {
  if (left === right) return true;
  if (left === null || right === null || left === UNKNOWN || right === UNKNOWN) return false;
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return false; // primitives equal only when ===, checked above
    case 'list': {
      const leftElements = left as readonly Value[];
      const rightElements = right as readonly Value[];
      if (leftElements.length !== rightElements.length) return false;
      return leftElements.every((element, index) => valuesEqual(type.element, element, rightElements[index]));
    }
    case 'set':
      return setsEqual(type.element, left as readonly Value[], right as readonly Value[]);
    case 'map': {
      const leftMap = left as ObjectValue;
      const rightMap = right as ObjectValue;
      const leftKeys = Object.keys(leftMap);
      if (leftKeys.length !== Object.keys(rightMap).length) return false;
      return leftKeys.every(
        (key) => Object.prototype.hasOwnProperty.call(rightMap, key) && valuesEqual(type.element, leftMap[key], rightMap[key]),
      );
    }
    case 'object': {
      const leftObject = left as ObjectValue;
      const rightObject = right as ObjectValue;
      return Object.entries(type.attributes).every(([name, attributeValueType]) =>
        valuesEqual(attributeValueType, leftObject[name] ?? null, rightObject[name] ?? null),
      );
    }
  }
}

/**
 * Sets compared as collections without order: the same elements, each as often on both sides
 * (cty sets hold no duplicates, but a hook's array might). Elements are compared through a
 * canonical key, so a whole list of thousands of entries compares in linear time.
 */
function setsEqual(elementType: ValueType, left: readonly Value[], right: readonly Value[]): boolean {
  if (left.length !== right.length) return false;
  const counts = new Map<string, number>();
  for (const element of left) {
    const key = canonicalKey(elementType, element);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const element of right) {
    const key = canonicalKey(elementType, element);
    const count = counts.get(key);
    if (count === undefined) return false;
    if (count === 1) counts.delete(key);
    else counts.set(key, count - 1);
  }
  return counts.size === 0;
}

/**
 * A string that two values of `type` share exactly when valuesEqual holds: set elements and
 * map entries sorted, strings JSON-quoted so no content can imitate the structure.
 */
export function canonicalKey(type: ValueType, value: Value): string {
  if (value === null) return 'n';
  if (value === UNKNOWN) return 'u';
  switch (type.kind) {
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'number':
      return `d${String(value)}`;
    case 'bool':
      return value === true ? 't' : 'f';
    case 'list':
      return `[${(value as readonly Value[]).map((element) => canonicalKey(type.element, element)).join(',')}]`;
    case 'set':
      return `{${(value as readonly Value[]).map((element) => canonicalKey(type.element, element)).sort().join(',')}}`;
    case 'map': {
      const map = value as ObjectValue;
      const entries = Object.keys(map)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonicalKey(type.element, map[key])}`);
      return `<${entries.join(',')}>`;
    }
    case 'object': {
      const object = value as ObjectValue;
      const attributes = Object.keys(type.attributes)
        .sort()
        .map((name) => canonicalKey(type.attributes[name], object[name] ?? null));
      return `(${attributes.join(',')})`;
    }
  }
}
