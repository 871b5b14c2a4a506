/** SecurityPolicy's props, and the SSO rules the construct and the config parser both check. */
import type { IResolvable } from 'cdktf';
import type { SvcProvider } from '../svc-provider/provider';
import { POLICY_LIST_NAMES, type PolicyEntry } from './entries';
import type { NamesEveryField } from '../../src/field-names';
import { redactUrlCredentials } from '../../src/url-credentials';
import { NOT_KNOWN_YET, ssoSettingsProblems } from '../../src/sso-rules';

/** Per-entry: one resource per address (`svc_blacklist_entry`), owning that entry only. Whole-list: one `svc_blacklist` with an `entries` map. */
export type PolicyListResources = 'per-entry' | 'whole-list';
/** Every value `PolicyListProps.resources` accepts. */
export const POLICY_LIST_RESOURCES: readonly PolicyListResources[] = ['per-entry', 'whole-list'];

/** Whole-list only: `authoritative` owns every entry of the list, `additive` only the declared ones. */
export type PolicyListMode = 'authoritative' | 'additive';
/** Every value `PolicyListProps.mode` accepts. */
export const POLICY_LIST_MODES: readonly PolicyListMode[] = ['authoritative', 'additive'];

/** How one list (blacklist, blocklist or whitelist) is declared, and its entries. */
export interface PolicyListProps {
  /** @default 'per-entry' */
  readonly resources?: PolicyListResources;
  /** Whole-list only (a per-entry list with a mode is an error). @default the provider's, 'authoritative' */
  readonly mode?: PolicyListMode;
  /** Entries written inline. */
  readonly entries?: readonly PolicyEntry[];
  /** JSON or YAML entry files (relative paths: to the working directory). */
  readonly files?: readonly string[];
}

/** The fields of PolicyListProps, as the construct and the config file both accept them. */
export const POLICY_LIST_FIELDS = ['resources', 'mode', 'entries', 'files'] as const satisfies readonly (keyof PolicyListProps)[];
true satisfies NamesEveryField<PolicyListProps, typeof POLICY_LIST_FIELDS>;

/** SAML single sign-on of the tenant or of one channel. */
export interface SsoSettings {
  /** The tenant's or channel's name; it must exist on the service. */
  readonly name: string;
  /** Users may sign in through the identity provider; needs samlMetadataUrl. A token (a variable's `booleanValue`) is checked at plan. */
  readonly enabled: boolean | IResolvable;
  /** Users must sign in through SSO; needs enabled. A token is checked at plan. @default false */
  readonly required?: boolean | IResolvable;
  /** The identity provider's SAML metadata URL, https; needed when enabled. */
  readonly samlMetadataUrl?: string;
  /**
   * Opt-out of the provider's lockout guard, which refuses `required` turning on in the same
   * apply that enables SSO or changes the metadata URL; true only when sign-in through this
   * identity provider was tested elsewhere. @default false
   */
  readonly signInTestedElsewhere?: boolean | IResolvable;
}

/** The fields of SsoSettings, as the construct and the config file both accept them. */
export const SSO_SETTINGS_FIELDS = ['name', 'enabled', 'required', 'samlMetadataUrl', 'signInTestedElsewhere'] as const satisfies readonly (keyof SsoSettings)[];
true satisfies NamesEveryField<SsoSettings, typeof SSO_SETTINGS_FIELDS>;

/**
 * Addresses the platform's own infrastructure uses: the blacklist and blocklist must never
 * deny them (policy rule SVC-POLICY-5, an error at synth). Tokens are known only at plan and
 * are not checked.
 */
export interface OwnInfrastructure {
  /** The control plane's egress (NAT gateway) public IPs, when known as literals. @default none */
  readonly egressAddresses?: readonly string[];
  /** Where the sensors run. @default none */
  readonly sensorCidrs?: readonly string[];
  /** The control plane VPC's range. @default none */
  readonly vpcCidr?: string;
}

/** The lists and SSO settings of one tenant; every part is optional, and an unset part is not managed. */
export interface SecurityPolicyProps {
  /** The svc provider (SvcProvider from modules/svc-provider/provider). @default the stack's default svc provider */
  readonly provider?: SvcProvider;
  /** The tenant whose lists these are. @default the provider's tenant */
  readonly tenant?: string;
  /** Addresses denied until removed. @default not managed (addEntries declares it per-entry) */
  readonly blacklist?: PolicyListProps;
  /** Addresses denied for 30 minutes; the next apply renews them. @default not managed */
  readonly blocklist?: PolicyListProps;
  /** Addresses never blocked, not even by risk-based blocking. @default not managed */
  readonly whitelist?: PolicyListProps;
  /** The tenant's SSO (`svc_tenant_sso.tenant`). @default not managed */
  readonly tenantSso?: SsoSettings;
  /** SSO of channels, one setting per channel (`svc_channel_sso.channel_<name>`). @default none managed */
  readonly channelSso?: readonly SsoSettings[];
  /**
   * Prefix of every Terraform resource name this policy declares, for a second SecurityPolicy
   * in one stack (e.g. `globex_` gives `globex_blacklist_203_0_113_9`). Changing it renames,
   * so destroys and re-creates, every resource. @default ''
   */
  readonly namePrefix?: string;
  /**
   * What the platform's own infrastructure uses, never to be denied (policy rule SVC-POLICY-5);
   * literal addresses of the stack's AWS resources (VPC, subnets, Elastic IPs) count without it.
   * @default none
   */
  readonly ownInfrastructure?: OwnInfrastructure;
}

/** The props SecurityPolicy accepts, in the order its "unknown prop" error lists them. */
export const SECURITY_POLICY_PROP_NAMES = ['provider', 'tenant', ...POLICY_LIST_NAMES, 'tenantSso', 'channelSso', 'namePrefix', 'ownInfrastructure'] as const satisfies readonly (keyof SecurityPolicyProps)[];
true satisfies NamesEveryField<SecurityPolicyProps, typeof SECURITY_POLICY_PROP_NAMES>;

/** What is wrong with SSO settings (the name, then the shared rule of src/sso-rules.ts), as field (relative to the settings object) and message; skips tokens. */
export function ssoSettingsProblem(settings: SsoSettings, isToken: (value: unknown) => boolean): { field: string; value: unknown; message: string } | undefined {
  if (!isToken(settings.name) && settings.name === '') return { field: 'name', value: settings.name, message: 'is empty; give the tenant or channel name' };
  const { enabled, required, samlMetadataUrl: url } = settings;
  const [problem] = ssoSettingsProblems({
    enabled: typeof enabled === 'boolean' ? enabled : NOT_KNOWN_YET,
    required: typeof required === 'boolean' ? required : required === undefined ? false : NOT_KNOWN_YET,
    metadataUrl: url !== undefined && isToken(url) ? NOT_KNOWN_YET : url,
  });
  switch (problem?.problem) {
    case undefined:
      return undefined;
    case 'required-without-enabled':
      return { field: 'required', value: true, message: 'needs enabled = true (users cannot be required to use SSO that is off); set enabled to true or leave required out' };
    case 'invalid-metadata-url':
      return { field: 'samlMetadataUrl', value: redactUrlCredentials(problem.value), message: `${problem.reason}; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata` };
    case 'missing-metadata-url':
      return { field: 'samlMetadataUrl', value: undefined, message: 'is not set, and enabled SSO needs it; give the identity provider\'s metadata URL (https) or set enabled to false' };
  }
}
