import { redact, registerSecret } from '../../src/api/redaction';
import type {
  DataSourceDefinition,
  PlanRequest,
  PlanResult,
  ProviderDefinition,
  ResourceDefinition,
} from '../../src/provider/core/definition';
import { DiagnosticsError, PartialApplyError, errorDiagnostic, warningDiagnostic } from '../../src/provider/core/diagnostics';
import { reportWarning } from '../../src/provider/core/hook-warnings';
import type { Schema } from '../../src/provider/core/schema';
import { types, type ValueType } from '../../src/provider/core/types';
import { UNKNOWN, type ObjectValue, type Value } from '../../src/provider/core/values';
import * as messages from '../../src/provider/protocol/messages';
import { decodeValue, encodeValue } from '../../src/provider/protocol/msgpack';
import { createProviderService } from '../../src/provider/protocol/provider-service';
import { impliedType } from '../../src/provider/protocol/schema-conversion';

// ---- a fake provider: one resource with every kind of attribute, one without import, one data source ----

const thingSchema: Schema = {
  version: 1,
  description: 'A thing.',
  attributes: {
    name: { description: 'Name; changing it replaces the thing.', type: types.string, required: true, requiresReplace: true },
    description: { description: 'Text.', type: types.string, optional: true, computed: true },
    id: { description: 'ID.', type: types.string, computed: true },
    created: { description: 'Epoch seconds.', type: types.number, computed: true },
    token: { description: 'A secret.', type: types.string, optional: true, sensitive: true },
    entries: {
      description: 'Entries.',
      optional: true,
      nested: {
        nesting: 'set',
        attributes: {
          ip: { description: 'IP.', type: types.string, required: true },
          created: { description: 'When.', type: types.number, computed: true },
        },
      },
    },
  },
};
const thingType = impliedType(thingSchema);

const infoSchema: Schema = {
  version: 0,
  description: 'Info.',
  attributes: {
    name: { description: 'Name.', type: types.string, required: true },
    value: { description: 'Value.', type: types.string, computed: true },
  },
};
const infoType = impliedType(infoSchema);

const providerSchema: Schema = {
  version: 0,
  description: 'The provider.',
  attributes: { tenant: { description: 'Tenant.', type: types.string, optional: true } },
};
const providerType = impliedType(providerSchema);

class FakeApiError extends Error {
  readonly code = 'not_found';
}

interface Context {
  readonly tenant: string;
}

/** What the fake's hooks do; tests switch behaviours per case. */
interface Behaviour {
  plan?: (request: PlanRequest<Context>) => Promise<PlanResult>;
  create?: (planned: ObjectValue) => ObjectValue;
  failWith?: unknown;
  readResult?: ObjectValue | null;
  /** Reads report this warning (reportWarning) after a tick, naming the object read. */
  warnOnRead?: string;
}

function makeFake() {
  const calls: Array<{ hook: string; request: unknown }> = [];
  const behaviour: Behaviour = {};
  const fill = (planned: ObjectValue): ObjectValue => ({
    ...planned,
    id: `acme/${String(planned.name)}`,
    created: planned.created === UNKNOWN ? 1000 : planned.created,
    description: planned.description === UNKNOWN ? '' : planned.description,
    entries: Array.isArray(planned.entries)
      ? (planned.entries as ObjectValue[]).map((entry) => ({ ...entry, created: entry.created === UNKNOWN ? 7 : entry.created }))
      : planned.entries,
  });
  const fail = () => {
    if (behaviour.failWith !== undefined) throw behaviour.failWith;
  };
  const thing: ResourceDefinition<Context> = {
    typeName: 'svc_thing',
    schema: thingSchema,
    validate(request) {
      calls.push({ hook: 'validate', request });
      return request.config.name === 'bad' ? [errorDiagnostic('Invalid name', 'name "bad" is not allowed: pick another', ['name'])] : [];
    },
    async create(request) {
      calls.push({ hook: 'create', request });
      fail();
      return (behaviour.create ?? fill)(request.planned);
    },
    async update(request) {
      calls.push({ hook: 'update', request });
      fail();
      return fill(request.planned);
    },
    async delete(request) {
      calls.push({ hook: 'delete', request });
      fail();
    },
    async read(request) {
      calls.push({ hook: 'read', request });
      if (behaviour.warnOnRead !== undefined) {
        // After an await, as a client's reply check is: the warning must still find its hook.
        await new Promise((resolve) => setImmediate(resolve));
        reportWarning(warningDiagnostic(behaviour.warnOnRead, `read ${String(request.state.name)}`));
      }
      fail();
      return behaviour.readResult === undefined ? request.state : behaviour.readResult;
    },
    async import(request) {
      calls.push({ hook: 'import', request });
      fail();
      const [tenant, name] = request.id.split('/');
      return { name, description: '', id: `${tenant}/${name}`, created: 5, token: null, entries: null };
    },
  };
  Object.defineProperty(thing, 'plan', {
    enumerable: true,
    get: () =>
      behaviour.plan === undefined
        ? undefined
        : (request: PlanRequest<Context>) => {
            calls.push({ hook: 'plan', request });
            return behaviour.plan!(request);
          },
  });
  const plain: ResourceDefinition<Context> = {
    typeName: 'svc_plain',
    schema: { version: 0, description: 'No import.', attributes: { id: { description: 'ID.', type: types.string, computed: true } } },
    create: async () => ({ id: 'p' }),
    update: async (request) => request.planned,
    delete: async () => undefined,
    read: async (request) => request.state,
  };
  const info: DataSourceDefinition<Context> = {
    typeName: 'svc_info',
    schema: infoSchema,
    async read(request) {
      calls.push({ hook: 'data read', request });
      if (behaviour.warnOnRead !== undefined) reportWarning(errorDiagnostic(behaviour.warnOnRead, `data ${String(request.config.name)}`));
      fail();
      return { ...request.config, value: `${request.context.tenant}:${String(request.config.name)}` };
    },
  };
  const definition: ProviderDefinition<Context> = {
    schema: providerSchema,
    async configure(request) {
      calls.push({ hook: 'configure', request });
      if (request.config.tenant === '') {
        throw new DiagnosticsError([errorDiagnostic('Empty tenant', 'set tenant or SVC_TENANT', ['tenant'])]);
      }
      return { tenant: typeof request.config.tenant === 'string' ? request.config.tenant : 'default' };
    },
    resources: [thing, plain],
    dataSources: [info],
    describeError(error, operation) {
      if (error instanceof FakeApiError) {
        return errorDiagnostic('Not found in the API', `${operation}: ${error.message}; check the name`);
      }
      return undefined;
    },
    async close(context) {
      calls.push({ hook: 'close', request: context });
    },
  };
  const logLines: string[] = [];
  const service = createProviderService(definition, { log: (line) => logLines.push(line), redact });
  return { service, calls, behaviour, logLines, hooks: () => calls.map((call) => call.hook) };
}

