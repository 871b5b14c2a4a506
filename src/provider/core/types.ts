/**
 * Terraform (cty) value types. The protocol layer turns them into the compact JSON type
 * encoding (`"string"`, `["set","string"]`, `["object",{"ip":"string"}]`) and decodes msgpack
 * values against them.
 */
export type ValueType =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'list'; readonly element: ValueType }
  | { readonly kind: 'set'; readonly element: ValueType }
  | { readonly kind: 'map'; readonly element: ValueType }
  | { readonly kind: 'object'; readonly attributes: Readonly<Record<string, ValueType>> };

export const types = {
  string: { kind: 'string' } as ValueType,
  number: { kind: 'number' } as ValueType,
  bool: { kind: 'bool' } as ValueType,
  list: (element: ValueType): ValueType => ({ kind: 'list', element }),
  set: (element: ValueType): ValueType => ({ kind: 'set', element }),
  map: (element: ValueType): ValueType => ({ kind: 'map', element }),
  object: (attributes: Record<string, ValueType>): ValueType => ({ kind: 'object', attributes }),
} as const;
