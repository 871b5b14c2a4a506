/** `/svc_api/v2/logs`: the tenant's audit log, newest first. */
import { ApiCommandError, describeValue } from '../errors';
import type { AreaCommands } from './command';

/** Used when a request leaves `limit` out; the contract's clients always send it. */
export const DEFAULT_AUDIT_LIMIT = 100;

export const logCommands: AreaCommands = {
  audit_events: {
    requiresToken: true,
    writes: false,
    changesState: false,
    run({ body, store }) {
      const tenant = store.tenant(body.customer_name);
      const limit = body.limit ?? DEFAULT_AUDIT_LIMIT;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) {
        throw new ApiCommandError(`Invalid limit: ${describeValue(limit)}; send a whole number 0 or above`);
      }
      return { Ok: tenant.audit.recent(limit) };
    },
  },
};
