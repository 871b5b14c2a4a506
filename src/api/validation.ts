/**
 * Client-side checks that run before anything is sent, so a bad value fails fast with a message
 * naming the field, the value and the fix, instead of a round trip and a terse service error.
 */
import { checkAddress, type InvalidAddressError } from '../address';
import { descriptionProblem } from '../description';
import { describeValueForMessage, quoteForMessage } from '../display-text';
import { describeMetadataUrl, ssoSettingsProblems } from '../sso-rules';
import { redactUrlCredentials } from '../url-credentials';
import { ValidationError } from './errors';
import { LIST_NAMES, isListName, type ListName, type NewListEntry, type SsoSettings } from './types';

export function assertListName(value: unknown, command?: string): ListName {
  if (isListName(value)) return value;
  throw new ValidationError(
    'list',
    value,
    `list: ${describeValueForMessage(value)} is not a list of the service; use one of ${LIST_NAMES.join(', ')}.`,
    command === undefined ? {} : { command },
  );
}

/** The canonical spelling of an address or CIDR, or a ValidationError naming the field. */
export function canonicalIp(value: unknown, field: string, command?: string): string {
  if (typeof value !== 'string') {
    throw new ValidationError(field, value, `${field}: expected an IP address or CIDR as a string, got ${typeof value}.`, {
      ...(command === undefined ? {} : { command }),
    });
  }
  const checked = checkAddress(value);
  if (!checked.ok) throw invalidAddress(field, checked.error, command);
  return checked.canonical;
}

function invalidAddress(field: string, error: InvalidAddressError, command?: string): ValidationError {
  return new ValidationError(
    field,
    error.value,
    `${field}: ${error.message}. Give an IPv4 or IPv6 address, or a CIDR range without host bits.`,
    { cause: error, ...(command === undefined ? {} : { command }) },
  );
}

export function assertPositiveInteger(value: unknown, field: string, command?: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  throw new ValidationError(field, value, `${field}: expected a positive whole number, got ${describeValueForMessage(value)}.`, {
    ...(command === undefined ? {} : { command }),
  });
}

export function assertName(value: unknown, field: string, command?: string): string {
  if (typeof value === 'string' && value.trim().length > 0) return value;
  throw new ValidationError(field, value, `${field}: expected a non-empty name, got ${describeValueForMessage(value)}.`, {
    ...(command === undefined ? {} : { command }),
  });
}

export interface WireEntry {
  ip: string;
  description: string;
  created: number;
}

/** An entry ready to send: canonical ip, description string, created in whole epoch seconds. */
export function normaliseEntry(entry: NewListEntry, field: string, nowSeconds: number, command?: string): WireEntry {
  if (entry === null || typeof entry !== 'object') {
    throw new ValidationError(field, entry, `${field}: expected an object with ip, description and created.`, {
      ...(command === undefined ? {} : { command }),
    });
  }
  const ip = canonicalIp(entry.ip, `${field}.ip`, command);
  const description = entry.description ?? '';
  if (typeof description !== 'string') {
    throw new ValidationError(`${field}.description`, description, `${field}.description: expected a string.`, {
      ...(command === undefined ? {} : { command }),
    });
  }
  const problem = descriptionProblem(description);
  if (problem !== undefined) {
    throw new ValidationError(`${field}.description`, description, `${field}.description ${describeText(description)}: ${problem}.`, {
      ...(command === undefined ? {} : { command }),
    });
  }
  const created = entry.created ?? nowSeconds;
  if (typeof created !== 'number' || !Number.isSafeInteger(created) || created < 0) {
    throw new ValidationError(
      `${field}.created`,
      created,
      `${field}.created: expected whole epoch seconds, got ${describeValueForMessage(created)}.`,
      { ...(command === undefined ? {} : { command }) },
    );
  }
  return { ip, description, created };
}

/** SSO as the contract allows it: null, or enabled/required/https metadata URL, required implies enabled. */
export function assertSsoSettings(value: unknown, field: string, command?: string): SsoSettings | null {
  const details = command === undefined ? {} : { command };
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError(field, value, `${field}: expected null or {enabled, required, saml_metadata_url}.`, details);
  }
  const sso = value as Record<string, unknown>;
  for (const flag of ['enabled', 'required'] as const) {
    if (typeof sso[flag] !== 'boolean') {
      throw new ValidationError(`${field}.${flag}`, sso[flag], `${field}.${flag}: expected true or false, got ${describeValueForMessage(sso[flag])}.`, details);
    }
  }
  const url = sso.saml_metadata_url;
  if (typeof url !== 'string') {
    throw new ValidationError(`${field}.saml_metadata_url`, url, `${field}.saml_metadata_url: expected a URL string, got ${describeValueForMessage(url)}.`, details);
  }
  const enabled = sso.enabled as boolean;
  const required = sso.required as boolean;
  // On the wire "" is no URL at all; any URL given must be a clean https URL, and enabling SSO needs one.
  const [problem] = ssoSettingsProblems({ enabled, required, metadataUrl: url === '' ? undefined : url });
  if (problem?.problem === 'required-without-enabled') {
    throw new ValidationError(
      `${field}.required`,
      true,
      `${field}.required: SSO cannot be required while enabled is false; set enabled to true or required to false.`,
      details,
    );
  }
  if (problem !== undefined) {
    const urlProblem = problem.problem === 'invalid-metadata-url' ? problem.reason : 'is empty';
    const fix = enabled ? 'enabling SSO needs an https:// metadata URL of the identity provider' : 'give an https:// metadata URL of the identity provider, or leave it empty';
    throw new ValidationError(`${field}.saml_metadata_url`, redactUrlCredentials(url), `${field}.saml_metadata_url ${describeMetadataUrl(url)} ${urlProblem}; ${fix}.`, details);
  }
  return { enabled, required, saml_metadata_url: url };
}

/** A text for a message: quoted, escaped, and cut to its first 100 characters and its length (see display-text). */
export function describeText(text: string): string {
  return quoteForMessage(text);
}
