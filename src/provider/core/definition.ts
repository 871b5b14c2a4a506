/**
 * What a resource, a data source and the provider itself give the core. Hooks receive and
 * return core values (values.ts) shaped by their schema: an object with every attribute of the
 * schema present (null when unset). They never see protobuf or msgpack.
 *
 * A hook reports user problems by returning diagnostics or throwing DiagnosticsError. Any other
 * thrown error goes through ProviderDefinition.describeError (e.g. API errors become
 * diagnostics); what that does not describe is reported as an internal error. An update that
 * fails part-way throws PartialApplyError to have terraform record the state it left.
 */
import type { AttributePath, Diagnostic } from './diagnostics';
import type { FunctionDefinition } from './functions';
import type { Schema } from './schema';
import type { ObjectValue } from './values';

export interface ValidateRequest {
  /** May contain UNKNOWN anywhere (values from other resources or variables). */
  readonly config: ObjectValue;
}

export interface PlanRequest<Context> {
  readonly context: Context;
  readonly config: ObjectValue;
  /** null when the resource is being created. */
  readonly prior: ObjectValue | null;
  /**
   * The core's default plan: terraform's proposed new state (config, with prior values for
   * computed attributes the config leaves null), where on create every computed attribute the
   * config leaves null is UNKNOWN. A hook returns it unchanged, or adjusts it.
   */
  readonly proposed: ObjectValue;
  /**
   * What the previous plan call for this object returned as `privateData` (terraform plans a
   * replacement in two calls: the update against the prior object, then a create against none);
   * null when there is none. Terraform does not carry it from a plan into apply.
   */
  readonly priorPrivate: PrivateData | null;
}

/** A resource's private planning notes: JSON, opaque to terraform. */
export type PrivateData = Readonly<Record<string, unknown>>;

export interface PlanResult {
  readonly planned: ObjectValue;
  /** Handed to the next plan call for the same object (see PlanRequest.priorPrivate). */
  readonly privateData?: PrivateData;
  /** Extra replacement triggers besides attributes marked `requiresReplace` in the schema. */
  readonly requiresReplace?: readonly AttributePath[];
  readonly diagnostics?: readonly Diagnostic[];
}

/**
 * Reports a warning with the apply's result (e.g. something found on the service that the plan
 * did not show and the hook therefore left alone); terraform prints it after the change.
 */
export type ApplyWarning = (diagnostic: Diagnostic) => void;

export interface CreateRequest<Context> {
  readonly context: Context;
  readonly config: ObjectValue;
  readonly planned: ObjectValue;
  readonly warn: ApplyWarning;
}

export interface UpdateRequest<Context> {
  readonly context: Context;
  readonly config: ObjectValue;
  /** The state the plan was made from (refreshed then): what the plan showed as "before". */
  readonly prior: ObjectValue;
  readonly planned: ObjectValue;
  readonly warn: ApplyWarning;
}

export interface DeleteRequest<Context> {
  readonly context: Context;
  readonly prior: ObjectValue;
  /**
   * The notes of the plan that planned this destroy: for a replacement, what its create plan
   * returned as `privateData` (so a destroy can know what the object replacing it declares).
   */
  readonly privateData?: PrivateData | null;
  readonly warn: ApplyWarning;
}

export interface ReadRequest<Context> {
  readonly context: Context;
  /** The state as stored (after upgrade). */
  readonly state: ObjectValue;
}

export interface ImportRequest<Context> {
  readonly context: Context;
  /** What the user gave `terraform import` or an `import` block's `id`. */
  readonly id: string;
}

/**
 * A managed resource. New state returned by create/update must be wholly known and must equal
 * `planned` wherever `planned` was known (terraform rejects anything else).
 */
export interface ResourceDefinition<Context> {
  /** e.g. `svc_blacklist_entry`. */
  readonly typeName: string;
  readonly schema: Schema;
  validate?(request: ValidateRequest): readonly Diagnostic[];
  /** Omit to accept the core's default plan. Not called for destroy. */
  plan?(request: PlanRequest<Context>): Promise<PlanResult>;
  create(request: CreateRequest<Context>): Promise<ObjectValue>;
  update(request: UpdateRequest<Context>): Promise<ObjectValue>;
  /** Deleting something already gone succeeds. */
  delete(request: DeleteRequest<Context>): Promise<void>;
  /** Returns the remote object as state, or null when it no longer exists (terraform plans a create). */
  read(request: ReadRequest<Context>): Promise<ObjectValue | null>;
  /** Omit when the resource cannot be imported. Returns the state to store (terraform reads it next). */
  import?(request: ImportRequest<Context>): Promise<ObjectValue>;
}

export interface DataSourceReadRequest<Context> {
  readonly context: Context;
  /** Wholly known (terraform defers reads whose config is unknown). */
  readonly config: ObjectValue;
}

export interface DataSourceDefinition<Context> {
  /** e.g. `svc_list`. */
  readonly typeName: string;
  readonly schema: Schema;
  validate?(request: ValidateRequest): readonly Diagnostic[];
  /** Returns config with the computed attributes filled in. */
  read(request: DataSourceReadRequest<Context>): Promise<ObjectValue>;
}

export interface ConfigureRequest {
  /** May contain UNKNOWN during plan when it depends on other resources. */
  readonly config: ObjectValue;
  readonly terraformVersion: string;
}

/**
 * What a plan records of the service it read (fingerprints, never a secret): one value per
 * setting, so a refusal can name the setting that changed. Null values: that setting was unset.
 */
export type ServiceBinding = Readonly<Record<string, string | null>>;

export interface ProviderDefinition<Context> {
  readonly schema: Schema;
  /**
   * The service this provider process points at, recorded in every resource's private data by
   * refresh and plan; undefined when not known (settings not known yet). Omit to bind nothing.
   * Asked once per configured context (its settings do not change), and bindingMismatch once
   * per distinct recorded bytes until one is refused.
   */
  serviceBinding?(context: Context): ServiceBinding | undefined;
  /**
   * The refusal when `recorded` (what the plan read) is not the service this process points at
   * now; undefined when it is. Checked before any hook runs, so nothing is sent.
   */
  bindingMismatch?(context: Context, recorded: ServiceBinding): Diagnostic | undefined;
  validate?(request: ValidateRequest): readonly Diagnostic[];
  /** Called once per provider process before any plan/apply/read/import hook. Log in lazily. */
  configure(request: ConfigureRequest): Promise<Context>;
  readonly resources: readonly ResourceDefinition<Context>[];
  readonly dataSources: readonly DataSourceDefinition<Context>[];
  /** Provider functions; called without configure. @default [] */
  readonly functions?: readonly FunctionDefinition[];
  /** Turns a domain error thrown by a hook into a diagnostic; undefined when it is not one. */
  describeError?(error: unknown, operation: string): Diagnostic | undefined;
  /** Called when terraform asks the provider to stop (StopProvider) or before the process exits. */
  close?(context: Context | undefined): Promise<void>;
}
