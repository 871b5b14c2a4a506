/**
 * 500 entries applied by the real terraform through an emulator that faults 20% of API requests
 * (429, 500, 503, a reset before the command, and a reset after it landed) and adds latency:
 * once as 500 per-entry resources spread over the three lists, once as one svc_blacklist of
 * 500. Apply succeeds, the API equals the configuration (nothing lost, nothing twice), the
 * state equals the API, and a following plan, under the same faults, is empty; the per-entry
 * resources are then destroyed under the same faults, leaving nothing.
 *
 * Retries: at 20% a call fails six attempts in a row (the client's default) with p = 0.2^6 =
 * 6.4e-5; over ~1,100 calls that is a failed apply in ~7% of runs. max_retries = 10 brings it
 * to ~2e-5 per run. The figures printed count every fault and retry.
 */
import type { ListEntry, ListName } from '../../src/api/types';
import type { FaultSettings } from '../../src/emulator/server';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import { byIp, faultsInjected, printFigures, providerRetries, useFaultHarness, type FaultEmulator } from './support';

jest.setTimeout(120_000);

const harness = useFaultHarness();
const TENANT = 'faults';
const ENTRY_COUNT = 500;
const LISTS: readonly ListName[] = ['blacklist', 'blocklist', 'whitelist'];
const FAULTS: FaultSettings = { rate: 0.2, kinds: ['429', '500', '503', 'reset', 'reset-after'], latencyMs: 3, retryAfterSeconds: 0, seed: 7 };
/**
 * The whole-list scenario makes ~23 requests one after another, so a seed fixes which are
 * faulted: seed 3 faults one of each kind, a bulk call among them. Should a change of request
 * order move them elsewhere (the bulk_retries assertion fails), pick another seed by the
 * figures line.
 */
const WHOLE_LIST_FAULTS: FaultSettings = { ...FAULTS, seed: 5 };

/** A distinct address per index: IPv4 hosts, IPv4 ranges and IPv6 addresses, canonical spellings. */
function addressOf(index: number): string {
  if (index % 10 === 3) return `10.${100 + Math.floor(index / 250)}.${index % 250}.0/24`;
  if (index % 10 === 7) return `2001:db8:${index.toString(16)}::1`;
  // 198.18.0.0/15 is set aside for benchmarks.
  return `198.${18 + Math.floor(index / 250)}.0.${(index % 250) + 1}`;
}

/** The configured entries of each list: index i goes to list i % 3. */
function configuredEntries(count: number): Record<ListName, Record<string, string>> {
  const lists: Record<ListName, Record<string, string>> = { blacklist: {}, blocklist: {}, whitelist: {} };
  for (let index = 0; index < count; index += 1) lists[LISTS[index % 3]][addressOf(index)] = `fault test entry ${index}`;
  return lists;
}

function hclMap(entries: Readonly<Record<string, string>>): string {
  return ['{', ...Object.entries(entries).map(([ip, description]) => `    ${hclString(ip)} = ${hclString(description)}`), '  }'].join('\n');
}

function configuration(emulator: FaultEmulator, body: string): string {
  return providerBlock({ baseUrl: emulator.url, tenant: TENANT, extra: { max_retries: '10' } }) + body;
}

async function apiState(emulator: FaultEmulator): Promise<Record<ListName, ListEntry[]>> {
  const state = {} as Record<ListName, ListEntry[]>;
  for (const list of LISTS) state[list] = await emulator.entries(TENANT, list);
  return state;
}

/** Entries the configuration declares that the API lacks or holds with another description, and API entries it does not declare. */
function differences(expected: Readonly<Record<string, string>>, actual: readonly ListEntry[]): { lost: number; extra: number; duplicated: number } {
  const listed = byIp(actual);
  const lost = Object.entries(expected).filter(([ip, description]) => listed[ip] !== description).length;
  const extra = Object.keys(listed).filter((ip) => !(ip in expected)).length;
  return { lost, extra, duplicated: actual.length - Object.keys(listed).length };
}

