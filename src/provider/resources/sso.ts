/**
 * What `svc_tenant_sso` and `svc_channel_sso` share: the SSO rules at validate time (the shared
 * rule of src/sso-rules.ts, worded for attributes), turning attributes into the API's
 * `sso` object and back, the SAML service-provider URLs of a channel, and the check of the
 * tenant or channel name (at plan, and again when apply finds it missing).
 */
import type { SsoSettings } from '../../api/types';
import { DiagnosticsError, UNKNOWN, errorDiagnostic, warningDiagnostic, type Diagnostic, type ObjectValue, type Unknown, type Value } from '../core';
import type { SvcContext } from '../context';
import { describeNames } from '../known-names';
import { NOT_KNOWN_YET, describeMetadataUrl, ssoLockoutRisk, ssoSettingsProblems } from '../../sso-rules';
import { boolAttribute, stringAttribute } from './attributes';

/** Plan-time SSO errors: required without enabled, a non-https URL, enabled without a URL. */
export function validateSso(config: ObjectValue, typeName: string): Diagnostic[] {
  const enabled = boolAttribute(config, 'enabled');
  const required = boolAttribute(config, 'required');
  const url = stringAttribute(config, 'saml_metadata_url');
  const problems = ssoSettingsProblems({
    enabled: typeof enabled === 'boolean' ? enabled : NOT_KNOWN_YET,
    required: required === UNKNOWN ? NOT_KNOWN_YET : (required ?? false),
    // An unset attribute is no URL; "" is one given empty, which the rule refuses.
    metadataUrl: url === UNKNOWN ? NOT_KNOWN_YET : (url ?? undefined),
  });
  // The URL's own problem first, as terraform has always listed them.
  const ordered = [...problems.filter((problem) => problem.setting === 'metadataUrl'), ...problems.filter((problem) => problem.setting !== 'metadataUrl')];
  return ordered.map((problem) => {
    switch (problem.problem) {
      case 'invalid-metadata-url':
        return errorDiagnostic(
          'Invalid SSO setting saml_metadata_url',
          `saml_metadata_url = ${describeMetadataUrl(problem.value)}: ${problem.reason}. The identity provider's SAML metadata URL must be an https:// URL (e.g. https://idp.example.com/metadata).`,
          ['saml_metadata_url'],
        );
      case 'missing-metadata-url':
        return errorDiagnostic(
          'Invalid SSO setting saml_metadata_url',
          "saml_metadata_url is not set: enabled = true needs the identity provider's https:// metadata URL (e.g. https://idp.example.com/metadata).",
          ['saml_metadata_url'],
        );
      case 'required-without-enabled':
        return errorDiagnostic(
          'Invalid SSO setting required',
          `${typeName}.required: SSO cannot be required while enabled is false; set enabled to true or required to false.`,
          ['required'],
        );
    }
  });
}

/** The lockout guard's opt-out: terraform's own setting, never sent to the service. */
export const SIGN_IN_TESTED_ELSEWHERE = 'sign_in_tested_elsewhere';

/** The opt-out as state keeps it: what `from` (the config applied, or the state refreshed) said; null when unset or imported. */
export function signInTestedElsewhere(from: ObjectValue | null): Value {
  return from?.[SIGN_IN_TESTED_ELSEWHERE] ?? null;
}

/**
 * Plan-time lockout guard (src/sso-rules.ts ssoLockoutRisk): an error on `required` when it
 * turns on in the same apply that enables SSO or changes saml_metadata_url, unless the
 * configuration sets sign_in_tested_elsewhere = true. `prior` is the refreshed state: SSO
 * enabled and tested outside terraform counts as enabled.
 */
export function ssoLockoutDiagnostics(typeName: string, kind: 'tenant' | 'channel', config: ObjectValue, prior: ObjectValue | null): Diagnostic[] {
  if (boolAttribute(config, SIGN_IN_TESTED_ELSEWHERE) === true) return [];
  const required = boolAttribute(config, 'required');
  const url = stringAttribute(config, 'saml_metadata_url');
  const priorUrl = prior === null ? null : stringAttribute(prior, 'saml_metadata_url');
  const risk = ssoLockoutRisk(
    prior === null
      ? null
      : { enabled: boolAttribute(prior, 'enabled') === true, required: boolAttribute(prior, 'required') === true, metadataUrl: typeof priorUrl === 'string' ? priorUrl : undefined },
    {
      enabled: NOT_KNOWN_YET,
      required: required === UNKNOWN ? NOT_KNOWN_YET : required === true,
      metadataUrl: url === UNKNOWN ? NOT_KNOWN_YET : (url ?? undefined),
    },
  );
  if (risk === undefined) return [];
  const name = stringAttribute(config, 'name');
  const resource = `${typeName} for ${kind} ${typeof name === 'string' ? JSON.stringify(name) : '(name not known yet)'}`;
  const step =
    risk.reason === 'enables-sso'
      ? 'enables SSO'
      : risk.to === NOT_KNOWN_YET
        ? `changes saml_metadata_url (from ${risk.from === undefined ? 'none' : describeMetadataUrl(risk.from)} to a value known only after apply)`
        : `changes saml_metadata_url from ${risk.from === undefined ? 'none' : describeMetadataUrl(risk.from)} to ${risk.to === undefined ? 'none' : describeMetadataUrl(risk.to)}`;
  return [
    errorDiagnostic(
      'SSO lockout guard: required would turn on before anyone signed in through the identity provider',
      `${resource}: required = true in the same apply that ${step}. Nobody can have signed in through that identity provider yet, ` +
        'and required = true refuses every password sign-in to the dashboard: a wrong metadata URL or identity-provider setup would lock everyone out. ' +
        'Apply in two steps: first with required = false, sign in to the dashboard through the identity provider, then set required = true and apply again. ' +
        `If sign-in through this identity provider was tested elsewhere, set ${SIGN_IN_TESTED_ELSEWHERE} = true on this resource.`,
      ['required'],
    ),
  ];
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

/**
 * The destroy of an SSO resource whose tenant or channel had its SSO set earlier in the same
 * apply (the create of a create_before_destroy replacement, or another resource for the same
 * name): turning SSO off would undo that, so the destroy leaves it.
 */
export function ssoKeptWarning(kind: 'tenant' | 'channel', name: string): Diagnostic {
  return warningDiagnostic(
    `SSO of ${kind} ${JSON.stringify(name)} left as set earlier in this apply`,
    `A resource created or updated earlier in this apply set the SSO of ${kind} ${JSON.stringify(name)} (a create_before_destroy replacement, ` +
      'or another resource for the same name), so destroying this one did not turn SSO off: the service keeps what the newer resource set.',
  );
}
