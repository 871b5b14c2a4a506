/**
 * The emulator's state: tenants (customers) with their three lists, audit log and risk-block
 * counts; channels; users. Every rule about list contents lives here (canonical addresses,
 * upsert, all-or-nothing bulk, blocklist expiry, risk-based promotion), so the HTTP routes only
 * translate requests and replies.
 */
import { randomUUID } from 'node:crypto';
import { checkAddress, parseAddress } from '../address';
import { contains } from '../address-ranges';
import { AUDIT_CATEGORIES, AuditLog } from './audit';
import { ApiCommandError, describeValue } from './errors';
import {
  BLOCKLIST_DURATION_SECONDS,
  BLOCKS_BEFORE_BLACKLIST,
  LIST_NAMES,
  capitalise,
  type AuditEvent,
  type Channel,
  type Customer,
  type DenyListName,
  type ListEntryFields,
  type ListName,
  type Stored,
  type StoredEntry,
  type User,
} from './model';
import { hashSecret } from './hashing';
import { customerFromSeed, type EmulatorSeed } from './seed';
import { copySso } from './sso';

/** What a list command returns for one entry; blocklist entries also say when they stop. */
/** An entry as the emulator lists it: the contract's fields (src/api/types.ts). */
export type EntryView = Stored<ListEntryFields>;

export interface RiskBlockResult {
  list: DenyListName | 'none';
  blocks: number;
}

/** The user name risk-based blocking records in the audit log: the platform, not a person. */
export const RISK_BLOCKING_ACTOR = 'risk-based-blocking';

export class TenantState {
  readonly lists: Record<ListName, Map<string, StoredEntry>> = {
    blacklist: new Map(),
    blocklist: new Map(),
    whitelist: new Map(),
  };
  readonly riskBlocks = new Map<string, number>();

  constructor(
    public customer: Customer,
    readonly audit: AuditLog = new AuditLog(),
  ) {}
}

/** The state file's body; see persistence.ts for the envelope. */
export interface StoreSnapshot {
  tenants: Array<{
    customer: Customer;
    lists: Record<ListName, StoredEntry[]>;
    audit: AuditEvent[];
    riskBlocks: Record<string, number>;
  }>;
  channels: Channel[];
  users: User[];
}

/** The ip of request field `field` in canonical form, or the contract's error naming the value. */
export function canonicalOrError(value: unknown, field = 'ip'): string {
  if (value === undefined) throw new ApiCommandError(`Missing field: ${field} (an IP address or CIDR)`);
  if (typeof value !== 'string') {
    throw new ApiCommandError(`Invalid IP address or CIDR: ${describeValue(value)}`);
  }
  const checked = checkAddress(value);
  if (!checked.ok) throw new ApiCommandError(`Invalid IP address or CIDR: ${value}`);
  return checked.canonical;
}

interface NewEntryInput {
  ip: string;
  description: string;
  created: number | undefined;
}

/** Checks one entry object of `new_`/`bulk_new_`; `where` names it in messages. */
export function parseEntry(value: unknown, where: string): NewEntryInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiCommandError(
      `${where} must be an object {"ip", "description", "created"}, got ${describeValue(value)}`,
    );
  }
  const record = value as Record<string, unknown>;
  const ip = canonicalOrError(record.ip, `${where}.ip`);
  const description = record.description ?? '';
  if (typeof description !== 'string') {
    throw new ApiCommandError(`${where}.description must be a string, got ${describeValue(description)}`);
  }
  const created = record.created;
  if (created !== undefined && (typeof created !== 'number' || !Number.isFinite(created))) {
    throw new ApiCommandError(`${where}.created must be a number (epoch seconds), got ${describeValue(created)}`);
  }
  return { ip, description, created };
}

export class EmulatorStore {
  readonly tenants = new Map<string, TenantState>();
  readonly channels = new Map<string, Channel>();
  /** Users by the hash of their API key. */
  readonly usersByKeyHash = new Map<string, User>();

