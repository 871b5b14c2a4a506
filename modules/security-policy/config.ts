/**
 * The `securityPolicy` section of the app's configuration file (svc.config.json):
 *
 *   "securityPolicy": {
 *     "baseUrl": "https://svc.example.com", "tenant": "acme-corp", "ssoBase": "https://sso.example.com",
 *     "blacklist": { "files": ["policy/blacklist.yaml"] },
 *     "whitelist": { "resources": "whole-list", "mode": "additive", "files": ["policy/whitelist.yaml"] },
 *     "tenantSso": { "name": "acme-corp", "enabled": false },
 *     "channelSso": [{ "name": "main", "enabled": true, "samlMetadataUrl": "https://idp.example.com/metadata" }],
 *     "allowControlPlaneEgress": { "natGatewayIds": ["nat-0123456789abcdef0"] }
 *   }
 *
 * Errors name the file, the field path (`securityPolicy.blacklist.files[0]`) and the value.
 * Entry-file paths are resolved against the config file's directory. No secret is ever read
 * from this file: a key that looks like one is refused, pointing at SVC_API_KEY.
 */
import * as path from 'node:path';
import { checkAddress } from '../../src/address';
import { redactUrlCredentials } from '../../src/url-credentials';
import type { NamesEveryField } from '../../src/field-names';
import { isSecretName } from '../../src/secret-names';
import { addressProblem, POLICY_LIST_NAMES, withConfigOrigin, type PolicyEntry, type PolicyListName } from './entries';
import { NAT_GATEWAY_ID, VPC_ID } from './aws-ids';
import { SecurityPolicyConfigError } from './errors';
import { isProviderSourceAddress } from '../svc-provider/provider';
import { POLICY_RULES } from './rules';
import {
  POLICY_LIST_MODES,
  POLICY_LIST_FIELDS,
  POLICY_LIST_RESOURCES,
  SSO_SETTINGS_FIELDS,
  ssoSettingsProblem,
  type PolicyListMode,
  type PolicyListProps,
  type PolicyListResources,
  type SecurityPolicyProps,
  type SsoSettings,
} from './props';

/** The config key of the section, and the prefix of every field path in its errors. */
export const SECURITY_POLICY_CONFIG_KEY = 'securityPolicy';

/** `securityPolicy.allowControlPlaneEgress`: the NAT gateways whose public IPs are whitelisted (ControlPlaneEgress). */
export interface ControlPlaneEgressConfig {
  /** NAT gateways whose public IPs go on the whitelist (`nat-...`). */
  readonly natGatewayIds?: readonly string[];
  /** Also every NAT gateway of this VPC (`vpc-...`), found at plan time. */
  readonly vpcId?: string;
  /** @default 'control plane egress (NAT gateway <id>)' */
  readonly description?: string;
}

/** The parsed `securityPolicy` section; entry-file paths are absolute. */
export interface SecurityPolicyConfig {
  /** The management API's base URL; unset: env SVC_BASE_URL. */
  readonly baseUrl?: string;
  /** The tenant; unset: env SVC_TENANT. */
  readonly tenant?: string;
  /** https base of the channels' SAML service-provider URLs; unset: env SVC_SSO_BASE. */
  readonly ssoBase?: string;
  /** Where terraform installs the svc provider from (a registry or mirror's source address); unset: svc-prevent/svc, this repository's build. */
  readonly providerSource?: string;
  /** As SecurityPolicyProps.blacklist. */
  readonly blacklist?: PolicyListProps;
  /** As SecurityPolicyProps.blocklist. */
  readonly blocklist?: PolicyListProps;
  /** As SecurityPolicyProps.whitelist. */
  readonly whitelist?: PolicyListProps;
  /** As SecurityPolicyProps.tenantSso. */
  readonly tenantSso?: SsoSettings;
  /** As SecurityPolicyProps.channelSso. */
  readonly channelSso?: readonly SsoSettings[];
  /** Whitelist the control plane's NAT gateways (ControlPlaneEgress). @default not wired */
  readonly allowControlPlaneEgress?: ControlPlaneEgressConfig;
  /** Policy rules accepted for this policy, with the reason (SecurityPolicy.acknowledge). @default none */
  readonly acknowledge?: readonly PolicyRuleAcknowledgement[];
}

