/**
 * Shapes the emulator stores and returns. The contract's shapes are declared once, in
 * src/api/types.ts (the wire contract the client reads too); the emulator stores exactly the
 * fields the contract names, writable, and adds its own (users, entries with the server's clock).
 */
import type { AuditEventFields, ChannelFields, CustomerFields, SsoSettings as ContractSsoSettings, ListName } from '../api/types';
export type { DenyListName, ListEntryFields } from '../api/types';

export { LIST_NAMES, type ListName } from '../api/types';

/** A contract shape as the emulator's store holds it: the same fields, writable. */
export type Stored<Shape> = { -readonly [Field in keyof Shape]: Shape[Field] };

/** Blocklist entries stop blocking this long after the server added them. */
export const BLOCKLIST_DURATION_SECONDS = 30 * 60;
/** The third risk-based block moves an address to the blacklist. */
export const BLOCKS_BEFORE_BLACKLIST = 3;
export const MAX_BULK_ENTRIES = 1000;

export type SsoSettings = Stored<ContractSsoSettings>;
export type Customer = Stored<CustomerFields>;

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

export type Channel = Stored<ChannelFields>;

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

export type AuditEvent = Stored<AuditEventFields>;

export function capitalise(list: ListName): string {
  return list.charAt(0).toUpperCase() + list.slice(1);
}
