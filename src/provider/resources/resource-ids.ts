/**
 * The ids of list resources, which are also their import IDs: `<tenant>/<canonical ip>` for an
 * entry and `<tenant>/<list name>` for a whole list. A tenant name may itself hold "/", so the
 * tenant part escapes "%" as %25 and "/" as %2F: every id then splits at its first "/", and an
 * ordinary tenant name (the usual case) reads exactly as it always did.
 */
import type { ListName } from '../../api/types';

/** The tenant as the first part of an id. */
export function encodeTenant(tenant: string): string {
  return tenant.replace(/%/g, '%25').replace(/\//g, '%2F');
}

/** The tenant an id's first part names; a "%" that starts no escape is kept as it is. */
export function decodeTenant(part: string): string {
  return part.replace(/%(25|2F)/gi, (_match, code: string) => (code === '25' ? '%' : '/'));
}

export function entryId(tenant: string, canonicalIp: string): string {
  return `${encodeTenant(tenant)}/${canonicalIp}`;
}

export function listId(tenant: string, list: ListName): string {
  return `${encodeTenant(tenant)}/${list}`;
}

/** An id split at its first "/": the decoded tenant and the rest (undefined when there is no "/"). */
export function splitId(id: string): { tenant: string; rest: string | undefined } {
  const slash = id.indexOf('/');
  if (slash === -1) return { tenant: decodeTenant(id), rest: undefined };
  return { tenant: decodeTenant(id.slice(0, slash)), rest: id.slice(slash + 1) };
}
