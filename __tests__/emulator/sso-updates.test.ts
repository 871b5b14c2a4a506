/** Customers and channels update: only sso may change, SSO rules enforced, a refusal changes nothing. */
import type { RunningEmulator } from '../../src/emulator/server';
import { TENANT, api, login, startTestEmulator } from './helpers';

let emulator: RunningEmulator;
let token: string;

beforeEach(async () => {
  emulator = await startTestEmulator();
  token = await login(emulator);
});
afterEach(() => emulator.close());

async function listed(area: 'customers' | 'channels', name: string): Promise<Record<string, unknown>> {
  const all = (await api(emulator, area, { command: 'list', token })).json.Ok as Array<Record<string, unknown>>;
  return all.find((item) => item.name === name) as Record<string, unknown>;
}

function withoutUuid(item: Record<string, unknown>): Record<string, unknown> {
  const { uuid: _uuid, ...rest } = item;
  return rest;
}

const ENABLED = { enabled: true, required: false, saml_metadata_url: 'https://idp.example/metadata' };

/** `otherField` is a non-sso field of the object under test, with a value different from the seed's. */
type Change = (copy: Record<string, unknown>, original: Record<string, unknown>, otherField: [string, unknown]) => void;
const refusals: Array<[name: string, change: Change, pattern: RegExp]> = [
  ['uuid present', (copy, original) => { copy.uuid = original.uuid; copy.sso = ENABLED; }, /must not carry "uuid"/],
  ['another field changed', (copy, _original, [key, value]) => { copy[key] = value; copy.sso = ENABLED; }, /field "(require_totp_setup|description)" differs/],
  ['a field missing', (copy) => { delete copy.name; copy.sso = ENABLED; }, /name/],
  ['an unknown field', (copy) => { copy.colour = 'blue'; copy.sso = ENABLED; }, /unknown field "colour"/],
  // Names every object inherits must not pass for fields of the listed object.
  ['an inherited name as a field', (copy) => { Object.assign(copy, { toString: 'x', sso: ENABLED }); }, /unknown field "toString"/],
  ['enabled without a metadata URL', (copy) => { copy.sso = { enabled: true, required: false, saml_metadata_url: '' }; }, /not an https:\/\/ URL/],
  ['enabled with an http metadata URL', (copy) => { copy.sso = { ...ENABLED, saml_metadata_url: 'http://idp.example/metadata' }; }, /not an https:\/\/ URL/],
  ['required without enabled', (copy) => { copy.sso = { enabled: false, required: true, saml_metadata_url: 'https://idp.example/m' }; }, /required is true but enabled is false/],
  ['sso not an object', (copy) => { copy.sso = 'on'; }, /must be null or an object/],
  ['sso with a non-boolean', (copy) => { copy.sso = { ...ENABLED, enabled: 'yes' }; }, /sso\.enabled must be true or false/],
];

describe.each([['customers' as const], ['channels' as const]])('%s update', (area) => {
  const name = area === 'customers' ? TENANT : 'main';
  const kind = area === 'customers' ? 'customer' : 'channel';
  const update = (object: Record<string, unknown>) =>
    api(emulator, area, area === 'customers' ? { command: 'update', token, name, customer: object } : { command: 'update', token, channel: object });

  const otherField: [string, unknown] = area === 'customers' ? ['description', 'changed'] : ['require_totp_setup', true];

  test.each(refusals)('refuses %s and changes nothing', async (_name, change, pattern) => {
    const before = await listed(area, name);
    const copy = withoutUuid(before);
    change(copy, before, otherField);
    const reply = await update(copy);
    expect(reply.json.Error).toMatch(pattern);
    expect(String(reply.json.Error)).toContain(kind);
    expect(await listed(area, name)).toEqual(before);
    const events = await api(emulator, 'logs', { command: 'audit_events', token, customer_name: TENANT, limit: 5 });
    expect(events.json).toEqual({ Ok: [] });
  });

  test('enables, requires, then clears SSO; the audit log records Sites events', async () => {
    const before = await listed(area, name);
    const steps = [ENABLED, { ...ENABLED, required: true }, null];
    for (const sso of steps) {
      const reply = await update({ ...withoutUuid(before), sso });
      expect(reply.json).toEqual({ Ok: area === 'customers' ? `${TENANT} updated.` : 'Channel: main updated.' });
      expect(await listed(area, name)).toEqual({ ...before, sso });
    }
    const events = (await api(emulator, 'logs', { command: 'audit_events', token, customer_name: TENANT, limit: 5 })).json
      .Ok as Array<Record<string, string>>;
    expect(events.map((event) => [event.category, event.action])).toEqual([
      ['Sites', 'unset_field'],
      ['Sites', 'update_site'],
      ['Sites', 'update_site'],
    ]);
  });

  test('an unknown name is refused', async () => {
    const before = await listed(area, name);
    const reply = await update({ ...withoutUuid(before), name: 'nobody', sso: null });
    if (area === 'customers') expect(reply.json.Error).toMatch(/field "name" differs/);
    else expect(reply.json.Error).toMatch(/^Unknown channel: nobody/);
  });
});

test('customers update for an unknown tenant name is refused', async () => {
  const reply = await api(emulator, 'customers', { command: 'update', token, name: 'nobody', customer: {} });
  expect(reply.json.Error).toMatch(/^Unknown customer: nobody/);
});

test('a channel update is recorded in every tenant\'s audit log', async () => {
  const channel = withoutUuid(await listed('channels', 'main'));
  await api(emulator, 'channels', { command: 'update', token, channel: { ...channel, sso: ENABLED } });
  const globex = await api(emulator, 'logs', { command: 'audit_events', token, customer_name: 'globex', limit: 5 });
  expect(globex.json.Ok).toEqual([expect.objectContaining({ category: 'Sites', action: 'update_site' })]);
});
