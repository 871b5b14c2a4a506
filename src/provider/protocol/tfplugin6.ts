/**
 * The tfplugin6.8 contract this provider speaks, declared once: each message's wire descriptor
 * (`as const`), from which messages.ts derives its TypeScript type (MessageValue), the enums
 * they use, and the service table with the ProviderService type derived from it. Also the
 * go-plugin messages the server needs (plugin.Empty). Field numbers come from terraform's
 * docs/plugin-protocol/tfplugin6.8.proto; field names are the proto's snake_case in camelCase.
 * Fields this provider never reads or
 * writes (ephemeral resources, deferrals, identities, nested blocks' contents) are left out:
 * unknown fields are skipped when decoding, and absent ones are simply not sent. The function
 * messages (protocol 6.5+) have the numbers of the same proto file.
 *
 * No `satisfies MessageDescriptor` on the descriptors: it would make TypeScript infer the
 * mutually recursive ones (Schema.Attribute <-> Schema.Object) eagerly and fail; `contract`
 * below checks them all against MessageDescriptor instead.
 */
import type { MessageDescriptor, MessageValue } from './protobuf';
import { decodeMessage, encodeMessage } from './protobuf';

export enum DiagnosticSeverity {
  Invalid = 0,
  Error = 1,
  Warning = 2,
}

export enum StringKind {
  Plain = 0,
  Markdown = 1,
}

export enum ObjectNestingMode {
  Invalid = 0,
  Single = 1,
  List = 2,
  Set = 3,
  Map = 4,
}

// ---------------------------------------------------------------- shared messages

/**
 * One value in one of two encodings, the field naming which. The proto declares both as plain
 * `bytes`; they are `optional` here so that decoding tells the encoding terraform chose (an
 * absent field is `undefined`, not an empty Buffer). Writing stays proto3-compatible: we only
 * ever set msgpack.
 */
export const DynamicValue = {
  name: 'tfplugin6.DynamicValue',
  fields: [
    { name: 'msgpack', number: 1, kind: 'bytes', optional: true },
    { name: 'json', number: 2, kind: 'bytes', optional: true },
  ],
} as const;

export const AttributePathStep = {
  name: 'tfplugin6.AttributePath.Step',
  fields: [
    { name: 'attributeName', number: 1, kind: 'string', oneof: 'selector' },
    { name: 'elementKeyString', number: 2, kind: 'string', oneof: 'selector' },
    { name: 'elementKeyInt', number: 3, kind: 'int64', oneof: 'selector' },
  ],
} as const;

export const AttributePath = {
  name: 'tfplugin6.AttributePath',
  fields: [{ name: 'steps', number: 1, kind: 'message', message: () => AttributePathStep, repeated: true }],
} as const;

export const Diagnostic = {
  name: 'tfplugin6.Diagnostic',
  fields: [
    { name: 'severity', number: 1, kind: 'enum', enum: DiagnosticSeverity },
    { name: 'summary', number: 2, kind: 'string' },
    { name: 'detail', number: 3, kind: 'string' },
    { name: 'attribute', number: 4, kind: 'message', message: () => AttributePath },
  ],
} as const;

export const RawState = {
  name: 'tfplugin6.RawState',
  fields: [
    { name: 'json', number: 1, kind: 'bytes' },
    { name: 'flatmap', number: 2, kind: 'map', key: 'string', value: 'string' },
  ],
} as const;

export const SchemaAttribute = {
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
    { name: 'descriptionKind', number: 8, kind: 'enum', enum: StringKind },
    { name: 'deprecated', number: 9, kind: 'bool' },
    { name: 'writeOnly', number: 11, kind: 'bool' },
  ],
} as const;

export const SchemaObject = {
  name: 'tfplugin6.Schema.Object',
  fields: [
    { name: 'attributes', number: 1, kind: 'message', message: () => SchemaAttribute, repeated: true },
    { name: 'nesting', number: 3, kind: 'enum', enum: ObjectNestingMode },
  ],
} as const;

/** Nested blocks: the provider declares none (attributes only), so only their names exist. */
export const SchemaNestedBlock = {
  name: 'tfplugin6.Schema.NestedBlock',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'block', number: 2, kind: 'message', message: () => SchemaBlock },
    { name: 'nesting', number: 3, kind: 'enum' },
    { name: 'minItems', number: 4, kind: 'int64' },
    { name: 'maxItems', number: 5, kind: 'int64' },
  ],
} as const;

