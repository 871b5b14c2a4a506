/**
 * The tfplugin6.8 messages this provider exchanges, as plain objects: field names are the
 * proto's snake_case names in camelCase, `bytes` are Buffers, enums are their numbers,
 * `repeated` fields are arrays (empty when absent), `map<string, X>` fields are Records, and a
 * message field that was not sent is `undefined`. The protobuf codec (tfplugin6.ts) turns
 * these into wire bytes and back; the RPC handlers (provider-service.ts) turn them into the
 * protocol-free core's values. Nothing outside src/provider/protocol/ imports this file.
 *
 * Source of the field numbers: terraform's docs/plugin-protocol/tfplugin6.8.proto.
 */

export interface DynamicValue {
  /** field 1 */
  readonly msgpack?: Buffer;
  /** field 2 */
  readonly json?: Buffer;
}

export enum DiagnosticSeverity {
  Invalid = 0,
  Error = 1,
  Warning = 2,
}

export interface AttributePathStep {
  /** oneof selector: exactly one of these is set. */
  readonly attributeName?: string;
  readonly elementKeyString?: string;
  readonly elementKeyInt?: number;
}

export interface AttributePath {
  readonly steps: readonly AttributePathStep[];
}

export interface Diagnostic {
  readonly severity: DiagnosticSeverity;
  readonly summary: string;
  readonly detail: string;
  readonly attribute?: AttributePath;
}

