/** `svc_channel` data source: one channel, its SSO settings and its SAML service-provider URLs. */
import { type DataSourceDefinition, type Schema } from '../core';
import type { SvcContext } from '../context';
import { attribute, emptyStringDiagnostic, requiredString } from './attributes';
import { SERVICE_PROVIDER_ATTRIBUTES } from './channel-sso';
import { requireNamed, serviceProviderUrls, ssoAttributes } from './sso';

// ---- schema ------------------------------------------------------------------------------------

const schema: Schema = {
  version: 0,
  description: 'Reads a channel of the service.',
  attributes: {
    name: attribute.requiredString('The channel name.'),
    id: attribute.computedString('The channel name.'),
    uuid: attribute.computedString("The channel's uuid."),
    require_totp_setup: attribute.computedBool('Whether users of the channel must set up TOTP.'),
    sso_enabled: attribute.computedBool('Whether SAML single sign-on is enabled.'),
    sso_required: attribute.computedBool('Whether SAML single sign-on is required.'),
    saml_metadata_url: attribute.computedString("The identity provider's metadata URL; null when SSO is not set up."),
    ...SERVICE_PROVIDER_ATTRIBUTES,
  },
};

// ---- read --------------------------------------------------------------------------------------

export const channelDataSource: DataSourceDefinition<SvcContext> = {
  typeName: 'svc_channel',
  schema,

  validate({ config }) {
    const empty = emptyStringDiagnostic(config, 'name', 'Give the channel name.');
    return empty === undefined ? [] : [empty];
  },

  async read({ context, config }) {
    const name = requiredString(config, 'name');
    const channel = requireNamed('channel', await context.accountClient().listChannels(), name, ['name']);
    const sso = ssoAttributes(channel.sso);
    return {
      ...config,
      id: name,
      uuid: channel.uuid,
      require_totp_setup: channel.require_totp_setup,
      sso_enabled: sso.enabled,
      sso_required: sso.required,
      saml_metadata_url: sso.saml_metadata_url,
      ...serviceProviderUrls(context.knownSsoBase(), channel.uuid),
    };
  },
};