export const SchemaBlock = {
  name: 'tfplugin6.Schema.Block',
  fields: [
    { name: 'version', number: 1, kind: 'int64' },
    { name: 'attributes', number: 2, kind: 'message', message: () => SchemaAttribute, repeated: true },
    { name: 'blockTypes', number: 3, kind: 'message', message: () => SchemaNestedBlock, repeated: true },
    { name: 'description', number: 4, kind: 'string' },
    { name: 'descriptionKind', number: 5, kind: 'enum', enum: StringKind },
    { name: 'deprecated', number: 6, kind: 'bool' },
  ],
} as const;

export const Schema = {
  name: 'tfplugin6.Schema',
  fields: [
    { name: 'version', number: 1, kind: 'int64' },
    { name: 'block', number: 2, kind: 'message', message: () => SchemaBlock },
  ],
} as const;

export const ServerCapabilities = {
  name: 'tfplugin6.ServerCapabilities',
  fields: [
    { name: 'planDestroy', number: 1, kind: 'bool' },
    { name: 'getProviderSchemaOptional', number: 2, kind: 'bool' },
    { name: 'moveResourceState', number: 3, kind: 'bool' },
  ],
} as const;

export const ClientCapabilities = {
  name: 'tfplugin6.ClientCapabilities',
  fields: [
    { name: 'deferralAllowed', number: 1, kind: 'bool' },
    { name: 'writeOnlyAttributesAllowed', number: 2, kind: 'bool' },
  ],
} as const;

export const FunctionParameter = {
  name: 'tfplugin6.Function.Parameter',
  fields: [
    { name: 'name', number: 1, kind: 'string' },
    { name: 'type', number: 2, kind: 'bytes' },
    { name: 'allowNullValue', number: 3, kind: 'bool' },
    { name: 'allowUnknownValues', number: 4, kind: 'bool' },
    { name: 'description', number: 5, kind: 'string' },
    { name: 'descriptionKind', number: 6, kind: 'enum', enum: StringKind },
  ],
} as const;

export const FunctionReturn = {
  name: 'tfplugin6.Function.Return',
  fields: [{ name: 'type', number: 1, kind: 'bytes' }],
} as const;

/** tfplugin6.Function; named so it does not shadow the global Function. */
export const ProviderFunction = {
  name: 'tfplugin6.Function',
  fields: [
    { name: 'parameters', number: 1, kind: 'message', message: () => FunctionParameter, repeated: true },
    { name: 'variadicParameter', number: 2, kind: 'message', message: () => FunctionParameter },
    { name: 'return', number: 3, kind: 'message', message: () => FunctionReturn },
    { name: 'summary', number: 4, kind: 'string' },
    { name: 'description', number: 5, kind: 'string' },
    { name: 'descriptionKind', number: 6, kind: 'enum', enum: StringKind },
    { name: 'deprecationMessage', number: 7, kind: 'string' },
  ],
} as const;

export const FunctionError = {
  name: 'tfplugin6.FunctionError',
  fields: [
    { name: 'text', number: 1, kind: 'string' },
    // proto3 `optional`: written when set, also when it is 0 (the first argument).
    { name: 'functionArgument', number: 2, kind: 'int64', optional: true },
  ],
} as const;

/** Every empty Request, and go-plugin's plugin.Empty. */
export const Empty = { name: 'Empty', fields: [] } as const;

const dynamicValue = () => DynamicValue;
const diagnostic = () => Diagnostic;
const clientCapabilities = () => ClientCapabilities;

/** `repeated Diagnostic diagnostics = <number>`: the number differs between responses. */
function diagnosticsResponse<const Name extends string, const Number extends number>(name: Name, number: Number) {
  return { name, fields: [{ name: 'diagnostics', number, kind: 'message', message: diagnostic, repeated: true }] } as const;
}

// ---------------------------------------------------------------- RPC messages

const TypeNameMetadata = {
  name: 'tfplugin6.GetMetadata.ResourceMetadata',
  fields: [{ name: 'typeName', number: 1, kind: 'string' }],
} as const;

const FunctionMetadata = {
  name: 'tfplugin6.GetMetadata.FunctionMetadata',
  fields: [{ name: 'name', number: 1, kind: 'string' }],
} as const;

export const GetMetadataResponse = {
  name: 'tfplugin6.GetMetadata.Response',
  fields: [
    { name: 'serverCapabilities', number: 1, kind: 'message', message: () => ServerCapabilities },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
    { name: 'dataSources', number: 3, kind: 'message', message: () => TypeNameMetadata, repeated: true },
    { name: 'resources', number: 4, kind: 'message', message: () => TypeNameMetadata, repeated: true },
    { name: 'functions', number: 5, kind: 'message', message: () => FunctionMetadata, repeated: true },
  ],
} as const;