// ---- helpers ----

const dynamic = (type: ValueType, value: Value): messages.DynamicValue => ({ msgpack: encodeValue(type, value) });
const decoded = (type: ValueType, value: messages.DynamicValue | undefined): Value => decodeValue(type, value!.msgpack!);
const thing = (overrides: Record<string, Value>): ObjectValue => ({
  name: 'a',
  description: null,
  id: null,
  created: null,
  token: null,
  entries: null,
  ...overrides,
});
const paths = (response: { requiresReplace: readonly messages.AttributePath[] }) => response.requiresReplace.map((path) => path.steps);
const summaries = (diagnostics: readonly messages.Diagnostic[]) => diagnostics.map((diagnostic) => diagnostic.summary);
const NO_PRIVATE = Buffer.alloc(0);

async function configured(config: ObjectValue = { tenant: 'acme' }) {
  const fake = makeFake();
  const response = await fake.service.configureProvider({ terraformVersion: '1.11.4', config: dynamic(providerType, config) });
  expect(response.diagnostics).toEqual([]);
  return fake;
}

function plan(fake: ReturnType<typeof makeFake>, prior: ObjectValue | null, config: ObjectValue, proposed: ObjectValue | null = config) {
  return fake.service.planResourceChange({
    typeName: 'svc_thing',
    priorState: dynamic(thingType, prior),
    proposedNewState: dynamic(thingType, proposed),
    config: dynamic(thingType, config),
    priorPrivate: NO_PRIVATE,
  });
}

function apply(fake: ReturnType<typeof makeFake>, prior: ObjectValue | null, planned: ObjectValue | null, config: ObjectValue | null = planned) {
  return fake.service.applyResourceChange({
    typeName: 'svc_thing',
    priorState: dynamic(thingType, prior),
    plannedState: dynamic(thingType, planned),
    config: dynamic(thingType, config),
    plannedPrivate: NO_PRIVATE,
  });
}

// ---- tests ----

describe('schemas and metadata', () => {
  test('GetProviderSchema: every schema, the capabilities, converted once', async () => {
    const { service } = makeFake();
    const first = await service.getProviderSchema({});
    expect(first.serverCapabilities).toEqual({ getProviderSchemaOptional: true, planDestroy: true, moveResourceState: false });
    expect(Object.keys(first.resourceSchemas).sort()).toEqual(['svc_plain', 'svc_thing']);
    expect(Object.keys(first.dataSourceSchemas)).toEqual(['svc_info']);
    expect(first.resourceSchemas.svc_thing.version).toBe(1);
    expect(first.provider?.block?.attributes.map((attribute) => attribute.name)).toEqual(['tenant']);
    expect(await service.getProviderSchema({})).toBe(first);
  });
  test('GetMetadata lists the type names', async () => {
    const metadata = await makeFake().service.getMetadata({});
    expect(metadata.resources.map((resource) => resource.typeName).sort()).toEqual(['svc_plain', 'svc_thing']);
    expect(metadata.dataSources).toEqual([{ typeName: 'svc_info' }]);
    expect(metadata.serverCapabilities?.getProviderSchemaOptional).toBe(true);
  });
});

describe('validation', () => {
  test('config with unknowns reaches the hook; its diagnostics come back with the path', async () => {
    const fake = makeFake();
    const ok = await fake.service.validateResourceConfig({ typeName: 'svc_thing', config: dynamic(thingType, thing({ name: UNKNOWN })) });
    expect(ok.diagnostics).toEqual([]);
    expect((fake.calls[0].request as { config: ObjectValue }).config.name).toBe(UNKNOWN);
    const bad = await fake.service.validateResourceConfig({ typeName: 'svc_thing', config: dynamic(thingType, thing({ name: 'bad' })) });
    expect(bad.diagnostics).toEqual([
      { severity: messages.DiagnosticSeverity.Error, summary: 'Invalid name', detail: 'name "bad" is not allowed: pick another', attribute: { steps: [{ attributeName: 'name' }] } },
    ]);
  });
  test.each([
    ['resource', (fake: ReturnType<typeof makeFake>) => fake.service.validateResourceConfig({ typeName: 'svc_nope', config: dynamic(thingType, null) })],
    ['data source', (fake: ReturnType<typeof makeFake>) => fake.service.validateDataResourceConfig({ typeName: 'svc_nope', config: dynamic(thingType, null) })],
  ])('an unknown %s type is an error diagnostic naming the types there are', async (kind, call) => {
    const response = await call(makeFake());
    expect(summaries(response.diagnostics)).toEqual([`Unknown ${kind} type svc_nope`]);
    expect(response.diagnostics[0].detail).toContain('svc_');
  });
  test('provider config without a validate hook passes', async () => {
    const response = await makeFake().service.validateProviderConfig({ config: dynamic(providerType, { tenant: UNKNOWN }) });
    expect(response.diagnostics).toEqual([]);
  });
});

