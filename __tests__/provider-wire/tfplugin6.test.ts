import type { ResourceDefinition } from '../../src/provider/core/definition';
import { types } from '../../src/provider/core/types';
import type { ObjectValue } from '../../src/provider/core/values';
import {
  DiagnosticSeverity,
  ObjectNestingMode,
  StringKind,
  type Diagnostic,
  type DynamicValue,
  type GetProviderSchemaResponse,
  type ProviderService,
  type Schema,
} from '../../src/provider/protocol/messages';
import { encodeValue } from '../../src/provider/protocol/msgpack';
import { createProviderService } from '../../src/provider/protocol/provider-service';
import { decodeMessage, encodeMessage } from '../../src/provider/protocol/protobuf';
import * as tfplugin6 from '../../src/provider/protocol/tfplugin6';
import { emptyProvider } from './fixtures/empty-provider';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

const diagnostic = {
  severity: DiagnosticSeverity.Error,
  summary: 'Invalid ip',
  detail: 'ip "10.0.0.300" is not an address; use a dotted quad such as 10.0.0.3',
  attribute: { steps: [{ attributeName: 'entries' }, { elementKeyInt: 0 }, { elementKeyString: 'k' }] },
};

describe('tfplugin6 field numbers (hand-built wire bytes from the proto)', () => {
  test('ValidateProviderConfig.Response carries diagnostics in field 2, the other validate responses in field 1', () => {
    const oneDiagnostic = { diagnostics: [{ severity: DiagnosticSeverity.Warning, summary: 's', detail: '' }] };
    // Diagnostic{severity=2, summary="s"} = 08 02 12 01 73
    expect(encodeMessage(tfplugin6.ValidateProviderConfigResponse, oneDiagnostic).toString('hex')).toBe('1205080212' + '0173');
    expect(encodeMessage(tfplugin6.ValidateResourceConfigResponse, oneDiagnostic).toString('hex')).toBe('0a05080212' + '0173');
    expect(encodeMessage(tfplugin6.ConfigureProviderResponse, oneDiagnostic).toString('hex')).toBe('0a05080212' + '0173');
  });

  test('PlanResourceChange.Request decodes every field terraform sends, skipping ones it adds later', () => {
    const wire = Buffer.concat([
      hex('0a 03 73 76 63'), // type_name "svc"
      hex('12 03 0a 01 c0'), // prior_state {msgpack: c0 (nil)}
      hex('1a 03 0a 01 80'), // proposed_new_state {msgpack: 80}
      hex('22 03 12 01 7b'), // config {json: "{"}
      hex('2a 02 70 70'), // prior_private "pp"
      hex('3a 04 08 01 10 01'), // client_capabilities {deferral_allowed, write_only_attributes_allowed}
      hex('f8 01 01'), // field 31: unknown to us
    ]);
    const request = tfplugin6.decodeRequest(tfplugin6.providerRpcs.PlanResourceChange, wire);
    expect(request).toEqual({
      typeName: 'svc',
      // DynamicValue's two encodings decode as absent (undefined) unless sent: config came as json only
      priorState: { msgpack: hex('c0'), json: undefined },
      proposedNewState: { msgpack: hex('80'), json: undefined },
      config: { msgpack: undefined, json: Buffer.from('{') },
      priorPrivate: Buffer.from('pp'),
      providerMeta: undefined,
      clientCapabilities: { deferralAllowed: true, writeOnlyAttributesAllowed: true },
    });
  });

  test('UpgradeResourceState.Request: version and the flatmap raw state', () => {
    const wire = Buffer.concat([
      hex('0a 01 78'), // type_name "x"
      hex('10 03'), // version 3
      hex('1a 0c'), // raw_state, 12 bytes
      hex('0a 02 7b 7d'), // json "{}"
      hex('12 06 0a 01 61 12 01 62'), // flatmap {a: b}
    ]);
    const request = tfplugin6.decodeRequest(tfplugin6.providerRpcs.UpgradeResourceState, wire);
    expect(request).toEqual({ typeName: 'x', version: 3, rawState: { json: Buffer.from('{}'), flatmap: { a: 'b' } } });
  });

  test('a diagnostic with an attribute path round-trips, element key 0 included', () => {
    const bytes = encodeMessage(tfplugin6.Diagnostic, diagnostic);
    // step 2 is {element_key_int: 0}: written despite being the default, as oneof members are
    expect(bytes.includes(hex('0a 02 18 00'))).toBe(true);
    expect(decodeMessage(tfplugin6.Diagnostic, bytes)).toEqual({
      ...diagnostic,
      attribute: {
        steps: [
          { attributeName: 'entries', elementKeyString: undefined, elementKeyInt: undefined },
          { attributeName: undefined, elementKeyString: undefined, elementKeyInt: 0 },
          { attributeName: undefined, elementKeyString: 'k', elementKeyInt: undefined },
        ],
      },
    });
  });
});

