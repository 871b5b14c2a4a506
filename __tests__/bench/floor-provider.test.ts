/**
 * The protocol floor's resources, called as the core calls them (no terraform: that is
 * floor-provider-terraform.test.ts): floor_wide_entry has svc_blacklist_entry's attributes with
 * the same types and flags, and its hooks plan, create and read what svc's plan for the same
 * configuration would (description "" when unset, the default tenant, id known at plan, created
 * unknown at create and kept from the prior state), while floor_entry keeps only ip and
 * description with no plan hook.
 */
import type { AttributeSchema, ObjectValue, ResourceDefinition } from '../../src/provider/core';
import { UNKNOWN } from '../../src/provider/core';
import { createListEntryResource } from '../../src/provider/resources/list-entry';
import { FLOOR_RESOURCE_TYPE, FLOOR_WIDE_CREATED, FLOOR_WIDE_DEFAULT_TENANT, FLOOR_WIDE_RESOURCE_TYPE, floorProvider } from '../../scripts/bench/floor-provider/provider';

function resource(typeName: string): ResourceDefinition<undefined> {
  const found = floorProvider().resources.find((candidate) => candidate.typeName === typeName);
  if (found === undefined) throw new Error(`the floor provider has no ${typeName}`);
  return found;
}

/** What terraform sees of an attribute, without its description. */
function shape(attribute: AttributeSchema): Record<string, unknown> {
  return {
    type: attribute.type,
    required: attribute.required === true,
    optional: attribute.optional === true,
    computed: attribute.computed === true,
    sensitive: attribute.sensitive === true,
    requiresReplace: attribute.requiresReplace === true,
  };
}

function shapes(attributes: Readonly<Record<string, AttributeSchema>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(attributes).map(([name, attribute]) => [name, shape(attribute)]));
}

const wide = resource(FLOOR_WIDE_RESOURCE_TYPE);

/** A config as the core hands it over: every attribute present, null when unset. */
function config(values: Partial<Record<'ip' | 'description' | 'tenant', ObjectValue[string]>>): ObjectValue {
  return { ip: null, description: null, tenant: null, id: null, created: null, ...values };
}

/** The core's default plan (terraform's proposal): config, prior values for unset computed attributes, UNKNOWN on create. */
function proposed(configured: ObjectValue, prior: ObjectValue | null): ObjectValue {
  const result: Record<string, ObjectValue[string]> = { ...configured };
  for (const name of ['description', 'tenant', 'id', 'created']) if (result[name] === null) result[name] = prior === null ? UNKNOWN : prior[name];
  return result;
}

async function plan(configured: ObjectValue, prior: ObjectValue | null): Promise<ObjectValue> {
  if (wide.plan === undefined) throw new Error('floor_wide_entry has no plan hook');
  const result = await wide.plan({ context: undefined, config: configured, prior, proposed: proposed(configured, prior), priorPrivate: null });
  return result.planned;
}

const stored: ObjectValue = { ip: '10.0.0.1', description: 'old', tenant: FLOOR_WIDE_DEFAULT_TENANT, id: `${FLOOR_WIDE_DEFAULT_TENANT}/10.0.0.1`, created: 1_700_000_000 };

describe('the protocol floor', () => {
  test("floor_wide_entry has svc_blacklist_entry's attributes: names, types, required/optional/computed, sensitive and replacement flags", () => {
    expect(shapes(wide.schema.attributes)).toEqual(shapes(createListEntryResource('blacklist').schema.attributes));
  });

  test('floor_entry stays ip and description, with the core default plan', () => {
    const floor = resource(FLOOR_RESOURCE_TYPE);
    expect(Object.keys(floor.schema.attributes)).toEqual(['ip', 'description']);
    expect(floor.plan).toBeUndefined();
  });

  test.each<[string, ObjectValue, ObjectValue | null, ObjectValue]>([
    [
      'create, description and tenant unset: "" and the default tenant, id known, created unknown',
      config({ ip: '10.0.0.1' }),
      null,
      { ip: '10.0.0.1', description: '', tenant: FLOOR_WIDE_DEFAULT_TENANT, id: `${FLOOR_WIDE_DEFAULT_TENANT}/10.0.0.1`, created: UNKNOWN },
    ],
    [
      'create with a tenant and a description: kept as given, no canonicalisation',
      config({ ip: '10.0.0.1/32', description: 'x', tenant: 'acme' }),
      null,
      { ip: '10.0.0.1/32', description: 'x', tenant: 'acme', id: 'acme/10.0.0.1/32', created: UNKNOWN },
    ],
    ['create with an unknown ip: id unknown', config({ ip: UNKNOWN }), null, { ip: UNKNOWN, description: '', tenant: FLOOR_WIDE_DEFAULT_TENANT, id: UNKNOWN, created: UNKNOWN }],
    ['refresh of the same entry: created kept from the prior state', config({ ip: '10.0.0.1', description: 'old' }), stored, stored],
    ['a new description: an update that keeps created', config({ ip: '10.0.0.1', description: 'new' }), stored, { ...stored, description: 'new' }],
    [
      'another ip: a replacement whose created is unknown',
      config({ ip: '10.0.0.2', description: 'old' }),
      stored,
      { ...stored, ip: '10.0.0.2', id: `${FLOOR_WIDE_DEFAULT_TENANT}/10.0.0.2`, created: UNKNOWN },
    ],
    ['another tenant: a replacement whose created is unknown', config({ ip: '10.0.0.1', description: 'old', tenant: 'acme' }), stored, { ...stored, tenant: 'acme', id: 'acme/10.0.0.1', created: UNKNOWN }],
  ])('plan: %s', async (_name, configured, prior, planned) => {
    expect(await plan(configured, prior)).toEqual(planned);
  });

  test('create fills created with the fixed number, update keeps the planned one, read returns the state as given', async () => {
    const planned = await plan(config({ ip: '10.0.0.1' }), null);
    const warn = () => undefined;
    expect(await wide.create({ context: undefined, config: config({ ip: '10.0.0.1' }), planned, warn })).toEqual({ ...planned, created: FLOOR_WIDE_CREATED });
    const updated = { ...stored, description: 'new' };
    expect(await wide.update({ context: undefined, config: config({ ip: '10.0.0.1', description: 'new' }), prior: stored, planned: updated, warn })).toEqual(updated);
    expect(await wide.read({ context: undefined, state: stored })).toBe(stored);
  });
});