describe('configuration', () => {
  test('configure runs once and its context reaches the hooks', async () => {
    const fake = await configured({ tenant: 'acme' });
    await fake.service.configureProvider({ terraformVersion: '1.11.4', config: dynamic(providerType, { tenant: 'other' }) });
    expect(fake.hooks()).toEqual(['configure']);
    const response = await fake.service.readDataSource({ typeName: 'svc_info', config: dynamic(infoType, { name: 'n', value: null }) });
    expect(decoded(infoType, response.state)).toEqual({ name: 'n', value: 'acme:n' });
  });
  test('a failed configure reports its diagnostics, and later hooks are told the provider is not configured', async () => {
    const fake = makeFake();
    const response = await fake.service.configureProvider({ terraformVersion: '1.11.4', config: dynamic(providerType, { tenant: '' }) });
    expect(response.diagnostics.map((diagnostic) => [diagnostic.summary, diagnostic.attribute?.steps])).toEqual([
      ['Empty tenant', [{ attributeName: 'tenant' }]],
    ]);
    const read = await fake.service.readDataSource({ typeName: 'svc_info', config: dynamic(infoType, { name: 'n', value: null }) });
    expect(read.diagnostics[0].detail).toContain('provider not configured');
  });
  test('a hook that needs the context before configure gets "provider not configured"', async () => {
    const fake = makeFake();
    const response = await fake.service.readResource({ typeName: 'svc_thing', currentState: dynamic(thingType, thing({ id: 'x' })), private: NO_PRIVATE });
    expect(summaries(response.diagnostics)).toEqual(['Internal error in the svc provider']);
    expect(response.diagnostics[0].detail).toContain('provider not configured');
    expect(fake.hooks()).toEqual([]);
  });
});

describe('PlanResourceChange', () => {
  test('create: computed attributes null in config are unknown, nested members too', async () => {
    const fake = await configured();
    const config = thing({ entries: [{ ip: '10.0.0.1', created: null }] });
    const response = await plan(fake, null, config);
    expect(response.diagnostics).toEqual([]);
    expect(decoded(thingType, response.plannedState)).toEqual(
      thing({ description: UNKNOWN, id: UNKNOWN, created: UNKNOWN, entries: [{ ip: '10.0.0.1', created: UNKNOWN }] }),
    );
    expect(paths(response)).toEqual([]);
  });
  test('create: a computed attribute set in config stays as configured', async () => {
    const response = await plan(await configured(), null, thing({ description: 'mine' }));
    expect(decoded(thingType, response.plannedState)).toMatchObject({ description: 'mine', id: UNKNOWN });
  });
  test('update: prior computed values are kept and an in-place change needs no replacement', async () => {
    const prior = thing({ description: 'old', id: 'acme/a', created: 1000 });
    const config = thing({ description: 'new' });
    const proposed = { ...prior, description: 'new' };
    const response = await plan(await configured(), prior, config, proposed);
    expect(decoded(thingType, response.plannedState)).toEqual(proposed);
    expect(paths(response)).toEqual([]);
  });
  test('update: a requiresReplace attribute that changed is in requires_replace', async () => {
    const prior = thing({ description: '', id: 'acme/a', created: 1000 });
    const response = await plan(await configured(), prior, thing({ name: 'b' }), { ...prior, name: 'b' });
    expect(paths(response)).toEqual([[{ attributeName: 'name' }]]);
  });
  test('destroy: null planned state and no hook call', async () => {
    const fake = await configured();
    fake.behaviour.plan = async () => {
      throw new Error('plan must not be called for destroy');
    };
    const response = await plan(fake, thing({ id: 'acme/a' }), thing({}), null);
    expect(response.diagnostics).toEqual([]);
    expect(decoded(thingType, response.plannedState)).toBeNull();
    expect(fake.hooks()).toEqual(['configure']);
  });
  test('the plan hook gets the default plan, may adjust it, add replacement paths and diagnostics', async () => {
    const fake = await configured();
    fake.behaviour.plan = async (request) => ({
      planned: { ...request.proposed, description: 'defaulted' },
      requiresReplace: [['entries']],
      diagnostics: [{ severity: 'warning', summary: 'Heads up', detail: 'd' }],
    });
    const prior = thing({ description: 'x', id: 'acme/a', created: 1 });
    const response = await plan(fake, prior, thing({ name: 'b' }), { ...prior, name: 'b' });
    const request = fake.calls[1].request as PlanRequest<Context>;
    expect(request.context).toEqual({ tenant: 'acme' });
    expect(request.prior).toEqual(prior);
    expect(request.proposed).toEqual({ ...prior, name: 'b' });
    expect(decoded(thingType, response.plannedState)).toMatchObject({ description: 'defaulted', name: 'b' });
    expect(paths(response)).toEqual([[{ attributeName: 'name' }], [{ attributeName: 'entries' }]]);
    expect(summaries(response.diagnostics)).toEqual(['Heads up']);
  });
  test('a plan hook returning a value of the wrong shape is an internal error naming the attribute', async () => {
    const fake = await configured();
    fake.behaviour.plan = async (request) => ({ planned: { ...request.proposed, created: 'soon' } });
    const response = await plan(fake, null, thing({}));
    expect(response.plannedState).toBeUndefined();
    expect(response.diagnostics[0].detail).toContain('created: expected number, got string');
  });
});

