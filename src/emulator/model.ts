/** Shapes the emulator stores and returns; field names follow the API contract exactly. */

export const LIST_NAMES = ['blacklist', 'blocklist', 'whitelist'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** Blocklist entries stop blocking this long after the server added them. */
export const BLOCKLIST_DURATION_SECONDS = 30 * 60;
/** The third risk-based block moves an address to the blacklist. */
export const BLOCKS_BEFORE_BLACKLIST = 3;
export const MAX_BULK_ENTRIES = 1000;

export interface SsoSettings {
  enabled: boolean;
  required: boolean;
  saml_metadata_url: string;
}

export interface Customer {
  name: string;
  contact_email: string;
  description: string;
  active: boolean;
  autoblock_threshold: number;
  autoblock_timeout: number;
  block_embargo: number;
  ssl_ciphers: string;
  notify_threshold: number;
  sso: SsoSettings | null;
  allow_super_admin_users: boolean;
  allow_channel_admin_users: boolean;
  tenant_admin_default: boolean;
  uuid: string;
}

/** Customer fields other than `name` and `uuid`, with the defaults a seed may leave out. */
export const CUSTOMER_DEFAULTS: Omit<Customer, 'name' | 'uuid'> = {
  contact_email: '',
  description: '',
  active: true,
  autoblock_threshold: 10,
  autoblock_timeout: 1800,
  block_embargo: 0,
  ssl_ciphers: '',
  notify_threshold: 5,
  sso: null,
  allow_super_admin_users: true,
  allow_channel_admin_users: true,
  tenant_admin_default: false,
};

export interface Channel {
  name: string;
  require_totp_setup: boolean;
  uuid: string;
  sso: SsoSettings | null;
}

export interface User {
  /** Also the login name: unique among users. */
  email: string;
  /** SHA-256 of the API key (see hashing.ts); the key itself is never stored. */
  apiKeyHash: string;
  active: boolean;
  readOnly: boolean;
}

/** A list entry as stored: `addedAt` is the server's clock, which drives blocklist expiry. */
export interface StoredEntry {
  ip: string;
  description: string;
  created: number;
  addedAt: number;
}

export interface AuditEvent {
  timestamp: number;
  user: string;
  category: string;
  action: string;
  description: string;
}

export function capitalise(list: ListName): string {
  return list.charAt(0).toUpperCase() + list.slice(1);
}