test(`${ENTRY_COUNT} per-entry resources over the three lists, 20% faults`, async () => {
  const emulator = await harness().startEmulator({ tenants: [TENANT] });
  const workspace = harness().createWorkspace('per-entry', emulator.apiKey);
  const expected = configuredEntries(ENTRY_COUNT);
  workspace.write(
    configuration(
      emulator,
      LISTS.map((list) =>
        [
          `locals {\n  ${list} = ${hclMap(expected[list])}\n}`,
          `resource "svc_${list}_entry" "e" {`,
          `  for_each    = local.${list}`,
          '  ip          = each.key',
          '  description = each.value',
          '}',
          '',
        ].join('\n'),
      ).join('\n'),
    ),
  );
  await workspace.init();
  emulator.emulator.setFaults(FAULTS);
  emulator.emulator.resetStats();

  const apply = await workspace.apply(['-parallelism=10']);
  const plan = await workspace.planExpecting(0);
  const stats = emulator.emulator.stats();
  emulator.emulator.setFaults(undefined);

  const api = await apiState(emulator);
  const found = LISTS.map((list) => differences(expected[list], api[list]));
  const lost = found.reduce((sum, each) => sum + each.lost, 0);
  printFigures('per-entry apply + plan', {
    entries: ENTRY_COUNT,
    requests: stats.requests,
    faults: faultsInjected(stats),
    ...Object.fromEntries(Object.entries(stats.faults).map(([kind, count]) => [`faults.${kind}`, count])),
    retries: providerRetries(apply.providerLog) + providerRetries(plan.providerLog),
    logins: stats.logins,
    lost,
    extra: found.reduce((sum, each) => sum + each.extra, 0),
    duplicated: found.reduce((sum, each) => sum + each.duplicated, 0),
  });
  expect(found).toEqual(LISTS.map(() => ({ lost: 0, extra: 0, duplicated: 0 })));
  // The faults were real: every kind happened, and the provider retried at least once per fault it met.
  for (const kind of FAULTS.kinds ?? []) expect(stats.faults[kind]).toBeGreaterThan(0);
  expect(providerRetries(apply.providerLog)).toBeGreaterThan(0);

  // The state holds one instance per configured entry, each as the API lists it.
  const state = workspace.stateJson();
  for (const list of LISTS) {
    const resource = state.resources.find((candidate) => candidate.type === `svc_${list}_entry`);
    const instances = (resource?.instances ?? []) as ReadonlyArray<{ index_key?: string; attributes: Record<string, unknown> }>;
    const listed = new Map(api[list].map((entry) => [entry.ip, entry]));
    const mismatches = instances.filter((instance) => {
      const onApi = listed.get(String(instance.attributes.ip));
      return (
        onApi === undefined ||
        instance.index_key !== instance.attributes.ip ||
        instance.attributes.description !== onApi.description ||
        instance.attributes.created !== onApi.created ||
        (list === 'blocklist' && instance.attributes.expires !== onApi.expires)
      );
    });
    expect({ list, instances: instances.length, mismatches: mismatches.map((instance) => instance.index_key) }).toEqual({
      list,
      instances: Object.keys(expected[list]).length,
      mismatches: [],
    });
  }

  // Destroy under the same faults: a delete whose reply was lost is sent again and finds the
  // entry gone, which counts as deleted.
  emulator.emulator.setFaults(FAULTS);
  emulator.emulator.resetStats();
  const destroy = await workspace.destroy(['-parallelism=10']);
  const destroyStats = emulator.emulator.stats();
  emulator.emulator.setFaults(undefined);
  const left = (await apiState(emulator)) as Record<ListName, ListEntry[]>;
  printFigures('per-entry destroy', {
    entries: ENTRY_COUNT,
    requests: destroyStats.requests,
    faults: faultsInjected(destroyStats),
    'faults.reset-after': destroyStats.faults['reset-after'] ?? 0,
    retries: providerRetries(destroy.providerLog),
    left_on_api: LISTS.reduce((sum, list) => sum + left[list].length, 0),
  });
  expect(LISTS.map((list) => left[list].length)).toEqual([0, 0, 0]);
  expect(workspace.stateJson().resources).toEqual([]);
  expect(destroyStats.faults['reset-after']).toBeGreaterThan(0);
});

test(`one svc_blacklist of ${ENTRY_COUNT} entries created, then half replaced, 20% faults`, async () => {
  const emulator = await harness().startEmulator({ tenants: [TENANT] });
  const workspace = harness().createWorkspace('whole-list', emulator.apiKey);
  const write = (entries: Record<string, string>) =>
    workspace.write(configuration(emulator, `resource "svc_blacklist" "all" {\n  entries = ${hclMap(entries)}\n}\n`));
  const created: Record<string, string> = {};
  for (let index = 0; index < ENTRY_COUNT; index += 1) created[addressOf(index)] = `whole-list entry ${index}`;
  // The update keeps the first half (a fifth of it with new descriptions), drops the second half and adds as many new ones.
  const updated: Record<string, string> = {};
  for (let index = 0; index < ENTRY_COUNT / 2; index += 1) updated[addressOf(index)] = index % 5 === 0 ? `changed ${index}` : `whole-list entry ${index}`;
  for (let index = ENTRY_COUNT; index < ENTRY_COUNT * 1.5; index += 1) updated[addressOf(index)] = `added ${index}`;

  write(created);
  await workspace.init();
  // Few calls (login, list, bulk add, bulk delete), one after another: with a seed the same
  // requests are faulted in every run.
  emulator.emulator.setFaults(WHOLE_LIST_FAULTS);
  emulator.emulator.resetStats();
  const logs: string[] = [];
  const figures: Array<Record<string, number>> = [];
  for (const [step, entries] of [
    ['create', created],
    ['update', updated],
  ] as const) {
    write(entries);
    const apply = await workspace.apply();
    const plan = await workspace.planExpecting(0);
    logs.push(apply.providerLog, plan.providerLog);
    const listed = await emulator.entries(TENANT, 'blacklist');
    const found = differences(entries, listed);
    figures.push(found);
    expect({ step, ...found }).toEqual({ step, lost: 0, extra: 0, duplicated: 0 });
    expect(workspace.stateAttributes('svc_blacklist.all').entries).toEqual(byIp(listed));
  }
  const stats = emulator.emulator.stats();
  emulator.emulator.setFaults(undefined);
  const log = logs.join('\n');
  const bulkRetries = (log.match(/ retry command=bulk_(new|delete)_blacklist /g) ?? []).length;
  printFigures('whole-list create + update, each with a plan', {
    entries: ENTRY_COUNT,
    requests: stats.requests,
    faults: faultsInjected(stats),
    ...Object.fromEntries(Object.entries(stats.faults).map(([kind, count]) => [`faults.${kind}`, count])),
    retries: providerRetries(log),
    bulk_retries: bulkRetries,
    logins: stats.logins,
    lost: figures.reduce((sum, each) => sum + each.lost, 0),
    duplicated: figures.reduce((sum, each) => sum + each.duplicated, 0),
  });
  expect(faultsInjected(stats)).toBeGreaterThan(0);
  expect(bulkRetries).toBeGreaterThan(0);
});