describe('GetProviderSchema.Response', () => {
  const attribute = (name: string, type: string) => ({
    name,
    type: Buffer.from(type),
    description: `the ${name}`,
    required: name === 'ip',
    optional: name !== 'ip',
    computed: name === 'id',
    sensitive: false,
    descriptionKind: StringKind.Markdown,
    deprecated: false,
    writeOnly: false,
  });
  const schema = (attributes: object[]) => ({
    version: 1,
    block: { version: 1, attributes, blockTypes: [], description: 'd', descriptionKind: StringKind.Plain, deprecated: false },
  });
  const response: GetProviderSchemaResponse = {
    provider: schema([attribute('api_key', '"string"')]) as Schema,
    resourceSchemas: {
      svc_blacklist_entry: schema([attribute('ip', '"string"'), attribute('id', '"string"')]) as Schema,
      svc_blacklist: schema([
        {
          ...attribute('entries', ''),
          type: Buffer.alloc(0),
          nestedType: { attributes: [attribute('ip', '"string"')], nesting: ObjectNestingMode.Set },
        },
      ]) as Schema,
    },
    dataSourceSchemas: {},
    functions: {},
    diagnostics: [],
    serverCapabilities: { planDestroy: false, getProviderSchemaOptional: true, moveResourceState: false },
  };

  test('round-trips with nested attribute types and schema maps', () => {
    const decoded = decodeMessage(
      tfplugin6.GetProviderSchemaResponse,
      encodeMessage(tfplugin6.GetProviderSchemaResponse, response),
    );
    expect(decoded).toMatchObject(JSON.parse(JSON.stringify(response), bufferReviver));
  });

  test('server_capabilities is field 6 with get_provider_schema_optional as its field 2', () => {
    const bytes = encodeMessage(tfplugin6.GetProviderSchemaResponse, {
      ...response,
      provider: undefined,
      resourceSchemas: {},
    });
    expect(bytes.toString('hex')).toBe('32021001');
  });
});

describe('the service table', () => {
  test('every ProviderService method has exactly one RPC', () => {
    const methods = Object.keys(emptyProvider).sort();
    expect(Object.values(tfplugin6.providerRpcs).map((rpc) => rpc.method).sort()).toEqual(methods);
  });

  test('callProviderRpc decodes the request, calls the method and encodes its reply', async () => {
    const calls: unknown[] = [];
    const service: ProviderService = {
      ...emptyProvider,
      configureProvider: async (request) => {
        calls.push(request);
        return { diagnostics: [diagnostic] };
      },
    };
    const reply = await tfplugin6.callProviderRpc(service, tfplugin6.providerRpcs.ConfigureProvider!, hex('0a 06 31 2e 31 31 2e 34'));
    expect(calls).toEqual([{ terraformVersion: '1.11.4', config: undefined, clientCapabilities: undefined }]);
    expect(decodeMessage(tfplugin6.ConfigureProviderResponse, reply)).toMatchObject({ diagnostics: [{ summary: 'Invalid ip' }] });
  });
});

/** JSON.stringify turns Buffers into {type:'Buffer',data}; turn them back for comparison. */
function bufferReviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return Buffer.from((value as { data: number[] }).data);
  }
  return value;
}

