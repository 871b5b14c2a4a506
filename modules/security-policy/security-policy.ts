/**
 * SecurityPolicy: the svc lists (blacklist, blocklist, whitelist) and SSO settings of one
 * tenant, declared from inline entries and entry files, with per-entry or whole-list resources
 * as the user asks.
 *
 * Terraform names are a public contract (in cdktf a name is the resource address: renaming one
 * destroys and re-creates that resource), so each is set explicitly rather than left to cdktf's
 * path-and-hash names:
 *
 *   svc_blacklist_entry.blacklist_203_0_113_9        per-entry, named from the canonical address
 *   svc_blacklist_entry.blacklist_198_51_100_0_24    (`.`, `:` and `/` written as `_`)
 *   svc_whitelist_entry.whitelist_<source>_<n>       per-entry with a token ip (addEntries)
 *   svc_blacklist.blacklist                          whole-list
 *   svc_tenant_sso.tenant                            tenant SSO
 *   svc_channel_sso.channel_main                     channel SSO, named from the channel
 *
 * every one preceded by `namePrefix` when given.
 */
import { Construct } from 'constructs';
import { Fn, TerraformIterator, TerraformLocal, TerraformProvider, TerraformStack, Token, type IResolvable, type TerraformResource } from 'cdktf';
import { Blacklist } from '../svc-provider/blacklist';
import { BlacklistEntry } from '../svc-provider/blacklist-entry';
import { Blocklist } from '../svc-provider/blocklist';
import { BlocklistEntry } from '../svc-provider/blocklist-entry';
import { ChannelSso } from '../svc-provider/channel-sso';
import { SvcProvider } from '../svc-provider/provider';
import { TenantSso } from '../svc-provider/tenant-sso';
import { Whitelist } from '../svc-provider/whitelist';
import { WhitelistEntry } from '../svc-provider/whitelist-entry';
import {
  POLICY_LIST_NAMES,
  addressProblem,
  checkPropEntry,
  duplicateEntryError,
  entryResourceName,
  loadPolicyEntryFile,
  nameFragment,
  type AddedPolicyEntry,
  type CheckedEntry,
  type PolicyListName,
} from './entries';
import { SecurityPolicyPropError } from './errors';
import { ownInfrastructureValues } from './rules/infrastructure';
import { SecurityPolicyRules } from './rules/aspect';
import { POLICY_RULES, type InfrastructureAddress } from './rules';
import { checkAddress, parseAddress } from '../../src/address';
import {
  POLICY_LIST_MODES,
  POLICY_LIST_RESOURCES,
  POLICY_LIST_FIELDS,
  SECURITY_POLICY_PROP_NAMES,
  ssoSettingsProblem,
  type PolicyListMode,
  type PolicyListProps,
  type PolicyListResources,
  type SecurityPolicyProps,
  type SsoSettings,
} from './props';

/** The resource of one entry of a list in per-entry mode (`entryResources(list)` returns them by name). */
export type PolicyEntryResource = BlacklistEntry | BlocklistEntry | WhitelistEntry;
/** The one resource of a list in whole-list mode. */
export type PolicyWholeListResource = Blacklist | Blocklist | Whitelist;
const SECURITY_POLICY_PROPS: readonly string[] = SECURITY_POLICY_PROP_NAMES;
const POLICY_LIST_PROPS: readonly string[] = POLICY_LIST_FIELDS;

/** A map from address to description known only to Terraform: an IResolvable or a map token (`local.asAnyMap`). */
export type EntryMapToken = IResolvable | { readonly [ip: string]: unknown };

const ENTRY_CLASSES = { blacklist: BlacklistEntry, blocklist: BlocklistEntry, whitelist: WhitelistEntry } as const;
const WHOLE_LIST_CLASSES = { blacklist: Blacklist, blocklist: Blocklist, whitelist: Whitelist } as const;

