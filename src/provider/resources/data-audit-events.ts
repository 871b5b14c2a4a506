/** `svc_audit_events` data source: the tenant's newest audit events, optionally filtered. */
import { errorDiagnostic, types, type DataSourceDefinition, type Diagnostic, type ObjectValue, type Schema } from '../core';
import type { SvcContext } from '../context';
import { attribute, emptyStringDiagnostic, numberAttribute, stringAttribute } from './attributes';

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 10_000;

// ---- schema ------------------------------------------------------------------------------------

const EVENT_TYPE = types.object({
  timestamp: types.number,
  user: types.string,
  category: types.string,
  action: types.string,
  description: types.string,
});

const schema: Schema = {
  version: 0,
  description: "The newest audit events of the provider's tenant, newest first.",
  attributes: {
    limit: {
      type: types.number,
      optional: true,
      description: `How many events to return (after filtering), 1 to ${MAX_AUDIT_LIMIT}. Default ${DEFAULT_AUDIT_LIMIT}.`,
    },
    category: attribute.optionalString('Only events of this category (exact match), e.g. `Lists` or `Sites`.'),
    action: attribute.optionalString('Only events with this action (exact match), e.g. `new_entry`.'),
    id: attribute.computedString('`<tenant>/audit_events`.'),
    events: {
      type: types.list(EVENT_TYPE),
      computed: true,
      description: 'The events, newest first: `timestamp` (epoch seconds), `user`, `category`, `action`, `description`.',
    },
  },
};

// ---- validate ----------------------------------------------------------------------------------

function validate(config: ObjectValue): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const limit = numberAttribute(config, 'limit');
  if (typeof limit === 'number' && (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT)) {
    diagnostics.push(
      errorDiagnostic('Invalid limit', `limit = ${limit}: give a whole number from 1 to ${MAX_AUDIT_LIMIT}, or leave it out for ${DEFAULT_AUDIT_LIMIT}.`, ['limit']),
    );
  }
  for (const filter of ['category', 'action']) {
    const empty = emptyStringDiagnostic(config, filter, `Leave ${filter} out to return events of every ${filter}.`);
    if (empty !== undefined) diagnostics.push(empty);
  }
  return diagnostics;
}

// ---- read --------------------------------------------------------------------------------------

export const auditEventsDataSource: DataSourceDefinition<SvcContext> = {
  typeName: 'svc_audit_events',
  schema,
  validate: ({ config }) => validate(config),

  async read({ context, config }) {
    const tenant = context.defaultTenant();
    const limit = numberAttribute(config, 'limit');
    const count = typeof limit === 'number' ? limit : DEFAULT_AUDIT_LIMIT;
    const category = stringAttribute(config, 'category');
    const action = stringAttribute(config, 'action');
    const filtered = typeof category === 'string' || typeof action === 'string';
    // With a filter the newest `count` matches may lie further back: fetch as much as allowed.
    const events = await context.client(tenant).auditEvents(filtered ? MAX_AUDIT_LIMIT : count);
    const matching = events
      .filter((event) => (typeof category !== 'string' || event.category === category) && (typeof action !== 'string' || event.action === action))
      .slice(0, count);
    return {
      ...config,
      id: `${tenant}/audit_events`,
      events: matching.map((event) => ({
        timestamp: event.timestamp,
        user: event.user,
        category: event.category,
        action: event.action,
        description: event.description,
      })),
    };
  },
};
