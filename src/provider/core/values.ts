/**
 * Terraform values as the provider core sees them: plain JavaScript, no protobuf or msgpack.
 *
 *   string, number, bool  -> string, number, boolean
 *   list, set             -> arrays (a set's order carries no meaning)
 *   map, object           -> plain objects (an object has every attribute of its type, null when unset)
 *   null                  -> null
 *   unknown (plan time)   -> UNKNOWN, including refined unknowns
 */

/** A value Terraform will only know after apply. One shared instance: compare with `===`. */
export const UNKNOWN: unique symbol = Symbol.for('svc-prevent.terraform.unknown');
export type Unknown = typeof UNKNOWN;

export type Value = null | Unknown | string | number | boolean | readonly Value[] | ObjectValue;

export interface ObjectValue {
  readonly [attribute: string]: Value;
}

export function isUnknown(value: Value): value is Unknown {
  return value === UNKNOWN;
}

/** True when neither the value nor anything inside it is unknown. */
export function isWhollyKnown(value: Value): boolean {
  if (value === UNKNOWN) return false;
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(isWhollyKnown);
  return Object.values(value as ObjectValue).every(isWhollyKnown);
}
