/**
 * The function RPCs on the wire: field numbers checked against hand-built bytes (from
 * tfplugin6.proto: GetProviderSchema.Response.functions = 7, GetMetadata.Response.functions = 5,
 * GetFunctions.Response.functions = 1, CallFunction, Function, FunctionError), and the svc
 * provider's functions called over gRPC the way terraform calls them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAGIC_COOKIE_VALUE } from '../../src/provider/protocol/handshake';
import {
  StringKind,
  type CallFunctionResponse,
  type GetFunctionsResponse,
  type ProviderFunction,
} from '../../src/provider/protocol/messages';
import { decodeValue, encodeValue } from '../../src/provider/protocol/msgpack';
import { createProviderService } from '../../src/provider/protocol/provider-service';
import { decodeMessage, encodeMessage } from '../../src/provider/protocol/protobuf';
import { serveProvider, type ServeHandle } from '../../src/provider/protocol/serve';
import * as tfplugin6 from '../../src/provider/protocol/tfplugin6';
import { types } from '../../src/provider/core/types';
import { createSvcProvider } from '../../src/provider/provider';
import { closeSession, connectGrpc, grpcCall } from './helpers';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

describe('tfplugin6 function messages (hand-built wire bytes from the proto)', () => {
  const isEven: ProviderFunction = {
    parameters: [
      { name: 'n', type: Buffer.from('"number"'), allowNullValue: true, allowUnknownValues: false, description: 'd', descriptionKind: StringKind.Markdown },
    ],
    return: { type: Buffer.from('"bool"') },
    summary: 's',
    description: 'D',
    descriptionKind: StringKind.Markdown,
    deprecationMessage: '',
  };
  // Function.Parameter{name=1 "n", type=2 "\"number\"", allow_null_value=3 true, description=5 "d", description_kind=6 MARKDOWN}
  const parameterBytes = `0a 01 ${ascii('n')} 12 08 ${ascii('"number"')} 18 01 2a 01 ${ascii('d')} 30 01`;
  // Function{parameters=1, return=3 {type=1 "\"bool\""}, summary=4 "s", description=5 "D", description_kind=6 MARKDOWN}
  const functionBytes = `0a 14 ${parameterBytes} 1a 08 0a 06 ${ascii('"bool"')} 22 01 ${ascii('s')} 2a 01 ${ascii('D')} 30 01`;

  test('a Function encodes its parameters, return type, summary and description under their proto numbers', () => {
    expect(encodeMessage(tfplugin6.ProviderFunction, isEven).toString('hex')).toBe(hex(functionBytes).toString('hex'));
  });

  test('GetProviderSchema.Response carries functions as map field 7', () => {
    const bytes = encodeMessage(tfplugin6.GetProviderSchemaResponse, { resourceSchemas: {}, dataSourceSchemas: {}, diagnostics: [], functions: { is_even: isEven } });
    // map entry {key=1 "is_even", value=2 Function}
    expect(bytes.toString('hex')).toBe(hex(`3a 33 0a 07 ${ascii('is_even')} 12 28 ${functionBytes}`).toString('hex'));
  });

  test('GetFunctions.Response carries functions as map field 1, and round-trips', () => {
    const response: GetFunctionsResponse = { functions: { is_even: isEven }, diagnostics: [] };
    const bytes = encodeMessage(tfplugin6.GetFunctionsResponse, response);
    expect(bytes.toString('hex')).toBe(hex(`0a 33 0a 07 ${ascii('is_even')} 12 28 ${functionBytes}`).toString('hex'));
    expect(decodeMessage(tfplugin6.GetFunctionsResponse, bytes)).toEqual({
      functions: { is_even: { ...isEven, variadicParameter: undefined } },
      diagnostics: [],
    });
  });

  test('GetMetadata.Response names functions in field 5', () => {
    const bytes = encodeMessage(tfplugin6.GetMetadataResponse, { diagnostics: [], dataSources: [], resources: [], functions: [{ name: 'f' }] });
    expect(bytes.toString('hex')).toBe(hex(`2a 03 0a 01 ${ascii('f')}`).toString('hex'));
  });

  test('CallFunction.Request: the name in field 1, one DynamicValue per argument in field 2', () => {
    const wire = hex(`0a 01 ${ascii('f')} 12 03 0a 01 c3 12 03 0a 01 c0`);
    const request = tfplugin6.decodeRequest(tfplugin6.providerRpcs.CallFunction, wire);
    expect(request).toEqual({
      name: 'f',
      arguments: [
        { msgpack: hex('c3'), json: undefined },
        { msgpack: hex('c0'), json: undefined },
      ],
    });
  });

  const responses: Array<{ name: string; response: CallFunctionResponse; bytes: string }> = [
    { name: 'a result in field 1', response: { result: { msgpack: hex('c3') } }, bytes: '0a 03 0a 01 c3' },
    {
      name: 'an error naming the first argument: function_argument 0 is written (proto3 optional)',
      response: { error: { text: 'x', functionArgument: 0 } },
      bytes: `12 05 0a 01 ${ascii('x')} 10 00`,
    },
    { name: 'an error naming the second argument', response: { error: { text: 'x', functionArgument: 1 } }, bytes: `12 05 0a 01 ${ascii('x')} 10 01` },
    { name: 'an error naming no argument leaves function_argument out', response: { error: { text: 'x' } }, bytes: `12 03 0a 01 ${ascii('x')}` },
  ];
  test.each(responses)('CallFunction.Response: $name', ({ response, bytes }) => {
    const encoded = encodeMessage(tfplugin6.CallFunctionResponse, response);
    expect(encoded.toString('hex')).toBe(hex(bytes).toString('hex'));
    const decoded = decodeMessage(tfplugin6.CallFunctionResponse, encoded);
    expect(decoded.error?.functionArgument).toBe(response.error?.functionArgument);
  });
});

describe("the svc provider's functions over gRPC", () => {
  let directory: string;
  let handle: ServeHandle;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'provider-wire-functions-'));
    const service = createProviderService(createSvcProvider({ env: {} }));
    handle = await serveProvider(service, {
      env: { TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '6', TF_DISABLE_PLUGIN_TLS: '1', PLUGIN_UNIX_SOCKET_DIR: directory },
      stdout: { write: () => true } as unknown as NodeJS.WritableStream,
      stderr: { write: () => true } as unknown as NodeJS.WritableStream,
      exit: () => undefined,
      handleSignals: false,
    });
  });
  afterAll(async () => {
    await handle.shutdown(0);
    rmSync(directory, { recursive: true, force: true });
  });

  async function rpc(name: string, message: Buffer) {
    const session = connectGrpc(handle.socketPath);
    try {
      return await grpcCall(session, `/tfplugin6.Provider/${name}`, message);
    } finally {
      await closeSession(session);
    }
  }

  async function callFunction(name: string, args: readonly string[]): Promise<CallFunctionResponse> {
    const request = { name, arguments: args.map((value) => ({ msgpack: encodeValue(types.string, value) })) };
    const reply = await rpc('CallFunction', encodeMessage(tfplugin6.CallFunctionRequest, request));
    expect(reply.grpcStatus).toBe(0);
    return decodeMessage(tfplugin6.CallFunctionResponse, reply.body);
  }

  test('GetFunctions answers with canonical_address, contains and overlaps, string parameters that refuse null and unknown', async () => {
    const reply = await rpc('GetFunctions', Buffer.alloc(0));
    expect(reply.grpcStatus).toBe(0);
    const { functions } = decodeMessage(tfplugin6.GetFunctionsResponse, reply.body);
    const signatures = Object.fromEntries(
      Object.entries(functions).map(([name, definition]) => [
        name,
        `(${definition.parameters.map((parameter) => `${parameter.name} ${parameter.type.toString()}${parameter.allowNullValue || parameter.allowUnknownValues ? ' nullable/unknown' : ''}`).join(', ')}) ${definition.return!.type.toString()}`,
      ]),
    );
    expect(signatures).toEqual({
      canonical_address: '(address "string") "string"',
      contains: '(range "string", address "string") "bool"',
      overlaps: '(a "string", b "string") "bool"',
    });
  });

  test('GetProviderSchema lists the same functions', async () => {
    const reply = await rpc('GetProviderSchema', Buffer.alloc(0));
    const schema = decodeMessage(tfplugin6.GetProviderSchemaResponse, reply.body);
    expect(Object.keys(schema.functions).sort()).toEqual(['canonical_address', 'contains', 'overlaps']);
    expect(schema.functions.canonical_address!.summary).not.toBe('');
  });

  const results: Array<{ call: string; name: string; args: string[]; type: typeof types.string; expected: string | boolean }> = [
    { call: 'canonical_address("2001:DB8:0:0::/32")', name: 'canonical_address', args: ['2001:DB8:0:0::/32'], type: types.string, expected: '2001:db8::/32' },
    { call: 'canonical_address("10.0.0.1/32")', name: 'canonical_address', args: ['10.0.0.1/32'], type: types.string, expected: '10.0.0.1' },
    { call: 'contains("10.0.0.0/8", "10.1.2.0/24")', name: 'contains', args: ['10.0.0.0/8', '10.1.2.0/24'], type: types.bool, expected: true },
    { call: 'contains("10.1.2.0/24", "10.0.0.0/8")', name: 'contains', args: ['10.1.2.0/24', '10.0.0.0/8'], type: types.bool, expected: false },
    { call: 'overlaps("10.1.2.0/24", "10.0.0.0/8")', name: 'overlaps', args: ['10.1.2.0/24', '10.0.0.0/8'], type: types.bool, expected: true },
    { call: 'overlaps("10.0.0.0/8", "::/0")', name: 'overlaps', args: ['10.0.0.0/8', '::/0'], type: types.bool, expected: false },
  ];
  test.each(results)('$call is $expected', async ({ name, args, type, expected }) => {
    const response = await callFunction(name, args);
    expect(response.error).toBeUndefined();
    expect(decodeValue(type, response.result!.msgpack!)).toBe(expected);
  });

  const errors: Array<{ call: string; name: string; args: string[]; argument: number; text: RegExp }> = [
    { call: 'canonical_address("10.0.0.300")', name: 'canonical_address', args: ['10.0.0.300'], argument: 0, text: /"10\.0\.0\.300" \(octet 300 is above 255\)/ },
    { call: 'contains("10.0.0.0/8", "10.0.0.1/8")', name: 'contains', args: ['10.0.0.0/8', '10.0.0.1/8'], argument: 1, text: /host bits are set/ },
    { call: 'contains("nonsense", "10.0.0.1")', name: 'contains', args: ['nonsense', '10.0.0.1'], argument: 0, text: /"nonsense"/ },
    { call: 'overlaps("10.0.0.0/8", "")', name: 'overlaps', args: ['10.0.0.0/8', ''], argument: 1, text: /the value is empty/ },
  ];
  test.each(errors)('$call is a function error at argument $argument', async ({ name, args, argument, text }) => {
    const response = await callFunction(name, args);
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({ text: expect.stringMatching(text), functionArgument: argument });
  });
});
