/**
 * The bindings generator on schemas other than the provider's: kinds it does not support fail
 * with a typed error naming the attribute (instead of writing a wrong binding), attribute names
 * that clash with cdktf's own members are renamed, and doc comments stay well-formed.
 */
import { types } from '../../src/provider/core/types';
import type { AttributeSchema, Schema } from '../../src/provider/core/schema';
import { BindingsError, renderBindings, type ProviderSchemas } from '../../scripts/generate-bindings';

const PROVIDER_SCHEMA: Schema = { version: 0, description: 'test provider', attributes: {} };

function providerWith(attributes: Record<string, AttributeSchema>): ProviderSchemas {
  return {
    schema: PROVIDER_SCHEMA,
    resources: [{ typeName: 'svc_thing', schema: { version: 0, description: 'A thing.', attributes } }],
    dataSources: [],
  };
}

describe('unsupported attribute kinds are an unsupported_attribute error naming the attribute', () => {
  test.each([
    ['a settable list of objects', { type: types.list(types.object({ ip: types.string })), optional: true, description: 'x' }, 'svc_thing.rules'],
    ['a set of strings', { type: types.set(types.string), computed: true, description: 'x' }, 'svc_thing.rules'],
    ['a map of lists', { type: types.map(types.list(types.string)), optional: true, description: 'x' }, 'svc_thing.rules'],
    ['a nested attribute', { nested: { nesting: 'set', attributes: { ip: { type: types.string, required: true, description: 'x' } } }, optional: true, description: 'x' }, 'svc_thing.rules'],
    ['a list of objects with a list member', { type: types.list(types.object({ tags: types.list(types.string) })), computed: true, description: 'x' }, 'svc_thing.rules[*].tags'],
  ] as Array<[string, AttributeSchema, string]>)('%s', (_name, attribute, named) => {
    expect(() => renderBindings('0.1.0', providerWith({ rules: attribute }))).toThrow(
      expect.objectContaining({ code: 'unsupported_attribute', message: expect.stringContaining(`${named}:`) }) as BindingsError,
    );
  });
});

describe('names', () => {
  test.each([
    ['count', 'countAttribute'],
    ['provider', 'providerAttribute'],
    ['lifecycle', 'lifecycleAttribute'],
    ['node', 'nodeAttribute'],
    ['friendly_unique_id', 'friendlyUniqueIdAttribute'],
    ['ip_address', 'ipAddress'],
  ])('attribute %s becomes the property %s', (attribute, property) => {
    const files = renderBindings('0.1.0', providerWith({ [attribute]: { type: types.string, optional: true, description: 'x' } }));
    const source = files['modules/svc-provider/thing.ts']!;
    expect(source).toContain(`  readonly ${property}?: string;`);
    expect(source).toContain(`  get ${property}(): string {\n    return this.getStringAttribute('${attribute}');`);
    expect(source).toContain(`      ${attribute}: cdktf.stringToTerraform(this._${property}),`);
  });

  test('two attributes needing the same member are a name_collision error naming both', () => {
    const attributes = { ip: { type: types.string, optional: true, description: 'x' }, ip_input: { type: types.string, optional: true, description: 'x' } };
    expect(() => renderBindings('0.1.0', providerWith(attributes))).toThrow(
      expect.objectContaining({ code: 'name_collision', message: expect.stringMatching(/ip\b.*ip_input/) }) as BindingsError,
    );
  });
});

describe('doc comments', () => {
  test('a description containing */ cannot end the comment early', () => {
    const files = renderBindings('0.1.0', providerWith({ glob: { type: types.string, optional: true, description: 'A pattern such as `logs/*/` or a/*/b.' } }));
    const source = files['modules/svc-provider/thing.ts']!;
    expect(source).toContain('`logs/*\\/`');
    expect(source).not.toMatch(/logs\/\*\/`/);
  });

  test('long descriptions wrap at 100 columns without splitting a code span', () => {
    const description = `${'word '.repeat(30)}then \`a code span with spaces\` and more ${'text '.repeat(20)}`;
    const source = renderBindings('0.1.0', providerWith({ long: { type: types.string, optional: true, description } }))['modules/svc-provider/thing.ts']!;
    const commentLines = source.split('\n').filter((line) => /^\s*(\/\*\*|\*)/.test(line));
    expect(commentLines.filter((line) => line.length > 100)).toEqual([]);
    expect(commentLines.length).toBeGreaterThan(4);
    expect(source).toContain('`a code span with spaces`');
  });
});

describe('the environment variable of a sensitive setting comes from the setting sources, not from prose', () => {
  const secret: AttributeSchema = { type: types.string, optional: true, sensitive: true, description: 'A secret. Env `SVC_FROM_PROSE`.' };
  const provider: ProviderSchemas = { schema: { version: 0, description: 'test provider', attributes: { token: secret } }, resources: [], dataSources: [] };

  test.each<[name: string, sources: Record<string, { attribute: string; env: string }>, expected: string]>([
    ['named in the sources: that variable', { token: { attribute: 'token', env: 'SVC_TOKEN' } }, "sensitiveSetting('SvcProvider', 'token', 'token', 'SVC_TOKEN', config.token)"],
    ['not in the sources: none, whatever the description says', {}, "sensitiveSetting('SvcProvider', 'token', 'token', undefined, config.token)"],
  ])('%s', (_name, sources, expected) => {
    const source = renderBindings('0.1.0', provider, sources)['modules/svc-provider/provider.ts']!;
    expect(source).toContain(`this._token = ${expected};`);
    expect(source).not.toContain('SVC_FROM_PROSE\'');
  });

  test('a resource attribute gets none: only provider settings have environment variables', () => {
    const source = renderBindings('0.1.0', providerWith({ token: secret }), { token: { attribute: 'token', env: 'SVC_TOKEN' } })['modules/svc-provider/thing.ts']!;
    expect(source).toContain("sensitiveSetting('Thing', 'token', 'token', undefined, config.token)");
  });
});