describe('DynamicValue in JSON (the protocol allows it; terraform itself sends msgpack)', () => {
  // A one-resource provider whose validate hook records the config it was given.
  const seen: ObjectValue[] = [];
  const resource: ResourceDefinition<object> = {
    typeName: 'svc_note',
    schema: {
      version: 0,
      description: 'A note.',
      attributes: {
        text: { description: 'Text.', type: types.string, required: true },
        tags: { description: 'Tags.', type: types.list(types.string), optional: true },
      },
    },
    validate: ({ config }) => {
      seen.push(config);
      return [];
    },
    create: async ({ planned }) => planned,
    update: async ({ planned }) => planned,
    delete: async () => undefined,
    read: async ({ state }) => state,
  };
  const service = createProviderService({ schema: { version: 0, description: '', attributes: {} }, configure: async () => ({}), resources: [resource], dataSources: [] });
  const validate = (wire: Buffer) => tfplugin6.callProviderRpc(service, tfplugin6.providerRpcs.ValidateResourceConfig, wire);
  const typeName = hex(`0a 08 ${Buffer.from('svc_note').toString('hex')}`); // type_name "svc_note"
  /** config (field 2) holding the given DynamicValue bytes. */
  const config = (dynamicValue: Buffer) => Buffer.concat([hex('12'), Buffer.from([dynamicValue.length]), dynamicValue]);
  const bytesField = (number: number, bytes: Buffer) => Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
  const json = Buffer.from('{"text":"hello","tags":["a","b"]}');

  beforeEach(() => seen.splice(0));

  test('only json set (field 2): decoded against the schema and handed to the hook', async () => {
    const reply = await validate(Buffer.concat([typeName, config(bytesField(2, json))]));
    expect(decodeMessage(tfplugin6.ValidateResourceConfigResponse, reply).diagnostics).toEqual([]);
    expect(seen).toEqual([{ text: 'hello', tags: ['a', 'b'] }]);
  });

  test('the same request built with our encoder decodes the same way', async () => {
    await validate(encodeMessage(tfplugin6.ValidateResourceConfigRequest, { typeName: 'svc_note', config: { json } }));
    expect(seen).toEqual([{ text: 'hello', tags: ['a', 'b'] }]);
  });

  test('an empty msgpack field beside json does not hide the json (no msgpack value is zero bytes)', async () => {
    await validate(Buffer.concat([typeName, config(Buffer.concat([bytesField(1, Buffer.alloc(0)), bytesField(2, json)]))]));
    expect(seen).toEqual([{ text: 'hello', tags: ['a', 'b'] }]);
  });

  test('msgpack wins when both are set, as in terraform\'s own decoder', async () => {
    const msgpack = encodeValue(types.object({ text: types.string, tags: types.list(types.string) }), { text: 'from msgpack', tags: null });
    await validate(Buffer.concat([typeName, config(Buffer.concat([bytesField(1, msgpack), bytesField(2, json)]))]));
    expect(seen).toEqual([{ text: 'from msgpack', tags: null }]);
  });

  test('neither set is an internal fault naming the field', async () => {
    await expect(validate(Buffer.concat([typeName, config(Buffer.alloc(0))]))).rejects.toThrow(
      'ValidateResourceConfig config is missing from the request (neither msgpack nor json set)',
    );
  });
});

describe('the TypeScript types come from the descriptors', () => {
  test('a decoded message has exactly the declared fields, and its type says which may be absent', () => {
    const decoded: Diagnostic = decodeMessage(tfplugin6.Diagnostic, encodeMessage(tfplugin6.Diagnostic, diagnostic));
    expect(Object.keys(decoded).sort()).toEqual(tfplugin6.Diagnostic.fields.map((field) => field.name).sort());
    // Compile-time checks (tsc runs over the tests): each line fails to type-check if the derived types loosen.
    // @ts-expect-error severity is the DiagnosticSeverity enum, not a string
    const wrongSeverity: Diagnostic = { ...decoded, severity: 'error' };
    // @ts-expect-error summary is always present after decoding (proto3 default ''), so it is required
    const noSummary: Diagnostic = { severity: DiagnosticSeverity.Error, detail: '' };
    // @ts-expect-error a DynamicValue's encodings are Buffers
    const textValue: DynamicValue = { json: '{}' };
    const absentEncodings: DynamicValue = {};
    expect([wrongSeverity, noSummary, textValue, absentEncodings]).toHaveLength(4);
  });
});
