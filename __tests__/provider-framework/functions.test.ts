/**
 * Provider functions through the protocol-free core: GetProviderSchema and GetMetadata list
 * them, GetFunctions gives the same definitions, and CallFunction decodes the arguments against
 * the parameter types, calls the definition without ConfigureProvider, and answers with a result
 * or a FunctionError (with the argument's position when one argument is at fault).
 */
import { redact, registerSecret } from '../../src/api/redaction';
import type { ProviderDefinition } from '../../src/provider/core/definition';
import { FunctionCallError, type FunctionDefinition } from '../../src/provider/core/functions';
import { types, type ValueType } from '../../src/provider/core/types';
import { UNKNOWN, type Value } from '../../src/provider/core/values';
import * as messages from '../../src/provider/protocol/messages';
import { decodeValue, encodeValue } from '../../src/provider/protocol/msgpack';
import { createProviderService } from '../../src/provider/protocol/provider-service';

/** repeat(text, times): joins `text` `times` times; times < 0 is the argument's fault, times = 13 is a bug. */
const repeat: FunctionDefinition = {
  name: 'repeat',
  summary: 'Repeats a text',
  description: 'Repeats `text` `times` times.',
  parameters: [
    { name: 'text', type: types.string, description: 'The text.' },
    { name: 'times', type: types.number, description: 'How often.', allowNull: true },
  ],
  returnType: types.string,
  call([text, times]) {
    if (times === null) return text as string;
    if ((times as number) < 0) throw new FunctionCallError(`times is ${String(times)}; give 0 or more`, 1);
    if (times === 13) throw new Error('unlucky number, key sk-function-0123456789');
    if (times === 7) return 7;
    return (text as string).repeat(times as number);
  },
};

const isKnown: FunctionDefinition = {
  name: 'is_known',
  summary: 'Whether a value is known',
  description: 'True when `value` is known.',
  parameters: [{ name: 'value', type: types.string, description: 'Anything.', allowUnknown: true }],
  returnType: types.bool,
  call: ([value]) => value !== UNKNOWN,
};

function makeService(functions: readonly FunctionDefinition[] = [repeat, isKnown]) {
  const configureCalls: unknown[] = [];
  const definition: ProviderDefinition<object> = {
    schema: { version: 0, description: 'p', attributes: {} },
    configure: async (request) => {
      configureCalls.push(request);
      return {};
    },
    resources: [],
    dataSources: [],
    functions,
  };
  const logLines: string[] = [];
  return { service: createProviderService(definition, { log: (line) => logLines.push(line), redact }), logLines, configureCalls };
}

const argument = (type: ValueType, value: Value): messages.DynamicValue => ({ msgpack: encodeValue(type, value) });
const result = (type: ValueType, response: messages.CallFunctionResponse): Value => decodeValue(type, response.result!.msgpack!);

describe('function definitions on the wire', () => {
  test('GetProviderSchema lists every function with its parameters, return type and markdown descriptions', async () => {
    const { service } = makeService();
    const schema = await service.getProviderSchema({});
    expect(Object.keys(schema.functions).sort()).toEqual(['is_known', 'repeat']);
    expect(schema.functions.repeat).toEqual({
      parameters: [
        {
          name: 'text',
          type: Buffer.from('"string"'),
          allowNullValue: false,
          allowUnknownValues: false,
          description: 'The text.',
          descriptionKind: messages.StringKind.Markdown,
        },
        {
          name: 'times',
          type: Buffer.from('"number"'),
          allowNullValue: true,
          allowUnknownValues: false,
          description: 'How often.',
          descriptionKind: messages.StringKind.Markdown,
        },
      ],
      return: { type: Buffer.from('"string"') },
      summary: 'Repeats a text',
      description: 'Repeats `text` `times` times.',
      descriptionKind: messages.StringKind.Markdown,
      deprecationMessage: '',
    });
    expect(schema.functions.is_known!.parameters[0]!.allowUnknownValues).toBe(true);
  });

  test('GetFunctions gives the same definitions; GetMetadata names them', async () => {
    const { service } = makeService();
    const schema = await service.getProviderSchema({});
    expect(await service.getFunctions({})).toEqual({ functions: schema.functions, diagnostics: [] });
    expect((await service.getMetadata({})).functions.map((metadata) => metadata.name).sort()).toEqual(['is_known', 'repeat']);
  });

  test('a provider without functions lists none', async () => {
    const { service } = makeService([]);
    expect((await service.getProviderSchema({})).functions).toEqual({});
    expect((await service.getMetadata({})).functions).toEqual([]);
  });

  test('two functions of one name are refused at start', () => {
    expect(() => makeService([repeat, repeat])).toThrow('lists function repeat twice');
  });
});

