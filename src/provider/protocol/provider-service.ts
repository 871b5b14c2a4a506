/**
 * The tfplugin6 Provider service over a protocol-free ProviderDefinition: each RPC decodes its
 * DynamicValues against the schema's type, calls the core (default plan, replacement paths,
 * applied-state checks) and the definition's hooks, and encodes the answer. User problems and
 * hook failures travel as diagnostics; only bytes that do not decode (an internal fault)
 * throw, which the gRPC layer turns into an INTERNAL status.
 */
import { inspect } from 'node:util';
import type { PrivateData, ProviderDefinition, ServiceBinding } from '../core/definition';
import { DiagnosticsError, PartialApplyError, errorDiagnostic, type AttributePath, type Diagnostic } from '../core/diagnostics';
import { FunctionCallError, type FunctionDefinition } from '../core/functions';
import { collectWarnings } from '../core/hook-warnings';
import { defaultPlan, findAppliedInconsistency, replacementPaths } from '../core/plan';
import type { Schema } from '../core/schema';
import type { ValueType } from '../core/types';
import { findShapeProblem, findUnknownPath, formatAttributePath, impliedType, isPlainObject } from '../core/value-shape';
import { isWhollyKnown, type ObjectValue, type Value } from '../core/values';
import { toProtocolDiagnostic, toProtocolDiagnostics, toProtocolPath } from './diagnostic-conversion';
import type * as messages from './messages';
import { decodeJsonValue, decodeValue, encodeValue, ValueCodecError } from './msgpack';
import { NO_REDACTION, type Redact } from './redaction';
import { toProtocolFunction, toProtocolSchema } from './schema-conversion';

export interface ProviderServiceOptions {
  /** One line per internal error (already redacted); the wire layer sends it to stderr. */
  log?(line: string): void;
  /**
   * Scrubs secrets out of every diagnostic, function error and log line the service produces.
   * @default no redaction
   */
  readonly redact?: Redact;
}

const SERVER_CAPABILITIES: messages.ServerCapabilities = {
  // A destroy is planned through us too, so its private data records the service the plan read.
  planDestroy: true,
  getProviderSchemaOptional: true,
  moveResourceState: false,
};

const EMPTY = Buffer.alloc(0);

const INTERNAL_SUMMARY = 'Internal error in the svc provider';
const REPORT_IT = 'This is a bug in the svc provider; please report it (with the TF_LOG=debug output if you can).';

/** A hook's result, or the diagnostics its failure became (and the state it left, when it said so). */
type HookOutcome<T> =
  /** `warnings`: what was reported (reportWarning) while the hook ran; a failure's diagnostics hold them first. */
  | { readonly ok: true; readonly value: T; readonly warnings: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: Diagnostic[]; readonly partialState?: ObjectValue };

interface Typed<Definition> {
  readonly definition: Definition;
  readonly type: ValueType;
}

