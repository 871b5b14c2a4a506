/** `/svc_api/v2/lists`: the six verbs for each of blacklist, blocklist and whitelist. */
import { ApiCommandError, describeValue } from '../errors';
import { LIST_NAMES, MAX_BULK_ENTRIES, capitalise, type ListName } from '../model';
import { canonicalOrError, parseEntry } from '../store';
import type { AreaCommands, CommandSpec } from './command';

function bulkArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new ApiCommandError(`Missing field: ${field} (an array), got ${describeValue(value)}`);
  if (value.length > MAX_BULK_ENTRIES) {
    throw new ApiCommandError(`Too many entries: ${value.length} (max ${MAX_BULK_ENTRIES})`);
  }
  return value;
}

function commandsFor(list: ListName): Record<string, CommandSpec> {
  const title = capitalise(list);
  const read = { requiresToken: true, writes: false, changesState: false } as const;
  const write = { requiresToken: true, writes: true, changesState: true } as const;
  return {
    [`list_${list}`]: {
      ...read,
      run: ({ body, store, now }) => ({ Ok: store.listEntries(store.tenant(body.customer_name), list, now) }),
    },
    [`get_${list}`]: {
      ...read,
      run: ({ body, store, now }) => ({ Ok: store.getEntry(store.tenant(body.customer_name), list, body.ip, now) }),
    },
    [`new_${list}`]: {
      ...write,
      run({ body, store, now, user }) {
        const tenant = store.tenant(body.customer_name);
        if (body.entry === undefined) throw new ApiCommandError('Missing field: entry ({"ip", "description", "created"})');
        const entry = parseEntry(body.entry, 'entry');
        store.addEntries(tenant, list, [entry], user.email, now);
        // Lower-case `ok` is what the real service answers to new_*.
        return { ok: `${title} entry for ip ${entry.ip} added` };
      },
    },
    [`delete_${list}`]: {
      ...write,
      run({ body, store, now, user }) {
        const tenant = store.tenant(body.customer_name);
        const ip = canonicalOrError(body.ip);
        if (store.removeEntries(tenant, list, [ip], user.email, now) === 0) {
          throw new ApiCommandError(`${title} entry for ip ${ip} not found`);
        }
        return { Ok: `${title} entry for ip ${ip} removed` };
      },
    },
    [`bulk_new_${list}`]: {
      ...write,
      run({ body, store, now, user }) {
        const tenant = store.tenant(body.customer_name);
        // All or nothing: every entry is checked before the first one is stored.
        const entries = bulkArray(body.entries, 'entries').map((entry, index) => parseEntry(entry, `entries[${index}]`));
        store.addEntries(tenant, list, entries, user.email, now);
        return { Ok: `${entries.length} entries added` };
      },
    },
    [`bulk_delete_${list}`]: {
      ...write,
      run({ body, store, now, user }) {
        const tenant = store.tenant(body.customer_name);
        const ips = bulkArray(body.ips, 'ips').map((ip, index) => canonicalOrError(ip, `ips[${index}]`));
        const removed = store.removeEntries(tenant, list, ips, user.email, now);
        return { Ok: `${removed} entries removed` };
      },
    },
  };
}

export const listCommands: AreaCommands = Object.assign({}, ...LIST_NAMES.map(commandsFor));
