/**
 * The contract's rule for Customers:update and Channels:update: the body is the listed object
 * copied exactly, without `uuid`, with `sso` set. Anything else (a uuid, a missing or extra
 * field, a changed field other than sso, an invalid sso) is refused and nothing changes.
 */
import { ApiCommandError, describeValue } from '../errors';
import type { SsoSettings } from '../model';
import { ssoProblem } from '../sso';

function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) =>
    sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
}

/** Returns the new sso value, or throws ApiCommandError naming the first problem. */
export function checkRepresentationUpdate(
  kind: 'customer' | 'channel',
  current: object,
  proposed: unknown,
): SsoSettings | null {
  if (typeof proposed !== 'object' || proposed === null || Array.isArray(proposed)) {
    throw new ApiCommandError(`Missing field: ${kind} (the object from the ${kind} list reply), got ${describeValue(proposed)}`);
  }
  const sent = proposed as Record<string, unknown>;
  const known = current as Record<string, unknown>;
  if (Object.hasOwn(sent, 'uuid')) {
    throw new ApiCommandError(`${kind} must not carry "uuid"; send the listed object without its uuid field`);
  }
  for (const key of Object.keys(sent)) {
    if (!Object.hasOwn(known, key)) {
      throw new ApiCommandError(`${kind} has unknown field "${key}"; send only the fields of the list reply`);
    }
  }
  for (const key of Object.keys(known)) {
    if (key === 'uuid') continue;
    if (!Object.hasOwn(sent, key)) {
      throw new ApiCommandError(`${kind} is missing field "${key}"; copy every field of the list reply`);
    }
    if (key === 'sso') continue;
    if (!sameValue(known[key], sent[key])) {
      throw new ApiCommandError(
        `${kind} field "${key}" differs from the current value (${describeValue(known[key])}, sent ${describeValue(sent[key])}); only sso may change`,
      );
    }
  }
  const problem = ssoProblem(sent.sso, `${kind}.sso`);
  if (problem) throw new ApiCommandError(problem);
  return sent.sso as SsoSettings | null;
}

/** The audit wording for an sso change; clearing it is the Sites category's unset_field. */
export function describeSsoChange(
  subject: string,
  before: SsoSettings | null,
  after: SsoSettings | null,
): { action: 'update_site' | 'unset_field'; description: string } {
  if (after === null) {
    return before === null
      ? { action: 'update_site', description: `${subject} updated: sso unchanged (null)` }
      : { action: 'unset_field', description: `${subject}: field sso unset` };
  }
  return {
    action: 'update_site',
    description: `${subject} updated: sso enabled=${after.enabled} required=${after.required} saml_metadata_url=${after.saml_metadata_url}`,
  };
}
