/**
 * Drives the svc provider's hooks the way the framework does, without terraform or the wire:
 * a real emulator on 127.0.0.1 port 0, configure, then validate -> plan -> create/update and
 * read/import/delete, checking what terraform checks (a new state equals the plan wherever
 * the plan was known; requires_replace for changed `requiresReplace` attributes).
 */
import { startEmulator, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/server';
import { ManagementClient } from '../../src/api/client';
import {
  UNKNOWN,
  type DataSourceDefinition,
  type Diagnostic,
  type ObjectValue,
  type PrivateData,
  type ResourceDefinition,
  type Schema,
  type Value,
} from '../../src/provider/core';
import type { SvcContext } from '../../src/provider/context';
import { createSvcProvider } from '../../src/provider/provider';

export const TENANT = 'acme';
export const OTHER_TENANT = 'globex';
export const API_KEY = 'provider-resources-test-key-7d1f';
export const SSO_BASE = 'https://sso.example.com';
export const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, deadlineMs: 5_000 } as const;

export const SEED: EmulatorSeed = {
  tenants: [
    { name: TENANT, contact_email: 'sec@acme.example', description: 'Acme Corp', autoblock_threshold: 7 },
    { name: OTHER_TENANT },
  ],
  channels: [
    { name: 'main', require_totp_setup: true },
    { name: 'partners' },
  ],
  users: [
    { email: 'ops@acme.example', apiKey: API_KEY, active: true, readOnly: false },
    { email: 'audit@acme.example', apiKey: 'provider-resources-reader-key', active: true, readOnly: true },
  ],
};

export type ProviderLogLine = { level: string; message: string };

export interface World {
  readonly emulator: RunningEmulator;
  readonly logs: ProviderLogLine[];
  /** A new provider process: configure with these provider-block values (env only as given). */
  configure(config?: Record<string, Value>, env?: NodeJS.ProcessEnv): Promise<SvcContext>;
  /** A client outside the provider, for arranging and checking the API's state. */
  readonly api: ManagementClient;
  close(): Promise<void>;
}

const provider = createSvcProvider();

export function resourceNamed(typeName: string): ResourceDefinition<SvcContext> {
  const found = provider.resources.find((resource) => resource.typeName === typeName);
  if (found === undefined) throw new Error(`no resource ${typeName}`);
  return found;
}

export function dataSourceNamed(typeName: string): DataSourceDefinition<SvcContext> {
  const found = provider.dataSources.find((source) => source.typeName === typeName);
  if (found === undefined) throw new Error(`no data source ${typeName}`);
  return found;
}

export async function startWorld(seed: EmulatorSeed = SEED): Promise<World> {
  const emulator = await startEmulator({ seed, tokenTtlSeconds: 3600, logRequests: false });
  const logs: ProviderLogLine[] = [];
  const providers: ReturnType<typeof createSvcProvider>[] = [];
  const contexts: SvcContext[] = [];
  const api = new ManagementClient({ baseUrl: emulator.url, apiKey: API_KEY, tenant: TENANT, retry: FAST_RETRY });
  return {
    emulator,
    logs,
    api,
    async configure(config = {}, env = {}) {
      const instance = createSvcProvider({
        env,
        log: (level, message) => logs.push({ level, message }),
        clientOptions: { retry: FAST_RETRY },
      });
      providers.push(instance);
      const full = fullObject(instance.schema, { base_url: emulator.url, api_key: API_KEY, tenant: TENANT, sso_base: SSO_BASE, ...config });
      expect(instance.validate?.({ config: full }) ?? []).toEqual([]);
      const context = await instance.configure({ config: full, terraformVersion: '1.11.4' });
      contexts.push(context);
      return context;
    },
    async close() {
      await Promise.all(providers.map((instance) => instance.close?.(undefined)));
      await api.close();
      await emulator.close();
    },
  };
}

/** An object with every schema attribute present, null where `values` leaves it out. */
export function fullObject(schema: Schema, values: Record<string, Value>): ObjectValue {
  for (const name of Object.keys(values)) {
    if (!(name in schema.attributes)) throw new Error(`test bug: ${name} is not an attribute of this schema`);
  }
  return Object.fromEntries(Object.keys(schema.attributes).map((name) => [name, values[name] ?? null]));
}

/** What the framework proposes: config, with computed attributes the config leaves null taken from prior (UNKNOWN on create). */
export function proposedOf(schema: Schema, config: ObjectValue, prior: ObjectValue | null): ObjectValue {
  const proposed: Record<string, Value> = { ...config };
  for (const [name, attribute] of Object.entries(schema.attributes)) {
    if (attribute.computed && config[name] === null) proposed[name] = prior === null ? UNKNOWN : prior[name];
  }
  return proposed;
}

