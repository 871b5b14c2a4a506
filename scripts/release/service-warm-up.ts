/**
 * Makes the V8 code cache of the released executable's service bundle after *running* it
 * through what a plan asks of it, as terraform asks (help/releasing.md, "How the executables are
 * made"). V8 compiles a function at its first call, and a cache made by compiling alone holds
 * little more than the bundle's top level: the provider's hooks, the API client and the parts of
 * undici it uses then compiled in every provider process that called them (about 10 ms of CPU in
 * the process that plans, help/performance-history.md, "The plan of one entry").
 *
 * The build bundles this module with esbuild (bundle.ts, bundleServiceWarmUp) and runs it with
 * the target's own Node binary and the executable's options: it compiles the service bundle,
 * runs it (handing it this bundle's copies of the modules it takes from the main script), starts
 * the emulator on a loopback port, and has the service do what terraform's plan and apply of one
 * `svc_blacklist_entry` ask: validate the provider and the resource, configure (its login and
 * list read happen in the plan), plan the create, apply it, then upgrade, read and plan it again
 * as a refresh would. Then it writes the cache and exits. A step that ends in an error
 * diagnostic fails the build, so the warm-up cannot quietly stop covering the plan. What keeps
 * the cache the same on every build of a commit is said where it is done (the V8 flags of
 * timing-dependent-flags.ts, the login's latency).
 */
import * as fs from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { startEmulator } from '../../src/emulator/server';
import { createLogger } from '../../src/provider/protocol/log';
import type { Diagnostic, DynamicValue, ProviderService, Schema, SchemaBlock } from '../../src/provider/protocol/messages';
import { decodeValue, encodeValue } from '../../src/provider/protocol/msgpack';
import { DiagnosticSeverity } from '../../src/provider/protocol/tfplugin6';
import { decodeType } from '../../src/provider/protocol/type-json';
import type { ObjectValue, Value, ValueType } from '../../src/provider/core';
import { runWrappedScript, SHARED_MODULE_PREFIX } from './executable-assets';
import { TIMING_DEPENDENT_FLAGS_OFF, TIMING_DEPENDENT_FLAGS_ON } from './timing-dependent-flags';

type ServiceModule = typeof import('../../src/provider/service');

const TENANT = 'warm-up';
const API_KEY = 'svc-release-warm-up-key';
const RESOURCE = 'svc_blacklist_entry';
const NO_CAPABILITIES = { deferralAllowed: false, writeOnlyAttributesAllowed: false };
/**
 * How late the emulator answers the login. undici runs its timers' functions only once a reply
 * has taken a while (node_modules/undici/lib/util/timers.js), and whether one did depended on the
 * machine's load: two builds of one commit differed by those two functions. A login this slow
 * runs them in every warm-up, so the cache does not depend on the machine's speed.
 */
const LOGIN_LATENCY_MS = 1500;

export class WarmUpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WarmUpError';
  }
}

/** The value type of a schema block as terraform encodes it (attributes only; the svc schemas have no nested blocks). */
function blockType(block: SchemaBlock | undefined, what: string): ValueType {
  if (block === undefined || (block.blockTypes ?? []).length > 0) throw new WarmUpError(`${what}: expected a block of attributes only`);
  const attributes: Record<string, ValueType> = {};
  for (const attribute of block.attributes ?? []) {
    if (attribute.nestedType !== undefined) throw new WarmUpError(`${what}.${attribute.name}: nested attributes are not warmed up; extend service-warm-up.ts`);
    attributes[attribute.name] = decodeType(attribute.type);
  }
  return { kind: 'object', attributes };
}

/** Every attribute of `type` null, then `values`: a configuration as terraform sends it. */
function configOf(type: ValueType, values: ObjectValue): ObjectValue {
  if (type.kind !== 'object') throw new WarmUpError('expected an object type');
  return { ...Object.fromEntries(Object.keys(type.attributes).map((name) => [name, null])), ...values };
}

function msgpack(type: ValueType, value: Value): DynamicValue {
  return { msgpack: encodeValue(type, value) };
}

function stateOf(type: ValueType, value: DynamicValue | undefined, step: string): Value {
  if (value?.msgpack === undefined) throw new WarmUpError(`${step} returned no state`);
  return decodeValue(type, value.msgpack);
}

/** Throws on an error diagnostic: the warm-up no longer takes the path a plan takes. */
function check<T extends { readonly diagnostics?: readonly Diagnostic[] }>(step: string, response: T): T {
  const errors = (response.diagnostics ?? []).filter((diagnostic) => diagnostic.severity === DiagnosticSeverity.Error);
  if (errors.length > 0) throw new WarmUpError(`${step}: ${errors.map((error) => `${error.summary}: ${error.detail}`).join('; ')}`);
  return response;
}