export interface RawState {
  readonly json?: Buffer;
  readonly flatmap: Readonly<Record<string, string>>;
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

export interface SchemaObject {
  readonly attributes: readonly SchemaAttribute[];
  readonly nesting: ObjectNestingMode;
}

export interface SchemaAttribute {
  readonly name: string;
  /** Compact JSON of the cty type, e.g. `"string"` or `["set","string"]`; empty when nestedType is set. */
  readonly type: Buffer;
  readonly nestedType?: SchemaObject;
  readonly description: string;
  readonly required: boolean;
  readonly optional: boolean;
  readonly computed: boolean;
  readonly sensitive: boolean;
  readonly descriptionKind: StringKind;
  readonly deprecated: boolean;
  readonly writeOnly: boolean;
}

export interface SchemaBlock {
  readonly version: number;
  readonly attributes: readonly SchemaAttribute[];
  /** Nested blocks: this provider uses attributes only, so always empty. */
  readonly blockTypes: readonly never[];
  readonly description: string;
  readonly descriptionKind: StringKind;
  readonly deprecated: boolean;
}

export interface Schema {
  readonly version: number;
  readonly block: SchemaBlock;
}

export interface ServerCapabilities {
  readonly planDestroy: boolean;
  readonly getProviderSchemaOptional: boolean;
  readonly moveResourceState: boolean;
}

export interface ClientCapabilities {
  readonly deferralAllowed: boolean;
  readonly writeOnlyAttributesAllowed: boolean;
}

export interface FunctionParameter {
  readonly name: string;
  /** Compact JSON of the cty type, as SchemaAttribute.type. */
  readonly type: Buffer;
  readonly allowNullValue: boolean;
  readonly allowUnknownValues: boolean;
  readonly description: string;
  readonly descriptionKind: StringKind;
}

export interface FunctionReturn {
  readonly type: Buffer;
}

/** tfplugin6.Function (protocol 6.5+); named so it does not shadow the global Function. */
export interface ProviderFunction {
  readonly parameters: readonly FunctionParameter[];
  readonly variadicParameter?: FunctionParameter;
  /** Field name `return` in the proto. */
  readonly return: FunctionReturn;
  readonly summary: string;
  readonly description: string;
  readonly descriptionKind: StringKind;
  readonly deprecationMessage: string;
}

export interface FunctionError {
  readonly text: string;
  /** proto3 `optional`: undefined when no single argument is at fault; 0 is the first argument. */
  readonly functionArgument?: number;
}

// ---- RPC requests and responses (message name = RPC name) ----

export interface GetMetadataResponse {
  readonly serverCapabilities: ServerCapabilities;
  readonly diagnostics: readonly Diagnostic[];
  readonly dataSources: readonly { readonly typeName: string }[];
  readonly resources: readonly { readonly typeName: string }[];
  readonly functions: readonly { readonly name: string }[];
}

export interface GetProviderSchemaResponse {
  readonly provider: Schema;
  readonly resourceSchemas: Readonly<Record<string, Schema>>;
  readonly dataSourceSchemas: Readonly<Record<string, Schema>>;
  readonly functions: Readonly<Record<string, ProviderFunction>>;
  readonly diagnostics: readonly Diagnostic[];
  readonly serverCapabilities: ServerCapabilities;
}

export interface ValidateProviderConfigRequest {
  readonly config?: DynamicValue;
}
export interface ValidateResourceConfigRequest {
  readonly typeName: string;
  readonly config?: DynamicValue;
}
export type ValidateDataResourceConfigRequest = ValidateResourceConfigRequest;

export interface DiagnosticsResponse {
  readonly diagnostics: readonly Diagnostic[];
}

export interface UpgradeResourceStateRequest {
  readonly typeName: string;
  readonly version: number;
  readonly rawState?: RawState;
}
export interface UpgradeResourceStateResponse {
  readonly upgradedState?: DynamicValue;
  readonly diagnostics: readonly Diagnostic[];
}

export interface ConfigureProviderRequest {
  readonly terraformVersion: string;
  readonly config?: DynamicValue;
  readonly clientCapabilities?: ClientCapabilities;
}

export interface ReadResourceRequest {
  readonly typeName: string;
  readonly currentState?: DynamicValue;
  readonly private: Buffer;
  readonly providerMeta?: DynamicValue;
  readonly clientCapabilities?: ClientCapabilities;
}
export interface ReadResourceResponse {
  readonly newState?: DynamicValue;
  readonly diagnostics: readonly Diagnostic[];
  readonly private: Buffer;
}

export interface PlanResourceChangeRequest {
  readonly typeName: string;
  readonly priorState?: DynamicValue;
  readonly proposedNewState?: DynamicValue;
  readonly config?: DynamicValue;
  readonly priorPrivate: Buffer;
  readonly providerMeta?: DynamicValue;
  readonly clientCapabilities?: ClientCapabilities;
}
export interface PlanResourceChangeResponse {
  readonly plannedState?: DynamicValue;
  readonly requiresReplace: readonly AttributePath[];
  readonly plannedPrivate: Buffer;
  readonly diagnostics: readonly Diagnostic[];
}

export interface ApplyResourceChangeRequest {
  readonly typeName: string;
  readonly priorState?: DynamicValue;
  readonly plannedState?: DynamicValue;
  readonly config?: DynamicValue;
  readonly plannedPrivate: Buffer;
  readonly providerMeta?: DynamicValue;
}
export interface ApplyResourceChangeResponse {
  readonly newState?: DynamicValue;
  readonly private: Buffer;
  readonly diagnostics: readonly Diagnostic[];
}

export interface ImportResourceStateRequest {
  readonly typeName: string;
  readonly id: string;
  readonly clientCapabilities?: ClientCapabilities;
}
export interface ImportedResource {
  readonly typeName: string;
  readonly state?: DynamicValue;
  readonly private: Buffer;
}
export interface ImportResourceStateResponse {
  readonly importedResources: readonly ImportedResource[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface ReadDataSourceRequest {
  readonly typeName: string;
  readonly config?: DynamicValue;
  readonly providerMeta?: DynamicValue;
  readonly clientCapabilities?: ClientCapabilities;
}
export interface ReadDataSourceResponse {
  readonly state?: DynamicValue;
  readonly diagnostics: readonly Diagnostic[];
}

export interface GetFunctionsResponse {
  readonly functions: Readonly<Record<string, ProviderFunction>>;
  readonly diagnostics: readonly Diagnostic[];
}

export interface CallFunctionRequest {
  readonly name: string;
  /** One per parameter, each encoded against its parameter's type. */
  readonly arguments: readonly DynamicValue[];
}
/** Exactly one of result and error is set. */
export interface CallFunctionResponse {
  readonly result?: DynamicValue;
  readonly error?: FunctionError;
}

export interface StopProviderResponse {
  /** Field name `Error` in the proto. */
  readonly error: string;
}

/**
 * The tfplugin6 `Provider` service as the gRPC layer calls it. The gRPC layer answers
 * UNIMPLEMENTED for RPCs not listed here (ephemeral resources, MoveResourceState, ...).
 * A thrown error becomes a gRPC INTERNAL status (internal faults only; user problems travel as
 * diagnostics).
 */
export interface ProviderService {
  getMetadata(request: Record<string, never>): Promise<GetMetadataResponse>;
  getProviderSchema(request: Record<string, never>): Promise<GetProviderSchemaResponse>;
  validateProviderConfig(request: ValidateProviderConfigRequest): Promise<DiagnosticsResponse>;
  validateResourceConfig(request: ValidateResourceConfigRequest): Promise<DiagnosticsResponse>;
  validateDataResourceConfig(request: ValidateDataResourceConfigRequest): Promise<DiagnosticsResponse>;
  upgradeResourceState(request: UpgradeResourceStateRequest): Promise<UpgradeResourceStateResponse>;
  configureProvider(request: ConfigureProviderRequest): Promise<DiagnosticsResponse>;
  readResource(request: ReadResourceRequest): Promise<ReadResourceResponse>;
  planResourceChange(request: PlanResourceChangeRequest): Promise<PlanResourceChangeResponse>;
  applyResourceChange(request: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResponse>;
  importResourceState(request: ImportResourceStateRequest): Promise<ImportResourceStateResponse>;
  readDataSource(request: ReadDataSourceRequest): Promise<ReadDataSourceResponse>;
  getFunctions(request: Record<string, never>): Promise<GetFunctionsResponse>;
  callFunction(request: CallFunctionRequest): Promise<CallFunctionResponse>;
  stopProvider(request: Record<string, never>): Promise<StopProviderResponse>;
}