/** One accepted policy rule: its id (`SVC-POLICY-3`) and why its findings are acceptable. */
export interface PolicyRuleAcknowledgement {
  /** The rule id, e.g. `SVC-POLICY-3`. */
  readonly rule: string;
  /** Why its findings are acceptable, and who decided; shown in every synth. */
  readonly reason: string;
}

const SECTION_FIELDS = ['$comment', 'baseUrl', 'tenant', 'ssoBase', 'providerSource', ...POLICY_LIST_NAMES, 'tenantSso', 'channelSso', 'allowControlPlaneEgress', 'acknowledge'] as const satisfies readonly (keyof SecurityPolicyConfig | '$comment')[];
true satisfies NamesEveryField<SecurityPolicyConfig, typeof SECTION_FIELDS>;
const ACKNOWLEDGEMENT_FIELDS = ['rule', 'reason'] as const satisfies readonly (keyof PolicyRuleAcknowledgement)[];
true satisfies NamesEveryField<PolicyRuleAcknowledgement, typeof ACKNOWLEDGEMENT_FIELDS>;
const LIST_FIELDS = POLICY_LIST_FIELDS;
const ENTRY_FIELDS = ['ip', 'description'] as const satisfies readonly (keyof PolicyEntry)[];
true satisfies NamesEveryField<PolicyEntry, typeof ENTRY_FIELDS>;
const SSO_FIELDS = SSO_SETTINGS_FIELDS;
const EGRESS_FIELDS = ['natGatewayIds', 'vpcId', 'description'] as const satisfies readonly (keyof ControlPlaneEgressConfig)[];
true satisfies NamesEveryField<ControlPlaneEgressConfig, typeof EGRESS_FIELDS>;

type Fail = (field: string, message: string) => SecurityPolicyConfigError;

/** Refuses a secret-looking key at any depth, before anything else: the value is never shown. */
function rejectSecrets(value: unknown, field: string, fail: Fail): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => rejectSecrets(item, `${field}[${index}]`, fail));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (isSecretName(key)) {
      throw fail(
        `${field}.${key}`,
        'secrets never go in this file (it is committed and shown in errors); remove the key and give the API key ' +
          'through env SVC_API_KEY or the sensitive variable api_key (export TF_VAR_api_key=...) in the shell that plans',
      );
    }
    rejectSecrets(inner, `${field}.${key}`, fail);
  }
}

