/**
 * What `svc_tenant_sso` and `svc_channel_sso` share: the SSO rules at validate time (the
 * client's own assertSsoSettings, so there is one wording), turning attributes into the API's
 * `sso` object and back, the SAML service-provider URLs of a channel, and the check of the
 * tenant or channel name (at plan, and again when apply finds it missing).
 */
import { ValidationError, assertSsoSettings, type SsoSettings } from '../../api';
import { DiagnosticsError, UNKNOWN, errorDiagnostic, type Diagnostic, type ObjectValue, type Unknown, type Value } from '../core';
import type { SvcContext } from '../context';
import { describeNames } from '../known-names';
import { describeMetadataUrl, metadataUrlProblem } from '../../sso-rules';
import { boolAttribute, stringAttribute } from './attributes';

/** Stands in for a metadata URL that is not known yet, so the other rules can still be checked. */
const KNOWN_GOOD_URL = 'https://identity-provider.invalid/metadata';

/** Plan-time SSO errors: required without enabled, a non-https URL, enabled without a URL. */
export function validateSso(config: ObjectValue, typeName: string): Diagnostic[] {
  const enabled = boolAttribute(config, 'enabled');
  const required = boolAttribute(config, 'required');
  const url = stringAttribute(config, 'saml_metadata_url');
  const diagnostics: Diagnostic[] = [];
  /** `details`: wording of our own for an attribute, replacing the client's message. */
  const check = (sso: SsoSettings, details: Readonly<Record<string, string>> = {}) => {
    try {
      assertSsoSettings(sso, typeName);
    } catch (error) {
      // Deliberate boundary: the client's validation error becomes a diagnostic on the attribute.
      if (!(error instanceof ValidationError)) throw error;
      const attributeName = error.field.slice(typeName.length + 1);
      if (diagnostics.some((diagnostic) => diagnostic.path?.[0] === attributeName)) return;
      diagnostics.push(errorDiagnostic(`Invalid SSO setting ${attributeName}`, details[attributeName] ?? error.message, [attributeName]));
    }
  };
  // The metadata URL must be a clean https URL whether or not SSO is enabled yet.
  const urlProblem = typeof url === 'string' ? metadataUrlProblem(url) : undefined;
  if (typeof url === 'string' && urlProblem !== undefined) {
    diagnostics.push(
      errorDiagnostic(
        'Invalid SSO setting saml_metadata_url',
        `saml_metadata_url = ${describeMetadataUrl(url)}: ${urlProblem}. The identity provider's SAML metadata URL must be an https:// URL (e.g. https://idp.example.com/metadata).`,
        ['saml_metadata_url'],
      ),
    );
  }
  if (typeof enabled === 'boolean' && required !== UNKNOWN && url !== UNKNOWN) {
    // The client sees a left-out URL as "" and says 'got ""'; the user wrote nothing, so say that.
    const unset = { saml_metadata_url: "saml_metadata_url is not set: enabled = true needs the identity provider's https:// metadata URL (e.g. https://idp.example.com/metadata)." };
    check({ enabled, required: required ?? false, saml_metadata_url: url ?? '' }, url === null ? unset : {});
  } else if (typeof enabled === 'boolean' && required !== UNKNOWN) {
    check({ enabled, required: required ?? false, saml_metadata_url: KNOWN_GOOD_URL });
  }
  return diagnostics;
}

/** The `sso` object the wholly known config asks for. */
export function ssoFromConfig(config: ObjectValue): SsoSettings {
  const enabled = boolAttribute(config, 'enabled');
  const required = boolAttribute(config, 'required');
  const url = stringAttribute(config, 'saml_metadata_url');
  return {
    enabled: enabled === true,
    required: required === true,
    saml_metadata_url: typeof url === 'string' ? url : '',
  };
}

/** enabled/required/saml_metadata_url as state, from the service's `sso` (null: SSO off). */
export function ssoAttributes(sso: SsoSettings | null): { enabled: boolean; required: boolean; saml_metadata_url: string | null } {
  if (sso === null) return { enabled: false, required: false, saml_metadata_url: null };
  return {
    enabled: sso.enabled,
    required: sso.required,
    saml_metadata_url: sso.saml_metadata_url === '' ? null : sso.saml_metadata_url,
  };
}

/** The channel's SAML service-provider URLs under `ssoBase`; null when sso_base is unset. */
export function serviceProviderUrls(
  ssoBase: string | null | Unknown,
  channelUuid: Value,
): { sp_entity_id: Value; sp_acs_url: Value; sp_metadata_url: Value } {
  if (ssoBase === null) return { sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null };
  if (ssoBase === UNKNOWN) return { sp_entity_id: UNKNOWN, sp_acs_url: UNKNOWN, sp_metadata_url: UNKNOWN };
  const channelBase = typeof channelUuid === 'string' ? `${ssoBase}/auth/v2/channels/${channelUuid}` : undefined;
  return {
    sp_entity_id: `${ssoBase}/sign-in`,
    sp_acs_url: channelBase === undefined ? UNKNOWN : `${channelBase}/acs`,
    sp_metadata_url: channelBase === undefined ? UNKNOWN : `${channelBase}/metadata`,
  };
}

/**
 * The tenant or channel called `name` among those the service listed; otherwise an error naming
 * it, and the ones that exist, on `path`.
 */
export function requireNamed<T extends { readonly name: string }>(
  kind: 'tenant' | 'channel',
  listed: readonly T[],
  name: string,
  path?: readonly string[],
): T {
  const found = listed.find((candidate) => candidate.name === name);
  if (found !== undefined) return found;
  throw new DiagnosticsError([unknownNameDiagnostic(kind, name, listed.map((candidate) => candidate.name), path)]);
}

/**
 * The tenant or channel `name` of an SSO resource, checked at plan time before anything is
 * sent: a diagnostic on `name` naming it and the ones that exist. One listing per kind per
 * provider process (none for a tenant a list read already proved, none after a refresh listed
 * them); skipped while the name or the connection is not known yet (apply checks then).
 */
export async function checkNameForPlan(context: SvcContext, kind: 'tenant' | 'channel', name: string | null | Unknown): Promise<void> {
  if (typeof name !== 'string' || context.connectionUnknown) return;
  const finding = kind === 'tenant' ? await context.names.tenant(name) : await context.names.channel(name);
  if (finding.exists) return;
  throw new DiagnosticsError([unknownNameDiagnostic(kind, name, finding.listed, ['name'])]);
}

/** An error naming the tenant or channel that does not exist, and the ones that do. */
function unknownNameDiagnostic(
  kind: 'tenant' | 'channel',
  name: string,
  known: readonly string[],
  path?: readonly string[],
): Diagnostic {
  return errorDiagnostic(
    `Unknown ${kind} ${JSON.stringify(name)}`,
    `The service lists no ${kind} named ${JSON.stringify(name)} (it lists ${describeNames(known)}). Check the name; it is case-sensitive.`,
    path,
  );
}