describe('ApplyResourceChange', () => {
  const planned = thing({ description: UNKNOWN, id: UNKNOWN, created: UNKNOWN, entries: [{ ip: '10.0.0.1', created: UNKNOWN }] });

  test('create: the create hook gets config and plan; the new state is returned', async () => {
    const fake = await configured();
    const response = await apply(fake, null, planned, thing({ entries: [{ ip: '10.0.0.1', created: null }] }));
    expect(response.diagnostics).toEqual([]);
    expect(fake.hooks()).toEqual(['configure', 'create']);
    expect(decoded(thingType, response.newState)).toEqual(
      thing({ description: '', id: 'acme/a', created: 1000, entries: [{ ip: '10.0.0.1', created: 7 }] }),
    );
  });
  test('update: the update hook gets prior and plan', async () => {
    const fake = await configured();
    const prior = thing({ description: 'old', id: 'acme/a', created: 1 });
    const response = await apply(fake, prior, { ...prior, description: 'new' });
    expect(fake.hooks()).toEqual(['configure', 'update']);
    expect((fake.calls[1].request as { prior: ObjectValue }).prior).toEqual(prior);
    expect(decoded(thingType, response.newState)).toEqual({ ...prior, description: 'new' });
  });
  test('delete: the delete hook gets prior; the new state is null', async () => {
    const fake = await configured();
    const prior = thing({ description: '', id: 'acme/a', created: 1 });
    const response = await apply(fake, prior, null, null);
    expect(fake.hooks()).toEqual(['configure', 'delete']);
    expect((fake.calls[1].request as { prior: ObjectValue }).prior).toEqual(prior);
    expect(decoded(thingType, response.newState)).toBeNull();
  });
  test('a state that differs from the plan where the plan was known: an error naming the attribute', async () => {
    const fake = await configured();
    fake.behaviour.create = (plannedValue) => ({ ...plannedValue, name: 'renamed', description: '', id: 'x', created: 1, entries: null });
    const response = await apply(fake, null, thing({ description: UNKNOWN, id: UNKNOWN, created: UNKNOWN }));
    expect(summaries(response.diagnostics)).toEqual(['svc_thing: name after create differs from the plan']);
    expect(response.diagnostics[0].detail).toContain('planned "a", but apply returned "renamed"');
    expect(response.diagnostics[0].attribute).toEqual({ steps: [{ attributeName: 'name' }] });
    // The object exists, so terraform records it as the API returned it.
    expect(decoded(thingType, response.newState)).toMatchObject({ name: 'renamed' });
  });
  test('a sensitive attribute that differs is named without its values', async () => {
    const fake = await configured();
    fake.behaviour.create = (plannedValue) => ({ ...plannedValue, token: 'other-secret', description: '', id: 'x', created: 1, entries: null });
    const response = await apply(fake, null, thing({ token: 'the-secret', description: UNKNOWN, id: UNKNOWN, created: UNKNOWN }));
    expect(response.diagnostics[0].summary).toBe('svc_thing: token after create differs from the plan');
    expect(response.diagnostics[0].detail).not.toMatch(/secret/);
  });
  test('a state with an unknown left in it: an internal error naming the attribute, nothing recorded on create', async () => {
    const fake = await configured();
    fake.behaviour.create = (plannedValue) => ({ ...plannedValue, description: '', id: 'x', created: 1, entries: [{ ip: '10.0.0.1', created: UNKNOWN }] });
    const response = await apply(fake, null, planned);
    expect(summaries(response.diagnostics)).toEqual(['Internal error in the svc provider']);
    expect(response.diagnostics[0].detail).toContain('unknown value for entries[0].created');
    expect(decoded(thingType, response.newState)).toBeNull();
  });
});

describe('hook errors become diagnostics', () => {
  registerSecret('sk-test-0123456789');
  const cases: Array<[name: string, error: unknown, summary: string, detail: RegExp]> = [
    ['DiagnosticsError: its diagnostics', new DiagnosticsError([errorDiagnostic('Entry exists', 'remove it first', ['name'])]), 'Entry exists', /remove it first/],
    ['a domain error: describeError', new FakeApiError('tenant acme has no thing a'), 'Not found in the API', /^update svc_thing: tenant acme has no thing a; check the name$/],
    ['any other error: internal, redacted', new Error('login with sk-test-0123456789 failed'), 'Internal error in the svc provider', /^update svc_thing failed: login with \[REDACTED\] failed\. .*please report it/],
    ['a thrown string', 'boom', 'Internal error in the svc provider', /boom/],
    [
      'DiagnosticsError quoting the key: redacted on the way out',
      new DiagnosticsError([errorDiagnostic('Key sk-test-0123456789 refused', 'the API refused sk-test-0123456789')]),
      'Key [REDACTED] refused',
      /^the API refused \[REDACTED\]$/,
    ],
    ['a thrown null', null, 'Internal error in the svc provider', /^update svc_thing failed: null\. /],
    ['a thrown plain object: its fields shown, redacted', { reason: 'quota', key: 'sk-test-0123456789' }, 'Internal error in the svc provider', /reason: 'quota', key: '\[REDACTED\]'/],
  ];
  test.each(cases)('%s', async (_name, error, summary, detail) => {
    const fake = await configured();
    fake.behaviour.failWith = error;
    const prior = thing({ description: 'old', id: 'acme/a', created: 1 });
    const response = await apply(fake, prior, { ...prior, description: 'new' });
    expect(summaries(response.diagnostics)).toEqual([summary]);
    expect(response.diagnostics[0].detail).toMatch(detail);
    // A failed update keeps the object in state as it was.
    expect(decoded(thingType, response.newState)).toEqual(prior);
    expect(fake.logLines.join('\n')).not.toContain('sk-test-0123456789');
  });
  test('a failed create records nothing; a failed delete keeps the prior state', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new Error('down');
    const created = await apply(fake, null, thing({ description: UNKNOWN, id: UNKNOWN, created: UNKNOWN }));
    expect(decoded(thingType, created.newState)).toBeNull();
    const prior = thing({ description: '', id: 'acme/a', created: 1 });
    const deleted = await apply(fake, prior, null, null);
    expect(decoded(thingType, deleted.newState)).toEqual(prior);
    expect(summaries(deleted.diagnostics)).toEqual(['Internal error in the svc provider']);
  });
  test('an internal error is logged with its stack, redacted', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new Error('token sk-test-0123456789 rejected');
    await fake.service.readResource({ typeName: 'svc_thing', currentState: dynamic(thingType, thing({ id: 'x' })), private: NO_PRIVATE });
    expect(fake.logLines).toHaveLength(1);
    expect(fake.logLines[0]).toMatch(/^\[ERROR\] svc: read svc_thing failed: Error: token \[REDACTED\] rejected/);
  });
});

describe('warnings reported below a hook (reportWarning)', () => {
  test('reach the response of the read that reported them, each read its own, also when it fails', async () => {
    const fake = await configured();
    fake.behaviour.warnOnRead = 'Service data changed';
    const read = (name: string) =>
      fake.service.readResource({ typeName: 'svc_thing', currentState: dynamic(thingType, thing({ name, id: name })), private: NO_PRIVATE });
    const [first, second] = await Promise.all([read('one'), read('two')]);
    expect(first.diagnostics.map((diagnostic) => [diagnostic.severity, diagnostic.detail])).toEqual([[messages.DiagnosticSeverity.Warning, 'read one']]);
    expect(second.diagnostics.map((diagnostic) => diagnostic.detail)).toEqual(['read two']);
    fake.behaviour.failWith = new FakeApiError('gone');
    const failed = await read('three');
    expect(summaries(failed.diagnostics)).toEqual(['Service data changed', 'Not found in the API']);
  });
  test('reach a data source read as warnings, whatever severity was given', async () => {
    const fake = await configured();
    fake.behaviour.warnOnRead = 'Service data changed';
    const response = await fake.service.readDataSource({ typeName: 'svc_info', config: dynamic(infoType, { name: 'n', value: null }) });
    expect(response.diagnostics.map((diagnostic) => [diagnostic.severity, diagnostic.detail])).toEqual([[messages.DiagnosticSeverity.Warning, 'data n']]);
  });
  test('outside any hook, a warning has nowhere to go', () => {
    expect(reportWarning(warningDiagnostic('x', 'y'))).toBe(false);
  });
});