function expectObject(value: unknown, field: string, fields: readonly string[], fail: Fail, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fail(field, `expected ${what}, got ${JSON.stringify(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!fields.includes(key)) throw fail(`${field}.${key}`, `unknown field; expected one of ${fields.join(', ')}`);
  }
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, field: string, fail: Fail, hint: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw fail(field, `expected a non-empty string (${hint}), got ${JSON.stringify(value)}; or leave it out`);
  return value;
}

function optionalUrl(value: unknown, field: string, fail: Fail, protocols: readonly string[], example: string): string | undefined {
  const text = optionalString(value, field, fail, `a URL such as ${example}`);
  if (text === undefined) return undefined;
  if (!URL.canParse(text) || !protocols.includes(new URL(text).protocol)) {
    throw fail(field, `${JSON.stringify(redactUrlCredentials(text))} is not an ${protocols.map((protocol) => protocol.replace(':', '')).join(' or ')} URL; give one such as ${example}`);
  }
  return text;
}

function optionalBoolean(value: unknown, field: string, fail: Fail): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw fail(field, `expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, fail: Fail, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw fail(field, `expected one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function parseList(value: unknown, field: string, fail: Fail, configFile: string): PolicyListProps {
  const configDir = path.dirname(path.resolve(configFile));
  const list = expectObject(value, field, LIST_FIELDS, fail, '{ resources?, mode?, entries?, files? }');
  const resources = oneOf<PolicyListResources>(list.resources, `${field}.resources`, fail, POLICY_LIST_RESOURCES);
  const mode = oneOf<PolicyListMode>(list.mode, `${field}.mode`, fail, POLICY_LIST_MODES);
  if (mode !== undefined && resources !== 'whole-list') {
    throw fail(`${field}.mode`, `${JSON.stringify(mode)} applies to whole-list resources only; add "resources": "whole-list" or remove mode (a per-entry resource owns its one entry)`);
  }
  let entries: PolicyEntry[] | undefined;
  if (list.entries !== undefined) {
    if (!Array.isArray(list.entries)) throw fail(`${field}.entries`, `expected a list of { ip, description? }, got ${JSON.stringify(list.entries)}`);
    entries = list.entries.map((item: unknown, index: number) => {
      const entryField = `${field}.entries[${index}]`;
      const entry = expectObject(item, entryField, ENTRY_FIELDS, fail, '{ ip, description? }');
      if (typeof entry.ip !== 'string') throw fail(`${entryField}.ip`, `expected a string (an IPv4/IPv6 address or CIDR range), got ${JSON.stringify(entry.ip)}`);
      const checked = checkAddress(entry.ip);
      if (!checked.ok) throw fail(`${entryField}.ip`, `${JSON.stringify(entry.ip)} ${addressProblem(checked.error.reason)}`);
      if (entry.description !== undefined && typeof entry.description !== 'string') {
        throw fail(`${entryField}.description`, `expected a string, got ${JSON.stringify(entry.description)}`);
      }
      // Messages about this entry (a duplicate found at synth) name this file and field.
      return withConfigOrigin({ ip: entry.ip, ...(entry.description === undefined ? {} : { description: entry.description }) }, { file: configFile, field: entryField });
    });
  }
  let files: string[] | undefined;
  if (list.files !== undefined) {
    if (!Array.isArray(list.files)) throw fail(`${field}.files`, `expected a list of entry-file paths, got ${JSON.stringify(list.files)}`);
    files = list.files.map((item: unknown, index: number) => {
      if (typeof item !== 'string' || item === '') {
        throw fail(`${field}.files[${index}]`, `expected a path (relative to the config file's directory) of a .yaml, .yml or .json file, got ${JSON.stringify(item)}`);
      }
      return path.resolve(configDir, item);
    });
  }
  return {
    ...(resources === undefined ? {} : { resources }),
    ...(mode === undefined ? {} : { mode }),
    ...(entries === undefined ? {} : { entries }),
    ...(files === undefined ? {} : { files }),
  };
}

function parseSso(value: unknown, field: string, fail: Fail): SsoSettings {
  const sso = expectObject(value, field, SSO_FIELDS, fail, '{ name, enabled, required?, samlMetadataUrl? }');
  const name = optionalString(sso.name, `${field}.name`, fail, 'the tenant or channel name');
  if (name === undefined) throw fail(`${field}.name`, 'is missing; give the tenant or channel name');
  const enabled = optionalBoolean(sso.enabled, `${field}.enabled`, fail);
  if (enabled === undefined) throw fail(`${field}.enabled`, 'is missing; give true or false');
  const required = optionalBoolean(sso.required, `${field}.required`, fail);
  const samlMetadataUrl = optionalString(sso.samlMetadataUrl, `${field}.samlMetadataUrl`, fail, 'the identity provider\'s https metadata URL');
  const signInTestedElsewhere = optionalBoolean(sso.signInTestedElsewhere, `${field}.signInTestedElsewhere`, fail);
  const settings: SsoSettings = {
    name,
    enabled,
    ...(required === undefined ? {} : { required }),
    ...(samlMetadataUrl === undefined ? {} : { samlMetadataUrl }),
    ...(signInTestedElsewhere === undefined ? {} : { signInTestedElsewhere }),
  };
  const problem = ssoSettingsProblem(settings, () => false);
  if (problem !== undefined) throw fail(`${field}.${problem.field}`, `${JSON.stringify(problem.value) ?? '(not set)'}: ${problem.message}`);
  return settings;
}

