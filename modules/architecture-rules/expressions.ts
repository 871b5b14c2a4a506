/**
 * Reading resolved Terraform attribute values. After token resolution a value is either a
 * literal (known at synth) or a string holding a Terraform expression (`${...}`, known only at
 * plan). Rules check literals and leave expressions to plan-time conditions.
 */

export function isExpression(value: unknown): value is string {
  return typeof value === 'string' && value.includes('${');
}

/** A literal string, or undefined for absent values and expressions. */
export function literalString(value: unknown): string | undefined {
  return typeof value === 'string' && !isExpression(value) ? value : undefined;
}

/** A literal number (Terraform also accepts numeric strings), or undefined. */
export function literalNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const text = literalString(value);
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** A literal boolean (provider-aws types some flags as strings: "true"/"false"), or undefined. */
export function literalBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = literalString(value);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

/** A list attribute: its entries, or undefined when the whole list is one expression. */
export function listEntries(value: unknown): readonly unknown[] | undefined {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  return undefined;
}

/** Nested blocks synthesize as an object or a list of objects; this gives the list. */
export function blocks(value: unknown): readonly Record<string, unknown>[] | undefined {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    return value.every(isRecord) ? (value as Record<string, unknown>[]) : undefined;
  }
  return isRecord(value) ? [value] : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface AttributeReference {
  /** `aws_subnet.a` or `data.aws_subnet.a` */
  readonly address: string;
  readonly attribute: string;
}

const SINGLE_REFERENCE = /^\$\{((?:data\.)?[A-Za-z0-9_]+\.[A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\}$/;

/** `${aws_subnet.a.id}` -> { address: 'aws_subnet.a', attribute: 'id' }; other values -> undefined. */
export function singleReference(value: unknown): AttributeReference | undefined {
  if (typeof value !== 'string') return undefined;
  const match = SINGLE_REFERENCE.exec(value);
  return match ? { address: match[1], attribute: match[2] } : undefined;
}

/** Every string found anywhere in a resolved attribute tree. */
export function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (isRecord(value)) return Object.values(value).flatMap(allStrings);
  return [];
}
