/**
 * svc_tenant_sso and svc_channel_sso against the emulator: create/update/destroy/import,
 * the update copying the listed object exactly (the emulator refuses anything else), the
 * SAML service-provider URLs from sso_base, and unknown names (refused at plan, and at create
 * when the plan could not check them).
 */
import { DiagnosticsError, UNKNOWN, type Value } from '../../src/provider/core';
import { SSO_BASE, TENANT, create, plan, plansNoChange, resourceNamed, startWorld, update, type World, failOnWarning } from './harness';

const METADATA = 'https://idp.example.com/saml/metadata';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

describe('svc_tenant_sso', () => {
  const resource = resourceNamed('svc_tenant_sso');

  test('create, update, import, destroy; every other tenant field is copied unchanged', async () => {
    const before = (await world.api.listCustomers()).find((tenant) => tenant.name === TENANT)!;
    const context = await world.configure();
    const state = await create(resource, context, { name: TENANT, enabled: true, saml_metadata_url: METADATA });
    expect(state).toEqual({ name: TENANT, enabled: true, required: false, saml_metadata_url: METADATA, id: TENANT, uuid: before.uuid });
    const after = (await world.api.listCustomers()).find((tenant) => tenant.name === TENANT)!;
    expect(after).toEqual({ ...before, sso: { enabled: true, required: false, saml_metadata_url: METADATA } });

    const read = await resource.read({ context: await world.configure(), state });
    expect(read).toEqual(state);
    expect(await plansNoChange(resource, context, state, { name: TENANT, enabled: true, saml_metadata_url: METADATA })).toBe(true);

    const required = await update(resource, context, state, { name: TENANT, enabled: true, required: true, saml_metadata_url: METADATA });
    expect(required.required).toBe(true);
    expect((await world.api.listCustomers()).find((tenant) => tenant.name === TENANT)!.sso).toEqual({
      enabled: true,
      required: true,
      saml_metadata_url: METADATA,
    });

    expect(await resource.import!({ context: await world.configure(), id: TENANT })).toEqual(required);

    // A destroy of its own, as terraform runs it: in this process a create or update of the same name would keep SSO on.
    await resource.delete({ context: await world.configure(), prior: required, warn: failOnWarning });
    expect((await world.api.listCustomers()).find((tenant) => tenant.name === TENANT)).toEqual(before);
  });

  test('SSO off without a metadata URL', async () => {
    const context = await world.configure();
    const state = await create(resource, context, { name: TENANT, enabled: false });
    expect(state).toMatchObject({ enabled: false, required: false, saml_metadata_url: null });
    expect(await resource.read({ context, state })).toEqual(state);
  });

  test('drift made through the API shows on read', async () => {
    const context = await world.configure();
    const state = await create(resource, context, { name: TENANT, enabled: true, saml_metadata_url: METADATA });
    await world.api.setTenantSso(TENANT, null);
    const read = (await resource.read({ context, state }))!;
    expect(read).toMatchObject({ enabled: false, required: false, saml_metadata_url: null });
    expect(await plansNoChange(resource, context, read, { name: TENANT, enabled: true, saml_metadata_url: METADATA })).toBe(false);
  });

  test('an unknown tenant is an error naming it: at plan, and at create when the plan could not check it', async () => {
    const context = await world.configure();
    const planned = plan(resource, context, { name: 'initech', enabled: false });
    await expect(planned).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(planned).rejects.toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Unknown tenant "initech"', detail: expect.stringContaining(`it lists "${TENANT}"`), path: ['name'] })],
    });
    // Create (a name not known until apply) names the tenant in a diagnostic of its own, not the
    // client's NotFoundError (whose text ends in library advice: "check the name against listCustomers()").
    const config = { name: 'initech', enabled: false, required: null, saml_metadata_url: null, id: null, uuid: null };
    const created = resource.create({ context, config, planned: { ...config, required: false, id: 'initech' }, warn: failOnWarning });
    await expect(created).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(created).rejects.toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Unknown tenant "initech"', detail: expect.stringContaining(`it lists "${TENANT}"`), path: ['name'] })],
    });
    const imported = resource.import!({ context, id: 'initech' });
    await expect(imported).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(imported).rejects.toMatchObject({ diagnostics: [expect.objectContaining({ summary: 'Unknown tenant "initech"' })] });
    expect(await resource.read({ context, state: { name: 'initech', enabled: false, required: false, saml_metadata_url: null, id: 'initech', uuid: 'x' } })).toBeNull();
  });
});