  /** Adds what the seed has and the store lacks (by tenant/channel name, user API key or email). */
  applySeed(seed: EmulatorSeed): void {
    for (const tenant of seed.tenants ?? []) {
      if (this.tenants.has(tenant.name)) continue;
      const customer = customerFromSeed(tenant, randomUUID());
      customer.sso = copySso(customer.sso);
      this.tenants.set(tenant.name, new TenantState(customer));
    }
    for (const channel of seed.channels ?? []) {
      if (this.channels.has(channel.name)) continue;
      this.channels.set(channel.name, {
        name: channel.name,
        require_totp_setup: channel.require_totp_setup ?? false,
        uuid: channel.uuid ?? randomUUID(),
        sso: copySso(channel.sso ?? null),
      });
    }
    for (const user of seed.users ?? []) {
      const apiKeyHash = hashSecret(user.apiKey);
      // Tokens name their user by email, so a second user with a saved user's email is skipped.
      if (this.usersByKeyHash.has(apiKeyHash) || this.userByEmail(user.email)) continue;
      this.usersByKeyHash.set(apiKeyHash, {
        email: user.email,
        apiKeyHash,
        active: user.active ?? true,
        readOnly: user.readOnly ?? false,
      });
    }
  }

  userByApiKey(apiKey: string): User | undefined {
    return this.usersByKeyHash.get(hashSecret(apiKey));
  }

  userByEmail(email: string): User | undefined {
    for (const user of this.usersByKeyHash.values()) if (user.email === email) return user;
    return undefined;
  }

  tenant(name: unknown): TenantState {
    if (typeof name !== 'string' || name === '') {
      throw new ApiCommandError(`Missing field: customer_name (the tenant name), got ${describeValue(name)}`);
    }
    const tenant = this.tenants.get(name);
    // Deliberately not "not found": clients read that wording as "entry absent".
    if (!tenant) throw new ApiCommandError(`Unknown customer: ${name}. Check customer_name against the customers list`);
    return tenant;
  }

  /** Blocklist entries end 30 minutes after the server added them; drop those that ended. */
  expireBlocklist(tenant: TenantState, now: number): void {
    for (const [ip, entry] of tenant.lists.blocklist) {
      if (now >= entry.addedAt + BLOCKLIST_DURATION_SECONDS) tenant.lists.blocklist.delete(ip);
    }
  }

  view(list: ListName, entry: StoredEntry): EntryView {
    const view: EntryView = { ip: entry.ip, description: entry.description, created: entry.created };
    if (list === 'blocklist') view.expires = entry.addedAt + BLOCKLIST_DURATION_SECONDS;
    return view;
  }

  listEntries(tenant: TenantState, list: ListName, now: number): EntryView[] {
    this.expireBlocklist(tenant, now);
    return [...tenant.lists[list].values()].map((entry) => this.view(list, entry));
  }

  getEntry(tenant: TenantState, list: ListName, ipValue: unknown, now: number): EntryView {
    this.expireBlocklist(tenant, now);
    const ip = canonicalOrError(ipValue, 'ip');
    const entry = tenant.lists[list].get(ip);
    if (!entry) throw new ApiCommandError(`${capitalise(list)} entry for ip ${ip} not found`);
    return this.view(list, entry);
  }

  /** Upsert: an ip already listed keeps its place and creation time, and takes the new description. */
  addEntries(tenant: TenantState, list: ListName, entries: NewEntryInput[], user: string, now: number): void {
    this.expireBlocklist(tenant, now);
    for (const input of entries) {
      const existing = tenant.lists[list].get(input.ip);
      if (existing) {
        existing.description = input.description;
      } else {
        tenant.lists[list].set(input.ip, {
          ip: input.ip,
          description: input.description,
          created: input.created ?? now,
          addedAt: now,
        });
      }
      tenant.audit.record({
        timestamp: now,
        user,
        category: AUDIT_CATEGORIES.lists,
        action: 'new_entry',
        description: `${input.ip} added to ${list}`,
      });
    }
  }

