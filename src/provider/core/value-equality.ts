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
 * Sets compared as collections without order: every element on one side pairs with a distinct
 * equal element on the other. (cty sets hold no duplicates, but a hook's array might.)
 */
function setsEqual(elementType: ValueType, left: readonly Value[], right: readonly Value[]): boolean {
  if (left.length !== right.length) return false;
  const unmatched = [...right];
  for (const element of left) {
    const index = unmatched.findIndex((candidate) => valuesEqual(elementType, element, candidate));
    if (index < 0) return false;
    unmatched.splice(index, 1);
  }
  return true;
}