describe('ReadResource', () => {
  test('returns the hook state', async () => {
    const fake = await configured();
    const state = thing({ id: 'acme/a', created: 1, description: '' });
    fake.behaviour.readResult = { ...state, description: 'changed outside terraform' };
    const response = await fake.service.readResource({ typeName: 'svc_thing', currentState: dynamic(thingType, state), private: NO_PRIVATE });
    expect(decoded(thingType, response.newState)).toEqual({ ...state, description: 'changed outside terraform' });
  });
  test('null when the object is gone', async () => {
    const fake = await configured();
    fake.behaviour.readResult = null;
    const response = await fake.service.readResource({ typeName: 'svc_thing', currentState: dynamic(thingType, thing({ id: 'x' })), private: NO_PRIVATE });
    expect(decoded(thingType, response.newState)).toBeNull();
  });
  test('a read error keeps the current state', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new FakeApiError('gone');
    const state = dynamic(thingType, thing({ id: 'x' }));
    const response = await fake.service.readResource({ typeName: 'svc_thing', currentState: state, private: NO_PRIVATE });
    expect(response.newState).toBe(state);
    expect(summaries(response.diagnostics)).toEqual(['Not found in the API']);
  });
});

describe('ImportResourceState', () => {
  test('one imported resource of the same type with the hook state', async () => {
    const fake = await configured();
    const response = await fake.service.importResourceState({ typeName: 'svc_thing', id: 'acme/a' });
    expect(response.diagnostics).toEqual([]);
    expect(response.importedResources).toHaveLength(1);
    expect(response.importedResources[0].typeName).toBe('svc_thing');
    expect(decoded(thingType, response.importedResources[0].state)).toEqual(thing({ description: '', id: 'acme/a', created: 5 }));
    expect((fake.calls[1].request as { id: string }).id).toBe('acme/a');
  });
  test('a resource without import', async () => {
    const response = await (await configured()).service.importResourceState({ typeName: 'svc_plain', id: 'x' });
    expect(response.importedResources).toEqual([]);
    expect(summaries(response.diagnostics)).toEqual(['svc_plain does not support import']);
  });
});

describe('ReadDataSource', () => {
  test('errors become diagnostics and no state', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new DiagnosticsError([errorDiagnostic('No such name', 'd', ['name'])]);
    const response = await fake.service.readDataSource({ typeName: 'svc_info', config: dynamic(infoType, { name: 'n', value: null }) });
    expect(response.state).toBeUndefined();
    expect(summaries(response.diagnostics)).toEqual(['No such name']);
  });
});

describe('UpgradeResourceState', () => {
  test('stored JSON decoded against the current schema: missing attributes null, removed ones dropped', async () => {
    const json = Buffer.from(JSON.stringify({ name: 'a', id: 'acme/a', created: 1, entries: [{ ip: '10.0.0.1' }], retired: true }));
    const response = await makeFake().service.upgradeResourceState({ typeName: 'svc_thing', version: 0, rawState: { json, flatmap: {} } });
    expect(response.diagnostics).toEqual([]);
    expect(decoded(thingType, response.upgradedState)).toEqual(
      thing({ id: 'acme/a', created: 1, entries: [{ ip: '10.0.0.1', created: null }] }),
    );
  });
  test('state from a newer provider: upgrade the provider', async () => {
    const response = await makeFake().service.upgradeResourceState({ typeName: 'svc_thing', version: 2, rawState: { json: Buffer.from('{}'), flatmap: {} } });
    expect(summaries(response.diagnostics)).toEqual(['State written by a newer svc provider']);
    expect(response.diagnostics[0].detail).toMatch(/version 2.*up to 1/);
    expect(response.upgradedState).toBeUndefined();
  });
  test('flatmap state is an error', async () => {
    const response = await makeFake().service.upgradeResourceState({ typeName: 'svc_thing', version: 0, rawState: { json: Buffer.alloc(0), flatmap: { id: 'x' } } });
    expect(summaries(response.diagnostics)).toEqual(['Unsupported state format']);
  });
});

describe('StopProvider and internal faults', () => {
  test('StopProvider closes with the context and replies with an empty error', async () => {
    const fake = await configured();
    expect(await fake.service.stopProvider({})).toEqual({ error: '' });
    expect(fake.calls.at(-1)).toEqual({ hook: 'close', request: { tenant: 'acme' } });
  });
  test('bytes that do not decode throw (the gRPC layer answers INTERNAL)', async () => {
    const fake = await configured();
    await expect(
      fake.service.planResourceChange({
        typeName: 'svc_thing',
        priorState: { msgpack: Buffer.from([0xc0]) },
        proposedNewState: { msgpack: Buffer.from([0x81, 0xa1, 0x78, 0x01]) },
        config: { msgpack: Buffer.from([0xc0]) },
        priorPrivate: NO_PRIVATE,
      }),
    ).rejects.toThrow(/cannot decode PlanResourceChange proposed_new_state: x: attribute is not in the schema/);
  });
  test('duplicate type names in the definition are refused at start', () => {
    const resource: ResourceDefinition<Context> = {
      typeName: 'svc_dup',
      schema: { version: 0, description: '', attributes: {} },
      create: async () => ({}),
      update: async () => ({}),
      delete: async () => undefined,
      read: async () => null,
    };
    expect(() =>
      createProviderService({ schema: providerSchema, configure: async () => ({ tenant: 'x' }), resources: [resource, resource], dataSources: [] }),
    ).toThrow('lists resource svc_dup twice');
  });
});

