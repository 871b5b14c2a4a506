import type { Diagnostic } from '../../src/provider/core/diagnostics';
import type { Schema } from '../../src/provider/core/schema';
import { types, type ValueType } from '../../src/provider/core/types';
import {
  fromProtocolDiagnostic,
  toProtocolDiagnostic,
} from '../../src/provider/protocol/diagnostic-conversion';
import { DiagnosticSeverity, ObjectNestingMode, StringKind } from '../../src/provider/protocol/messages';
import { impliedType, toProtocolSchema } from '../../src/provider/protocol/schema-conversion';
import { decodeType, encodeType, TypeJsonError } from '../../src/provider/protocol/type-json';

describe('compact type JSON', () => {
  const cases: Array<[name: string, type: ValueType, json: string]> = [
    ['string', types.string, '"string"'],
    ['number', types.number, '"number"'],
    ['bool', types.bool, '"bool"'],
    ['list', types.list(types.string), '["list","string"]'],
    ['set', types.set(types.number), '["set","number"]'],
    ['map', types.map(types.bool), '["map","bool"]'],
    ['object, attributes sorted', types.object({ z: types.string, a: types.list(types.number) }), '["object",{"a":["list","number"],"z":"string"}]'],
    ['set of objects', types.set(types.object({ ip: types.string })), '["set",["object",{"ip":"string"}]]'],
  ];
  test.each(cases)('%s', (_name, type, json) => {
    expect(encodeType(type).toString()).toBe(json);
    expect(decodeType(Buffer.from(json))).toEqual(type);
  });
  test.each([
    ['dynamic', '"dynamic"', /dynamic pseudo-type/],
    ['tuple', '["tuple",["string"]]', /unsupported type JSON/],
    ['not JSON', '[', /not valid JSON/],
  ])('rejects %s', (_name, json, message) => {
    expect(() => decodeType(json)).toThrow(TypeJsonError);
    expect(() => decodeType(json)).toThrow(message);
  });
});

describe('schema conversion', () => {
  const schema: Schema = {
    version: 2,
    description: 'An **entry**.',
    attributes: {
      name: { description: 'Name.', type: types.string, required: true },
      api_key: { description: 'Key.', type: types.string, optional: true, sensitive: true },
      entries: {
        description: 'Entries.',
        optional: true,
        computed: true,
        nested: {
          nesting: 'set',
          attributes: {
            ip: { description: 'IP.', type: types.string, required: true },
            description: { description: 'Text.', type: types.string, optional: true },
          },
        },
      },
    },
  };
  const converted = toProtocolSchema(schema);
  const block = converted.block!;

  test('block: version, markdown description, no nested blocks', () => {
    expect(converted.version).toBe(2);
    expect(block).toMatchObject({ version: 2, description: 'An **entry**.', descriptionKind: StringKind.Markdown, blockTypes: [] });
  });
  test('attributes sorted by name with their flags and type JSON', () => {
    expect(block.attributes.map((attribute) => attribute.name)).toEqual(['api_key', 'entries', 'name']);
    const [apiKey, , name] = block.attributes;
    expect(apiKey).toMatchObject({ optional: true, required: false, computed: false, sensitive: true, descriptionKind: StringKind.Markdown });
    expect(name).toMatchObject({ required: true, optional: false, writeOnly: false, deprecated: false });
    expect(name.type.toString()).toBe('"string"');
  });
  test('a nested attribute becomes a nested type with its nesting mode and no type bytes', () => {
    const entries = block.attributes[1];
    expect(entries.type.length).toBe(0);
    expect(entries).toMatchObject({ optional: true, computed: true });
    expect(entries.nestedType?.nesting).toBe(ObjectNestingMode.Set);
    expect(entries.nestedType?.attributes.map((attribute) => [attribute.name, attribute.type.toString(), attribute.required])).toEqual([
      ['description', '"string"', false],
      ['ip', '"string"', true],
    ]);
  });
  test('implied type', () => {
    expect(impliedType(schema)).toEqual(
      types.object({
        name: types.string,
        api_key: types.string,
        entries: types.set(types.object({ ip: types.string, description: types.string })),
      }),
    );
  });
  test.each([
    ['single', ObjectNestingMode.Single],
    ['list', ObjectNestingMode.List],
    ['map', ObjectNestingMode.Map],
  ] as const)('nesting %s', (nesting, mode) => {
    const nestedSchema: Schema = {
      version: 0,
      description: '',
      attributes: { x: { description: '', optional: true, nested: { nesting, attributes: { a: { description: '', type: types.bool, optional: true } } } } },
    };
    expect(toProtocolSchema(nestedSchema).block!.attributes[0].nestedType?.nesting).toBe(mode);
    const objectType = types.object({ a: types.bool });
    const expected = nesting === 'single' ? objectType : { kind: nesting, element: objectType };
    expect(impliedType(nestedSchema)).toEqual(types.object({ x: expected as ValueType }));
  });
});

describe('diagnostic conversion', () => {
  const cases: Array<[name: string, diagnostic: Diagnostic, steps: unknown]> = [
    ['no path', { severity: 'error', summary: 's', detail: 'd' }, undefined],
    ['attribute', { severity: 'warning', summary: 's', detail: 'd', path: ['ip'] }, [{ attributeName: 'ip' }]],
    [
      'attribute, index, map key',
      { severity: 'error', summary: 's', detail: 'd', path: ['entries', 2, 'tags', { key: 'team' }] },
      [{ attributeName: 'entries' }, { elementKeyInt: 2 }, { attributeName: 'tags' }, { elementKeyString: 'team' }],
    ],
  ];
  test.each(cases)('%s', (_name, diagnostic, steps) => {
    const converted = toProtocolDiagnostic(diagnostic);
    expect(converted.severity).toBe(diagnostic.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning);
    expect(converted.attribute?.steps).toEqual(steps);
    expect(fromProtocolDiagnostic(converted)).toEqual(diagnostic);
  });
  test('summary and detail pass through the given redact; the path does not', () => {
    const converted = toProtocolDiagnostic(
      { severity: 'error', summary: 'key k-123 refused', detail: 'k-123 expired', path: ['k-123'] },
      (text) => text.replaceAll('k-123', '***'),
    );
    expect(converted).toMatchObject({ summary: 'key *** refused', detail: '*** expired', attribute: { steps: [{ attributeName: 'k-123' }] } });
  });
});