export function createProviderService<Context>(
  definition: ProviderDefinition<Context>,
  options: ProviderServiceOptions = {},
): messages.ProviderService {
  const resources = indexByTypeName(definition.resources, 'resource');
  const dataSources = indexByTypeName(definition.dataSources, 'data source');
  const functions = indexFunctions(definition.functions ?? []);
  const providerType = impliedType(definition.schema);
  let schemaResponse: messages.GetProviderSchemaResponse | undefined;
  let configured: { readonly context: Context } | undefined;
  const redact = options.redact ?? NO_REDACTION;
  const toProtocol = (diagnostics: readonly Diagnostic[]) => toProtocolDiagnostics(diagnostics, redact);
  const toDiagnostic = (diagnostic: Diagnostic) => toProtocolDiagnostic(diagnostic, redact);
  /** The first refusal of a plan made against another service: every later change of this process gets it too. */
  let bindingRefused: Diagnostic | undefined;

  /**
   * The configured context's binding, made at its first use: terraform configures a process once
   * and a context's settings do not change, while every refresh and plan records the binding.
   */
  let configuredBinding: { readonly binding: ServiceBinding | undefined } | undefined;
  /** bound(null) once configured, the private data of every refresh, encoded once (the bytes are only ever copied). */
  let boundAlone: Buffer | undefined;
  /** The last private data found to name this process's service: the same bytes again need no second parse. */
  let acceptedPrivate: Buffer | undefined;

  /** The current service binding, or undefined (not configured, not known, or nothing bound). */
  function currentBinding(): ServiceBinding | undefined {
    if (configured === undefined) return undefined;
    configuredBinding ??= { binding: definition.serviceBinding?.(configured.context) };
    return configuredBinding.binding;
  }

  /**
   * The refusal when private data (what a refresh or plan recorded) names another service than
   * this process points at; also once any change of this process was refused so.
   */
  function bindingRefusal(privateBytes: Buffer | undefined): Diagnostic | undefined {
    if (bindingRefused !== undefined) return bindingRefused;
    if (privateBytes !== undefined && acceptedPrivate !== undefined && privateBytes.equals(acceptedPrivate)) return undefined;
    const mismatch = definition.bindingMismatch;
    const recorded = recordedBinding(privateBytes);
    if (configured === undefined || mismatch === undefined || recorded === undefined) return undefined;
    bindingRefused = mismatch.call(definition, configured.context, recorded);
    if (bindingRefused === undefined) acceptedPrivate = privateBytes;
    return bindingRefused;
  }

  /** Private data with the current service binding in it (when there is one). */
  function bound(notes: PrivateData | null): Buffer {
    if (notes !== null || configured === undefined) return boundBytes(notes);
    return (boundAlone ??= boundBytes(null));
  }

  function boundBytes(notes: PrivateData | null): Buffer {
    const binding = currentBinding();
    const { [BINDING_KEY]: _old, ...rest } = notes ?? {};
    const merged = binding === undefined ? rest : { ...rest, [BINDING_KEY]: binding };
    return Object.keys(merged).length === 0 ? EMPTY : Buffer.from(JSON.stringify(merged));
  }

  function providerSchemas(): messages.GetProviderSchemaResponse {
    schemaResponse ??= {
      provider: toProtocolSchema(definition.schema),
      resourceSchemas: mapSchemas(resources),
      dataSourceSchemas: mapSchemas(dataSources),
      functions: protocolFunctions(functions),
      diagnostics: [],
      serverCapabilities: SERVER_CAPABILITIES,
    };
    return schemaResponse;
  }

  /** Runs a hook at the deliberate boundary where any failure becomes diagnostics. */
  async function runHook<T>(operation: string, hook: () => Promise<T> | T): Promise<HookOutcome<T>> {
    const warnings: Diagnostic[] = [];
    try {
      return { ok: true, value: await collectWarnings(hook, warnings), warnings };
    } catch (error) {
      if (error instanceof PartialApplyError) {
        return { ok: false, diagnostics: [...warnings, ...diagnosticsForError(error.cause, operation)], partialState: error.state };
      }
      return { ok: false, diagnostics: [...warnings, ...diagnosticsForError(error, operation)] };
    }
  }

  function diagnosticsForError(error: unknown, operation: string): Diagnostic[] {
    if (error instanceof DiagnosticsError) return [...error.diagnostics];
    const described = definition.describeError?.(error, operation);
    if (described !== undefined) return [described];
    // A thrown non-Error (an object, null) is shown with its fields, not as "[object Object]".
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : inspect(error, { breakLength: Infinity });
    const stack = error instanceof Error && error.stack !== undefined ? error.stack : message;
    options.log?.(`[ERROR] svc: ${operation} failed: ${redact(stack).replace(/\r?\n/g, ' | ')}`);
    return [errorDiagnostic(INTERNAL_SUMMARY, `${operation} failed: ${redact(message)}. ${REPORT_IT}`)];
  }

  function notConfigured(operation: string): Diagnostic {
    return errorDiagnostic(
      INTERNAL_SUMMARY,
      `provider not configured: terraform asked to ${operation} before ConfigureProvider succeeded. ` +
        `Fix any provider configuration error reported above; otherwise ${REPORT_IT}`,
    );
  }

  /** A state a hook returned that does not fit the schema (or holds unknowns where state must be known). */
  function badReturnedValue(operation: string, type: ValueType, value: Value, allowUnknown: boolean): Diagnostic | undefined {
    const problem = findShapeProblem(type, value);
    if (problem !== undefined) {
      return errorDiagnostic(
        INTERNAL_SUMMARY,
        `${operation} returned a value that does not fit the schema at ${formatAttributePath(problem.path)}: ${problem.reason}. ${REPORT_IT}`,
        problem.path,
      );
    }
    if (allowUnknown) return undefined;
    const unknownPath = findUnknownPath(type, value);
    if (unknownPath === undefined) return undefined;
    return errorDiagnostic(
      INTERNAL_SUMMARY,
      `${operation} returned an unknown value for ${formatAttributePath(unknownPath)}; state must be wholly known. ${REPORT_IT}`,
      unknownPath,
    );
  }

  return {
    async getMetadata() {
      return {
        serverCapabilities: SERVER_CAPABILITIES,
        diagnostics: [],
        resources: [...resources.keys()].map((typeName) => ({ typeName })),
        dataSources: [...dataSources.keys()].map((typeName) => ({ typeName })),
        functions: [...functions.keys()].map((name) => ({ name })),
      };
    },

    async getProviderSchema() {
      return providerSchemas();
    },

    async validateProviderConfig(request) {
      const config = decodeObject(providerType, request.config, 'ValidateProviderConfig config');
      const validate = definition.validate;
      if (validate === undefined) return { diagnostics: [] };
      const outcome = await runHook('validate the provider configuration', () => validate.call(definition, { config }));
      return { diagnostics: toProtocol(outcome.ok ? outcome.value : outcome.diagnostics) };
    },

    async validateResourceConfig(request) {
      const resource = resources.get(request.typeName);
      if (resource === undefined) return { diagnostics: [toDiagnostic(unknownTypeDiagnostic('resource', request.typeName, resources))] };
      const config = decodeObject(resource.type, request.config, 'ValidateResourceConfig config');
      const validate = resource.definition.validate;
      if (validate === undefined) return { diagnostics: [] };
      const outcome = await runHook(`validate ${request.typeName}`, () => validate.call(resource.definition, { config }));
      return { diagnostics: toProtocol(outcome.ok ? outcome.value : outcome.diagnostics) };
    },

    async validateDataResourceConfig(request) {
      const dataSource = dataSources.get(request.typeName);
      if (dataSource === undefined) {
        return { diagnostics: [toDiagnostic(unknownTypeDiagnostic('data source', request.typeName, dataSources))] };
      }
      const config = decodeObject(dataSource.type, request.config, 'ValidateDataResourceConfig config');
      const validate = dataSource.definition.validate;
      if (validate === undefined) return { diagnostics: [] };
      const outcome = await runHook(`validate data source ${request.typeName}`, () => validate.call(dataSource.definition, { config }));
      return { diagnostics: toProtocol(outcome.ok ? outcome.value : outcome.diagnostics) };
    },

    async upgradeResourceState(request) {
      const resource = resources.get(request.typeName);
      if (resource === undefined) return { diagnostics: [toDiagnostic(unknownTypeDiagnostic('resource', request.typeName, resources))] };
      const schemaVersion = resource.definition.schema.version;
      if (request.version > schemaVersion) {
        return {
          diagnostics: toProtocol([
            errorDiagnostic(
              'State written by a newer svc provider',
              `The state of this ${request.typeName} has schema version ${request.version}, but this svc provider only ` +
                `knows versions up to ${schemaVersion}. Use the svc provider version that wrote the state or a newer one ` +
                `(update the version constraint, then terraform init -upgrade).`,
            ),
          ]),
        };
      }
      const rawState = request.rawState;
      if (rawState !== undefined && rawState.json.length > 0) {
        const json = rawState.json;
        const state = decodeOrThrow('UpgradeResourceState raw_state.json', () => decodeJsonValue(resource.type, json));
        return { upgradedState: { msgpack: encodeValue(resource.type, state) }, diagnostics: [] };
      }
      if (rawState !== undefined && Object.keys(rawState.flatmap).length > 0) {
        return {
          diagnostics: toProtocol([
            errorDiagnostic(
              'Unsupported state format',
              `The stored state of this ${request.typeName} is in the legacy flatmap format, which the svc provider never ` +
                'writes; the state file was probably edited or written by another provider. Remove the resource from ' +
                'the state (terraform state rm) and import it again.',
            ),
          ]),
        };
      }
      return { upgradedState: { msgpack: encodeValue(resource.type, null) }, diagnostics: [] };
    },

    async configureProvider(request) {
      // Terraform configures each provider process once; a repeat keeps the first context.
      if (configured !== undefined) return { diagnostics: [] };
      const config = decodeObject(providerType, request.config, 'ConfigureProvider config');
      const outcome = await runHook('configure the provider', () =>
        definition.configure({ config, terraformVersion: request.terraformVersion }),
      );
      if (!outcome.ok) return { diagnostics: toProtocol(outcome.diagnostics) };
      configured = { context: outcome.value };
      return { diagnostics: [] };
    },

    async readResource(request) {
      const unchanged = { newState: request.currentState, private: request.private };
      const resource = resources.get(request.typeName);
      if (resource === undefined) {
        return { ...unchanged, diagnostics: [toDiagnostic(unknownTypeDiagnostic('resource', request.typeName, resources))] };
      }
      const state = decodeObjectOrNull(resource.type, request.currentState, 'ReadResource current_state');
      if (state === null) return { ...unchanged, diagnostics: [] };
      const operation = `read ${request.typeName}`;
      if (configured === undefined) return { ...unchanged, diagnostics: [toDiagnostic(notConfigured(operation))] };
      const { context } = configured;
      const outcome = await runHook(operation, () => resource.definition.read({ context, state }));
      if (!outcome.ok) return { ...unchanged, diagnostics: toProtocol(outcome.diagnostics) };
      const problem = badReturnedValue(operation, resource.type, outcome.value, false);
      if (problem !== undefined) return { ...unchanged, diagnostics: toProtocol([...outcome.warnings, problem]) };
      // What this refresh read: a plan made from it is applied only against the same service. The
      // notes of an earlier plan are not carried on: they belong to that plan's calls alone.
      if (outcome.value === null) return { newState: { msgpack: encodeValue(resource.type, null) }, private: EMPTY, diagnostics: toProtocol(outcome.warnings) };
      return { newState: { msgpack: encodeValue(resource.type, outcome.value) }, private: bound(null), diagnostics: toProtocol(outcome.warnings) };
    },

    async planResourceChange(request) {
      const failed = (diagnostics: readonly Diagnostic[]): messages.PlanResourceChangeResponse => ({
        requiresReplace: [],
        plannedPrivate: request.priorPrivate,
        diagnostics: toProtocol(diagnostics),
      });
      const resource = resources.get(request.typeName);
      if (resource === undefined) return failed([unknownTypeDiagnostic('resource', request.typeName, resources)]);
      const { type, definition: resourceDefinition } = resource;
      // The prior object as refreshed by the plan: applying that plan elsewhere stops here, before any call.
      const refused = bindingRefusal(request.priorPrivate);
      if (refused !== undefined) return failed([refused]);
      const proposed = decodeObjectOrNull(type, request.proposedNewState, 'PlanResourceChange proposed_new_state');
      if (proposed === null) {
        // Destroy: nothing to plan but the service it is planned against.
        return {
          plannedState: { msgpack: encodeValue(type, null) },
          requiresReplace: [],
          plannedPrivate: bound(decodePrivate(request.priorPrivate)),
          diagnostics: [],
        };
      }
      const config = decodeObject(type, request.config, 'PlanResourceChange config');
      const prior = decodeObjectOrNull(type, request.priorState, 'PlanResourceChange prior_state');
      let planned = defaultPlan(resourceDefinition.schema, proposed, prior);
      let hookReplace: readonly AttributePath[] = [];
      let hookDiagnostics: readonly Diagnostic[] = [];
      let hookPrivate: PrivateData | undefined;
      const plan = resourceDefinition.plan;
      if (plan !== undefined) {
        const operation = `plan ${request.typeName}`;
        if (configured === undefined) return failed([notConfigured(operation)]);
        const { context } = configured;
        const proposedPlan = planned;
        const priorPrivate = decodePrivate(request.priorPrivate);
        const outcome = await runHook(operation, () => plan.call(resourceDefinition, { context, config, prior, proposed: proposedPlan, priorPrivate }));
        if (!outcome.ok) return failed(outcome.diagnostics);
        const problem = badReturnedValue(operation, type, outcome.value.planned, true);
        if (problem !== undefined) return failed([...outcome.warnings, ...(outcome.value.diagnostics ?? []), problem]);
        planned = outcome.value.planned;
        hookReplace = outcome.value.requiresReplace ?? [];
        hookDiagnostics = [...outcome.warnings, ...(outcome.value.diagnostics ?? [])];
        hookPrivate = outcome.value.privateData;
      }
      const requiresReplace = uniquePaths([...replacementPaths(resourceDefinition.schema, prior, planned), ...hookReplace]);
      return {
        plannedState: { msgpack: encodeValue(type, planned) },
        requiresReplace: requiresReplace.map(toProtocolPath),
        plannedPrivate: bound(hookPrivate ?? decodePrivate(request.priorPrivate)),
        diagnostics: toProtocol(hookDiagnostics),
      };
    },

    async applyResourceChange(request) {
      const resource = resources.get(request.typeName);
      if (resource === undefined) {
        return {
          newState: request.priorState,
          private: request.plannedPrivate,
          diagnostics: [toDiagnostic(unknownTypeDiagnostic('resource', request.typeName, resources))],
        };
      }
      const { type, definition: resourceDefinition } = resource;
      const planned = decodeObjectOrNull(type, request.plannedState, 'ApplyResourceChange planned_state');
      const prior = decodeObjectOrNull(type, request.priorState, 'ApplyResourceChange prior_state');
      const config = decodeObjectOrNull(type, request.config, 'ApplyResourceChange config');
      const action = planned === null ? 'delete' : prior === null ? 'create' : 'update';
      const operation = `${action} ${request.typeName}`;
      // The state keeps neither the plan's notes (they belong to that plan's calls: a note read by a
      // later plan would mislead it) nor its binding (only a refresh says which service an object is on).
      const statePrivate = EMPTY;
      // On failure terraform keeps what we return: the prior object still exists after a failed
      // update or delete, and nothing exists after a failed create.
      const stateOnFailure = (diagnostics: readonly Diagnostic[]): messages.ApplyResourceChangeResponse => ({
        newState: { msgpack: encodeValue(type, action === 'create' ? null : prior) },
        private: statePrivate,
        diagnostics: toProtocol(diagnostics),
      });
      if (configured === undefined) return stateOnFailure([notConfigured(operation)]);
      const { context } = configured;
      const refused = bindingRefusal(request.plannedPrivate);
      if (refused !== undefined) return stateOnFailure([refused]);

      // Warnings a hook reports travel with its result, also when it fails afterwards.
      const warnings: Diagnostic[] = [];
      const warn = (diagnostic: Diagnostic) => warnings.push({ ...diagnostic, severity: 'warning' });
      if (planned === null) {
        if (prior === null) return { newState: { msgpack: encodeValue(type, null) }, private: EMPTY, diagnostics: [] };
        const outcome = await runHook(operation, () => resourceDefinition.delete({ context, prior, warn, privateData: decodePrivate(request.plannedPrivate) }));
        if (!outcome.ok) return stateOnFailure([...warnings, ...outcome.diagnostics]);
        return { newState: { msgpack: encodeValue(type, null) }, private: EMPTY, diagnostics: toProtocol([...warnings, ...outcome.warnings]) };
      }
      const appliedConfig = config ?? planned;
      const outcome = await runHook(operation, () =>
        prior === null
          ? resourceDefinition.create({ context, config: appliedConfig, planned, warn })
          : resourceDefinition.update({ context, config: appliedConfig, prior, planned, warn }),
      );
      if (!outcome.ok) {
        // An update that failed part-way may name the state it left; a state that does not fit
        // the schema is reported as well, and the prior state kept.
        const partial = action === 'update' ? outcome.partialState : undefined;
        if (partial === undefined) return stateOnFailure([...warnings, ...outcome.diagnostics]);
        const problem = badReturnedValue(operation, type, partial, false);
        if (problem !== undefined) return stateOnFailure([...warnings, ...outcome.diagnostics, problem]);
        return {
          newState: { msgpack: encodeValue(type, partial) },
          private: statePrivate,
          diagnostics: toProtocol([...warnings, ...outcome.diagnostics]),
        };
      }
      const applied = outcome.value;
      warnings.push(...outcome.warnings);
      const problem = badReturnedValue(operation, type, applied, false);
      if (problem !== undefined) return stateOnFailure([...warnings, problem]);
      const newState = { msgpack: encodeValue(type, applied) };
      const inconsistency = findAppliedInconsistency(resourceDefinition.schema, planned, applied);
      if (inconsistency !== undefined) {
        const where = formatAttributePath(inconsistency.path);
        // The state is still recorded as applied, so terraform tracks the real object.
        return {
          newState,
          private: statePrivate,
          diagnostics: toProtocol([
            ...warnings,
            errorDiagnostic(
              `${request.typeName}: ${where} after ${action} differs from the plan`,
              `${where}: ${inconsistency.reason}. The new state was recorded as the API returned it; ` +
                `run terraform plan to see what remains to change. ${REPORT_IT}`,
              inconsistency.path,
            ),
          ]),
        };
      }
      return { newState, private: statePrivate, diagnostics: toProtocol(warnings) };
    },

    async importResourceState(request) {
      const resource = resources.get(request.typeName);
      const failed = (diagnostic: Diagnostic): messages.ImportResourceStateResponse => ({
        importedResources: [],
        diagnostics: [toDiagnostic(diagnostic)],
      });
      if (resource === undefined) return failed(unknownTypeDiagnostic('resource', request.typeName, resources));
      const importHook = resource.definition.import;
      if (importHook === undefined) {
        return failed(
          errorDiagnostic(
            `${request.typeName} does not support import`,
            `Resources of type ${request.typeName} cannot be imported; let terraform create it with terraform apply instead.`,
          ),
        );
      }
      const operation = `import ${request.typeName}`;
      if (configured === undefined) return failed(notConfigured(operation));
      const { context } = configured;
      const outcome = await runHook(operation, () => importHook.call(resource.definition, { context, id: request.id }));
      if (!outcome.ok) return { importedResources: [], diagnostics: toProtocol(outcome.diagnostics) };
      const problem = badReturnedValue(operation, resource.type, outcome.value, false);
      if (problem !== undefined) return { importedResources: [], diagnostics: toProtocol([...outcome.warnings, problem]) };
      return {
        importedResources: [
          { typeName: request.typeName, state: { msgpack: encodeValue(resource.type, outcome.value) }, private: EMPTY },
        ],
        diagnostics: toProtocol(outcome.warnings),
      };
    },

    async readDataSource(request) {
      const dataSource = dataSources.get(request.typeName);
      if (dataSource === undefined) return { diagnostics: [toDiagnostic(unknownTypeDiagnostic('data source', request.typeName, dataSources))] };
      const config = decodeObject(dataSource.type, request.config, 'ReadDataSource config');
      const operation = `read data source ${request.typeName}`;
      if (configured === undefined) return { diagnostics: [toDiagnostic(notConfigured(operation))] };
      const { context } = configured;
      const outcome = await runHook(operation, () => dataSource.definition.read({ context, config }));
      if (!outcome.ok) return { diagnostics: toProtocol(outcome.diagnostics) };
      const problem = badReturnedValue(operation, dataSource.type, outcome.value, false);
      if (problem !== undefined) return { diagnostics: toProtocol([...outcome.warnings, problem]) };
      return { state: { msgpack: encodeValue(dataSource.type, outcome.value) }, diagnostics: toProtocol(outcome.warnings) };
    },

    async getFunctions() {
      return { functions: providerSchemas().functions, diagnostics: [] };
    },

    // Functions run without ConfigureProvider (terraform calls them during validate as well) and
    // answer with a FunctionError, never diagnostics: terraform shows its text against the call,
    // pointing at the argument when function_argument is set.
    async callFunction(request) {
      const fn = functions.get(request.name);
      if (fn === undefined) {
        const known = [...functions.keys()].sort().join(', ') || '(none)';
        return { error: { text: `the svc provider has no function "${request.name}"; it has: ${known}. Check the spelling, or upgrade the provider if the function is newer.` } };
      }
      const { parameters } = fn;
      if (request.arguments.length !== parameters.length) {
        const names = parameters.map((parameter) => parameter.name).join(', ');
        return { error: { text: `${fn.name} takes ${parameters.length} argument(s) (${names}), got ${request.arguments.length}` } };
      }
      const args: Value[] = [];
      for (const [index, parameter] of parameters.entries()) {
        const value = decodeDynamic(parameter.type, request.arguments[index], `CallFunction ${fn.name} argument ${index} (${parameter.name})`);
        if (value === null && parameter.allowNull !== true) {
          return { error: { text: `${parameter.name} must not be null`, functionArgument: index } };
        }
        if (!isWhollyKnown(value) && parameter.allowUnknown !== true) {
          return { error: { text: `${parameter.name} must be known: the function cannot run on an unknown value`, functionArgument: index } };
        }
        args.push(value);
      }
      const operation = `call function ${fn.name}`;
      let result: Value;
      try {
        result = fn.call(args);
      } catch (error) {
        // Deliberate boundary: a function's user error names its argument; anything else is internal.
        if (error instanceof FunctionCallError) {
          return { error: { text: redact(error.message), ...(error.argument === undefined ? {} : { functionArgument: error.argument }) } };
        }
        return { error: { text: diagnosticsText(diagnosticsForError(error, operation)) } };
      }
      const problem = badReturnedValue(operation, fn.returnType, result, false);
      if (problem !== undefined) return { error: { text: diagnosticsText([problem]) } };
      return { result: { msgpack: encodeValue(fn.returnType, result) } };
    },

    async stopProvider() {
      const close = definition.close;
      if (close === undefined) return { error: '' };
      const outcome = await runHook('stop the provider', () => close.call(definition, configured?.context));
      if (outcome.ok) return { error: '' };
      return { error: redact(outcome.diagnostics.map((diagnostic) => `${diagnostic.summary}: ${diagnostic.detail}`).join('; ')) };
    },
  };
}

