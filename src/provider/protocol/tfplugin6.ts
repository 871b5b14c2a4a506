/**
 * Wire descriptors for the tfplugin6.8 messages in messages.ts, and for the go-plugin messages
 * the server needs (plugin.Empty). Field numbers come from terraform's
 * docs/plugin-protocol/tfplugin6.8.proto; field names are the proto's snake_case in camelCase,
 * matching messages.ts. Fields this provider never reads or writes (ephemeral resources,
 * deferrals, identities, nested blocks' contents) are left out: unknown fields are skipped when
 * decoding, and absent ones are simply not sent. The function messages (protocol 6.5+) have the
 * numbers of the same proto file.
 */
import type { MessageDescriptor } from './protobuf';
import { decodeMessage, encodeMessage } from './protobuf';
import type { ProviderService } from './messages';

// ---------------------------------------------------------------- shared messages

export const DynamicValue: MessageDescriptor = {
  name: 'tfplugin6.DynamicValue',
  fields: [
    { name: 'msgpack', number: 1, kind: 'bytes' },
    { name: 'json', number: 2, kind: 'bytes' },
  ],
};

export const AttributePathStep: MessageDescriptor = {
  name: 'tfplugin6.AttributePath.Step',
  fields: [
    { name: 'attributeName', number: 1, kind: 'string', oneof: 'selector' },
    { name: 'elementKeyString', number: 2, kind: 'string', oneof: 'selector' },
    { name: 'elementKeyInt', number: 3, kind: 'int64', oneof: 'selector' },
  ],
};

export const AttributePath: MessageDescriptor = {
  name: 'tfplugin6.AttributePath',
  fields: [{ name: 'steps', number: 1, kind: 'message', message: () => AttributePathStep, repeated: true }],
};

export const Diagnostic: MessageDescriptor = {
  name: 'tfplugin6.Diagnostic',
  fields: [
    { name: 'severity', number: 1, kind: 'enum' },
    { name: 'summary', number: 2, kind: 'string' },
    { name: 'detail', number: 3, kind: 'string' },
    { name: 'attribute', number: 4, kind: 'message', message: () => AttributePath },
  ],
};

export const RawState: MessageDescriptor = {
  name: 'tfplugin6.RawState',
  fields: [
    { name: 'json', number: 1, kind: 'bytes' },
    { name: 'flatmap', number: 2, kind: 'map', key: 'string', value: 'string' },
  ],
};

export const SchemaAttribute: MessageDescriptor = {
  name: 'tfplugin6.Schema.Attribute',
  fields: [
    { name: 'name', number: 1, kind: 'string' },
    { name: 'type', number: 2, kind: 'bytes' },
    { name: 'nestedType', number: 10, kind: 'message', message: () => SchemaObject },
    { name: 'description', number: 3, kind: 'string' },
    { name: 'required', number: 4, kind: 'bool' },
    { name: 'optional', number: 5, kind: 'bool' },
    { name: 'computed', number: 6, kind: 'bool' },
    { name: 'sensitive', number: 7, kind: 'bool' },
    { name: 'descriptionKind', number: 8, kind: 'enum' },
    { name: 'deprecated', number: 9, kind: 'bool' },
    { name: 'writeOnly', number: 11, kind: 'bool' },
  ],
};

export const SchemaObject: MessageDescriptor = {
  name: 'tfplugin6.Schema.Object',
  fields: [
    { name: 'attributes', number: 1, kind: 'message', message: () => SchemaAttribute, repeated: true },
    { name: 'nesting', number: 3, kind: 'enum' },
  ],
};

/** Nested blocks: the provider declares none (attributes only), so only their names exist. */
export const SchemaNestedBlock: MessageDescriptor = {
  name: 'tfplugin6.Schema.NestedBlock',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'block', number: 2, kind: 'message', message: () => SchemaBlock },
    { name: 'nesting', number: 3, kind: 'enum' },
    { name: 'minItems', number: 4, kind: 'int64' },
    { name: 'maxItems', number: 5, kind: 'int64' },
  ],
};