describe('svc_channel_sso', () => {
  const resource = resourceNamed('svc_channel_sso');

  test('create with the service-provider URLs, update, import, destroy', async () => {
    const before = (await world.api.listChannels()).find((channel) => channel.name === 'main')!;
    const context = await world.configure();
    const { planned } = await plan(resource, context, { name: 'main', enabled: true, saml_metadata_url: METADATA });
    expect(planned).toMatchObject({ id: 'main', uuid: UNKNOWN, sp_entity_id: `${SSO_BASE}/sign-in`, sp_acs_url: UNKNOWN, sp_metadata_url: UNKNOWN });

    const state = await create(resource, context, { name: 'main', enabled: true, saml_metadata_url: METADATA });
    expect(state).toEqual({
      name: 'main',
      enabled: true,
      required: false,
      saml_metadata_url: METADATA,
      id: 'main',
      uuid: before.uuid,
      sp_entity_id: `${SSO_BASE}/sign-in`,
      sp_acs_url: `${SSO_BASE}/auth/v2/channels/${before.uuid}/acs`,
      sp_metadata_url: `${SSO_BASE}/auth/v2/channels/${before.uuid}/metadata`,
    });
    expect((await world.api.listChannels()).find((channel) => channel.name === 'main')).toEqual({
      ...before,
      sso: { enabled: true, required: false, saml_metadata_url: METADATA },
    });

    expect(await plansNoChange(resource, context, state, { name: 'main', enabled: true, saml_metadata_url: METADATA })).toBe(true);
    const disabled = await update(resource, context, state, { name: 'main', enabled: false, saml_metadata_url: METADATA });
    expect(disabled).toMatchObject({ enabled: false, saml_metadata_url: METADATA, sp_acs_url: state.sp_acs_url });
    expect(await resource.import!({ context, id: 'main' })).toEqual(disabled);

    // A destroy of its own, as terraform runs it: in this process a create or update of the same name would keep SSO on.
    await resource.delete({ context: await world.configure(), prior: disabled, warn: failOnWarning });
    expect((await world.api.listChannels()).find((channel) => channel.name === 'main')).toEqual(before);
  });

  test('without sso_base the service-provider URLs are null', async () => {
    const context = await world.configure({ sso_base: null });
    const { planned } = await plan(resource, context, { name: 'partners', enabled: false });
    expect(planned).toMatchObject({ sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null });
    const state = await create(resource, context, { name: 'partners', enabled: false });
    expect(state).toMatchObject({ sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null });
  });

  test('sso_base from SVC_SSO_BASE, a trailing slash dropped', async () => {
    const context = await world.configure({ sso_base: null }, { SVC_SSO_BASE: 'https://login.example.net/' });
    const state = await create(resource, context, { name: 'partners', enabled: false });
    expect(state.sp_entity_id).toBe('https://login.example.net/sign-in');
  });

  // Channels (and the customers list) are not tenant-scoped: they need no provider tenant.
  test.each<[string, Value]>([
    ['not set anywhere', null],
    ['not known until apply', UNKNOWN],
  ])('needs no provider tenant: %s', async (_name, tenant) => {
    const state = await create(resource, await world.configure(), { name: 'partners', enabled: false });
    const context = await world.configure({ tenant });
    expect(await resource.read({ context, state })).toEqual(state);
    if (tenant === UNKNOWN) return;
    const created = await create(resource, context, { name: 'main', enabled: true, saml_metadata_url: METADATA });
    expect(created).toMatchObject({ name: 'main', enabled: true });
    // A destroy of its own, as terraform runs it: in this process a create or update of the same name would keep SSO on.
    await resource.delete({ context: await world.configure(), prior: created, warn: failOnWarning });
    expect((await world.api.listChannels()).find((channel) => channel.name === 'main')!.sso).toBeNull();
  });

  test('sso_base not known until apply: read keeps the stored sp_* URLs, import leaves them null, plan leaves them unknown', async () => {
    const state = await create(resource, await world.configure(), { name: 'main', enabled: false });
    const context = await world.configure({ sso_base: UNKNOWN });
    // A state must be wholly known; the plan then marks the URLs unknown and apply fills them in.
    expect(await resource.read({ context, state })).toEqual(state);
    const imported = await resource.import!({ context, id: 'main' });
    expect(imported).toMatchObject({ uuid: state.uuid, sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null });
    const { planned } = await plan(resource, context, { name: 'main', enabled: false }, state);
    expect(planned).toMatchObject({ uuid: state.uuid, sp_entity_id: UNKNOWN, sp_acs_url: UNKNOWN, sp_metadata_url: UNKNOWN });
  });

  test('an unknown channel is an error naming it and the known ones', async () => {
    const context = await world.configure();
    const imported = resource.import!({ context, id: 'mian' });
    await expect(imported).rejects.toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Unknown channel "mian"', detail: expect.stringContaining('"main", "partners"') })],
    });
  });
});

describe('an unknown channel name', () => {
  const resource = resourceNamed('svc_channel_sso');
  const expected = { summary: 'Unknown channel "mian"', detail: expect.stringContaining('it lists "main"'), path: ['name'] };

  test('is refused at plan, on name, listing the channels', async () => {
    const planned = plan(resource, await world.configure(), { name: 'mian', enabled: false });
    await expect(planned).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(planned).rejects.toMatchObject({ diagnostics: [expect.objectContaining(expected)] });
  });

  test('at create (a name not known until apply) is a diagnostic on name, without the client\'s advice to call listChannels()', async () => {
    const context = await world.configure();
    const config = { name: 'mian', enabled: false, required: null, saml_metadata_url: null, id: null, uuid: null, sp_entity_id: null, sp_acs_url: null, sp_metadata_url: null };
    const created = resource.create({ context, config, planned: config, warn: failOnWarning });
    await expect(created).rejects.toBeInstanceOf(DiagnosticsError);
    await expect(created).rejects.toMatchObject({ diagnostics: [expect.objectContaining(expected)] });
    await expect(created).rejects.not.toThrow(/listChannels/);
  });
});