export const GetProviderSchemaResponse = {
  name: 'tfplugin6.GetProviderSchema.Response',
  fields: [
    { name: 'provider', number: 1, kind: 'message', message: () => Schema },
    { name: 'resourceSchemas', number: 2, kind: 'map', key: 'string', value: () => Schema },
    { name: 'dataSourceSchemas', number: 3, kind: 'map', key: 'string', value: () => Schema },
    { name: 'diagnostics', number: 4, kind: 'message', message: diagnostic, repeated: true },
    { name: 'serverCapabilities', number: 6, kind: 'message', message: () => ServerCapabilities },
    { name: 'functions', number: 7, kind: 'map', key: 'string', value: () => ProviderFunction },
  ],
} as const;

export const ValidateProviderConfigRequest = {
  name: 'tfplugin6.ValidateProviderConfig.Request',
  fields: [{ name: 'config', number: 1, kind: 'message', message: dynamicValue }],
} as const;
/** Note: diagnostics is field 2 here, field 1 in the other validate responses. */
export const ValidateProviderConfigResponse = diagnosticsResponse('tfplugin6.ValidateProviderConfig.Response', 2);

export const ValidateResourceConfigRequest = {
  name: 'tfplugin6.ValidateResourceConfig.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
  ],
} as const;
export const ValidateResourceConfigResponse = diagnosticsResponse('tfplugin6.ValidateResourceConfig.Response', 1);

export const ValidateDataResourceConfigRequest = {
  name: 'tfplugin6.ValidateDataResourceConfig.Request',
  fields: ValidateResourceConfigRequest.fields,
} as const;
export const ValidateDataResourceConfigResponse = diagnosticsResponse(
  'tfplugin6.ValidateDataResourceConfig.Response',
  1,
);