export const SchemaBlock: MessageDescriptor = {
  name: 'tfplugin6.Schema.Block',
  fields: [
    { name: 'version', number: 1, kind: 'int64' },
    { name: 'attributes', number: 2, kind: 'message', message: () => SchemaAttribute, repeated: true },
    { name: 'blockTypes', number: 3, kind: 'message', message: () => SchemaNestedBlock, repeated: true },
    { name: 'description', number: 4, kind: 'string' },
    { name: 'descriptionKind', number: 5, kind: 'enum' },
    { name: 'deprecated', number: 6, kind: 'bool' },
  ],
};

export const Schema: MessageDescriptor = {
  name: 'tfplugin6.Schema',
  fields: [
    { name: 'version', number: 1, kind: 'int64' },
    { name: 'block', number: 2, kind: 'message', message: () => SchemaBlock },
  ],
};

export const ServerCapabilities: MessageDescriptor = {
  name: 'tfplugin6.ServerCapabilities',
  fields: [
    { name: 'planDestroy', number: 1, kind: 'bool' },
    { name: 'getProviderSchemaOptional', number: 2, kind: 'bool' },
    { name: 'moveResourceState', number: 3, kind: 'bool' },
  ],
};

export const ClientCapabilities: MessageDescriptor = {
  name: 'tfplugin6.ClientCapabilities',
  fields: [
    { name: 'deferralAllowed', number: 1, kind: 'bool' },
    { name: 'writeOnlyAttributesAllowed', number: 2, kind: 'bool' },
  ],
};

export const FunctionParameter: MessageDescriptor = {
  name: 'tfplugin6.Function.Parameter',
  fields: [
    { name: 'name', number: 1, kind: 'string' },
    { name: 'type', number: 2, kind: 'bytes' },
    { name: 'allowNullValue', number: 3, kind: 'bool' },
    { name: 'allowUnknownValues', number: 4, kind: 'bool' },
    { name: 'description', number: 5, kind: 'string' },
    { name: 'descriptionKind', number: 6, kind: 'enum' },
  ],
};

export const FunctionReturn: MessageDescriptor = {
  name: 'tfplugin6.Function.Return',
  fields: [{ name: 'type', number: 1, kind: 'bytes' }],
};

/** tfplugin6.Function; named so it does not shadow the global Function. */
export const ProviderFunction: MessageDescriptor = {
  name: 'tfplugin6.Function',
  fields: [
    { name: 'parameters', number: 1, kind: 'message', message: () => FunctionParameter, repeated: true },
    { name: 'variadicParameter', number: 2, kind: 'message', message: () => FunctionParameter },
    { name: 'return', number: 3, kind: 'message', message: () => FunctionReturn },
    { name: 'summary', number: 4, kind: 'string' },
    { name: 'description', number: 5, kind: 'string' },
    { name: 'descriptionKind', number: 6, kind: 'enum' },
    { name: 'deprecationMessage', number: 7, kind: 'string' },
  ],
};

export const FunctionError: MessageDescriptor = {
  name: 'tfplugin6.FunctionError',
  fields: [
    { name: 'text', number: 1, kind: 'string' },
    // proto3 `optional` is a one-member oneof: written when set, also when it is 0 (the first argument).
    { name: 'functionArgument', number: 2, kind: 'int64', oneof: '_function_argument' },
  ],
};

/** Every empty Request, and go-plugin's plugin.Empty. */
export const Empty: MessageDescriptor = { name: 'Empty', fields: [] };

const dynamicValue = () => DynamicValue;
const diagnostic = () => Diagnostic;
const clientCapabilities = () => ClientCapabilities;

/** `repeated Diagnostic diagnostics = <number>`: the number differs between responses. */
function diagnosticsResponse(name: string, number: number): MessageDescriptor {
  return { name, fields: [{ name: 'diagnostics', number, kind: 'message', message: diagnostic, repeated: true }] };
}