describe('CallFunction', () => {
  const call = (service: messages.ProviderService, name: string, args: messages.DynamicValue[]) => service.callFunction({ name, arguments: args });

  test('decodes the arguments, runs the function without configure, encodes the result', async () => {
    const { service, configureCalls } = makeService();
    const response = await call(service, 'repeat', [argument(types.string, 'ab'), argument(types.number, 3)]);
    expect(response.error).toBeUndefined();
    expect(result(types.string, response)).toBe('ababab');
    expect(configureCalls).toEqual([]);
  });

  test('a null argument reaches a parameter that allows null', async () => {
    const { service } = makeService();
    const response = await call(service, 'repeat', [argument(types.string, 'ab'), argument(types.number, null)]);
    expect(result(types.string, response)).toBe('ab');
  });

  test('an unknown argument reaches a parameter that allows unknowns', async () => {
    const { service } = makeService();
    expect(result(types.bool, await call(service, 'is_known', [argument(types.string, UNKNOWN)]))).toBe(false);
    expect(result(types.bool, await call(service, 'is_known', [argument(types.string, 'x')]))).toBe(true);
  });

  const errorCases: Array<{ name: string; functionName: string; args: messages.DynamicValue[]; error: messages.FunctionError }> = [
    {
      name: 'a FunctionCallError: its text and the argument position',
      functionName: 'repeat',
      args: [argument(types.string, 'ab'), argument(types.number, -1)],
      error: { text: 'times is -1; give 0 or more', functionArgument: 1 },
    },
    {
      name: 'null for a parameter that does not allow it: the first argument (position 0)',
      functionName: 'repeat',
      args: [argument(types.string, null), argument(types.number, 1)],
      error: { text: 'text must not be null', functionArgument: 0 },
    },
    {
      name: 'unknown for a parameter that does not allow it',
      functionName: 'repeat',
      args: [argument(types.string, UNKNOWN), argument(types.number, 1)],
      error: { text: expect.stringContaining('text must be known'), functionArgument: 0 },
    },
    {
      name: 'too few arguments',
      functionName: 'repeat',
      args: [argument(types.string, 'ab')],
      error: { text: 'repeat takes 2 argument(s) (text, times), got 1' },
    },
    {
      name: 'an unknown function, with the ones there are',
      functionName: 'repaet',
      args: [],
      error: { text: expect.stringContaining('no function "repaet"; it has: is_known, repeat') },
    },
  ];
  test.each(errorCases)('$name', async ({ functionName, args, error }) => {
    const { service } = makeService();
    const response = await call(service, functionName, args);
    expect(response).toEqual({ error });
  });

  test('any other thrown error is an internal error, redacted, logged with its stack, with no argument position', async () => {
    registerSecret('sk-function-0123456789');
    const { service, logLines } = makeService();
    const response = await call(service, 'repeat', [argument(types.string, 'ab'), argument(types.number, 13)]);
    expect(JSON.stringify(response) + logLines.join('\n')).not.toContain('sk-function-0123456789');
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({ text: expect.stringContaining('Internal error in the svc provider: call function repeat failed: unlucky number') });
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain('call function repeat failed');
  });

  test('a result of the wrong type is an internal error, not bytes terraform cannot decode', async () => {
    const { service } = makeService();
    const response = await call(service, 'repeat', [argument(types.string, 'ab'), argument(types.number, 7)]);
    expect(response).toEqual({ error: { text: expect.stringMatching(/^Internal error in the svc provider: call function repeat returned a value that does not fit/) } });
  });

  test('argument bytes that do not decode throw (the gRPC layer answers INTERNAL)', async () => {
    const { service } = makeService();
    await expect(call(service, 'repeat', [{ msgpack: Buffer.from([0xc1]) }, argument(types.number, 1)])).rejects.toThrow(/argument 0 \(text\)/);
  });
});
