/**
 * The SSO rules, for every part that takes SSO settings (the client before it sends, the
 * provider at validate, SecurityPolicy at synth): one rule, returned as structured problems each
 * caller words for its audience. The emulator keeps its own copy as an oracle (src/emulator/sso.ts).
 *
 * The identity provider's SAML metadata URL, as every part that takes one checks it (the
 * emulator too): one rule. The raw text is checked before it is parsed, because the URL parser quietly drops tabs and
 * newlines (`https://idp/meta\ndata` parses as `https://idp/metadata`) and what the service
 * stores is the raw text.
 */
import { redactUrlCredentials } from './url-credentials';

/** What is wrong with a metadata URL (a phrase such as "is not a URL"), or undefined; it never repeats credentials. */
export function metadataUrlProblem(url: string): string | undefined {
  if (url === '') return 'is empty';
  const unprintable = /[\u0000-\u0020\u007f-\u009f]/.exec(url);
  if (unprintable !== null) {
    const code = unprintable[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `holds white space or a control character (U+${code} at position ${unprintable.index + 1}); a URL is one word of printable text`;
  }
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return `is not an https:// URL (it uses ${parsed.protocol.replace(/:$/, '')})`;
  if (parsed.hostname === '') return 'has no host name';
  if (parsed.username !== '' || parsed.password !== '' || /^https:\/\/[^/?#]*@/i.test(url)) {
    return 'holds a user name or password before the host, which would be stored in clear in terraform state and the audit log; give the metadata URL without credentials';
  }
  return undefined;
}

/** The URL as a message may show it: JSON-quoted, credentials replaced. */
export function describeMetadataUrl(url: string): string {
  return JSON.stringify(redactUrlCredentials(url));
}

/** Stands in for a value not known yet (a cdktf token at synth, an unknown at plan): its own rules are skipped. */
export const NOT_KNOWN_YET: unique symbol = Symbol('not known yet');
export type NotKnownYet = typeof NOT_KNOWN_YET;

/**
 * SSO settings as the rules see them, whatever their source spells them: the API's
 * `{enabled, required, saml_metadata_url}` (where "" means no URL), a provider resource's
 * attributes, SecurityPolicy's `{enabled, required?, samlMetadataUrl?}`.
 */
export interface SsoSettingsToCheck {
  readonly enabled: boolean | NotKnownYet;
  readonly required: boolean | NotKnownYet;
  /** undefined: no URL given. "" is a URL given empty, which `metadataUrlProblem` refuses. */
  readonly metadataUrl: string | undefined | NotKnownYet;
}

/** Which setting a problem is about, named as SsoSettingsToCheck names it; each caller maps it to its own spelling. */
export type SsoSetting = 'enabled' | 'required' | 'metadataUrl';

/** One broken SSO rule: the setting, its value, and which rule (with the URL's problem as a phrase). */
export type SsoSettingsProblem =
  /** required is true while enabled is false: users cannot be required to use SSO that is off. */
  | { readonly setting: 'required'; readonly value: true; readonly problem: 'required-without-enabled' }
  /** The URL given is not a clean https URL; `reason` says why ("is not a URL"), never repeating credentials. */
  | { readonly setting: 'metadataUrl'; readonly value: string; readonly problem: 'invalid-metadata-url'; readonly reason: string }
  /** enabled is true but no URL is given. */
  | { readonly setting: 'metadataUrl'; readonly value: undefined; readonly problem: 'missing-metadata-url' };

/**
 * Every SSO rule the settings break, in the order required, metadata URL (at most one problem
 * per setting); empty when they are fine. Rules about a value not known yet are skipped.
 */
export function ssoSettingsProblems(settings: SsoSettingsToCheck): SsoSettingsProblem[] {
  const problems: SsoSettingsProblem[] = [];
  if (settings.required === true && settings.enabled === false) {
    problems.push({ setting: 'required', value: true, problem: 'required-without-enabled' });
  }
  const url = settings.metadataUrl;
  if (typeof url === 'string') {
    const reason = metadataUrlProblem(url);
    if (reason !== undefined) problems.push({ setting: 'metadataUrl', value: url, problem: 'invalid-metadata-url', reason });
  } else if (url === undefined && settings.enabled === true) {
    problems.push({ setting: 'metadataUrl', value: undefined, problem: 'missing-metadata-url' });
  }
  return problems;
}

/**
 * The lockout guard. The spec's procedure is enable SSO, test a sign-in through the identity
 * provider, then optionally require it. `required` refuses every password sign-in to the
 * dashboard, so turning it on in the same change that enables SSO or points it at another
 * metadata URL requires an identity provider nobody has signed in through yet: a wrong URL or
 * identity-provider setup locks everyone out.
 */
export type SsoLockoutRisk =
  /** required turns on while SSO is off before the change (or the settings are new). */
  | { readonly reason: 'enables-sso' }
  /** required turns on while the metadata URL changes (or is not known until apply). */
  | { readonly reason: 'changes-metadata-url'; readonly from: string | undefined; readonly to: string | undefined | NotKnownYet };

/** The settings before the change, as the service holds them; null when there are none yet (a create). */
export interface SsoSettingsBefore {
  readonly enabled: boolean;
  readonly required: boolean;
  readonly metadataUrl: string | undefined;
}

/**
 * Whether the change from `before` to `after` turns `required` on in the same step that enables
 * SSO or changes the metadata URL; undefined when it does not. A value not known yet counts as a
 * change: the guard cannot prove it safe before apply.
 */
export function ssoLockoutRisk(before: SsoSettingsBefore | null, after: SsoSettingsToCheck): SsoLockoutRisk | undefined {
  if (after.required === false) return undefined;
  if (before !== null && before.required) return undefined;
  if (before === null || !before.enabled) return { reason: 'enables-sso' };
  if (after.metadataUrl !== before.metadataUrl) return { reason: 'changes-metadata-url', from: before.metadataUrl, to: after.metadataUrl };
  return undefined;
}