describe('redaction is injected by whoever builds the service', () => {
  // The wire layer imports no secret registry: these services get a redact function of their own.
  const failing: ResourceDefinition<Context> = {
    typeName: 'svc_failing',
    schema: { version: 0, description: '', attributes: { id: { description: 'ID.', type: types.string, computed: true } } },
    validate: () => {
      throw new DiagnosticsError([errorDiagnostic('Password hunter2 refused', 'the API said hunter2 is wrong', ['id'])]);
    },
    create: async () => ({ id: 'x' }),
    update: async (request) => request.planned,
    delete: async () => undefined,
    read: async (request) => request.state,
  };
  const definition: ProviderDefinition<Context> = { schema: providerSchema, configure: async () => ({ tenant: 't' }), resources: [failing], dataSources: [] };
  const validate = (service: messages.ProviderService) =>
    service.validateResourceConfig({ typeName: 'svc_failing', config: dynamic(impliedType(failing.schema), { id: null }) });

  test('the injected redact is applied to every diagnostic the service sends', async () => {
    const service = createProviderService(definition, { redact: (text) => text.replaceAll('hunter2', '[GONE]') });
    const { diagnostics } = await validate(service);
    expect(diagnostics).toEqual([
      { severity: messages.DiagnosticSeverity.Error, summary: 'Password [GONE] refused', detail: 'the API said [GONE] is wrong', attribute: { steps: [{ attributeName: 'id' }] } },
    ]);
  });

  test('without one the text is sent as it is: nothing is scrubbed behind the builder\'s back', async () => {
    registerSecret('hunter2'); // in the API client's registry, which the wire layer must not consult on its own
    const { diagnostics } = await validate(createProviderService(definition));
    expect(diagnostics[0].summary).toBe('Password hunter2 refused');
  });
});

describe('every request names a type the provider may not have', () => {
  const typeName = 'svc_nope';
  test.each([
    ['ReadResource', (fake: ReturnType<typeof makeFake>) => fake.service.readResource({ typeName, currentState: dynamic(thingType, thing({})), private: NO_PRIVATE })],
    ['PlanResourceChange', (fake: ReturnType<typeof makeFake>) => fake.service.planResourceChange({ typeName, priorState: dynamic(thingType, null), proposedNewState: dynamic(thingType, thing({})), config: dynamic(thingType, thing({})), priorPrivate: NO_PRIVATE })],
    ['ApplyResourceChange', (fake: ReturnType<typeof makeFake>) => fake.service.applyResourceChange({ typeName, priorState: dynamic(thingType, null), plannedState: dynamic(thingType, thing({})), config: dynamic(thingType, thing({})), plannedPrivate: NO_PRIVATE })],
    ['ImportResourceState', (fake: ReturnType<typeof makeFake>) => fake.service.importResourceState({ typeName, id: 'x' })],
    ['UpgradeResourceState', (fake: ReturnType<typeof makeFake>) => fake.service.upgradeResourceState({ typeName, version: 0, rawState: { json: Buffer.from('{}'), flatmap: {} } })],
    ['ReadDataSource', (fake: ReturnType<typeof makeFake>) => fake.service.readDataSource({ typeName, config: dynamic(infoType, { name: 'n', value: null }) })],
  ])('%s: an error diagnostic naming the types there are, and no hook runs', async (_name, call) => {
    const fake = await configured();
    const response = await call(fake);
    expect(response.diagnostics).toHaveLength(1);
    expect(response.diagnostics[0]!.summary).toMatch(/^Unknown (resource|data source) type svc_nope$/);
    expect(response.diagnostics[0]!.detail).toMatch(/it has: svc_(info|plain, svc_thing)\./);
    expect(fake.hooks()).toEqual(['configure']);
  });
});

describe('requests before ConfigureProvider, and the rarer request shapes', () => {
  test('apply, import and a plan hook before configure: "provider not configured", no hook runs, the prior state kept', async () => {
    const fake = makeFake();
    const prior = thing({ id: 'acme/a', created: 1, description: '' });
    const applied = await apply(fake, prior, { ...prior, description: 'new' });
    expect(applied.diagnostics[0]!.detail).toContain('provider not configured: terraform asked to update svc_thing');
    expect(decoded(thingType, applied.newState)).toEqual(prior);
    const imported = await fake.service.importResourceState({ typeName: 'svc_thing', id: 'acme/a' });
    expect(imported).toMatchObject({ importedResources: [] });
    expect(imported.diagnostics[0]!.detail).toContain('asked to import svc_thing');
    fake.behaviour.plan = async (request) => ({ planned: request.proposed });
    const planned = await plan(fake, null, thing({}));
    expect(planned.diagnostics[0]!.detail).toContain('asked to plan svc_thing');
    expect(fake.hooks()).toEqual([]);
  });

  test('ReadResource of a null state answers null without a hook; a data source without a validate hook validates clean', async () => {
    const fake = await configured();
    const gone = dynamic(thingType, null);
    expect(await fake.service.readResource({ typeName: 'svc_thing', currentState: gone, private: NO_PRIVATE })).toEqual({ newState: gone, private: NO_PRIVATE, diagnostics: [] });
    expect(await fake.service.validateDataResourceConfig({ typeName: 'svc_info', config: dynamic(infoType, { name: 'n', value: null }) })).toEqual({ diagnostics: [] });
    expect(fake.hooks()).toEqual(['configure']);
  });

  test('UpgradeResourceState without any stored state gives null', async () => {
    const response = await makeFake().service.upgradeResourceState({ typeName: 'svc_thing', version: 1 });
    expect(response.diagnostics).toEqual([]);
    expect(decoded(thingType, response.upgradedState)).toBeNull();
  });

  test('apply of a destroy whose object is already gone: null, no hook', async () => {
    const fake = await configured();
    const response = await apply(fake, null, null);
    expect(decoded(thingType, response.newState)).toBeNull();
    expect(fake.hooks()).toEqual(['configure']);
  });

  test('apply without config (terraform sends none on some replacements): the hook gets the plan as its config', async () => {
    const fake = await configured();
    const planned = thing({ name: 'a', id: UNKNOWN, created: UNKNOWN, description: UNKNOWN });
    const response = await apply(fake, null, planned, null);
    expect(response.diagnostics).toEqual([]);
    expect((fake.calls[1]!.request as { config: ObjectValue }).config).toEqual(planned);
  });

  test('a config that is null or not an object is an internal fault naming the field', async () => {
    const fake = makeFake();
    await expect(fake.service.validateProviderConfig({ config: dynamic(providerType, null) })).rejects.toThrow('ValidateProviderConfig config must be an object, got null');
    await expect(fake.service.validateResourceConfig({ typeName: 'svc_thing', config: dynamic(thingType, UNKNOWN) })).rejects.toThrow('ValidateResourceConfig config must be an object or null, got an unknown or non-object value');
  });

  test('hooks that return values that do not fit the schema: internal errors naming the attribute, nothing recorded', async () => {
    const fake = await configured();
    fake.behaviour.readResult = thing({ id: 'x', created: 'not a number' as unknown as Value });
    const state = dynamic(thingType, thing({ id: 'x' }));
    const read = await fake.service.readResource({ typeName: 'svc_thing', currentState: state, private: NO_PRIVATE });
    expect(read.newState).toBe(state);
    expect(read.diagnostics[0]!.detail).toMatch(/^read svc_thing returned a value that does not fit the schema at created: /);
  });

  test('import: a failing hook and a hook returning a bad value import nothing', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new FakeApiError('no thing acme/zz');
    const failed = await fake.service.importResourceState({ typeName: 'svc_thing', id: 'acme/zz' });
    expect(failed.importedResources).toEqual([]);
    expect(summaries(failed.diagnostics)).toEqual(['Not found in the API']);
    fake.behaviour.failWith = undefined;
    const bad = await fake.service.importResourceState({ typeName: 'svc_thing', id: 'no-slash' });
    // The fake splits the id at "/": without one the name is missing, which the schema requires to be text.
    expect(bad.importedResources).toEqual([]);
    expect(bad.diagnostics[0]!.detail).toMatch(/^import svc_thing returned a value that does not fit the schema at name: /);
  });
});