export const UpgradeResourceStateRequest = {
  name: 'tfplugin6.UpgradeResourceState.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'version', number: 2, kind: 'int64' },
    { name: 'rawState', number: 3, kind: 'message', message: () => RawState },
  ],
} as const;
export const UpgradeResourceStateResponse = {
  name: 'tfplugin6.UpgradeResourceState.Response',
  fields: [
    { name: 'upgradedState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const ConfigureProviderRequest = {
  name: 'tfplugin6.ConfigureProvider.Request',
  fields: [
    { name: 'terraformVersion', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 3, kind: 'message', message: clientCapabilities },
  ],
} as const;
export const ConfigureProviderResponse = diagnosticsResponse('tfplugin6.ConfigureProvider.Response', 1);

export const ReadResourceRequest = {
  name: 'tfplugin6.ReadResource.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'currentState', number: 2, kind: 'message', message: dynamicValue },
    { name: 'private', number: 3, kind: 'bytes' },
    { name: 'providerMeta', number: 4, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 5, kind: 'message', message: clientCapabilities },
  ],
} as const;
export const ReadResourceResponse = {
  name: 'tfplugin6.ReadResource.Response',
  fields: [
    { name: 'newState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
    { name: 'private', number: 3, kind: 'bytes' },
  ],
} as const;

export const PlanResourceChangeRequest = {
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
} as const;
export const PlanResourceChangeResponse = {
  name: 'tfplugin6.PlanResourceChange.Response',
  fields: [
    { name: 'plannedState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'requiresReplace', number: 2, kind: 'message', message: () => AttributePath, repeated: true },
    { name: 'plannedPrivate', number: 3, kind: 'bytes' },
    { name: 'diagnostics', number: 4, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const ApplyResourceChangeRequest = {
  name: 'tfplugin6.ApplyResourceChange.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'priorState', number: 2, kind: 'message', message: dynamicValue },
    { name: 'plannedState', number: 3, kind: 'message', message: dynamicValue },
    { name: 'config', number: 4, kind: 'message', message: dynamicValue },
    { name: 'plannedPrivate', number: 5, kind: 'bytes' },
    { name: 'providerMeta', number: 6, kind: 'message', message: dynamicValue },
  ],
} as const;
export const ApplyResourceChangeResponse = {
  name: 'tfplugin6.ApplyResourceChange.Response',
  fields: [
    { name: 'newState', number: 1, kind: 'message', message: dynamicValue },
    { name: 'private', number: 2, kind: 'bytes' },
    { name: 'diagnostics', number: 3, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const ImportResourceStateRequest = {
  name: 'tfplugin6.ImportResourceState.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'id', number: 2, kind: 'string' },
    { name: 'clientCapabilities', number: 3, kind: 'message', message: clientCapabilities },
  ],
} as const;
export const ImportedResource = {
  name: 'tfplugin6.ImportResourceState.ImportedResource',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'state', number: 2, kind: 'message', message: dynamicValue },
    { name: 'private', number: 3, kind: 'bytes' },
  ],
} as const;
export const ImportResourceStateResponse = {
  name: 'tfplugin6.ImportResourceState.Response',
  fields: [
    { name: 'importedResources', number: 1, kind: 'message', message: () => ImportedResource, repeated: true },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const ReadDataSourceRequest = {
  name: 'tfplugin6.ReadDataSource.Request',
  fields: [
    { name: 'typeName', number: 1, kind: 'string' },
    { name: 'config', number: 2, kind: 'message', message: dynamicValue },
    { name: 'providerMeta', number: 3, kind: 'message', message: dynamicValue },
    { name: 'clientCapabilities', number: 4, kind: 'message', message: clientCapabilities },
  ],
} as const;
export const ReadDataSourceResponse = {
  name: 'tfplugin6.ReadDataSource.Response',
  fields: [
    { name: 'state', number: 1, kind: 'message', message: dynamicValue },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const GetFunctionsResponse = {
  name: 'tfplugin6.GetFunctions.Response',
  fields: [
    { name: 'functions', number: 1, kind: 'map', key: 'string', value: () => ProviderFunction },
    { name: 'diagnostics', number: 2, kind: 'message', message: diagnostic, repeated: true },
  ],
} as const;

export const CallFunctionRequest = {
  name: 'tfplugin6.CallFunction.Request',
  fields: [
    { name: 'name', number: 1, kind: 'string' },
    { name: 'arguments', number: 2, kind: 'message', message: dynamicValue, repeated: true },
  ],
} as const;
export const CallFunctionResponse = {
  name: 'tfplugin6.CallFunction.Response',
  fields: [
    { name: 'result', number: 1, kind: 'message', message: dynamicValue },
    { name: 'error', number: 2, kind: 'message', message: () => FunctionError },
  ],
} as const;

export const StopProviderResponse = {
  name: 'tfplugin6.StopProvider.Response',
  fields: [{ name: 'error', number: 1, kind: 'string' }],
} as const;

// ---------------------------------------------------------------- the service table

/** One unary RPC of the Provider service: how to decode its request and encode its reply. */
export interface ProviderRpc {
  /** The ProviderService method that answers it. */
  readonly method: string;
  readonly request: MessageDescriptor;
  readonly response: MessageDescriptor;
}

/**
 * The tfplugin6.Provider RPCs this provider implements, by RPC name (the last part of the
 * gRPC path `/tfplugin6.Provider/<name>`); ProviderService (below) is derived from it. The
 * others (MoveResourceState, ephemeral resources, identities, ...) are answered UNIMPLEMENTED
 * by the gRPC server.
 */
export const providerRpcs = {
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
} as const;

/** The table as the server walks it; the annotation checks every descriptor reachable from it. */
export const providerRpcList: readonly (readonly [rpcName: string, rpc: ProviderRpc])[] = Object.entries(providerRpcs);

/** Decodes an RPC's request bytes into the shape the service method takes. */
export function decodeRequest<Rpc extends ProviderRpc>(rpc: Rpc, bytes: Buffer): MessageValue<Rpc['request']> {
  return decodeMessage<Rpc['request']>(rpc.request, bytes);
}

/** Encodes a service method's reply for the wire. */
export function encodeResponse<Rpc extends ProviderRpc>(rpc: Rpc, response: MessageValue<Rpc['response']>): Buffer {
  return encodeMessage(rpc.response, response);
}

/**
 * Calls one RPC on a service: decode the request, run the method, encode the reply. The
 * gRPC server turns a thrown error into INTERNAL.
 */
export async function callProviderRpc(service: ProviderService, rpc: ProviderRpc, requestBytes: Buffer): Promise<Buffer> {
  const request = decodeMessage(rpc.request, requestBytes);
  const method = service[rpc.method as keyof ProviderService] as (request: unknown) => Promise<object>;
  const response = await method.call(service, request);
  return encodeMessage(rpc.response, response);
}

type Rpcs = typeof providerRpcs;

/**
 * The tfplugin6 `Provider` service as the gRPC layer calls it: one method per entry of
 * providerRpcs above, taking its decoded request and returning its reply. The gRPC
 * layer answers UNIMPLEMENTED for RPCs not listed there (ephemeral resources,
 * MoveResourceState, ...). A thrown error becomes a gRPC INTERNAL status (internal faults
 * only; user problems travel as diagnostics).
 */
export type ProviderService = {
  [RpcName in keyof Rpcs as Rpcs[RpcName]['method']]: (
    request: MessageValue<Rpcs[RpcName]['request']>,
  ) => Promise<MessageValue<Rpcs[RpcName]['response']>>;
};