// ---------------------------------------------------------------- RPC messages

const TypeNameMetadata: MessageDescriptor = {
  name: 'tfplugin6.GetMetadata.ResourceMetadata',
  fields: [{ name: 'typeName', number: 1, kind: 'string' }],
};

const FunctionMetadata: MessageDescriptor = {
  name: 'tfplugin6.GetMetadata.FunctionMetadata',
  fields: [{ name: 'name', number: 1, kind: 'string' }],
};

export const GetMetadataResponse: MessageDescriptor = {
  name: 'tfplugin6.GetMetadata.Response',
  fields: [
    { name: 'serverCapabilities', number: 1, kind: 'message', message: () => ServerCapabilities },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
    { name: 'dataSources', number: 3, kind: 'message', message: () => TypeNameMetadata, repeated: true },
    { name: 'resources', number: 4, kind: 'message', message: () => TypeNameMetadata, repeated: true },
    { name: 'functions', number: 5, kind: 'message', message: () => FunctionMetadata, repeated: true },
  ],
};

export const GetProviderSchemaResponse: MessageDescriptor = {
  name: 'tfplugin6.GetProviderSchema.Response',
  fields: [
    { name: 'provider', number: 1, kind: 'message', message: () => Schema },
    { name: 'resourceSchemas', number: 2, kind: 'map', key: 'string', value: () => Schema },
    { name: 'dataSourceSchemas', number: 3, kind: 'map', key: 'string', value: () => Schema },
    { name: 'diagnostics', number: 4, kind: 'message', message: diagnostic, repeated: true },
    { name: 'serverCapabilities', number: 6, kind: 'message', message: () => ServerCapabilities },
    { name: 'functions', number: 7, kind: 'map', key: 'string', value: () => ProviderFunction },
  ],
};

export const ValidateProviderConfigRequest: MessageDescriptor = {
  name: 'tfplugin6.ValidateProviderConfig.Request',
  fields: [{ name: 'config', number: 1, kind: 'message', message: dynamicValue }],
};
/** Note: diagnostics is field 2 here, field 1 in the other validate responses. */
export const ValidateProviderConfigResponse = diagnosticsResponse('tfplugin6.ValidateProviderConfig.Response', 2);

export const ValidateResourceConfigRequest: MessageDescriptor = {
  name: 'tfplugin6.ValidateResourceConfig.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
  ],
};
export const ValidateResourceConfigResponse = diagnosticsResponse('tfplugin6.ValidateResourceConfig.Response', 1);

export const ValidateDataResourceConfigRequest: MessageDescriptor = {
  name: 'tfplugin6.ValidateDataResourceConfig.Request',
  fields: ValidateResourceConfigRequest.fields,
};
export const ValidateDataResourceConfigResponse = diagnosticsResponse(
  'tfplugin6.ValidateDataResourceConfig.Response',
  1,
);