describe('an update that fails part-way (PartialApplyError)', () => {
  const prior = thing({ id: 'acme/a', created: 1, description: 'old' });
  const planned = { ...prior, description: 'new' };

  test('records the state it left, with the cause as the diagnostic', async () => {
    const fake = await configured();
    const left = { ...prior, description: 'half' };
    fake.behaviour.failWith = new PartialApplyError(new FakeApiError('second call failed'), left);
    const response = await apply(fake, prior, planned);
    expect(decoded(thingType, response.newState)).toEqual(left);
    expect(summaries(response.diagnostics)).toEqual(['Not found in the API']);
  });

  test('a left state that does not fit the schema keeps the prior state and says so', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new PartialApplyError(new Error('second call failed'), { ...prior, created: UNKNOWN });
    const response = await apply(fake, prior, planned);
    expect(decoded(thingType, response.newState)).toEqual(prior);
    expect(response.diagnostics.map((diagnostic) => diagnostic.detail)).toEqual([expect.stringContaining('second call failed'), 'update svc_thing returned an unknown value for created; state must be wholly known. This is a bug in the svc provider; please report it (with the TF_LOG=debug output if you can).']);
  });

  test('on a create it is a plain failure: nothing recorded', async () => {
    const fake = await configured();
    fake.behaviour.failWith = new PartialApplyError(new Error('boom'), prior);
    const response = await apply(fake, null, thing({ name: 'a', id: UNKNOWN, created: UNKNOWN, description: UNKNOWN }));
    expect(decoded(thingType, response.newState)).toBeNull();
  });
});

describe('the service binding: a plan is applied only against the service it read', () => {
  interface Bound {
    readonly url: string;
  }
  const boundSchema: Schema = { version: 0, description: 'Bound.', attributes: { id: { description: 'ID.', type: types.string, optional: true } } };
  const boundType = impliedType(boundSchema);
  const bindingSchema: Schema = { version: 0, description: 'P.', attributes: { url: { description: 'URL.', type: types.string, optional: true } } };
  const bindingType = impliedType(bindingSchema);

  async function serviceFor(url: string | null) {
    const hooks: string[] = [];
    const resource: ResourceDefinition<Bound> = {
      typeName: 'svc_bound',
      schema: boundSchema,
      create: async (request) => (hooks.push('create'), request.planned),
      update: async (request) => (hooks.push('update'), request.planned),
      delete: async () => void hooks.push('delete'),
      read: async (request) => (hooks.push('read'), request.state),
    };
    const service = createProviderService<Bound>({
      schema: bindingSchema,
      configure: async (request) => ({ url: String(request.config.url) }),
      resources: [resource],
      dataSources: [],
      serviceBinding: (context) => (context.url === 'unknown' ? undefined : { base_url: context.url }),
      bindingMismatch: (context, recorded) =>
        recorded.base_url === context.url ? undefined : errorDiagnostic('Plan made against another svc service', `recorded ${String(recorded.base_url)}, now ${context.url}`),
    });
    await service.configureProvider({ terraformVersion: '1.11.4', config: dynamic(bindingType, { url }) });
    return { service, hooks };
  }
  const object = dynamic(boundType, { id: 'x' });
  const planWith = (service: messages.ProviderService, priorPrivate: Buffer) =>
    service.planResourceChange({ typeName: 'svc_bound', priorState: object, proposedNewState: object, config: object, priorPrivate });
  const applyWith = (service: messages.ProviderService, plannedPrivate: Buffer) =>
    service.applyResourceChange({ typeName: 'svc_bound', priorState: object, plannedState: dynamic(boundType, { id: 'y' }), config: dynamic(boundType, { id: 'y' }), plannedPrivate });

  test('refresh records the service; a plan from it on the same service carries it on; a destroy plan too', async () => {
    const { service } = await serviceFor('https://a.example');
    const read = await service.readResource({ typeName: 'svc_bound', currentState: object, private: NO_PRIVATE });
    expect(JSON.parse(read.private!.toString())).toEqual({ service: { base_url: 'https://a.example' } });
    const planned = await planWith(service, read.private!);
    expect(planned.diagnostics).toEqual([]);
    expect(JSON.parse(planned.plannedPrivate!.toString())).toEqual({ service: { base_url: 'https://a.example' } });
    const destroy = await service.planResourceChange({ typeName: 'svc_bound', priorState: object, proposedNewState: dynamic(boundType, null), config: dynamic(boundType, null), priorPrivate: read.private! });
    expect(JSON.parse(destroy.plannedPrivate!.toString())).toEqual({ service: { base_url: 'https://a.example' } });
  });

  test('a plan read on another service is refused before any call, and so is every later change of that process', async () => {
    const recorded = Buffer.from(JSON.stringify({ service: { base_url: 'https://a.example' } }));
    const { service, hooks } = await serviceFor('https://b.example');
    const applied = await applyWith(service, recorded);
    expect(summaries(applied.diagnostics)).toEqual(['Plan made against another svc service']);
    expect(decoded(boundType, applied.newState)).toEqual({ id: 'x' });
    // Once refused, a change without a recorded binding is refused as well.
    expect(summaries((await applyWith(service, NO_PRIVATE)).diagnostics)).toEqual(['Plan made against another svc service']);
    expect(summaries((await planWith(service, NO_PRIVATE)).diagnostics)).toEqual(['Plan made against another svc service']);
    expect(hooks).toEqual([]);
  });

  test.each([
    ['bytes that are not JSON', Buffer.from('\u0000not json')],
    ['JSON that is not an object', Buffer.from('[1,2]')],
    ['a binding that is not an object', Buffer.from(JSON.stringify({ service: 'https://a.example' }))],
    ['a binding with a value that is not text', Buffer.from(JSON.stringify({ service: { base_url: 7 } }))],
  ])('private data with %s records no binding: nothing refused', async (_name, bytes) => {
    const { service, hooks } = await serviceFor('https://b.example');
    expect((await applyWith(service, bytes)).diagnostics).toEqual([]);
    expect(hooks).toEqual(['update']);
  });

  test('settings not known yet bind nothing: private data stays empty', async () => {
    const { service } = await serviceFor('unknown');
    const read = await service.readResource({ typeName: 'svc_bound', currentState: object, private: NO_PRIVATE });
    expect(read.private).toEqual(Buffer.alloc(0));
  });
});