/** The SAML service-provider side of a channel, as tokens of its svc_channel_sso (null without the provider's sso_base). */
export interface ChannelServiceProvider {
  /** The service provider's entity ID (the identity provider's audience), `{sso_base}/sign-in`. */
  readonly entityId: string;
  /** The assertion consumer service URL, where the identity provider posts. */
  readonly acsUrl: string;
  /** The service provider's SAML metadata URL. */
  readonly metadataUrl: string;
}

interface ListState {
  readonly resources: PolicyListResources;
  readonly mode: PolicyListMode | undefined;
  readonly entries: CheckedEntry[];
  readonly byCanonical: Map<string, CheckedEntry>;
  readonly entryResources: Map<string, PolicyEntryResource>;
  /** Token entries added so far per source, for `<source>_<n>` names. */
  readonly tokenCounts: Map<string, number>;
  /** Maps known only to Terraform (e.g. a for expression over data sources), merged into a whole list. */
  readonly entryMaps: EntryMapToken[];
  /** The local holding the declared entries once a map from addEntryMap is merged in. */
  declaredEntries: TerraformLocal | undefined;
  /** Sources of addEntryMap calls, so each names one for_each resource. */
  readonly entryMapSources: Set<string>;
  wholeList: PolicyWholeListResource | undefined;
}

/**
 * A description as Terraform must see it: in Terraform's JSON syntax every string is a
 * template, so `${` and `%{` from an entry file would be read as interpolation. Tokens (our own
 * references) pass unchanged.
 */
