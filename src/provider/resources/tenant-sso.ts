/**
 * `svc_tenant_sso`: a tenant's SAML single sign-on. An update lists the tenant, copies it
 * exactly without its uuid, sets `sso` and sends it (the client's setTenantSso); destroy turns
 * SSO off (`sso = null`).
 */
import type { Customer } from '../../api/types';
import { UNKNOWN, types, type ObjectValue, type ResourceDefinition, type Schema } from '../core';
import type { SvcContext } from '../context';
import { attribute, boolAttribute, emptyStringDiagnostic, requiredString, stringAttribute } from './attributes';
import { SIGN_IN_TESTED_ELSEWHERE, checkNameForPlan, requireNamed, signInTestedElsewhere, ssoAttributes, ssoFromConfig, ssoKeptWarning, ssoLockoutDiagnostics, validateSso } from './sso';

const TYPE_NAME = 'svc_tenant_sso';

// ---- schema ------------------------------------------------------------------------------------

export const SSO_SETTING_ATTRIBUTES = {
  enabled: { type: types.bool, required: true, description: 'Whether users may sign in through the identity provider.' },
  required: {
    type: types.bool,
    optional: true,
    computed: true,
    description: 'Whether users must sign in through the identity provider (default false). Needs `enabled = true`.',
  },
  saml_metadata_url: attribute.optionalString("The identity provider's SAML metadata URL; https only, without a user name or password, one word of printable text. Required when `enabled` is true."),
  [SIGN_IN_TESTED_ELSEWHERE]: {
    type: types.bool,
    optional: true,
    description:
      'Opt-out of the lockout guard. The plan refuses `required = true` in the same apply that enables SSO or changes `saml_metadata_url` ' +
      '(nobody can have signed in through that identity provider yet); set this to true only when sign-in through it was tested elsewhere. Never sent to the service.',
  },
} as const;

const schema: Schema = {
  version: 0,
  description: "A tenant's SAML single sign-on settings. Destroying the resource turns SSO off for the tenant.",
  attributes: {
    name: attribute.requiredString('The tenant (customer) name. Changing it replaces the resource.', { requiresReplace: true }),
    ...SSO_SETTING_ATTRIBUTES,
    id: attribute.computedString('The tenant name.'),
    uuid: attribute.computedString("The tenant's uuid."),
  },
};

// ---- helpers -----------------------------------------------------------------------------------

/** `kept`: the config applied or the state refreshed, whose opt-out the state keeps (null on import). */
function tenantState(name: string, tenant: Customer, kept: ObjectValue | null): ObjectValue {
  return { name, ...ssoAttributes(tenant.sso), [SIGN_IN_TESTED_ELSEWHERE]: signInTestedElsewhere(kept), id: name, uuid: tenant.uuid };
}

async function applySso(context: SvcContext, config: ObjectValue): Promise<ObjectValue> {
  const name = requiredString(config, 'name');
  // Before the call: a destroy later in this apply (of the object this one replaces) must not undo it.
  context.registry.ssoApplied('tenant', name);
  try {
    await context.accountClient(name).setTenantSso(name, ssoFromConfig(config));
  } catch (error) {
    // The client finds the tenant by listing and reports a missing one with advice for library
    // users; a terraform user gets the diagnostic on `name` below instead.
    if ((error as { code?: unknown }).code !== 'not_found') throw error;
    requireNamed('tenant', await context.accountClient(name).listCustomers(), name, ['name']);
    throw error;
  }
  const tenant = requireNamed('tenant', await context.accountClient(name).listCustomers(), name, ['name']);
  return tenantState(name, tenant, config);
}

// ---- definition --------------------------------------------------------------------------------

export const tenantSsoResource: ResourceDefinition<SvcContext> = {
  typeName: TYPE_NAME,
  schema,

  validate({ config }) {
    const diagnostics = validateSso(config, TYPE_NAME);
    const emptyName = emptyStringDiagnostic(config, 'name', 'Give the tenant (customer) name.');
    return emptyName === undefined ? diagnostics : [emptyName, ...diagnostics];
  },

  async plan({ context, config, prior, proposed }) {
    const name = stringAttribute(config, 'name');
    await checkNameForPlan(context, 'tenant', name);
    const required = boolAttribute(config, 'required');
    const sameTenant = prior !== null && typeof name === 'string' && name === prior.name;
    return {
      planned: {
        ...proposed,
        required: required === null ? false : required,
        id: name,
        uuid: sameTenant ? prior.uuid : UNKNOWN,
      },
      diagnostics: ssoLockoutDiagnostics(TYPE_NAME, 'tenant', config, sameTenant ? prior : null),
    };
  },

  create: ({ context, config }) => applySso(context, config),

  async read({ context, state }) {
    if (context.connectionUnknown) return state;
    const name = requiredString(state, 'name');
    const listed = await context.accountClient(name).listCustomers();
    // The plan that follows checks names against this listing instead of listing again.
    context.names.offer('tenant', listed.map((candidate) => candidate.name));
    const tenant = listed.find((candidate) => candidate.name === name);
    return tenant === undefined ? null : tenantState(name, tenant, state);
  },

  update: ({ context, config }) => applySso(context, config),

  async delete({ context, prior, warn }) {
    const name = requiredString(prior, 'name');
    if (context.registry.ssoAppliedInThisProcess('tenant', name)) {
      warn(ssoKeptWarning('tenant', name));
      return;
    }
    try {
      await context.accountClient(name).setTenantSso(name, null);
    } catch (error) {
      // Deliberate: a tenant that no longer exists has no SSO left to turn off.
      if ((error as { code?: unknown }).code !== 'not_found') throw error;
    }
  },

  async import({ context, id }) {
    const tenant = requireNamed('tenant', await context.accountClient(id).listCustomers(), id);
    return tenantState(id, tenant, null);
  },
};
