/**
 * Shapes of the management API as the contract (shared/api-contract.md) fixes them: the one
 * declaration the client and the emulator (src/emulator/model.ts) share. As the client reads
 * them, objects the service owns (customers, channels) keep unknown fields, because an update
 * must copy the listed object exactly; the `...Fields` interfaces are the fields the contract
 * names, which the emulator stores.
 */

/** The service's lists: two that deny an address, one that allows it. */
export const LIST_NAMES = ['blacklist', 'blocklist', 'whitelist'] as const;
/** One of {@link LIST_NAMES}. */
export type ListName = (typeof LIST_NAMES)[number];
/** True for the name of one of the service's lists. */
export function isListName(value: unknown): value is ListName {
  return typeof value === 'string' && (LIST_NAMES as readonly string[]).includes(value);
}
/** The lists that deny an address; the whitelist is the one that allows. */
export const DENY_LIST_NAMES = ['blacklist', 'blocklist'] as const satisfies readonly ListName[];
/** One of {@link DENY_LIST_NAMES}. */
export type DenyListName = (typeof DENY_LIST_NAMES)[number];

/** The path of the API an area's commands go to: `{baseUrl}/svc_api/v2/<area>`. */
export type ApiArea = 'login' | 'logs' | 'lists' | 'customers' | 'channels';

/** The fields of a list entry the contract names. */
export interface ListEntryFields {
  readonly ip: string;
  readonly description: string;
  /** Epoch seconds the client sent when adding it. */
  readonly created: number;
  /** Blocklist only: epoch seconds the block ends. */
  readonly expires?: number;
}

/** One entry as the service lists it. */
export interface ListEntry extends ListEntryFields {
  readonly [field: string]: unknown;
}

/** What a caller gives to add an entry; `created` defaults to now. */
export interface NewListEntry {
  readonly ip: string;
  readonly description?: string;
  readonly created?: number;
}

/** A tenant's or a channel's SAML single sign-on; `null` in its place means SSO off. */
export interface SsoSettings {
  readonly enabled: boolean;
  readonly required: boolean;
  readonly saml_metadata_url: string;
}

/** The fields of a customer (tenant) the contract names. */
export interface CustomerFields {
  readonly name: string;
  readonly contact_email: string;
  readonly description: string;
  readonly active: boolean;
  readonly autoblock_threshold: number;
  readonly autoblock_timeout: number;
  readonly block_embargo: number;
  readonly ssl_ciphers: string;
  readonly notify_threshold: number;
  readonly sso: SsoSettings | null;
  readonly allow_super_admin_users: boolean;
  readonly allow_channel_admin_users: boolean;
  readonly tenant_admin_default: boolean;
  readonly uuid: string;
}

/** A customer as the service lists it: the contract's fields and any it adds. */
export interface Customer extends CustomerFields {
  readonly [field: string]: unknown;
}

/** The fields of a channel the contract names. */
export interface ChannelFields {
  readonly name: string;
  readonly require_totp_setup: boolean;
  readonly uuid: string;
  readonly sso: SsoSettings | null;
}

/** A channel as the service lists it: the contract's fields and any it adds. */
export interface Channel extends ChannelFields {
  readonly [field: string]: unknown;
}

/** The fields of an audit event the contract names. */
export interface AuditEventFields {
  readonly timestamp: number;
  readonly user: string;
  readonly category: string;
  readonly action: string;
  readonly description: string;
}

/** An audit event as the service lists it. */
export interface AuditEvent extends AuditEventFields {
  readonly [field: string]: unknown;
}

/** Progress of a bulk call, reported after each chunk the service accepted. */
export interface BulkProgress {
  readonly command: string;
  readonly chunk: number;
  readonly chunks: number;
  readonly done: number;
  readonly total: number;
}

/** What a bulk call did: how many items, in how many calls, and the service's reply to each call. */
export interface BulkResult {
  /** Distinct canonical addresses sent. */
  readonly count: number;
  readonly chunks: number;
  /** The service's reply text per chunk. */
  readonly messages: readonly string[];
}