export const UpgradeResourceStateRequest: MessageDescriptor = {
  name: 'tfplugin6.UpgradeResourceState.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'version', number: 2, kind: 'int64' },
    { name: 'rawState', number: 3, kind: 'message', message: () => RawState },
  ],
};
export const UpgradeResourceStateResponse: MessageDescriptor = {
  name: 'tfplugin6.UpgradeResourceState.Response',
  fields: [
    { name: 'upgradedState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const ConfigureProviderRequest: MessageDescriptor = {
  name: 'tfplugin6.ConfigureProvider.Request',
  fields: [
    { name: 'terraformVersion', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 3, kind: 'message', message: clientCapabilities },
  ],
};
export const ConfigureProviderResponse = diagnosticsResponse('tfplugin6.ConfigureProvider.Response', 1);

export const ReadResourceRequest: MessageDescriptor = {
  name: 'tfplugin6.ReadResource.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'currentState', number: 2, kind: 'message', message: dynamicValue },
    { name: 'private', number: 3, kind: 'bytes' },
    { name: 'providerMeta', number: 4, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 5, kind: 'message', message: clientCapabilities },
  ],
};
export const ReadResourceResponse: MessageDescriptor = {
  name: 'tfplugin6.ReadResource.Response',
  fields: [
    { name: 'newState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
    { name: 'private', number: 3, kind: 'bytes' },
  ],
};

export const PlanResourceChangeRequest: MessageDescriptor = {
  name: 'tfplugin6.PlanResourceChange.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'priorState', number: 2, kind: 'message', message: dynamicValue },
    { name: 'proposedNewState', number: 3, kind: 'message', message: dynamicValue },
    { name: 'config', number: 4, kind: 'message', message: dynamicValue },
    { name: 'priorPrivate', number: 5, kind: 'bytes' },
    { name: 'providerMeta', number: 6, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 7, kind: 'message', message: clientCapabilities },
  ],
};
export const PlanResourceChangeResponse: MessageDescriptor = {
  name: 'tfplugin6.PlanResourceChange.Response',
  fields: [
    { name: 'plannedState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'requiresReplace', number: 2, kind: 'message', message: () => AttributePath, repeated: true },
    { name: 'plannedPrivate', number: 3, kind: 'bytes' },
    { name: 'diagnostics', number: 4, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const ApplyResourceChangeRequest: MessageDescriptor = {
  name: 'tfplugin6.ApplyResourceChange.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'priorState', number: 2, kind: 'message', message: dynamicValue },
    { name: 'plannedState', number: 3, kind: 'message', message: dynamicValue },
    { name: 'config', number: 4, kind: 'message', message: dynamicValue },
    { name: 'plannedPrivate', number: 5, kind: 'bytes' },
    { name: 'providerMeta', number: 6, kind: 'message', message: dynamicValue },
  ],
};
export const ApplyResourceChangeResponse: MessageDescriptor = {
  name: 'tfplugin6.ApplyResourceChange.Response',
  fields: [
    { name: 'newState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'private', number: 2, kind: 'bytes' },
    { name: 'diagnostics', number: 3, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const ImportResourceStateRequest: MessageDescriptor = {
  name: 'tfplugin6.ImportResourceState.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'id', number: 2, kind: 'string' },
    { name: 'clientCapabilities', number: 3, kind: 'message', message: clientCapabilities },
  ],
};
export const ImportedResource: MessageDescriptor = {
  name: 'tfplugin6.ImportResourceState.ImportedResource',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'state', number: 2, kind: 'message', message: dynamicValue },
    { name: 'private', number: 3, kind: 'bytes' },
  ],
};
export const ImportResourceStateResponse: MessageDescriptor = {
  name: 'tfplugin6.ImportResourceState.Response',
  fields: [
    { name: 'importedResources', number: 1, kind: 'message', message: () => ImportedResource, repeated: true },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const ReadDataSourceRequest: MessageDescriptor = {
  name: 'tfplugin6.ReadDataSource.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
    { name: 'providerMeta', number: 3, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 4, kind: 'message', message: clientCapabilities },
  ],
};
export const ReadDataSourceResponse: MessageDescriptor = {
  name: 'tfplugin6.ReadDataSource.Response',
  fields: [
    { name: 'state', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const GetFunctionsResponse: MessageDescriptor = {
  name: 'tfplugin6.GetFunctions.Response',
  fields: [
    { name: 'functions', number: 1, kind: 'map', key: 'string', value: () => ProviderFunction },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
};

export const CallFunctionRequest: MessageDescriptor = {
  name: 'tfplugin6.CallFunction.Request',
  fields: [
    { name: 'name', number: 1, kind: 'string' },
    { name: 'arguments', number: 2, kind: 'message', message: dynamicValue, repeated: true },
  ],
};
export const CallFunctionResponse: MessageDescriptor = {
  name: 'tfplugin6.CallFunction.Response',
  fields: [
    { name: 'result', number: 1, kind: 'message', message: dynamicValue },
    { name: 'error', number: 2, kind: 'message', message: () => FunctionError },
  ],
};

export const StopProviderResponse: MessageDescriptor = {
  name: 'tfplugin6.StopProvider.Response',
  fields: [{ name: 'error', number: 1, kind: 'string' }],
};

// ---------------------------------------------------------------- the service table

/** One unary RPC of the Provider service: how to decode its request and encode its reply. */
export interface ProviderRpc {
  readonly method: keyof ProviderService;
  readonly request: MessageDescriptor;
  readonly response: MessageDescriptor;
}

/**
 * The tfplugin6.Provider RPCs this provider implements, by RPC name (the last part of the
 * gRPC path `/tfplugin6.Provider/<name>`). The others (MoveResourceState, ephemeral resources,
 * identities, ...) are answered UNIMPLEMENTED by the gRPC server.
 */
export const providerRpcs: Readonly<Record<string, ProviderRpc>> = {
  GetMetadata: { method: 'getMetadata', request: Empty, response: GetMetadataResponse },
  GetProviderSchema: { method: 'getProviderSchema', request: Empty, response: GetProviderSchemaResponse },
  ValidateProviderConfig: {
    method: 'validateProviderConfig',
    request: ValidateProviderConfigRequest,
    response: ValidateProviderConfigResponse,
  },
  ValidateResourceConfig: {
    method: 'validateResourceConfig',
    request: ValidateResourceConfigRequest,
    response: ValidateResourceConfigResponse,
  },
  ValidateDataResourceConfig: {
    method: 'validateDataResourceConfig',
    request: ValidateDataResourceConfigRequest,
    response: ValidateDataResourceConfigResponse,
  },
  UpgradeResourceState: {
    method: 'upgradeResourceState',
    request: UpgradeResourceStateRequest,
    response: UpgradeResourceStateResponse,
  },
  ConfigureProvider: { method: 'configureProvider', request: ConfigureProviderRequest, response: ConfigureProviderResponse },
  ReadResource: { method: 'readResource', request: ReadResourceRequest, response: ReadResourceResponse },
  PlanResourceChange: {
    method: 'planResourceChange',
    request: PlanResourceChangeRequest,
    response: PlanResourceChangeResponse,
  },
  ApplyResourceChange: {
    method: 'applyResourceChange',
    request: ApplyResourceChangeRequest,
    response: ApplyResourceChangeResponse,
  },
  ImportResourceState: {
    method: 'importResourceState',
    request: ImportResourceStateRequest,
    response: ImportResourceStateResponse,
  },
  ReadDataSource: { method: 'readDataSource', request: ReadDataSourceRequest, response: ReadDataSourceResponse },
  GetFunctions: { method: 'getFunctions', request: Empty, response: GetFunctionsResponse },
  CallFunction: { method: 'callFunction', request: CallFunctionRequest, response: CallFunctionResponse },
  StopProvider: { method: 'stopProvider', request: Empty, response: StopProviderResponse },
};

/** Decodes an RPC's request bytes into the messages.ts shape the service method takes. */
export function decodeRequest<T>(rpc: ProviderRpc, bytes: Buffer): T {
  return decodeMessage<T>(rpc.request, bytes);
}

/** Encodes a service method's reply for the wire. */
export function encodeResponse(rpc: ProviderRpc, response: object): Buffer {
  return encodeMessage(rpc.response, response);
}

/**
 * Calls one RPC on a service: decode the request, run the method, encode the reply. The
 * gRPC server turns a thrown error into INTERNAL.
 */
export async function callProviderRpc(service: ProviderService, rpc: ProviderRpc, requestBytes: Buffer): Promise<Buffer> {
  const request = decodeRequest<never>(rpc, requestBytes);
  const method = service[rpc.method] as (request: unknown) => Promise<object>;
  const response = await method.call(service, request);
  return encodeResponse(rpc, response);
}