function parseEgress(value: unknown, field: string, fail: Fail): ControlPlaneEgressConfig {
  const egress = expectObject(value, field, EGRESS_FIELDS, fail, '{ natGatewayIds?, vpcId?, description? }');
  let natGatewayIds: string[] | undefined;
  if (egress.natGatewayIds !== undefined) {
    if (!Array.isArray(egress.natGatewayIds)) throw fail(`${field}.natGatewayIds`, `expected a list of NAT gateway ids (nat-...), got ${JSON.stringify(egress.natGatewayIds)}`);
    natGatewayIds = egress.natGatewayIds.map((id: unknown, index: number) => {
      if (typeof id !== 'string' || !NAT_GATEWAY_ID.test(id)) {
        throw fail(`${field}.natGatewayIds[${index}]`, `${JSON.stringify(id)} is not a NAT gateway id; give one such as nat-0123456789abcdef0 (aws ec2 describe-nat-gateways)`);
      }
      return id;
    });
  }
  const vpcId = optionalString(egress.vpcId, `${field}.vpcId`, fail, 'a VPC id such as vpc-0123456789abcdef0');
  if (vpcId !== undefined && !VPC_ID.test(vpcId)) throw fail(`${field}.vpcId`, `${JSON.stringify(vpcId)} is not a VPC id; give one such as vpc-0123456789abcdef0`);
  if ((natGatewayIds ?? []).length === 0 && vpcId === undefined) {
    throw fail(field, 'names no NAT gateway; give natGatewayIds (["nat-..."]) or vpcId, or remove allowControlPlaneEgress');
  }
  const description = optionalString(egress.description, `${field}.description`, fail, 'the whitelist entries\' description');
  return {
    ...(natGatewayIds === undefined ? {} : { natGatewayIds }),
    ...(vpcId === undefined ? {} : { vpcId }),
    ...(description === undefined ? {} : { description }),
  };
}

function parseAcknowledgements(value: unknown, field: string, fail: Fail): PolicyRuleAcknowledgement[] {
  if (!Array.isArray(value)) throw fail(field, `expected a list of { rule, reason }, got ${JSON.stringify(value)}`);
  const ruleIds = POLICY_RULES.map((rule) => rule.id);
  const seen = new Map<string, number>();
  return value.map((item: unknown, index: number) => {
    const itemField = `${field}[${index}]`;
    const acknowledgement = expectObject(item, itemField, ACKNOWLEDGEMENT_FIELDS, fail, '{ rule, reason }');
    const rule = acknowledgement.rule;
    if (typeof rule !== 'string' || !ruleIds.includes(rule)) {
      throw fail(`${itemField}.rule`, `${JSON.stringify(rule)} is not a policy rule; expected one of ${ruleIds.join(', ')}`);
    }
    const reason = acknowledgement.reason;
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw fail(`${itemField}.reason`, `${JSON.stringify(reason)}: give the reason the ${rule} findings are acceptable (it is shown in every synth)`);
    }
    const earlier = seen.get(rule);
    if (earlier !== undefined) throw fail(`${itemField}.rule`, `${JSON.stringify(rule)} is also ${field}[${earlier}]; give one reason per rule`);
    seen.set(rule, index);
    return { rule, reason };
  });
}

/**
 * Parses the `securityPolicy` section (`raw`, already JSON-parsed) of the config file `file`.
 * Checks shapes, types and literal addresses; entry files are read later, by SecurityPolicy.
 */
