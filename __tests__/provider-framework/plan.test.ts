import { defaultPlan, findAppliedInconsistency, replacementPaths } from '../../src/provider/core/plan';
import type { Schema } from '../../src/provider/core/schema';
import { types, type ValueType } from '../../src/provider/core/types';
import { valuesEqual } from '../../src/provider/core/value-equality';
import { findShapeProblem, findUnknownPath, formatAttributePath, impliedType } from '../../src/provider/core/value-shape';
import { UNKNOWN, type ObjectValue, type Value } from '../../src/provider/core/values';

const schema: Schema = {
  version: 0,
  description: 'test resource',
  attributes: {
    name: { description: 'name', type: types.string, required: true, requiresReplace: true },
    note: { description: 'note', type: types.string, optional: true },
    id: { description: 'id', type: types.string, computed: true },
    tier: { description: 'tier', type: types.string, optional: true, computed: true, requiresReplace: true },
    secret: { description: 'secret', type: types.string, optional: true, sensitive: true },
    entries: {
      description: 'entries',
      optional: true,
      nested: {
        nesting: 'set',
        attributes: {
          ip: { description: 'ip', type: types.string, required: true },
          created: { description: 'created', type: types.number, computed: true },
        },
      },
    },
    rules: {
      description: 'rules',
      optional: true,
      nested: {
        nesting: 'list',
        attributes: {
          zone: { description: 'zone', type: types.string, required: true, requiresReplace: true },
          label: { description: 'label', type: types.string, optional: true },
        },
      },
    },
  },
};

const base: ObjectValue = {
  name: 'a',
  note: null,
  id: null,
  tier: null,
  secret: null,
  entries: null,
  rules: null,
};
const state = (overrides: Record<string, Value>): ObjectValue => ({ ...base, ...overrides });

