/** `svc_tenant` data source: one tenant (customer) and its SSO settings. */
import { escapeForDisplay } from '../../display-text';
import { type DataSourceDefinition, type Schema } from '../core';
import type { SvcContext } from '../context';
import { attribute, emptyStringDiagnostic, stringAttribute } from './attributes';
import { requireNamed, ssoAttributes } from './sso';

// ---- schema ------------------------------------------------------------------------------------

const schema: Schema = {
  version: 0,
  description: 'Reads a tenant (customer) of the service.',
  attributes: {
    name: attribute.optionalString("The tenant name; defaults to the provider's tenant."),
    id: attribute.computedString('The tenant name.'),
    uuid: attribute.computedString("The tenant's uuid."),
    contact_email: attribute.computedString('Contact email address.'),
    description: attribute.computedString('Description.'),
    active: attribute.computedBool('Whether the tenant is active.'),
    sso_enabled: attribute.computedBool('Whether SAML single sign-on is enabled.'),
    sso_required: attribute.computedBool('Whether SAML single sign-on is required.'),
    saml_metadata_url: attribute.computedString("The identity provider's metadata URL; null when SSO is not set up."),
  },
};

// ---- read --------------------------------------------------------------------------------------

export const tenantDataSource: DataSourceDefinition<SvcContext> = {
  typeName: 'svc_tenant',
  schema,

  validate({ config }) {
    const empty = emptyStringDiagnostic(config, 'name', "Leave name out to read the provider's tenant.");
    return empty === undefined ? [] : [empty];
  },

  async read({ context, config }) {
    const configured = stringAttribute(config, 'name');
    const name = typeof configured === 'string' ? configured : context.defaultTenant();
    const tenant = requireNamed('tenant', await context.accountClient(name).listCustomers(), name, ['name']);
    const sso = ssoAttributes(tenant.sso);
    return {
      ...config,
      id: name,
      // The client hands tenants on as listed (an update must copy them exactly); what is only
      // shown is escaped here, as the client escapes list entries (src/display-text.ts).
      uuid: escapeForDisplay(tenant.uuid),
      contact_email: escapeForDisplay(tenant.contact_email),
      description: escapeForDisplay(tenant.description),
      active: tenant.active,
      sso_enabled: sso.enabled,
      sso_required: sso.required,
      saml_metadata_url: sso.saml_metadata_url,
    };
  },
};