export function sameValue(left: Value | undefined, right: Value | undefined): boolean {
  if (left === right) return true;
  if (left === null || right === null || left === undefined || right === undefined) return false;
  if (typeof left !== 'object' || typeof right !== 'object') return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    // Sets and lists alike: order-insensitive is enough for these tests' values.
    const unmatched = [...right];
    return left.every((item) => {
      const index = unmatched.findIndex((candidate) => sameValue(item, candidate));
      if (index === -1) return false;
      unmatched.splice(index, 1);
      return true;
    });
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => sameValue((left as ObjectValue)[key], (right as ObjectValue)[key]));
}

/** Terraform's check after apply: every attribute planned as known is exactly the new state's. */
export function expectConformsToPlan(planned: ObjectValue, state: ObjectValue): void {
  for (const [name, value] of Object.entries(planned)) {
    if (value === UNKNOWN) {
      expect(state[name]).not.toBe(UNKNOWN);
      continue;
    }
    if (!sameValue(value, state[name])) {
      throw new Error(`new state's ${name} ${JSON.stringify(state[name])} differs from the plan's ${JSON.stringify(value)}`);
    }
  }
  expect(Object.keys(state).sort()).toEqual(Object.keys(planned).sort());
}

export interface PlanOutcome {
  readonly planned: ObjectValue;
  readonly replace: string[];
  readonly diagnostics: readonly Diagnostic[];
  readonly config: ObjectValue;
  readonly privateData: PrivateData | undefined;
}

export async function plan(
  resource: ResourceDefinition<SvcContext>,
  context: SvcContext,
  values: Record<string, Value>,
  prior: ObjectValue | null = null,
  priorPrivate: PrivateData | null = null,
): Promise<PlanOutcome> {
  const config = fullObject(resource.schema, values);
  expect(resource.validate?.({ config }) ?? []).toEqual([]);
  const proposed = proposedOf(resource.schema, config, prior);
  const result = resource.plan === undefined ? { planned: proposed } : await resource.plan({ context, config, prior, proposed, priorPrivate });
  const replace =
    prior === null
      ? []
      : Object.entries(resource.schema.attributes)
          .filter(([name, attribute]) => attribute.requiresReplace && !sameValue(result.planned[name], prior[name]))
          .map(([name]) => name);
  return { planned: result.planned, replace, diagnostics: result.diagnostics ?? [], config, privateData: 'privateData' in result ? result.privateData : undefined };
}

/** plan + create, checked like terraform checks them. */
export async function create(resource: ResourceDefinition<SvcContext>, context: SvcContext, values: Record<string, Value>): Promise<ObjectValue> {
  const { planned, config } = await plan(resource, context, values);
  const state = await resource.create({ context, config, planned, warn: failOnWarning });
  expectConformsToPlan(planned, state);
  return state;
}

/** plan + update; fails when the plan would replace instead. */
export async function update(
  resource: ResourceDefinition<SvcContext>,
  context: SvcContext,
  prior: ObjectValue,
  values: Record<string, Value>,
): Promise<ObjectValue> {
  const { planned, config, replace } = await plan(resource, context, values, prior);
  expect(replace).toEqual([]);
  const state = await resource.update({ context, config, prior, planned, warn: failOnWarning });
  expectConformsToPlan(planned, state);
  return state;
}

/** True when terraform would show no change: the plan equals the prior state. */
export async function plansNoChange(
  resource: ResourceDefinition<SvcContext>,
  context: SvcContext,
  prior: ObjectValue,
  values: Record<string, Value>,
): Promise<boolean> {
  const { planned, replace } = await plan(resource, context, values, prior);
  return replace.length === 0 && sameValue(planned, prior);
}

/** The blocklist's block length on the emulator. */
export const BLOCK_SECONDS = 1800;

/**
 * Runs `action` and returns the emulator-clock seconds it ran between: the emulator clock moves
 * with real time, so an exact `now() + 1800` would race the turn of a second.
 */
export async function duringClock<Result>(world: World, action: () => Promise<Result>): Promise<{ result: Result; from: number; to: number }> {
  const from = world.emulator.now();
  const result = await action();
  return { result, from, to: world.emulator.now() };
}

/** A block that started while `window` ran ends 30 minutes later. */
export function expectBlockEndIn(expires: Value | undefined, window: { from: number; to: number }): void {
  expect(typeof expires).toBe('number');
  expect(expires as number).toBeGreaterThanOrEqual(window.from + BLOCK_SECONDS);
  expect(expires as number).toBeLessThanOrEqual(window.to + BLOCK_SECONDS);
}

/** The `warn` of an apply hook where the test expects none: a warning fails the test, naming it. */
export function failOnWarning(diagnostic: Diagnostic): void {
  throw new Error(`unexpected apply warning: ${diagnostic.summary}: ${diagnostic.detail}`);
}