  /** Removes listed ips and returns how many were present. */
  removeEntries(tenant: TenantState, list: ListName, ips: string[], user: string, now: number): number {
    this.expireBlocklist(tenant, now);
    let removed = 0;
    for (const ip of ips) {
      if (!tenant.lists[list].delete(ip)) continue;
      removed += 1;
      tenant.audit.record({
        timestamp: now,
        user,
        category: AUDIT_CATEGORIES.lists,
        action: 'remove_entry',
        description: `${ip} removed from ${list}`,
      });
    }
    return removed;
  }

  /**
   * The platform's risk-based blocking: a whitelisted address (or one inside a whitelisted
   * range) is never blocked; otherwise each block counts, the first two put the address on the
   * blocklist for 30 minutes, and from the third on it goes to the blacklist to stay.
   */
  riskBlock(tenantName: string, ipValue: string, now: number): RiskBlockResult {
    const tenant = this.tenant(tenantName);
    const parsed = parseAddress(ipValue);
    if (parsed.isRange) throw new ApiCommandError(`risk-block needs a single address, got the range ${parsed.canonical}`);
    const ip = parsed.canonical;
    this.expireBlocklist(tenant, now);
    const blocks = tenant.riskBlocks.get(ip) ?? 0;
    for (const range of tenant.lists.whitelist.keys()) {
      if (contains(parseAddress(range), parsed)) return { list: 'none', blocks };
    }
    if (tenant.lists.blacklist.has(ip)) return { list: 'blacklist', blocks };

    const count = blocks + 1;
    tenant.riskBlocks.set(ip, count);
    const entry = (description: string): StoredEntry => ({ ip, description, created: now, addedAt: now });
    if (count >= BLOCKS_BEFORE_BLACKLIST) {
      tenant.lists.blocklist.delete(ip);
      tenant.lists.blacklist.set(ip, entry(`Risk-based blocking: blocked ${count} times`));
      tenant.audit.record({
        timestamp: now,
        user: RISK_BLOCKING_ACTOR,
        category: AUDIT_CATEGORIES.userActions,
        action: 'blacklist_entity',
        description: `${ip} moved to blacklist by risk-based blocking (block ${count})`,
      });
      return { list: 'blacklist', blocks: count };
    }
    tenant.lists.blocklist.set(ip, entry(`Risk-based blocking: block ${count} of ${BLOCKS_BEFORE_BLACKLIST - 1} before blacklist`));
    tenant.audit.record({
      timestamp: now,
      user: RISK_BLOCKING_ACTOR,
      category: AUDIT_CATEGORIES.userActions,
      action: 'block_entity',
      description: `${ip} added to blocklist by risk-based blocking (block ${count})`,
    });
    return { list: 'blocklist', blocks: count };
  }

  snapshot(): StoreSnapshot {
    return {
      tenants: [...this.tenants.values()].map((tenant) => ({
        customer: { ...tenant.customer, sso: copySso(tenant.customer.sso) },
        lists: Object.fromEntries(
          LIST_NAMES.map((list) => [list, [...tenant.lists[list].values()].map((entry) => ({ ...entry }))]),
        ) as Record<ListName, StoredEntry[]>,
        audit: tenant.audit.all(),
        riskBlocks: Object.fromEntries(tenant.riskBlocks),
      })),
      channels: [...this.channels.values()].map((channel) => ({ ...channel, sso: copySso(channel.sso) })),
      users: [...this.usersByKeyHash.values()].map((user) => ({ ...user })),
    };
  }

  static fromSnapshot(snapshot: StoreSnapshot): EmulatorStore {
    const store = new EmulatorStore();
    for (const saved of snapshot.tenants) {
      const tenant = new TenantState(saved.customer, new AuditLog(saved.audit));
      for (const list of LIST_NAMES) {
        for (const entry of saved.lists[list] ?? []) tenant.lists[list].set(entry.ip, entry);
      }
      for (const [ip, count] of Object.entries(saved.riskBlocks ?? {})) tenant.riskBlocks.set(ip, count);
      store.tenants.set(saved.customer.name, tenant);
    }
    for (const channel of snapshot.channels) store.channels.set(channel.name, channel);
    for (const user of snapshot.users) store.usersByKeyHash.set(user.apiKeyHash, user);
    return store;
  }
}
