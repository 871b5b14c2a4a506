/**
 * The contract's rules for an `sso` value: `null`, or exactly
 * `{enabled, required, saml_metadata_url}`; enabling needs an https metadata URL (the shared rule
 * of src/sso-rules.ts: no credentials, no control characters), and
 * `required` needs `enabled`. Pure, so seeds and updates share one wording.
 */
import { describeValue } from './errors';
import type { SsoSettings } from './model';
import { describeMetadataUrl, metadataUrlProblem } from '../sso-rules';

// Deliberately its own copy of the rules that combine the fields (not src/sso-rules.ts's ssoSettingsProblems; only the URL
// rule is shared): the emulator is the oracle the client and the provider are tested against, and
// __tests__/shared-rules/sso-rules.test.ts checks that the two copies agree.
const SSO_FIELDS = ['enabled', 'required', 'saml_metadata_url'] as const;

/** Returns what is wrong with `value` as an sso setting at `path`, or undefined when it is valid. */
export function ssoProblem(value: unknown, path: string): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return `${path} must be null or an object {enabled, required, saml_metadata_url}, got ${describeValue(value)}`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(SSO_FIELDS as readonly string[]).includes(key)) {
      return `${path} has unknown field "${key}"; allowed fields are enabled, required, saml_metadata_url`;
    }
  }
  for (const key of ['enabled', 'required'] as const) {
    if (typeof record[key] !== 'boolean') {
      return `${path}.${key} must be true or false, got ${describeValue(record[key])}`;
    }
  }
  if (typeof record.saml_metadata_url !== 'string') {
    return `${path}.saml_metadata_url must be a string, got ${describeValue(record.saml_metadata_url)}`;
  }
  const url = record.saml_metadata_url;
  const urlProblem = url === '' ? undefined : metadataUrlProblem(url);
  if (urlProblem !== undefined) return `${path}.saml_metadata_url ${describeMetadataUrl(url)} ${urlProblem}; give the identity provider's https metadata URL`;
  if (record.enabled === true && url === '') {
    return `${path}.enabled is true but saml_metadata_url "" is not an https:// URL; give the identity provider's https metadata URL`;
  }
  if (record.required === true && record.enabled !== true) {
    return `${path}.required is true but enabled is false; enable SSO before requiring it`;
  }
  return undefined;
}

export function copySso(value: SsoSettings | null): SsoSettings | null {
  return value === null
    ? null
    : { enabled: value.enabled, required: value.required, saml_metadata_url: value.saml_metadata_url };
}
