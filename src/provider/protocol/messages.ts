/**
 * The tfplugin6.8 messages this provider exchanges, as TypeScript types. They are not written
 * here: each is derived from its wire descriptor in tfplugin6.ts (MessageValue, protobuf.ts),
 * so a field's name, type and presence have one declaration. The shapes: field names are the
 * proto's snake_case names in camelCase, `bytes` are Buffers, enums are the enums below,
 * `repeated` fields are arrays (empty when absent), `map<string, X>` fields are Records, and a
 * message field that was not sent is `undefined`. The RPC handlers (provider-service.ts) turn
 * them into the protocol-free core's values. Nothing outside src/provider/protocol/ needs this
 * file except tests.
 */
import type { MessageValue } from './protobuf';
import type * as wire from './tfplugin6';

// The enums and the service type live beside the descriptors that use them (tfplugin6.ts),
// so the two files do not import each other; they are re-exported here with the messages.
export { DiagnosticSeverity, ObjectNestingMode, StringKind } from './tfplugin6';
export type { ProviderService } from './tfplugin6';

export type DynamicValue = MessageValue<typeof wire.DynamicValue>;
export type AttributePathStep = MessageValue<typeof wire.AttributePathStep>;
export type AttributePath = MessageValue<typeof wire.AttributePath>;
export type Diagnostic = MessageValue<typeof wire.Diagnostic>;
export type RawState = MessageValue<typeof wire.RawState>;
export type SchemaAttribute = MessageValue<typeof wire.SchemaAttribute>;
export type SchemaObject = MessageValue<typeof wire.SchemaObject>;
export type SchemaBlock = MessageValue<typeof wire.SchemaBlock>;
export type Schema = MessageValue<typeof wire.Schema>;
export type ServerCapabilities = MessageValue<typeof wire.ServerCapabilities>;
export type ClientCapabilities = MessageValue<typeof wire.ClientCapabilities>;
export type FunctionParameter = MessageValue<typeof wire.FunctionParameter>;
export type FunctionReturn = MessageValue<typeof wire.FunctionReturn>;
/** tfplugin6.Function (protocol 6.5+); named so it does not shadow the global Function. */
export type ProviderFunction = MessageValue<typeof wire.ProviderFunction>;
export type FunctionError = MessageValue<typeof wire.FunctionError>;

// ---- RPC requests and responses (message name = RPC name) ----

export type GetMetadataResponse = MessageValue<typeof wire.GetMetadataResponse>;
export type GetProviderSchemaResponse = MessageValue<typeof wire.GetProviderSchemaResponse>;
export type ValidateProviderConfigRequest = MessageValue<typeof wire.ValidateProviderConfigRequest>;
export type ValidateResourceConfigRequest = MessageValue<typeof wire.ValidateResourceConfigRequest>;
export type ValidateDataResourceConfigRequest = MessageValue<typeof wire.ValidateDataResourceConfigRequest>;
/** The validate and ConfigureProvider responses: diagnostics only (in field 1 or 2, see tfplugin6.ts). */
export type DiagnosticsResponse = MessageValue<typeof wire.ConfigureProviderResponse>;
export type UpgradeResourceStateRequest = MessageValue<typeof wire.UpgradeResourceStateRequest>;
export type UpgradeResourceStateResponse = MessageValue<typeof wire.UpgradeResourceStateResponse>;
export type ConfigureProviderRequest = MessageValue<typeof wire.ConfigureProviderRequest>;
export type ReadResourceRequest = MessageValue<typeof wire.ReadResourceRequest>;
export type ReadResourceResponse = MessageValue<typeof wire.ReadResourceResponse>;
export type PlanResourceChangeRequest = MessageValue<typeof wire.PlanResourceChangeRequest>;
export type PlanResourceChangeResponse = MessageValue<typeof wire.PlanResourceChangeResponse>;
export type ApplyResourceChangeRequest = MessageValue<typeof wire.ApplyResourceChangeRequest>;
export type ApplyResourceChangeResponse = MessageValue<typeof wire.ApplyResourceChangeResponse>;
export type ImportResourceStateRequest = MessageValue<typeof wire.ImportResourceStateRequest>;
export type ImportedResource = MessageValue<typeof wire.ImportedResource>;
export type ImportResourceStateResponse = MessageValue<typeof wire.ImportResourceStateResponse>;
export type ReadDataSourceRequest = MessageValue<typeof wire.ReadDataSourceRequest>;
export type ReadDataSourceResponse = MessageValue<typeof wire.ReadDataSourceResponse>;
export type GetFunctionsResponse = MessageValue<typeof wire.GetFunctionsResponse>;
/** One argument per parameter, each encoded against its parameter's type. */
export type CallFunctionRequest = MessageValue<typeof wire.CallFunctionRequest>;
/** Exactly one of result and error is set. */
export type CallFunctionResponse = MessageValue<typeof wire.CallFunctionResponse>;
export type StopProviderResponse = MessageValue<typeof wire.StopProviderResponse>;
