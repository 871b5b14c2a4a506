import {
  DiagnosticSeverity,
  ObjectNestingMode,
  StringKind,
  type GetProviderSchemaResponse,
  type PlanResourceChangeRequest,
  type ProviderService,
  type UpgradeResourceStateRequest,
} from '../../src/provider/protocol/messages';
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
    const request = tfplugin6.decodeRequest<PlanResourceChangeRequest>(tfplugin6.providerRpcs.PlanResourceChange!, wire);
    expect(request).toEqual({
      typeName: 'svc',
      priorState: { msgpack: hex('c0'), json: Buffer.alloc(0) },
      proposedNewState: { msgpack: hex('80'), json: Buffer.alloc(0) },
      config: { msgpack: Buffer.alloc(0), json: Buffer.from('{') },
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
    const request = tfplugin6.decodeRequest<UpgradeResourceStateRequest>(tfplugin6.providerRpcs.UpgradeResourceState!, wire);
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
    provider: schema([attribute('api_key', '"string"')]) as GetProviderSchemaResponse['provider'],
    resourceSchemas: {
      svc_blacklist_entry: schema([attribute('ip', '"string"'), attribute('id', '"string"')]) as GetProviderSchemaResponse['provider'],
      svc_blacklist: schema([
        {
          ...attribute('entries', ''),
          type: Buffer.alloc(0),
          nestedType: { attributes: [attribute('ip', '"string"')], nesting: ObjectNestingMode.Set },
        },
      ]) as GetProviderSchemaResponse['provider'],
    },
    dataSourceSchemas: {},
    functions: {},
    diagnostics: [],
    serverCapabilities: { planDestroy: false, getProviderSchemaOptional: true, moveResourceState: false },
  };

  test('round-trips with nested attribute types and schema maps', () => {
    const decoded = decodeMessage<Record<string, unknown>>(
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