function terraformText(text: string): string {
  return Token.isUnresolved(text) ? text : text.replace(/([$%])\{/g, '$1$1{');
}

/** Resource addresses declared by SecurityPolicies per stack, so two policies cannot take the same name. */
const addressesByStack = new WeakMap<TerraformStack, Map<string, string>>();

/**
 * The svc lists and SSO settings of one tenant, from inline entries and entry files (YAML or
 * JSON, checked at synth), as per-entry or whole-list resources. Terraform names derive from
 * the canonical addresses, so reordering or respelling entries changes nothing.
 */
export class SecurityPolicy extends Construct {
  /** The svc_tenant_sso resource, when tenantSso is given. */
  readonly tenantSso: TenantSso | undefined;
  /** svc_channel_sso resources by channel name. */
  readonly channelSso: ReadonlyMap<string, ChannelSso>;
  private readonly props: SecurityPolicyProps;
  private readonly namePrefix: string;
  private readonly lists = new Map<PolicyListName, ListState>();
  /** Reasons of acknowledged policy rules, by rule id. */
  private readonly acknowledgements = new Map<string, string>();

  /**
   * Declares the resources of `props` in the stack of `scope`.
   * @throws SecurityPolicyPropError (code and prop named) for a prop it refuses, PolicyFileError
   *   for a bad entry file; both at synth, before terraform runs
   */
  constructor(scope: Construct, id: string, props: SecurityPolicyProps = {}) {
    super(scope, id);
    this.props = props;
    this.checkPropsShape(props);
    this.namePrefix = props.namePrefix ?? '';
    if (!Token.isUnresolved(this.namePrefix) && this.namePrefix !== '' && !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(this.namePrefix)) {
      throw this.propError('namePrefix', this.namePrefix, 'must start with a letter or _ and hold only letters, digits, _ and - (it begins Terraform resource names); e.g. globex_');
    }
    if (props.tenant !== undefined && !Token.isUnresolved(props.tenant) && props.tenant === '') {
      throw this.propError('tenant', props.tenant, 'is empty; give the tenant (customer) name, or leave tenant out to use the provider\'s');
    }

    for (const list of POLICY_LIST_NAMES) {
      const listProps = props[list];
      if (listProps !== undefined) this.declareList(list, listProps);
    }
    SecurityPolicyRules.of(TerraformStack.of(this)).register(this, {
      entries: (list) => this.entries(list),
      infrastructure: this.ownInfrastructure(props),
      acknowledgements: this.acknowledgements,
    });

    if (props.tenantSso !== undefined) {
      this.checkSso('tenantSso', props.tenantSso);
      this.tenantSso = new TenantSso(this, 'tenant-sso', this.ssoConfig(props.tenantSso));
      this.claimName(this.tenantSso, `${this.namePrefix}tenant`);
    } else {
      this.tenantSso = undefined;
    }

    const channels = new Map<string, ChannelSso>();
    const channelByTerraformName = new Map<string, { index: number; name: string }>();
    (props.channelSso ?? []).forEach((settings, index) => {
      this.checkSso(`channelSso[${index}]`, settings);
      if (channels.has(settings.name)) {
        throw this.propError(`channelSso[${index}].name`, settings.name, 'is named twice in channelSso; keep one setting per channel');
      }
      // Channel names are the service's, so two that reduce to one Terraform name cannot be renamed here.
      const terraformName = `${this.namePrefix}channel_${nameFragment(settings.name)}`;
      const earlier = channelByTerraformName.get(terraformName);
      if (earlier !== undefined) {
        throw new SecurityPolicyPropError({
          code: 'policy_resource_name_clash',
          constructPath: this.node.path,
          prop: `channelSso[${index}].name`,
          value: settings.name,
          message:
            `gives the Terraform name svc_channel_sso.${terraformName}, as channelSso[${earlier.index}] (${JSON.stringify(earlier.name)}) does ` +
            '(names keep only letters, digits, _ and -); declare one of the two in a second SecurityPolicy with its own namePrefix',
        });
      }
      channelByTerraformName.set(terraformName, { index, name: settings.name });
      const resource = new ChannelSso(this, `channel-sso-${settings.name}`, this.ssoConfig(settings));
      this.claimName(resource, terraformName);
      channels.set(settings.name, resource);
    });
    this.channelSso = channels;
  }

  /**
   * Adds entries to a list, e.g. from wiring (the control plane's egress IPs). A literal ip is
   * checked and de-duplicated like any entry; a token ip (a data source's attribute) is checked
   * by the provider once known. On a whole-list resource the entries go into its `entries` map
   * (a separate per-entry resource would be removed by an authoritative whole list); on a
   * per-entry list (the default for a list without props) each becomes a resource.
   * `source` names the caller in messages and in token entries' resource names.
   */
  addEntries(list: PolicyListName, entries: readonly AddedPolicyEntry[], source = 'added'): void {
    if (!POLICY_LIST_NAMES.includes(list)) throw this.propError('addEntries(list)', list, `expected one of ${POLICY_LIST_NAMES.join(', ')}`);
    const state = this.lists.get(list) ?? this.declareList(list, {});
    entries.forEach((entry, index) => {
      const checked = checkPropEntry(entry, { constructPath: this.node.path, field: `${source}[${index}]` });
      this.addChecked(list, state, checked, () => entry.name ?? this.nextTokenName(state, source));
    });
    if (state.wholeList !== undefined) state.wholeList.entries = this.entriesMap(state, list);
  }

  /**
   * Adds entries whose addresses Terraform knows only at plan time, as a map expression from
   * address to description (e.g. a for expression over NAT gateway data sources). A whole list
   * merges it into its `entries` map; a per-entry list declares one resource with `for_each`
   * over it, named `<list>_<source>`, its instances keyed by address
   * (`svc_whitelist_entry.whitelist_control_plane_egress_vpc["203.0.113.5"]`). Not checked at
   * synth: the provider checks the addresses at plan. Takes a token: a local's `asAnyMap`,
   * `Token.asAnyMap(...)` or an IResolvable; literal entries go to addEntries (checked and named
   * by address).
   */
  addEntryMap(list: PolicyListName, entries: EntryMapToken, source: string): void {
    if (!POLICY_LIST_NAMES.includes(list)) throw this.propError('addEntryMap(list)', list, `expected one of ${POLICY_LIST_NAMES.join(', ')}`);
    if (!Token.isUnresolved(entries)) {
      throw this.propError('addEntryMap(entries)', entries, 'is a literal map; give literal entries to addEntries (checked at synth and named by address), and to addEntryMap only a map Terraform computes (a local\'s asAnyMap, a for expression)');
    }
    const state = this.lists.get(list) ?? this.declareList(list, {});
    if (state.entryMapSources.has(source)) {
      throw this.propError('addEntryMap(source)', source, `was already used for the ${list}; give each call its own source (it names the resources)`);
    }
    state.entryMapSources.add(source);
    state.entryMaps.push(entries);
    if (state.wholeList !== undefined) {
      state.wholeList.entries = this.entriesMap(state, list);
      return;
    }
    const iterator = TerraformIterator.fromMap(entries as unknown as { [key: string]: string });
    const name = `${this.namePrefix}${list}_${nameFragment(source)}`;
    const Entry = ENTRY_CLASSES[list];
    const resource = new Entry(this, name, {
      forEach: iterator,
      ip: Token.asString(iterator.key),
      description: Token.asString(iterator.value),
      ...this.commonConfig(),
    });
    this.claimName(resource, name);
    state.entryResources.set(name, resource);
  }

  /** The SAML service-provider URLs of a channel declared in channelSso, for an identity-provider resource or an output. */
  channelServiceProvider(name: string): ChannelServiceProvider {
    const resource = this.channelSso.get(name);
    if (resource === undefined) {
      const known = [...this.channelSso.keys()];
      throw this.propError('channelServiceProvider(name)', name, `is not in channelSso (${known.length === 0 ? 'none declared' : known.map((item) => JSON.stringify(item)).join(', ')}); declare the channel's SSO first`);
    }
    return { entityId: resource.spEntityId, acsUrl: resource.spAcsUrl, metadataUrl: resource.spMetadataUrl };
  }

  /**
   * Acknowledges a policy rule (`SVC-POLICY-<n>`) for this policy: its findings are reported as
   * info annotations carrying `reason` instead of warnings or errors, so the decision shows in
   * every synth. The reason is required: say why the finding is acceptable, and who decided.
   */
  acknowledge(ruleId: string, reason: string): void {
    const known = POLICY_RULES.map((rule) => rule.id);
    if (typeof ruleId !== 'string' || !known.includes(ruleId)) {
      throw this.propError('acknowledge(ruleId)', ruleId, `is not a policy rule; expected one of ${known.join(', ')}`);
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw this.propError('acknowledge(reason)', reason, `is empty; say why the ${ruleId} findings are acceptable (it is shown in every synth)`);
    }
    const earlier = this.acknowledgements.get(ruleId);
    if (earlier !== undefined) {
      throw this.propError('acknowledge(ruleId)', ruleId, `is already acknowledged (${JSON.stringify(earlier)}); give one reason per rule`);
    }
    this.acknowledgements.set(ruleId, reason.trim());
  }

  /** The checked entries of a list, in the order declared (inline, files, added). */
  entries(list: PolicyListName): readonly CheckedEntry[] {
    return this.lists.get(list)?.entries ?? [];
  }

  /** The per-entry resources of a list by Terraform name (empty for a whole-list list). */
  entryResources(list: PolicyListName): ReadonlyMap<string, PolicyEntryResource> {
    return this.lists.get(list)?.entryResources ?? new Map();
  }

  /** The whole-list resource of a list, when it has one. */
  wholeListResource(list: PolicyListName): PolicyWholeListResource | undefined {
    return this.lists.get(list)?.wholeList;
  }

  /** How a list is declared: 'per-entry', 'whole-list', or undefined when it is not. */
  listResources(list: PolicyListName): PolicyListResources | undefined {
    return this.lists.get(list)?.resources;
  }

  /**
   * Props TypeScript cannot check (a props object built elsewhere, JavaScript callers): an unknown
   * key is usually a typo (`file` for `files`), and silently dropping it would declare an empty
   * list, which an authoritative whole list applies by deleting every entry.
   */
  private checkPropsShape(props: SecurityPolicyProps): void {
    if (typeof props !== 'object' || props === null) throw this.propError('props', props, 'expected an object of SecurityPolicy props');
    for (const key of Object.keys(props)) {
      if (!SECURITY_POLICY_PROPS.includes(key)) throw this.propError(key, '(unknown prop)', `is not a SecurityPolicy prop; expected one of ${SECURITY_POLICY_PROPS.join(', ')}`);
    }
    // Another provider (e.g. the stack's aws one) would give svc resources a provider terraform refuses only at init.
    if (props.provider !== undefined && !(props.provider instanceof TerraformProvider && props.provider.terraformResourceType === SvcProvider.tfResourceType)) {
      const given = props.provider instanceof TerraformProvider ? `the ${props.provider.terraformResourceType} provider ${props.provider.node.path}` : typeof props.provider;
      throw this.propError('provider', given, 'is not an svc provider; pass the stack\'s SvcProvider (from svc-prevent/provider), or leave provider out to use the default one');
    }
    for (const list of POLICY_LIST_NAMES) {
      const listProps: unknown = props[list];
      if (listProps === undefined) continue;
      if (typeof listProps !== 'object' || listProps === null || Array.isArray(listProps)) {
        throw this.propError(list, listProps, 'expected { resources?, mode?, entries?, files? }');
      }
      for (const [key, value] of Object.entries(listProps)) {
        if (!POLICY_LIST_PROPS.includes(key)) throw this.propError(`${list}.${key}`, value, `is not a list prop; expected ${POLICY_LIST_PROPS.join(', ')}`);
      }
      const { entries, files } = listProps as { entries?: unknown; files?: unknown };
      if (entries !== undefined && !Array.isArray(entries)) throw this.propError(`${list}.entries`, entries, 'expected a list of { ip, description? }, e.g. [{ ip: \'203.0.113.9\' }]');
      if (files !== undefined) {
        if (!Array.isArray(files)) throw this.propError(`${list}.files`, files, 'expected a list of entry-file paths, e.g. [\'policy/blacklist.yaml\']');
        files.forEach((file: unknown, index) => {
          if (typeof file !== 'string' || file === '') throw this.propError(`${list}.files[${index}]`, file, 'expected the path of a .yaml, .yml or .json entry file');
        });
      }
    }
    if (props.channelSso !== undefined && !Array.isArray(props.channelSso)) {
      throw this.propError('channelSso', props.channelSso, 'expected a list of { name, enabled, required?, samlMetadataUrl? }');
    }
  }

  private declareList(list: PolicyListName, listProps: PolicyListProps): ListState {
    const resources = listProps.resources ?? 'per-entry';
    if (!POLICY_LIST_RESOURCES.includes(resources)) {
      throw this.propError(`${list}.resources`, resources, `expected ${POLICY_LIST_RESOURCES.map((item) => JSON.stringify(item)).join(' or ')}`);
    }
    const mode = listProps.mode;
    if (mode !== undefined && !Token.isUnresolved(mode)) {
      if (!POLICY_LIST_MODES.includes(mode)) throw this.propError(`${list}.mode`, mode, `expected ${POLICY_LIST_MODES.map((item) => JSON.stringify(item)).join(' or ')}`);
      if (resources !== 'whole-list') {
        throw this.propError(`${list}.mode`, mode, 'applies to whole-list resources only; add resources: \'whole-list\' or remove mode (a per-entry resource owns its one entry)');
      }
    }
    const state: ListState = {
      resources,
      mode,
      entries: [],
      byCanonical: new Map(),
      entryResources: new Map(),
      tokenCounts: new Map(),
      entryMaps: [],
      entryMapSources: new Set(),
      declaredEntries: undefined,
      wholeList: undefined,
    };
    this.lists.set(list, state);

    (listProps.entries ?? []).forEach((entry, index) => {
      const checked = checkPropEntry(entry, { constructPath: this.node.path, field: `${list}.entries[${index}]` });
      this.addChecked(list, state, checked, () => this.nextTokenName(state, 'entries'));
    });
    for (const file of listProps.files ?? []) {
      for (const checked of loadPolicyEntryFile(file)) this.addChecked(list, state, checked, () => 'file');
    }

    if (resources === 'whole-list') {
      const WholeList = WHOLE_LIST_CLASSES[list];
      state.wholeList = new WholeList(this, list, {
        entries: this.entriesMap(state, list),
        ...(mode === undefined ? {} : { mode }),
        ...this.commonConfig(),
      });
      this.claimName(state.wholeList, `${this.namePrefix}${list}`);
    }
    return state;
  }

  /** Records an entry (duplicates refused) and, on a per-entry list, declares its resource. */
  private addChecked(list: PolicyListName, state: ListState, entry: CheckedEntry, tokenName: () => string): void {
    if (entry.canonical !== undefined) {
      const earlier = state.byCanonical.get(entry.canonical);
      if (earlier !== undefined) throw duplicateEntryError(list, earlier, entry);
      state.byCanonical.set(entry.canonical, entry);
    }
    state.entries.push(entry);
    if (state.resources !== 'per-entry') return;

    const name =
      entry.canonical !== undefined
        ? entryResourceName(list, entry.canonical, this.namePrefix)
        : `${this.namePrefix}${list}_${nameFragment(tokenName())}`;
    const clash = state.entryResources.get(name);
    if (clash !== undefined) {
      throw new SecurityPolicyPropError({
        code: 'policy_resource_name_clash',
        constructPath: this.node.path,
        prop: `${entry.source.field}.ip`,
        value: entry.ip,
        message: `would be named ${name}, which another entry of the ${list} already has (${clash.ipInput}); give a token entry its own name, or use resources: 'whole-list' for this list`,
      });
    }
    const Entry = ENTRY_CLASSES[list];
    const resource = new Entry(this, name, {
      // The canonical spelling, so a respelled file line (10.0.0.1/32) changes nothing.
      ip: entry.canonical ?? entry.ip,
      ...(entry.description === undefined ? {} : { description: terraformText(entry.description) }),
      ...this.commonConfig(),
    });
    this.claimName(resource, name);
    state.entryResources.set(name, resource);
  }

  /**
   * The whole-list `entries` map: canonical address (or token) to description. With maps from
   * addEntryMap it becomes `merge(local.<list>_entries, ...)`: the declared entries go in a
   * local, because cdktf writes a map inside a function call as HCL text, where it can neither
   * quote a description nor write a token as a key; in JSON (a local's value) it can.
   */
  private entriesMap(state: ListState, list: PolicyListName): { [ip: string]: string } {
    const map: { [ip: string]: string } = {};
    for (const entry of state.entries) map[entry.canonical ?? entry.ip] = terraformText(entry.description ?? '');
    if (state.entryMaps.length === 0) return map;
    if (state.declaredEntries === undefined) {
      state.declaredEntries = new TerraformLocal(this, `${list}-entries`, map);
      state.declaredEntries.overrideLogicalId(`${this.namePrefix}${list}_entries`);
    } else {
      state.declaredEntries.expression = map;
    }
    return Token.asStringMap(Fn.merge([state.declaredEntries.asAnyMap, ...state.entryMaps]));
  }

  private nextTokenName(state: ListState, source: string): string {
    const count = state.tokenCounts.get(source) ?? 0;
    state.tokenCounts.set(source, count + 1);
    return `${source}_${count}`;
  }

  /**
   * The provider meta-argument only for an aliased provider: a default one is what terraform uses
   * anyway, and naming it renders as `provider = "svc"` in `cdktf synth --hcl`, which terraform
   * warns is a deprecated quoted reference.
   */
  private providerConfig(): { provider?: SecurityPolicyProps['provider'] } {
    const provider = this.props.provider;
    return provider === undefined || (provider as TerraformProvider).alias === undefined ? {} : { provider };
  }

  private commonConfig(): { provider?: SecurityPolicyProps['provider']; tenant?: string } {
    return {
      ...this.providerConfig(),
      ...(this.props.tenant === undefined ? {} : { tenant: this.props.tenant }),
    };
  }

  private ssoConfig(settings: SsoSettings) {
    return {
      name: settings.name,
      enabled: settings.enabled,
      ...(settings.required === undefined ? {} : { required: settings.required }),
      ...(settings.samlMetadataUrl === undefined ? {} : { samlMetadataUrl: settings.samlMetadataUrl }),
      ...(settings.signInTestedElsewhere === undefined ? {} : { signInTestedElsewhere: settings.signInTestedElsewhere }),
      ...this.providerConfig(),
    };
  }

  private checkSso(prop: string, settings: SsoSettings): void {
    if (typeof settings !== 'object' || settings === null) throw this.propError(prop, settings, 'expected { name, enabled, required?, samlMetadataUrl? }');
    if (typeof settings.name !== 'string') throw this.propError(`${prop}.name`, settings.name, 'expected the tenant or channel name');
    // A string 'true' would pass to terraform, and skip the rules below that compare with true.
    for (const flag of ['enabled', 'required', 'signInTestedElsewhere'] as const) {
      const value: unknown = settings[flag];
      if (value !== undefined && typeof value !== 'boolean' && !Token.isUnresolved(value)) {
        throw this.propError(`${prop}.${flag}`, value, `expected true or false${flag === 'enabled' ? '' : ', or leave it out'}`);
      }
    }
    if (settings.enabled === undefined) throw this.propError(`${prop}.enabled`, undefined, 'is missing; give true or false');
    const problem = ssoSettingsProblem(settings, (value) => Token.isUnresolved(value));
    if (problem !== undefined) throw this.propError(`${prop}.${problem.field}`, problem.value, problem.message);
  }

  /** The literal addresses of the ownInfrastructure prop, checked (a malformed one is a prop error). */
  private ownInfrastructure(props: SecurityPolicyProps): InfrastructureAddress[] {
    const own: unknown = props.ownInfrastructure;
    if (own === undefined) return [];
    if (typeof own !== 'object' || own === null || Array.isArray(own)) {
      throw this.propError('ownInfrastructure', own, 'expected { egressAddresses?, sensorCidrs?, vpcCidr? }');
    }
    for (const key of Object.keys(own)) {
      if (!['egressAddresses', 'sensorCidrs', 'vpcCidr'].includes(key)) {
        throw this.propError(`ownInfrastructure.${key}`, '(unknown prop)', 'is not an ownInfrastructure prop; expected egressAddresses, sensorCidrs or vpcCidr');
      }
    }
    return ownInfrastructureValues(props.ownInfrastructure!).map(({ field, value }) => {
      if (typeof value !== 'string') throw this.propError(field, value, 'expected a string: an IPv4/IPv6 address or CIDR range');
      const checked = checkAddress(value);
      if (!checked.ok) throw this.propError(field, value, addressProblem(checked.error.reason));
      return { parsed: parseAddress(checked.canonical), what: field };
    });
  }

  /** Sets the Terraform name and refuses one another SecurityPolicy of this stack already declared. */
  private claimName(resource: TerraformResource, name: string): void {
    resource.overrideLogicalId(name);
    const stack = TerraformStack.of(this);
    let claimed = addressesByStack.get(stack);
    if (claimed === undefined) {
      claimed = new Map();
      addressesByStack.set(stack, claimed);
    }
    const address = `${resource.terraformResourceType}.${name}`;
    const owner = claimed.get(address);
    if (owner !== undefined) {
      const fix = owner === this.node.path ? 'give the entries or sources distinct names' : "give each SecurityPolicy of one stack its own namePrefix (e.g. 'globex_')";
      throw new SecurityPolicyPropError({
        code: 'policy_resource_name_clash',
        constructPath: this.node.path,
        prop: 'namePrefix',
        value: this.namePrefix,
        message: `${address} is already declared by ${owner} in this stack; ${fix}`,
      });
    }
    claimed.set(address, this.node.path);
  }

  private propError(prop: string, value: unknown, message: string): SecurityPolicyPropError {
    return new SecurityPolicyPropError({ constructPath: this.node.path, prop, value, message });
  }
}
