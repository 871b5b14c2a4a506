/** `svc_list` data source: every entry of one of the tenant's lists, sorted by address. */
import * as ipaddr from 'ipaddr.js';
import { parseAddress } from '../../address';
import { LIST_NAMES, isListName, type ListEntry } from '../../api/types';
import { assertListName } from '../../api/validation';
import { errorDiagnostic, types, type DataSourceDefinition, type Diagnostic, type Schema } from '../core';
import type { SvcContext } from '../context';
import { attribute, emptyStringDiagnostic, readListForPlan, requiredString, stringAttribute } from './attributes';

// ---- schema ------------------------------------------------------------------------------------

const ENTRY_TYPE = types.object({ ip: types.string, description: types.string, created: types.number, expires: types.number });

const schema: Schema = {
  version: 0,
  description: "Reads one of the tenant's lists (blacklist, blocklist or whitelist).",
  attributes: {
    list: attribute.requiredString(`The list: ${LIST_NAMES.join(' | ')}.`),
    tenant: attribute.optionalString("The tenant (customer_name); defaults to the provider's tenant."),
    id: attribute.computedString('`<tenant>/<list>`.'),
    entries: {
      type: types.list(ENTRY_TYPE),
      computed: true,
      description:
        'The entries, sorted by address: `ip` (canonical), `description`, `created` (epoch seconds) and `expires` ' +
        '(epoch seconds the block ends; null except on the blocklist).',
    },
  },
};

// ---- validate ----------------------------------------------------------------------------------

function validate(config: Parameters<NonNullable<DataSourceDefinition<SvcContext>['validate']>>[0]['config']): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const list = stringAttribute(config, 'list');
  if (typeof list === 'string' && !isListName(list)) {
    diagnostics.push(errorDiagnostic('Invalid list', `list = ${JSON.stringify(list)}: use one of ${LIST_NAMES.join(', ')}.`, ['list']));
  }
  const emptyTenant = emptyStringDiagnostic(config, 'tenant', "Leave tenant out to use the provider's tenant, or name one.");
  if (emptyTenant !== undefined) diagnostics.push(emptyTenant);
  return diagnostics;
}

// ---- read --------------------------------------------------------------------------------------

/** IPv4 before IPv6, then by address bytes, then wider ranges first. */
export function compareAddresses(left: string, right: string): number {
  const a = parseAddress(left);
  const b = parseAddress(right);
  if (a.family !== b.family) return a.family === 'ipv4' ? -1 : 1;
  const aBytes = ipaddr.parse(a.address).toByteArray();
  const bBytes = ipaddr.parse(b.address).toByteArray();
  for (let index = 0; index < aBytes.length; index += 1) {
    if (aBytes[index] !== bBytes[index]) return aBytes[index] - bBytes[index];
  }
  return a.prefixLength - b.prefixLength;
}

function entryValue(entry: ListEntry) {
  return {
    ip: entry.ip,
    description: entry.description ?? '',
    created: entry.created,
    expires: typeof entry.expires === 'number' ? entry.expires : null,
  };
}

export const listDataSource: DataSourceDefinition<SvcContext> = {
  typeName: 'svc_list',
  schema,
  validate: ({ config }) => validate(config),

  async read({ context, config }) {
    const list = assertListName(requiredString(config, 'list'));
    const configuredTenant = stringAttribute(config, 'tenant');
    const tenant = typeof configuredTenant === 'string' ? configuredTenant : context.defaultTenant();
    const { entries } = await readListForPlan(context, tenant, list, configuredTenant !== null);
    const sorted = [...entries].sort((left, right) => compareAddresses(left.ip, right.ip));
    return { ...config, id: `${tenant}/${list}`, entries: sorted.map(entryValue) };
  },
};