async function exercise(service: ProviderService, baseUrl: string): Promise<void> {
  const schemas = await service.getProviderSchema({});
  const providerType = blockType((schemas.provider as Schema | undefined)?.block, 'provider');
  const entryType = blockType(schemas.resourceSchemas?.[RESOURCE]?.block, RESOURCE);
  const providerConfig = msgpack(providerType, configOf(providerType, { base_url: baseUrl, api_key: API_KEY, tenant: TENANT }));
  const entryConfigValue = configOf(entryType, { ip: '192.0.2.1', description: 'warm-up entry' });
  const entryConfig = msgpack(entryType, entryConfigValue);
  const none = msgpack(entryType, null);

  check('ValidateProviderConfig', await service.validateProviderConfig({ config: providerConfig }));
  check('ValidateResourceConfig', await service.validateResourceConfig({ typeName: RESOURCE, config: entryConfig }));
  check('ConfigureProvider', await service.configureProvider({ terraformVersion: '1.11.4', config: providerConfig, clientCapabilities: NO_CAPABILITIES }));
  const planned = check(
    'PlanResourceChange (create)',
    await service.planResourceChange({ typeName: RESOURCE, priorState: none, proposedNewState: entryConfig, config: entryConfig, priorPrivate: Buffer.alloc(0), clientCapabilities: NO_CAPABILITIES }),
  );
  const applied = check(
    'ApplyResourceChange (create)',
    await service.applyResourceChange({ typeName: RESOURCE, priorState: none, plannedState: planned.plannedState, config: entryConfig, plannedPrivate: planned.plannedPrivate }),
  );
  const created = stateOf(entryType, applied.newState, 'ApplyResourceChange');
  const upgraded = check(
    'UpgradeResourceState',
    await service.upgradeResourceState({ typeName: RESOURCE, version: 0, rawState: { json: Buffer.from(JSON.stringify(created)), flatmap: {} } }),
  );
  const read = check('ReadResource', await service.readResource({ typeName: RESOURCE, currentState: upgraded.upgradedState, private: applied.private, clientCapabilities: NO_CAPABILITIES }));
  const current = read.newState;
  stateOf(entryType, current, 'ReadResource');
  check(
    'PlanResourceChange (refresh)',
    await service.planResourceChange({ typeName: RESOURCE, priorState: current, proposedNewState: current, config: entryConfig, priorPrivate: read.private, clientCapabilities: NO_CAPABILITIES }),
  );
  await service.stopProvider({});
}

/**
 * Compiles the wrapped service bundle in `sourcePath` (named `name`, as the executable names it),
 * runs it through the plan of one entry against an emulator, and writes V8's code cache to
 * `outputPath`. `sharedModules`: the modules the service takes from the main script, by repository path.
 */
export async function warmUpServiceCache(sourcePath: string, outputPath: string, name: string, sharedModules: Readonly<Record<string, unknown>>): Promise<void> {
  // Off while the service runs, so the same commit gives the same cache (timing-dependent-flags.ts says why).
  setFlagsFromString(TIMING_DEPENDENT_FLAGS_OFF);
  let cache: Buffer;
  try {
    cache = await runThroughPlan(sourcePath, name, sharedModules);
  } finally {
    restoreTimingDependentFlags();
  }
  fs.writeFileSync(outputPath, cache);
}

function restoreTimingDependentFlags(): void {
  setFlagsFromString(TIMING_DEPENDENT_FLAGS_ON);
}

/** The cache of the service bundle after the plan of one entry (the flags are back on when it is made). */
async function runThroughPlan(sourcePath: string, name: string, sharedModules: Readonly<Record<string, unknown>>): Promise<Buffer> {
  const script = new Script(fs.readFileSync(sourcePath, 'utf8'), { filename: name });
  const requireForService = (id: string): unknown => {
    if (!id.startsWith(SHARED_MODULE_PREFIX)) return require(id);
    const module = id.slice(SHARED_MODULE_PREFIX.length);
    if (!(module in sharedModules)) throw new WarmUpError(`the service bundle needs ${module}, which the warm-up was not given`);
    return sharedModules[module];
  };
  const service = (runWrappedScript(script, requireForService) as ServiceModule).createSvcService(createLogger({ write: () => undefined }, 'error'));
  // The login's reply comes late on purpose (LOGIN_LATENCY_MS), every other one at once.
  let clearLatency = (): void => undefined;
  const emulator = await startEmulator({
    seed: { tenants: [{ name: TENANT }], users: [{ email: 'release@warm-up.example', apiKey: API_KEY, active: true, readOnly: false }] },
    logRequests: false,
    faults: { rate: 0, latencyMs: LOGIN_LATENCY_MS },
    onTokenIssued: () => clearLatency(),
  });
  clearLatency = () => emulator.setFaults(undefined);
  try {
    await exercise(service, emulator.url);
  } finally {
    await emulator.close();
  }
  restoreTimingDependentFlags();
  return script.createCachedData();
}

/** The bundled script's entry: `<service source> <cache output> <asset name>` (bundle.ts passes the shared modules). */
export function runWarmUp(sharedModules: Readonly<Record<string, unknown>>): void {
  const [sourcePath, outputPath, name] = process.argv.slice(2);
  warmUpServiceCache(sourcePath, outputPath, name, sharedModules).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
