/**
 * `svc_channel_sso`: a channel's SAML single sign-on, plus the service-provider URLs an
 * identity provider needs (from the provider's sso_base). An update lists the channel, copies
 * it exactly without its uuid, sets `sso` and sends it (the client's setChannelSso); destroy
 * turns SSO off.
 */
import type { Channel } from '../../api/types';
import { UNKNOWN, type ObjectValue, type ResourceDefinition, type Schema, type Value } from '../core';
import type { SvcContext } from '../context';
import { attribute, boolAttribute, emptyStringDiagnostic, requiredString, stringAttribute } from './attributes';
import { SIGN_IN_TESTED_ELSEWHERE, checkNameForPlan, requireNamed, serviceProviderUrls, signInTestedElsewhere, ssoAttributes, ssoFromConfig, ssoKeptWarning, ssoLockoutDiagnostics, validateSso } from './sso';
import { SSO_SETTING_ATTRIBUTES } from './tenant-sso';

const TYPE_NAME = 'svc_channel_sso';

// ---- schema ------------------------------------------------------------------------------------

export const SERVICE_PROVIDER_ATTRIBUTES = {
  sp_entity_id: attribute.computedString('SAML service-provider entity ID, `{sso_base}/sign-in`; null when the provider has no `sso_base`.'),
  sp_acs_url: attribute.computedString(
    'SAML assertion consumer service URL, `{sso_base}/auth/v2/channels/<uuid>/acs`; null when the provider has no `sso_base`.',
  ),
  sp_metadata_url: attribute.computedString(
    'SAML service-provider metadata URL, `{sso_base}/auth/v2/channels/<uuid>/metadata`; null when the provider has no `sso_base`.',
  ),
} as const;

const schema: Schema = {
  version: 0,
  description:
    "A channel's SAML single sign-on settings and the service-provider URLs to give the identity provider. " +
    'Destroying the resource turns SSO off for the channel.',
  attributes: {
    name: attribute.requiredString('The channel name. Changing it replaces the resource.', { requiresReplace: true }),
    ...SSO_SETTING_ATTRIBUTES,
    id: attribute.computedString('The channel name.'),
    uuid: attribute.computedString("The channel's uuid."),
    ...SERVICE_PROVIDER_ATTRIBUTES,
  },
};

// ---- helpers -----------------------------------------------------------------------------------

/**
 * `stored`: the state being refreshed, whose sp_* URLs stand while sso_base is not known (null on import).
 * `kept`: the config applied or the state refreshed, whose opt-out the state keeps.
 */
function channelState(context: SvcContext, name: string, channel: Channel, stored: ObjectValue | null, kept: ObjectValue | null): ObjectValue {
  const ssoBase = context.ssoBase();
  // A state must be wholly known; the plan marks the URLs unknown, and apply (with sso_base known) fills them in.
  const urls: Record<string, Value> =
    ssoBase === UNKNOWN
      ? { sp_entity_id: stored?.sp_entity_id ?? null, sp_acs_url: stored?.sp_acs_url ?? null, sp_metadata_url: stored?.sp_metadata_url ?? null }
      : serviceProviderUrls(ssoBase, channel.uuid);
  return { name, ...ssoAttributes(channel.sso), [SIGN_IN_TESTED_ELSEWHERE]: signInTestedElsewhere(kept), id: name, uuid: channel.uuid, ...urls };
}

async function applySso(context: SvcContext, config: ObjectValue): Promise<ObjectValue> {
  const name = requiredString(config, 'name');
  // Before the call: a destroy later in this apply (of the object this one replaces) must not undo it.
  context.registry.ssoApplied('channel', name);
  try {
    await context.accountClient().setChannelSso(name, ssoFromConfig(config));
  } catch (error) {
    // The client finds the channel by listing and reports a missing one with advice for library
    // users; a terraform user gets the diagnostic on `name` below instead.
    if ((error as { code?: unknown }).code !== 'not_found') throw error;
    requireNamed('channel', await context.accountClient().listChannels(), name, ['name']);
    throw error;
  }
  const channel = requireNamed('channel', await context.accountClient().listChannels(), name, ['name']);
  return channelState(context, name, channel, null, config);
}

// ---- definition --------------------------------------------------------------------------------

export const channelSsoResource: ResourceDefinition<SvcContext> = {
  typeName: TYPE_NAME,
  schema,

  validate({ config }) {
    const diagnostics = validateSso(config, TYPE_NAME);
    const emptyName = emptyStringDiagnostic(config, 'name', 'Give the channel name.');
    return emptyName === undefined ? diagnostics : [emptyName, ...diagnostics];
  },

  async plan({ context, config, prior, proposed }) {
    const name = stringAttribute(config, 'name');
    await checkNameForPlan(context, 'channel', name);
    const required = boolAttribute(config, 'required');
    const sameChannel = prior !== null && typeof name === 'string' && name === prior.name;
    const uuid = sameChannel ? prior.uuid : UNKNOWN;
    return {
      planned: {
        ...proposed,
        required: required === null ? false : required,
        id: name,
        uuid,
        ...serviceProviderUrls(context.ssoBase(), uuid),
      },
      diagnostics: ssoLockoutDiagnostics(TYPE_NAME, 'channel', config, sameChannel ? prior : null),
    };
  },

  create: ({ context, config }) => applySso(context, config),

  async read({ context, state }) {
    if (context.connectionUnknown) return state;
    const name = requiredString(state, 'name');
    const listed = await context.accountClient().listChannels();
    // The plan that follows checks names against this listing instead of listing again.
    context.names.offer('channel', listed.map((candidate) => candidate.name));
    const channel = listed.find((candidate) => candidate.name === name);
    return channel === undefined ? null : channelState(context, name, channel, state, state);
  },

  update: ({ context, config }) => applySso(context, config),

  async delete({ context, prior, warn }) {
    const name = requiredString(prior, 'name');
    if (context.registry.ssoAppliedInThisProcess('channel', name)) {
      warn(ssoKeptWarning('channel', name));
      return;
    }
    try {
      await context.accountClient().setChannelSso(name, null);
    } catch (error) {
      // Deliberate: a channel that no longer exists has no SSO left to turn off.
      if ((error as { code?: unknown }).code !== 'not_found') throw error;
    }
  },

  async import({ context, id }) {
    const channel = requireNamed('channel', await context.accountClient().listChannels(), id);
    return channelState(context, id, channel, null, null);
  },
};