function indexByTypeName<Definition extends { readonly typeName: string; readonly schema: Schema }>(
  definitions: readonly Definition[],
  kind: string,
): Map<string, Typed<Definition>> {
  const index = new Map<string, Typed<Definition>>();
  for (const definition of definitions) {
    if (index.has(definition.typeName)) throw new Error(`the provider definition lists ${kind} ${definition.typeName} twice`);
    index.set(definition.typeName, { definition, type: impliedType(definition.schema) });
  }
  return index;
}

function indexFunctions(definitions: readonly FunctionDefinition[]): Map<string, FunctionDefinition> {
  const index = new Map<string, FunctionDefinition>();
  for (const definition of definitions) {
    if (index.has(definition.name)) throw new Error(`the provider definition lists function ${definition.name} twice`);
    index.set(definition.name, definition);
  }
  return index;
}

function protocolFunctions(index: Map<string, FunctionDefinition>): Record<string, messages.ProviderFunction> {
  const result: Record<string, messages.ProviderFunction> = {};
  for (const [name, definition] of index) result[name] = toProtocolFunction(definition);
  return result;
}

/** Diagnostics as one line of function-error text (a FunctionError has no summary or detail). */
function diagnosticsText(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((diagnostic) => `${diagnostic.summary}: ${diagnostic.detail}`).join('; ');
}

