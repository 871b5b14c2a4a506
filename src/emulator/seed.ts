/**
 * The seed: tenants, channels and users the emulator starts with, from a `--config` JSON file,
 * the quick flags `--tenant NAME --api-key KEY`, or the library option. Validated strictly so
 * a typo in a config file is an error naming the field, not a silently ignored setting.
 */
import { EmulatorConfigError, describeValue } from './errors';
import { CUSTOMER_DEFAULTS, type Customer, type SsoSettings } from './model';
import { ssoProblem } from './sso';

export type SeedTenant = { name: string; uuid?: string } & Partial<Omit<Customer, 'name' | 'uuid'>>;

export interface SeedChannel {
  name: string;
  require_totp_setup?: boolean;
  sso?: SsoSettings | null;
  uuid?: string;
}

export interface SeedUser {
  email: string;
  apiKey: string;
  active?: boolean;
  readOnly?: boolean;
}

export interface EmulatorSeed {
  tenants?: SeedTenant[];
  channels?: SeedChannel[];
  users?: SeedUser[];
}

type FieldKind = 'string' | 'number' | 'boolean' | 'sso';

const TENANT_FIELDS: Record<string, FieldKind> = {
  name: 'string',
  uuid: 'string',
  contact_email: 'string',
  description: 'string',
  active: 'boolean',
  autoblock_threshold: 'number',
  autoblock_timeout: 'number',
  block_embargo: 'number',
  ssl_ciphers: 'string',
  notify_threshold: 'number',
  sso: 'sso',
  allow_super_admin_users: 'boolean',
  allow_channel_admin_users: 'boolean',
  tenant_admin_default: 'boolean',
};
const CHANNEL_FIELDS: Record<string, FieldKind> = {
  name: 'string',
  uuid: 'string',
  require_totp_setup: 'boolean',
  sso: 'sso',
};
const USER_FIELDS: Record<string, FieldKind> = {
  email: 'string',
  apiKey: 'string',
  active: 'boolean',
  readOnly: 'boolean',
};
const REQUIRED: Record<string, string[]> = {
  tenants: ['name'],
  channels: ['name'],
  users: ['email', 'apiKey'],
};

function checkRecord(value: unknown, path: string, fields: Record<string, FieldKind>, required: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EmulatorConfigError(`${path} must be an object, got ${describeValue(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const kind = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (kind === undefined) {
      throw new EmulatorConfigError(
        `${path} has unknown field "${key}"; allowed fields are ${Object.keys(fields).join(', ')}`,
      );
    }
    const field = record[key];
    if (kind === 'sso') {
      const problem = ssoProblem(field, `${path}.sso`);
      if (problem) throw new EmulatorConfigError(problem);
    } else if (kind === 'number' ? typeof field !== 'number' || !Number.isFinite(field) : typeof field !== kind) {
      // API keys are secrets: name the field, never echo its value.
      const shown = key === 'apiKey' ? `a ${typeof field}` : describeValue(field);
      throw new EmulatorConfigError(`${path}.${key} must be a ${kind}, got ${shown}`);
    }
  }
  for (const key of required) {
    if (typeof record[key] !== 'string' || record[key] === '') {
      throw new EmulatorConfigError(`${path}.${key} is required (a non-empty string)`);
    }
  }
}

/** Checks an untrusted seed (parsed JSON) and returns it typed; throws EmulatorConfigError. */
export function validateSeed(input: unknown, source: string): EmulatorSeed {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new EmulatorConfigError(`${source}: the seed must be an object with tenants, channels and users arrays`);
  }
  const record = input as Record<string, unknown>;
  const kinds: Record<string, Record<string, FieldKind>> = {
    tenants: TENANT_FIELDS,
    channels: CHANNEL_FIELDS,
    users: USER_FIELDS,
  };
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(kinds, key)) {
      throw new EmulatorConfigError(`${source}: unknown top-level field "${key}"; allowed are tenants, channels, users`);
    }
  }
  for (const [key, fields] of Object.entries(kinds)) {
    const items = record[key];
    if (items === undefined) continue;
    if (!Array.isArray(items)) throw new EmulatorConfigError(`${source}: ${key} must be an array`);
    // A user's email is its login name, and sessions find their user by it: unique too.
    const identities = key === 'users' ? ['apiKey', 'email'] : ['name'];
    const seen = new Map(identities.map((identity) => [identity, new Set<string>()]));
    items.forEach((item: unknown, index) => {
      const path = `${source}: ${key}[${index}]`;
      checkRecord(item, path, fields, REQUIRED[key]);
      for (const identity of identities) {
        const id = (item as Record<string, string>)[identity];
        const earlier = seen.get(identity)!;
        if (earlier.has(id)) {
          const shown = identity === 'apiKey' ? 'an API key used by an earlier user' : `"${id}", used twice`;
          throw new EmulatorConfigError(`${path}.${identity} repeats ${shown}; each must be unique`);
        }
        earlier.add(id);
      }
    });
  }
  return record as EmulatorSeed;
}

/** The seed behind `--tenant NAME --api-key KEY`: one tenant, a channel `main`, one writable user. */
export function quickSeed(tenant: string, apiKey: string): EmulatorSeed {
  return {
    tenants: [{ name: tenant }],
    channels: [{ name: 'main' }],
    users: [{ email: `admin@${tenant}.example`, apiKey, active: true, readOnly: false }],
  };
}

/** Later seeds add what earlier ones lack; an item already present (same name, key or email) is kept. */
export function mergeSeeds(...seeds: Array<EmulatorSeed | undefined>): EmulatorSeed {
  const merged: Required<EmulatorSeed> = { tenants: [], channels: [], users: [] };
  for (const seed of seeds) {
    if (!seed) continue;
    for (const tenant of seed.tenants ?? []) {
      if (!merged.tenants.some((known) => known.name === tenant.name)) merged.tenants.push(tenant);
    }
    for (const channel of seed.channels ?? []) {
      if (!merged.channels.some((known) => known.name === channel.name)) merged.channels.push(channel);
    }
    for (const user of seed.users ?? []) {
      if (!merged.users.some((known) => known.apiKey === user.apiKey || known.email === user.email)) merged.users.push(user);
    }
  }
  return merged;
}

/** A full customer in the list reply's field order, defaults filling what the seed leaves out. */
export function customerFromSeed(tenant: SeedTenant, generatedUuid: string): Customer {
  const fields: Record<string, unknown> = { name: tenant.name };
  for (const [key, fallback] of Object.entries(CUSTOMER_DEFAULTS)) {
    fields[key] = (tenant as Record<string, unknown>)[key] ?? fallback;
  }
  fields.uuid = tenant.uuid ?? generatedUuid;
  return fields as unknown as Customer;
}