describe('StopProvider and CallFunction without the optional parts', () => {
  const minimal = (close?: () => Promise<void>) =>
    createProviderService({ schema: providerSchema, configure: async () => ({ tenant: 'x' }), resources: [], dataSources: [], ...(close === undefined ? {} : { close }) }, { redact: (text) => text.replace(/hunter2/g, '***') });

  test('no close hook: an empty error; a failing one: its text, redacted', async () => {
    expect(await minimal().stopProvider({})).toEqual({ error: '' });
    const failing = minimal(async () => {
      throw new DiagnosticsError([errorDiagnostic('Logout failed', 'the token hunter2 was refused')]);
    });
    expect(await failing.stopProvider({})).toEqual({ error: 'Logout failed: the token *** was refused' });
  });

  test('a provider with no functions says so when one is called', async () => {
    const response = await minimal().callFunction({ name: 'parse', arguments: [] });
    expect(response.error?.text).toBe('the svc provider has no function "parse"; it has: (none). Check the spelling, or upgrade the provider if the function is newer.');
  });
});

describe('the service binding (ProviderDefinition.serviceBinding, bindingMismatch)', () => {
  const plainType = impliedType({ version: 0, description: 'Plain.', attributes: { id: { description: 'ID.', type: types.string, computed: true } } });

  /** A provider bound to the configured tenant, counting its binding calls. */
  function boundFake() {
    const counts = { binding: 0, mismatch: 0 };
    const definition: ProviderDefinition<Context> = {
      schema: providerSchema,
      configure: async (request) => ({ tenant: String(request.config.tenant) }),
      resources: [
        {
          typeName: 'svc_plain',
          schema: { version: 0, description: 'Plain.', attributes: { id: { description: 'ID.', type: types.string, computed: true } } },
          create: async () => ({ id: 'p' }),
          update: async (request) => request.planned,
          delete: async () => undefined,
          read: async (request) => request.state,
          plan: async (request) => ({ planned: request.proposed }),
        },
      ],
      dataSources: [],
      serviceBinding(context) {
        counts.binding += 1;
        return { tenant: `fingerprint of ${context.tenant}` };
      },
      bindingMismatch(context, recorded) {
        counts.mismatch += 1;
        return recorded.tenant === `fingerprint of ${context.tenant}` ? undefined : errorDiagnostic('Plan made against another svc service', `tenant is now ${context.tenant}`);
      },
    };
    const service = createProviderService(definition);
    return { service, counts };
  }
  const read = (service: messages.ProviderService) =>
    service.readResource({ typeName: 'svc_plain', currentState: dynamic(plainType, { id: 'p' }), private: NO_PRIVATE });
  const planWith = (service: messages.ProviderService, priorPrivate: Buffer) =>
    service.planResourceChange({
      typeName: 'svc_plain',
      priorState: dynamic(plainType, { id: 'p' }),
      proposedNewState: dynamic(plainType, { id: 'p' }),
      config: dynamic(plainType, { id: null }),
      priorPrivate,
    });
  const configure = async (service: messages.ProviderService, tenant: string) =>
    expect((await service.configureProvider({ terraformVersion: '1.11.4', config: dynamic(providerType, { tenant }) })).diagnostics).toEqual([]);

  test('every refresh and plan records the same binding, made once per process; the same recorded bytes are compared once', async () => {
    const { service, counts } = boundFake();
    await configure(service, 'acme');
    const reads = await Promise.all([read(service), read(service), read(service)]);
    const recorded = reads.map((response) => JSON.parse(Buffer.from(response.private!).toString('utf8')));
    expect(recorded).toEqual(Array(3).fill({ service: { tenant: 'fingerprint of acme' } }));
    const first = Buffer.from(reads[0].private!);
    const plans = [await planWith(service, first), await planWith(service, Buffer.from(first)), await planWith(service, Buffer.from(first))];
    for (const planned of plans) {
      expect(planned.diagnostics).toEqual([]);
      expect(JSON.parse(Buffer.from(planned.plannedPrivate!).toString('utf8'))).toEqual({ service: { tenant: 'fingerprint of acme' } });
    }
    expect(counts).toEqual({ binding: 1, mismatch: 1 });
  });

  test('bytes recorded against another service are refused, also after the same process accepted its own', async () => {
    const { service } = boundFake();
    await configure(service, 'acme');
    const own = Buffer.from((await read(service)).private!);
    expect((await planWith(service, own)).diagnostics).toEqual([]);
    const foreign = Buffer.from(JSON.stringify({ service: { tenant: 'fingerprint of globex' } }));
    expect(summaries((await planWith(service, foreign)).diagnostics)).toEqual(['Plan made against another svc service']);
    // Once refused, every later change of this process is refused too, its own bytes included.
    expect(summaries((await planWith(service, own)).diagnostics)).toEqual(['Plan made against another svc service']);
  });
});