export function parseSecurityPolicyConfig(file: string, raw: unknown): SecurityPolicyConfig {
  const fail: Fail = (field, message) => new SecurityPolicyConfigError(file, field, message);
  const root = SECURITY_POLICY_CONFIG_KEY;
  rejectSecrets(raw, root, fail);
  const section = expectObject(raw, root, SECTION_FIELDS, fail, 'an object (see help: the securityPolicy section)');

  const lists: Partial<Record<PolicyListName, PolicyListProps>> = {};
  for (const list of POLICY_LIST_NAMES) {
    if (section[list] !== undefined) lists[list] = parseList(section[list], `${root}.${list}`, fail, file);
  }
  let channelSso: SsoSettings[] | undefined;
  if (section.channelSso !== undefined) {
    if (!Array.isArray(section.channelSso)) throw fail(`${root}.channelSso`, `expected a list of { name, enabled, ... }, got ${JSON.stringify(section.channelSso)}`);
    channelSso = section.channelSso.map((item: unknown, index: number) => parseSso(item, `${root}.channelSso[${index}]`, fail));
    const seen = new Map<string, number>();
    channelSso.forEach((sso, index) => {
      const earlier = seen.get(sso.name);
      if (earlier !== undefined) throw fail(`${root}.channelSso[${index}].name`, `${JSON.stringify(sso.name)} is also channelSso[${earlier}]; keep one setting per channel`);
      seen.set(sso.name, index);
    });
  }
  const baseUrl = optionalUrl(section.baseUrl, `${root}.baseUrl`, fail, ['http:', 'https:'], 'https://svc.example.com');
  const tenant = optionalString(section.tenant, `${root}.tenant`, fail, 'the tenant (customer) name');
  const ssoBase = optionalUrl(section.ssoBase, `${root}.ssoBase`, fail, ['https:'], 'https://sso.example.com');
  const providerSource = optionalString(section.providerSource, `${root}.providerSource`, fail, 'the provider source address, e.g. registry.example.com/acme/svc');
  if (providerSource !== undefined && !isProviderSourceAddress(providerSource)) {
    throw fail(`${root}.providerSource`, `${JSON.stringify(providerSource)} is not a provider source address [<hostname>/]<namespace>/<type>; write e.g. registry.example.com/acme/svc`);
  }
  const tenantSso = section.tenantSso === undefined ? undefined : parseSso(section.tenantSso, `${root}.tenantSso`, fail);
  const egress = section.allowControlPlaneEgress === undefined ? undefined : parseEgress(section.allowControlPlaneEgress, `${root}.allowControlPlaneEgress`, fail);
  const acknowledge = section.acknowledge === undefined ? undefined : parseAcknowledgements(section.acknowledge, `${root}.acknowledge`, fail);
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(tenant === undefined ? {} : { tenant }),
    ...(ssoBase === undefined ? {} : { ssoBase }),
    ...(providerSource === undefined ? {} : { providerSource }),
    ...lists,
    ...(tenantSso === undefined ? {} : { tenantSso }),
    ...(channelSso === undefined ? {} : { channelSso }),
    ...(egress === undefined ? {} : { allowControlPlaneEgress: egress }),
    ...(acknowledge === undefined ? {} : { acknowledge }),
  };
}

/**
 * The SecurityPolicy props of a parsed section (without provider: the caller creates the
 * SvcProvider from baseUrl/tenant/ssoBase, see svcProviderSettings). The tenant stays the
 * provider's, so resources carry no tenant of their own.
 */
export function securityPolicyPropsFromConfig(config: SecurityPolicyConfig): SecurityPolicyProps {
  return {
    ...(config.blacklist === undefined ? {} : { blacklist: config.blacklist }),
    ...(config.blocklist === undefined ? {} : { blocklist: config.blocklist }),
    ...(config.whitelist === undefined ? {} : { whitelist: config.whitelist }),
    ...(config.tenantSso === undefined ? {} : { tenantSso: config.tenantSso }),
    ...(config.channelSso === undefined ? {} : { channelSso: config.channelSso }),
  };
}

/** The SvcProvider settings of a parsed section; the API key is never among them (SVC_API_KEY or TF_VAR_api_key). */
export function svcProviderSettings(config: SecurityPolicyConfig): { baseUrl?: string; tenant?: string; ssoBase?: string; source?: string } {
  return {
    ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
    ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
    ...(config.ssoBase === undefined ? {} : { ssoBase: config.ssoBase }),
    ...(config.providerSource === undefined ? {} : { source: config.providerSource }),
  };
}