function mapSchemas<Definition extends { readonly schema: Schema }>(
  index: Map<string, Typed<Definition>>,
): Record<string, messages.Schema> {
  const schemas: Record<string, messages.Schema> = {};
  for (const [typeName, { definition }] of index) schemas[typeName] = toProtocolSchema(definition.schema);
  return schemas;
}

function unknownTypeDiagnostic(kind: string, typeName: string, index: Map<string, unknown>): Diagnostic {
  const known = [...index.keys()].sort().join(', ') || '(none)';
  return errorDiagnostic(
    `Unknown ${kind} type ${typeName}`,
    `The svc provider has no ${kind} type "${typeName}"; it has: ${known}. Check the spelling, or upgrade the provider if the type is newer.`,
  );
}

/** Bytes that do not decode are an internal fault: rethrown with the request field named. */
function decodeOrThrow(field: string, decode: () => Value): Value {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ValueCodecError) throw new Error(`cannot decode ${field}: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * A DynamicValue in whichever encoding it came: msgpack (what terraform sends today) or JSON
 * (which the protocol allows, e.g. from other clients). As terraform's own decoder does, an
 * encoding counts only when it has bytes: no msgpack value is zero bytes long, and a proto3
 * sender may write an empty field as well as leave it out.
 */
function decodeDynamic(type: ValueType, dynamicValue: messages.DynamicValue | undefined, field: string): Value {
  const msgpack = dynamicValue?.msgpack;
  if (msgpack !== undefined && msgpack.length > 0) return decodeOrThrow(field, () => decodeValue(type, msgpack));
  const json = dynamicValue?.json;
  if (json !== undefined && json.length > 0) return decodeOrThrow(field, () => decodeJsonValue(type, json));
  throw new Error(`${field} is missing from the request (neither msgpack nor json set)`);
}

function decodeObjectOrNull(type: ValueType, dynamicValue: messages.DynamicValue | undefined, field: string): ObjectValue | null {
  const value = decodeDynamic(type, dynamicValue, field);
  if (value === null || isPlainObject(value)) return value;
  throw new Error(`${field} must be an object or null, got an unknown or non-object value`);
}

function decodeObject(type: ValueType, dynamicValue: messages.DynamicValue | undefined, field: string): ObjectValue {
  const value = decodeObjectOrNull(type, dynamicValue, field);
  if (value === null) throw new Error(`${field} must be an object, got null`);
  return value;
}

/** Private bytes as a hook's notes: only a JSON object counts (other providers' or empty bytes are none). */
/** Where private data keeps the service binding (ProviderDefinition.serviceBinding). */
const BINDING_KEY = 'service';

/** The binding private data records, or undefined when it records none (or not ours). */
function recordedBinding(bytes: Buffer | undefined): ServiceBinding | undefined {
  const recorded = decodePrivate(bytes)?.[BINDING_KEY];
  if (!isPlainObject(recorded)) return undefined;
  const values = Object.values(recorded);
  return values.every((value) => value === null || typeof value === 'string') ? (recorded as ServiceBinding) : undefined;
}

function decodePrivate(bytes: Buffer | undefined): PrivateData | null {
  if (bytes === undefined || bytes.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return isPlainObject(parsed) ? (parsed as PrivateData) : null;
  } catch {
    // Deliberate: bytes that are not our JSON carry no notes for us.
    return null;
  }
}

function uniquePaths(paths: readonly AttributePath[]): AttributePath[] {
  const seen = new Set<string>();
  return paths.filter((path) => {
    const key = JSON.stringify(path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