describe('valuesEqual', () => {
  const entry = types.object({ ip: types.string, n: types.number });
  const cases: Array<[name: string, type: ValueType, left: Value, right: Value, equal: boolean]> = [
    ['same string', types.string, 'a', 'a', true],
    ['different string', types.string, 'a', 'b', false],
    ['null vs value', types.string, null, 'a', false],
    ['null vs null', types.string, null, null, true],
    ['unknown vs unknown', types.string, UNKNOWN, UNKNOWN, true],
    ['unknown vs value', types.string, UNKNOWN, 'a', false],
    ['list order matters', types.list(types.number), [1, 2], [2, 1], false],
    ['set order does not matter', types.set(types.number), [1, 2], [2, 1], true],
    ['set of objects in another order', types.set(entry), [{ ip: 'a', n: 1 }, { ip: 'b', n: 2 }], [{ ip: 'b', n: 2 }, { ip: 'a', n: 1 }], true],
    ['set sizes differ', types.set(types.number), [1], [1, 1], false],
    ['set with a duplicate does not match a different set', types.set(types.number), [1, 1], [1, 2], false],
    ['sets inside a list', types.list(types.set(types.string)), [['a', 'b']], [['b', 'a']], true],
    ['set of objects holding sets, all in another order', types.set(types.object({ tags: types.set(types.string) })), [{ tags: ['x', 'y'] }, { tags: [] }], [{ tags: [] }, { tags: ['y', 'x'] }], true],
    ['set of strings that look like structure', types.set(types.list(types.string)), [['a', 'b']], [['a,b']], false],
    ['set with unknown elements', types.set(types.string), [UNKNOWN, 'a'], ['a', UNKNOWN], true],
    ['map with the same entries', types.map(types.number), { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['map with another key', types.map(types.number), { a: 1 }, { b: 1 }, false],
    ['object attribute differs', entry, { ip: 'a', n: 1 }, { ip: 'a', n: 2 }, false],
  ];
  test.each(cases)('%s', (_name, type, left, right, equal) => {
    expect(valuesEqual(type, left, right)).toBe(equal);
    expect(valuesEqual(type, right, left)).toBe(equal);
  });
});

describe('defaultPlan', () => {
  test('create: computed attributes null in config become unknown, also inside nested attributes', () => {
    const proposed = state({ tier: 'gold', entries: [{ ip: '10.0.0.1', created: null }] });
    expect(defaultPlan(schema, proposed, null)).toEqual(
      state({ id: UNKNOWN, tier: 'gold', entries: [{ ip: '10.0.0.1', created: UNKNOWN }] }),
    );
  });
  test('create: optional+computed left null becomes unknown', () => {
    expect(defaultPlan(schema, base, null)).toEqual(state({ id: UNKNOWN, tier: UNKNOWN }));
  });
  test('update: the proposal (with prior computed values) is the plan', () => {
    const prior = state({ id: 'x', tier: 'gold' });
    const proposed = state({ id: 'x', tier: 'gold', note: 'new' });
    expect(defaultPlan(schema, proposed, prior)).toBe(proposed);
  });
});

describe('defaultPlan on update: computed members of NEW nested elements become unknown', () => {
  const member = { key: { description: 'key', type: types.string, required: true }, created: { description: 'created', type: types.number, computed: true } };
  const nestedSchema: Schema = {
    version: 0,
    description: 'nestings',
    attributes: {
      single: { description: 'single', optional: true, nested: { nesting: 'single', attributes: member } },
      list: { description: 'list', optional: true, nested: { nesting: 'list', attributes: member } },
      set: { description: 'set', optional: true, nested: { nesting: 'set', attributes: member } },
      map: { description: 'map', optional: true, nested: { nesting: 'map', attributes: member } },
    },
  };
  const none: ObjectValue = { single: null, list: null, set: null, map: null };
  const old: ObjectValue = { key: 'a', created: 1 };
  const fresh: ObjectValue = { key: 'b', created: null };
  const unknownFresh: ObjectValue = { key: 'b', created: UNKNOWN };
  const cases: Array<[name: string, prior: ObjectValue, proposed: ObjectValue, planned: ObjectValue]> = [
    ['single that did not exist', none, { ...none, single: fresh }, { ...none, single: unknownFresh }],
    ['single that existed keeps its prior values', { ...none, single: old }, { ...none, single: old }, { ...none, single: old }],
    ['list grown: only the new index', { ...none, list: [old] }, { ...none, list: [old, fresh] }, { ...none, list: [old, unknownFresh] }],
    ['set: only the element with no equal prior one', { ...none, set: [old] }, { ...none, set: [fresh, old] }, { ...none, set: [unknownFresh, old] }],
    ['map: only the new key', { ...none, map: { a: old } }, { ...none, map: { a: old, b: fresh } }, { ...none, map: { a: old, b: unknownFresh } }],
    ['a collection that was null: all elements new', none, { ...none, list: [fresh] }, { ...none, list: [unknownFresh] }],
  ];
  test.each(cases)('%s', (_name, prior, proposed, planned) => {
    expect(defaultPlan(nestedSchema, proposed, prior)).toEqual(planned);
  });
});

describe('replacementPaths', () => {
  const prior = state({ id: 'x', tier: 'gold', rules: [{ zone: 'eu', label: 'l' }] });
  const cases: Array<[name: string, planned: ObjectValue, paths: Value[]]> = [
    ['nothing changed', prior, []],
    ['a non-replacing attribute changed', { ...prior, note: 'n' }, []],
    ['a replacing attribute changed', { ...prior, name: 'b' }, [['name']]],
    ['a replacing attribute became unknown', { ...prior, tier: UNKNOWN }, [['tier']]],
    ['a replacing nested list member changed', { ...prior, rules: [{ zone: 'us', label: 'l' }] }, [['rules', 0, 'zone']]],
    ['a non-replacing nested list member changed', { ...prior, rules: [{ zone: 'eu', label: 'other' }] }, []],
    ['the nested list grew', { ...prior, rules: [{ zone: 'eu', label: 'l' }, { zone: 'us', label: null }] }, [['rules']]],
  ];
  test.each(cases)('%s', (_name, planned, paths) => {
    expect(replacementPaths(schema, prior, planned)).toEqual(paths);
  });
  test('never on create', () => {
    expect(replacementPaths(schema, null, state({ name: 'b' }))).toEqual([]);
  });
  test('a set nested attribute with a replacing member: named whole only when that member changed', () => {
    const setSchema: Schema = {
      version: 0,
      description: '',
      attributes: {
        items: {
          description: '',
          optional: true,
          nested: {
            nesting: 'set',
            attributes: {
              key: { description: '', type: types.string, required: true, requiresReplace: true },
              note: { description: '', type: types.string, optional: true },
            },
          },
        },
      },
    };
    const before = { items: [{ key: 'a', note: '1' }, { key: 'b', note: '2' }] };
    expect(replacementPaths(setSchema, before, { items: [{ key: 'b', note: '2' }, { key: 'a', note: 'changed' }] })).toEqual([]);
    expect(replacementPaths(setSchema, before, { items: [{ key: 'c', note: '1' }, { key: 'b', note: '2' }] })).toEqual([['items']]);
  });
});

describe('findAppliedInconsistency', () => {
  const planned = state({ id: UNKNOWN, tier: 'gold', secret: 's1', entries: [{ ip: '10.0.0.1', created: UNKNOWN }] });
  const cases: Array<[name: string, applied: ObjectValue, path: string | undefined, reason: RegExp | undefined]> = [
    ['unknowns filled, known values kept', state({ id: 'x', tier: 'gold', secret: 's1', entries: [{ ip: '10.0.0.1', created: 5 }] }), undefined, undefined],
    ['a known value changed', state({ id: 'x', tier: 'silver', secret: 's1', entries: [{ ip: '10.0.0.1', created: 5 }] }), 'tier', /planned "gold", but apply returned "silver"/],
    ['a planned value came back null', state({ id: 'x', tier: null, secret: 's1', entries: [{ ip: '10.0.0.1', created: 5 }] }), 'tier', /returned null/],
    ['a sensitive value is not shown', state({ id: 'x', tier: 'gold', secret: 's2', entries: [{ ip: '10.0.0.1', created: 5 }] }), 'secret', /^planned \(sensitive value\), but apply returned \(sensitive value\)$/],
    ['a planned null came back set', state({ id: 'x', tier: 'gold', secret: 's1', note: 'n', entries: [{ ip: '10.0.0.1', created: 5 }] }), 'note', /planned null/],
  ];
  test.each(cases)('%s', (_name, applied, path, reason) => {
    const problem = findAppliedInconsistency(schema, planned, applied);
    expect(problem === undefined ? undefined : formatAttributePath(problem.path)).toBe(path);
    if (reason !== undefined) expect(problem?.reason).toMatch(reason);
  });
  test('a wholly known set compares without order', () => {
    const knownPlan = state({ id: 'x', entries: [{ ip: 'a', created: 1 }, { ip: 'b', created: 2 }] });
    expect(findAppliedInconsistency(schema, knownPlan, state({ id: 'x', entries: [{ ip: 'b', created: 2 }, { ip: 'a', created: 1 }] }))).toBeUndefined();
    expect(formatAttributePath(findAppliedInconsistency(schema, knownPlan, state({ id: 'x', entries: [{ ip: 'b', created: 2 }] }))!.path)).toBe('entries');
  });
});

describe('value shape', () => {
  const type = impliedType(schema);
  test('implied type of nested attributes', () => {
    expect(type).toEqual(
      types.object({
        name: types.string,
        note: types.string,
        id: types.string,
        tier: types.string,
        secret: types.string,
        entries: types.set(types.object({ ip: types.string, created: types.number })),
        rules: types.list(types.object({ zone: types.string, label: types.string })),
      }),
    );
  });
  const cases: Array<[name: string, value: unknown, problem: string | undefined]> = [
    ['conforming', base, undefined],
    ['missing attribute', { ...base, note: undefined }, 'note: attribute is missing'],
    ['extra attribute', { ...base, extra: 1 }, 'extra: attribute is not in the schema'],
    ['wrong kind inside a set', { ...base, entries: [{ ip: 1, created: null }] }, 'entries[0].ip: expected string, got number'],
  ];
  test.each(cases)('%s', (_name, value, problem) => {
    const found = findShapeProblem(type, value);
    expect(found === undefined ? undefined : `${formatAttributePath(found.path)}: ${found.reason}`).toEqual(
      problem === undefined ? undefined : expect.stringContaining(problem),
    );
  });
  test.each([
    ['a bool that is text', types.bool, 'yes', 'expected bool, got string'],
    ['NaN', types.number, Number.NaN, 'NaN is not a number terraform can store'],
    ['a list that is an object', types.list(types.string), { a: 1 }, 'expected list, got object'],
    ['a set that is undefined', types.set(types.string), undefined, 'expected set, got undefined'],
    ['a map that is an array', types.map(types.string), ['a'], 'expected map, got array'],
    ['a map element of the wrong kind', types.map(types.number), { a: 1, b: 'two' }, '["b"]: expected number, got string'],
    ['a map of strings holding a number after strings', types.map(types.string), { a: 'x', b: null, c: 3 }, '["c"]: expected string, got number'],
    ['an object that is text', types.object({ a: types.string }), 'a', 'expected object, got string'],
    ['a list element of the wrong kind', types.list(types.bool), [true, 0], '[1]: expected bool, got number'],
  ])('findShapeProblem: %s', (_name, valueType, value, problem) => {
    const found = findShapeProblem(valueType, value)!;
    expect(`${found.path.length === 0 ? '' : `${formatAttributePath(found.path)}: `}${found.reason}`).toBe(problem);
  });
  test('null and unknown conform to every type; a map of known elements conforms', () => {
    expect(findShapeProblem(types.map(types.string), UNKNOWN)).toBeUndefined();
    expect(findShapeProblem(types.object({ a: types.string }), null)).toBeUndefined();
    expect(findShapeProblem(types.map(types.string), { a: 'x', b: null })).toBeUndefined();
  });
  test('findUnknownPath names map keys and indexes', () => {
    const mapType = types.object({ tags: types.map(types.list(types.string)) });
    expect(formatAttributePath(findUnknownPath(mapType, { tags: { team: ['a', UNKNOWN] } })!)).toBe('tags["team"][1]');
    expect(findUnknownPath(mapType, { tags: { team: ['a'] } })).toBeUndefined();
  });
});

describe('single and map nested attributes, and collection attributes', () => {
  const nestedSchema: Schema = {
    version: 0,
    description: 'nested kinds',
    attributes: {
      settings: {
        description: 'settings',
        optional: true,
        nested: {
          nesting: 'single',
          attributes: {
            mode: { description: 'mode', type: types.string, required: true, requiresReplace: true },
            revision: { description: 'revision', type: types.number, computed: true },
          },
        },
      },
      zones: {
        description: 'zones',
        optional: true,
        nested: { nesting: 'map', attributes: { label: { description: 'label', type: types.string, optional: true }, created: { description: 'created', type: types.number, computed: true } } },
      },
      ports: { description: 'ports', type: types.list(types.number), optional: true },
      tags: { description: 'tags', type: types.map(types.string), optional: true },
      owner: { description: 'owner', type: types.object({ team: types.string, pager: types.string }), optional: true },
    },
  };
  const value = (overrides: Record<string, Value>): ObjectValue => ({ settings: null, zones: null, ports: null, tags: null, owner: null, ...overrides });

  test('create: computed members of a single object and of every map element become unknown', () => {
    const planned = defaultPlan(nestedSchema, value({ settings: { mode: 'strict', revision: null }, zones: { eu: { label: 'EU', created: null }, us: { label: null, created: 3 } } }), null);
    expect(planned.settings).toEqual({ mode: 'strict', revision: UNKNOWN });
    expect(planned.zones).toEqual({ eu: { label: 'EU', created: UNKNOWN }, us: { label: null, created: 3 } });
  });

  test('a replacing member of a single nested object is named by its path; a change elsewhere replaces nothing', () => {
    const prior = value({ settings: { mode: 'strict', revision: 4 }, ports: [80] });
    expect(replacementPaths(nestedSchema, prior, value({ settings: { mode: 'lenient', revision: 4 }, ports: [80] }))).toEqual([['settings', 'mode']]);
    expect(replacementPaths(nestedSchema, prior, value({ settings: { mode: 'strict', revision: 4 }, ports: [80, 443] }))).toEqual([]);
    // A single object that appears where there was none: its replacing member is new.
    expect(replacementPaths(nestedSchema, value({}), value({ settings: { mode: 'strict', revision: UNKNOWN } }))).toEqual([['settings', 'mode']]);
  });

  const planned = value({ ports: [80, 443], tags: { team: 'sec', env: 'prod' }, owner: { team: 'sec', pager: 'p1' } });
  const cases: Array<[name: string, applied: ObjectValue, path: string | undefined, reason: string | undefined]> = [
    ['all kept', value({ ports: [80, 443], tags: { env: 'prod', team: 'sec' }, owner: { team: 'sec', pager: 'p1' } }), undefined, undefined],
    ['a list of another length', value({ ports: [80], tags: { team: 'sec', env: 'prod' }, owner: { team: 'sec', pager: 'p1' } }), 'ports', 'planned [80,443], but apply returned [80]'],
    ['a list element changed', value({ ports: [80, 8443], tags: { team: 'sec', env: 'prod' }, owner: { team: 'sec', pager: 'p1' } }), 'ports[1]', 'planned 443, but apply returned 8443'],
    ['a map with other keys', value({ ports: [80, 443], tags: { team: 'sec' }, owner: { team: 'sec', pager: 'p1' } }), 'tags', undefined],
    ['a map value changed', value({ ports: [80, 443], tags: { team: 'ops', env: 'prod' }, owner: { team: 'sec', pager: 'p1' } }), 'tags["team"]', 'planned "sec", but apply returned "ops"'],
    ['an object attribute changed', value({ ports: [80, 443], tags: { team: 'sec', env: 'prod' }, owner: { team: 'sec', pager: 'p2' } }), 'owner.pager', 'planned "p1", but apply returned "p2"'],
  ];
  test.each(cases)('findAppliedInconsistency: %s', (_name, applied, path, reason) => {
    const problem = findAppliedInconsistency(nestedSchema, planned, applied);
    expect(problem === undefined ? undefined : formatAttributePath(problem.path)).toBe(path);
    if (reason !== undefined) expect(problem!.reason).toBe(reason);
  });

  test('a long value is cut in the message at 200 characters', () => {
    const long = Array.from({ length: 100 }, (_, index) => 1000 + index);
    const problem = findAppliedInconsistency(nestedSchema, value({ ports: long }), value({ ports: [...long.slice(0, 99), 1] }))!;
    expect(formatAttributePath(problem.path)).toBe('ports[99]');
    const listProblem = findAppliedInconsistency(nestedSchema, value({ ports: long }), value({ ports: [] }))!;
    expect(listProblem.reason).toBe(`planned ${JSON.stringify(long).slice(0, 200)}..., but apply returned []`);
  });
});
