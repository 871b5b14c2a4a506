/** `/svc_api/v2/customers` and `/svc_api/v2/channels`: list, and update (SSO only). */
import { AUDIT_CATEGORIES } from '../audit';
import { ApiCommandError, describeValue } from '../errors';
import { copySso } from '../sso';
import type { AreaCommands } from './command';
import { checkRepresentationUpdate, describeSsoChange } from './representation-update';

export const customerCommands: AreaCommands = {
  list: {
    requiresToken: true,
    writes: false,
    changesState: false,
    run: ({ store }) => ({
      Ok: [...store.tenants.values()].map((tenant) => ({ ...tenant.customer, sso: copySso(tenant.customer.sso) })),
    }),
  },
  update: {
    requiresToken: true,
    writes: true,
    changesState: true,
    run({ body, store, now, user }) {
      const name = body.name;
      if (typeof name !== 'string' || name === '') {
        throw new ApiCommandError(`Missing field: name (the tenant to update), got ${describeValue(name)}`);
      }
      const tenant = store.tenants.get(name);
      if (!tenant) throw new ApiCommandError(`Unknown customer: ${name}. Check name against the customers list`);
      const sso = checkRepresentationUpdate('customer', tenant.customer, body.customer);
      const change = describeSsoChange(`Customer ${name}`, tenant.customer.sso, sso);
      tenant.customer.sso = copySso(sso);
      tenant.audit.record({ timestamp: now, user: user.email, category: AUDIT_CATEGORIES.sites, ...change });
      return { Ok: `${name} updated.` };
    },
  },
};

export const channelCommands: AreaCommands = {
  list: {
    requiresToken: true,
    writes: false,
    changesState: false,
    run: ({ store }) => ({
      Ok: [...store.channels.values()].map((channel) => ({ ...channel, sso: copySso(channel.sso) })),
    }),
  },
  update: {
    requiresToken: true,
    writes: true,
    changesState: true,
    run({ body, store, now, user }) {
      const sent = body.channel;
      const name = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>).name : undefined;
      if (typeof name !== 'string' || name === '') {
        throw new ApiCommandError(`Missing field: channel.name (the channel to update), got ${describeValue(name)}`);
      }
      const channel = store.channels.get(name);
      if (!channel) throw new ApiCommandError(`Unknown channel: ${name}. Check channel.name against the channels list`);
      const sso = checkRepresentationUpdate('channel', channel, sent);
      const change = describeSsoChange(`Channel ${name}`, channel.sso, sso);
      channel.sso = copySso(sso);
      // A channel spans its tenants, so every tenant's audit log records the change.
      for (const tenant of store.tenants.values()) {
        tenant.audit.record({ timestamp: now, user: user.email, category: AUDIT_CATEGORIES.sites, ...change });
      }
      return { Ok: `Channel: ${name} updated.` };
    },
  },
};
