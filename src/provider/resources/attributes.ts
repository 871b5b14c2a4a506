/**
 * Small shared helpers for the svc resources: reading typed attributes out of an ObjectValue
 * (where any of them may be null or UNKNOWN at plan time), schema attribute shorthands, and the
 * address check every ip attribute goes through.
 */
import { checkAddress } from '../../address';
import { descriptionProblem } from '../../description';
import { quoteForMessage } from '../../display-text';
import { ManagementApiError } from '../../api/errors';
import { describeText } from '../../api/validation';
import type { ListName } from '../../api/types';
import type { SvcContext } from '../context';
import { describeNames } from '../known-names';
import type { CachedList } from '../list-cache';
import {
  DiagnosticsError,
  UNKNOWN,
  errorDiagnostic,
  isUnknown,
  type AttributePath,
  type AttributeSchema,
  type Diagnostic,
  type ObjectValue,
  type Unknown,
  type Value,
  types,
} from '../core';

/** A string attribute: its text, null when unset, or UNKNOWN. */
export function stringAttribute(object: ObjectValue, name: string): string | null | Unknown {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (isUnknown(value)) return UNKNOWN;
  if (typeof value !== 'string') throw new TypeError(`attribute ${name}: expected a string, got ${typeof value}`);
  return value;
}

export function numberAttribute(object: ObjectValue, name: string): number | null | Unknown {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (isUnknown(value)) return UNKNOWN;
  if (typeof value !== 'number') throw new TypeError(`attribute ${name}: expected a number, got ${typeof value}`);
  return value;
}

export function boolAttribute(object: ObjectValue, name: string): boolean | null | Unknown {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (isUnknown(value)) return UNKNOWN;
  if (typeof value !== 'boolean') throw new TypeError(`attribute ${name}: expected a bool, got ${typeof value}`);
  return value;
}

/** The elements of a list or set attribute, null when unset, or UNKNOWN. */
export function collectionAttribute(object: ObjectValue, name: string): readonly Value[] | null | Unknown {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (isUnknown(value)) return UNKNOWN;
  if (!Array.isArray(value)) throw new TypeError(`attribute ${name}: expected a list or set, got ${typeof value}`);
  return value as readonly Value[];
}

/** A map attribute (a plain object of its elements), null when unset, or UNKNOWN. */
export function mapAttribute(object: ObjectValue, name: string): ObjectValue | null | Unknown {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (isUnknown(value)) return UNKNOWN;
  if (typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`attribute ${name}: expected a map, got ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value as ObjectValue;
}

/** A string the hook cannot do without (apply time, where config is wholly known). */
export function requiredString(object: ObjectValue, name: string): string {
  const value = stringAttribute(object, name);
  if (typeof value !== 'string') {
    throw new TypeError(`attribute ${name} must be a known string here, got ${value === null ? 'null' : 'unknown'}`);
  }
  return value;
}

/**
 * The canonical spelling of a known ip attribute, or an error diagnostic on `path` naming the
 * value, why it is wrong and (for host bits) the network it should be.
 */
export function checkIpAttribute(value: string, path: AttributePath, what = 'ip'): { canonical: string } | { diagnostic: Diagnostic } {
  const checked = checkAddress(value);
  if (checked.ok) return { canonical: checked.canonical };
  return {
    diagnostic: errorDiagnostic(
      `Invalid IP address or CIDR in ${what}`,
      `${what} = ${quoteForMessage(value)}: ${checked.error.reason}. ${ADDRESS_FIX}`,
      path,
    ),
  };
}

/**
 * An error on `path` for a description the service should not get (too long, control
 * characters: see src/description.ts), naming `what` and the value; undefined when it is fine.
 */
export function descriptionDiagnostic(value: string, path: AttributePath, what: string): Diagnostic | undefined {
  const problem = descriptionProblem(value);
  if (problem === undefined) return undefined;
  return errorDiagnostic(`Invalid description in ${what}`, `${what} = ${describeText(value)}: ${problem}.`, path);
}

/** How to write an address, for every diagnostic about a bad one. */
export const ADDRESS_FIX =
  'Give an IPv4 or IPv6 address (e.g. 192.0.2.10, 2001:db8::1) or a CIDR range whose address is the network ' +
  '(e.g. 192.0.2.0/24), with no host bits set.';

/** The canonical spelling of an ip known to be valid (validate checked it); throws a diagnostic otherwise. */
export function canonicalIpOf(value: string, path: AttributePath): string {
  const checked = checkIpAttribute(value, path);
  if ('diagnostic' in checked) throw new DiagnosticsError([checked.diagnostic]);
  return checked.canonical;
}

/** An error for an optional string attribute set to "" (it has no meaning; leave it out instead). */
export function emptyStringDiagnostic(object: ObjectValue, name: string, hint: string): Diagnostic | undefined {
  if (object[name] !== '') return undefined;
  return errorDiagnostic(`Empty ${name}`, `${name} = "": an empty string is not a valid ${name}. ${hint}`, [name]);
}

// ---- schema shorthands -----------------------------------------------------------------------

export const attribute = {
  requiredString: (description: string, extra: Partial<AttributeSchema> = {}): AttributeSchema => ({
    type: types.string,
    required: true,
    description,
    ...extra,
  } as AttributeSchema),
  optionalString: (description: string, extra: Partial<AttributeSchema> = {}): AttributeSchema => ({
    type: types.string,
    optional: true,
    description,
    ...extra,
  } as AttributeSchema),
  optionalComputedString: (description: string, extra: Partial<AttributeSchema> = {}): AttributeSchema => ({
    type: types.string,
    optional: true,
    computed: true,
    description,
    ...extra,
  } as AttributeSchema),
  computedString: (description: string): AttributeSchema => ({ type: types.string, computed: true, description }),
  computedNumber: (description: string): AttributeSchema => ({ type: types.number, computed: true, description }),
  computedBool: (description: string): AttributeSchema => ({ type: types.bool, computed: true, description }),
};

// ---- plan-time checks --------------------------------------------------------------------------

/**
 * The (tenant, list) through the provider's list cache, for reads at plan time (whole-list
 * plans, svc_list): a tenant the service refuses becomes a diagnostic on `tenant` when the
 * configuration sets it (else naming the provider's tenant), instead of the client's message
 * with advice for the customers list.
 */
export async function readListForPlan(context: SvcContext, tenant: string, list: ListName, tenantIsConfigured: boolean): Promise<CachedList> {
  try {
    return await context.lists.read(tenant, list);
  } catch (error) {
    // Deliberate: only the service's refusal is ours to word; network trouble stays as it is.
    if (!isServiceRefusal(error)) throw error;
    if (isUnknownTenantRefusal(error)) {
      // In the provider's words, as the per-entry resources say it (one customers call per process).
      const listed = await context.names.names('tenant');
      const why = listed.includes(tenant)
        ? `Reading the ${list} of tenant ${JSON.stringify(tenant)} was refused: ${error.message}`
        : `The service lists no tenant named ${JSON.stringify(tenant)} (it lists ${describeNames(listed)}).`;
      throw new DiagnosticsError([cannotUseTenantDiagnostic(tenant, why, tenantIsConfigured)]);
    }
    // Any other refusal (permissions, a failing service) is not about the name: say what it answered.
    throw new DiagnosticsError([
      errorDiagnostic(
        `Reading the ${list} of tenant ${JSON.stringify(tenant)} was refused`,
        `${error.message} This is the service's answer, not a problem with the tenant name; nothing was changed. Fix what it names (or ask its operator), then plan again.`,
      ),
    ]);
  }
}

/**
 * The tenant of a per-entry resource, checked at plan time before anything is written: a
 * diagnostic on `tenant` (else naming the provider's tenant) when the service does not know it.
 * Skipped while the tenant or the connection is not known yet (apply checks then). At most one
 * call per tenant per process: none when a list of the tenant was read already (refresh), else
 * the provider's tenant is proven by reading `list` (a read the plan budget has room for) and
 * any other tenant by the customers listing. The service out of reach fails the plan with the
 * provider's connection diagnostic, not with a claim about the name.
 */
export async function checkTenantForPlan(context: SvcContext, tenant: string | Unknown, tenantIsConfigured: boolean, list: ListName): Promise<void> {
  if (tenant === UNKNOWN || context.connectionUnknown) return;
  const probe = context.isProviderTenant(tenant) ? { list, read: (name: string, listName: ListName) => listAnswers(context, name, listName) } : undefined;
  const finding = await context.names.tenant(tenant, probe);
  if (finding.exists) return;
  throw new DiagnosticsError([
    cannotUseTenantDiagnostic(tenant, `The service lists no tenant named ${JSON.stringify(tenant)} (it lists ${describeNames(finding.listed)}).`, tenantIsConfigured),
  ]);
}

/** True when a list of `tenant` can be read, false when the service refuses the tenant. */
async function listAnswers(context: SvcContext, tenant: string, list: ListName): Promise<boolean> {
  try {
    await context.lists.read(tenant, list);
    return true;
  } catch (error) {
    // Deliberate: the service's refusal answers the question; anything else is not an answer.
    if (isServiceRefusal(error)) return false;
    throw error;
  }
}

/**
 * A refusal that says the tenant does not exist. The contract leaves the wording open; the
 * emulator says "Unknown customer: <name>", and "no such"/"not found" spellings count too.
 */
function isUnknownTenantRefusal(error: ManagementApiError): boolean {
  return /unknown (customer|tenant)|no such (customer|tenant)|(customer|tenant)\b.*\bnot found/i.test(error.message);
}

function isServiceRefusal(error: unknown): error is ManagementApiError {
  return error instanceof ManagementApiError && error.code === 'service_error';
}

/** 'Cannot use tenant "x"': on `tenant` when the configuration sets it, else naming the provider's tenant. */
function cannotUseTenantDiagnostic(tenant: string, why: string, tenantIsConfigured: boolean): Diagnostic {
  const where = tenantIsConfigured ? 'tenant' : "the provider's tenant (tenant in the provider block, or SVC_TENANT)";
  return errorDiagnostic(
    `Cannot use tenant ${JSON.stringify(tenant)}`,
    `${why} Check ${where}; names are case-sensitive.`,
    tenantIsConfigured ? ['tenant'] : undefined,
  );
}
