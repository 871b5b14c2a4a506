/**
 * The protocol floor under the real terraform, made into an executable as `npm run bench`
 * makes it (buildFloorProvider), beside svc's build and the emulator in one configuration:
 * floor_wide_entry, the bench's floor with svc's attributes, must give terraform the same work
 * as svc_blacklist_entry for the same configuration (same schema, same planned values and
 * unknowns, same actions, same state but for `created`, which svc takes from the service), or
 * the bench's "the floor with svc's attributes" rows would measure something else. floor_entry
 * plans and reads back its two attributes as given.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchEntries, floorProviderBlock, floorResources, wideFloorResources } from '../../scripts/bench/configurations';
import { buildFloorProvider } from '../../scripts/bench/floor-provider/build';
import { FLOOR_PROVIDER_SOURCE, FLOOR_WIDE_CREATED, FLOOR_WIDE_DEFAULT_TENANT } from '../../scripts/bench/floor-provider/provider';
import { mirrorsCliConfig } from '../../scripts/bench/plan-providers';
import { DEFAULT_CACHE_DIR, fetchNode } from '../../scripts/release/build';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import type { JsonPlan } from '../../src/pipeline/plan-changes';
import { currentPlatform, PROVIDER_SOURCE } from '../../src/provider-identity';
import { track } from '../support/child-processes';

jest.setTimeout(180_000);

/** svc's provider tenant is the floor's default tenant, so both sides plan the same ids. */
const TENANT = FLOOR_WIDE_DEFAULT_TENANT;
const OTHER_TENANT = 'bench-other';
const entries = benchEntries(4);

let scratch: string;
let svc: TestProviderBuild;
let emulator: AcceptanceEmulator;
let workspace: Workspace;

/** svc_blacklist_entry and floor_wide_entry for each entry; `edit` changes both alike. */
function pairs(edit: (index: number) => { ip?: string; description?: string | null; tenant?: string } = () => ({})): string {
  return entries
    .map((entry, index) => {
      const { ip = entry.ip, description = entry.description, tenant } = edit(index);
      const body = [`  ip = ${hclString(ip)}`, ...(description === null ? [] : [`  description = ${hclString(description)}`]), ...(tenant === undefined ? [] : [`  tenant = ${hclString(tenant)}`])];
      return [`resource "svc_blacklist_entry" "${entry.name}" {`, ...body, '}', `resource "floor_wide_entry" "${entry.name}" {`, ...body, '}', ''].join('\n');
    })
    .join('\n');
}

/** Both providers in one module (which allows one required_providers): svc's block for the emulator, with the floor's source added. */
function configuration(resources: string): string {
  const floorSource = /^ {4}floor = .*$/m.exec(floorProviderBlock())?.[0];
  if (floorSource === undefined) throw new Error(`no floor source in ${floorProviderBlock()}`);
  const svcBlock = providerBlock({ baseUrl: emulator.url, tenant: TENANT });
  return svcBlock.replace(/^ {2}required_providers \{\n/m, (opening) => `${opening}${floorSource}\n`) + resources;
}

interface PlannedChange {
  readonly actions: readonly string[];
  readonly after: Record<string, unknown>;
  readonly afterUnknown: Record<string, unknown>;
}

function changesOf(plan: JsonPlan | undefined): Map<string, PlannedChange> {
  if (plan === undefined) throw new Error('terraform saved no plan');
  return new Map(
    (plan.resource_changes ?? []).map((change) => [
      change.address,
      { actions: change.change.actions, after: (change.change.after ?? {}) as Record<string, unknown>, afterUnknown: (change.change.after_unknown ?? {}) as Record<string, unknown> },
    ]),
  );
}

function withoutCreated(values: Record<string, unknown>): Record<string, unknown> {
  const { created: _created, ...rest } = values;
  return rest;
}

/** Each entry's svc and floor changes, side by side. */
function pairedChanges(plan: JsonPlan | undefined): Array<{ name: string; svc: PlannedChange; floor: PlannedChange }> {
  const changes = changesOf(plan);
  return entries.map(({ name }) => {
    const svcChange = changes.get(`svc_blacklist_entry.${name}`);
    const floorChange = changes.get(`floor_wide_entry.${name}`);
    if (svcChange === undefined || floorChange === undefined) throw new Error(`the plan has no change for ${name}: ${[...changes.keys()].join(', ')}`);
    return { name, svc: svcChange, floor: floorChange };
  });
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-floor-provider-test-'));
  const floorWork = path.join(scratch, 'floor');
  fs.mkdirSync(floorWork);
  // The release's pinned Node, from where npm run release keeps it, as the bench builds the floor.
  const floor = buildFloorProvider(fetchNode(process.arch as 'x64' | 'arm64', DEFAULT_CACHE_DIR), floorWork, currentPlatform());
  svc = buildTestProvider();
  emulator = await startAcceptanceEmulator({ tenants: [TENANT, OTHER_TENANT] });
  const cliConfigFile = path.join(scratch, 'terraform.rc');
  fs.writeFileSync(
    cliConfigFile,
    mirrorsCliConfig([
      { path: svc.mirrorDir, include: PROVIDER_SOURCE },
      { path: floor.mirrorDir, include: FLOOR_PROVIDER_SOURCE },
    ]),
  );
  workspace = new Workspace({ dir: path.join(scratch, 'workspace'), cliConfigFile, trackChild: track, env: { SVC_API_KEY: emulator.apiKey } });
});

afterAll(async () => {
  workspace?.killRunning();
  await emulator?.stop();
  svc?.remove();
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

describe("the protocol floor under terraform: floor_wide_entry does svc_blacklist_entry's terraform work", () => {
  test('terraform sees the same attributes, types and flags in both schemas', async () => {
    workspace.write(configuration(pairs()));
    await workspace.init();
    const result = await workspace.terraformExpecting(['providers', 'schema', '-json']);
    const schemas = JSON.parse(result.stdout) as { provider_schemas: Record<string, { resource_schemas: Record<string, { block: { attributes: Record<string, Record<string, unknown>> } }> }> };
    const attributes = (source: string, type: string) =>
      Object.fromEntries(
        Object.entries(schemas.provider_schemas[source].resource_schemas[type].block.attributes).map(([name, { type: valueType, required, optional, computed, sensitive }]) => [
          name,
          { valueType, required, optional, computed, sensitive },
        ]),
      );
    const wide = attributes(FLOOR_PROVIDER_SOURCE, 'floor_wide_entry');
    expect(Object.keys(wide).sort()).toEqual(['created', 'description', 'id', 'ip', 'tenant']);
    expect(wide).toEqual(attributes(PROVIDER_SOURCE, 'svc_blacklist_entry'));
  });

  test('a create plans the same values and unknowns on both sides (description "" when unset, id known, created unknown)', async () => {
    // One entry without a description and one with a tenant of its own.
    workspace.write(configuration(pairs((index) => (index === 1 ? { description: null } : index === 2 ? { tenant: OTHER_TENANT } : {}))));
    const outcome = await workspace.planExpecting(2);
    for (const { name, svc: svcChange, floor } of pairedChanges(outcome.plan)) {
      expect({ name, ...floor }).toEqual({ name, ...svcChange });
      expect(floor.actions).toEqual(['create']);
      expect(floor.afterUnknown).toEqual({ created: true });
    }
    const [, unset, ownTenant] = pairedChanges(outcome.plan);
    expect(unset.floor.after.description).toBe('');
    expect(ownTenant.floor.after.id).toBe(`${OTHER_TENANT}/${entries[2].ip}`);
  });

  test('after the apply both hold the same state but for created, and a refresh plan finds no changes on either', async () => {
    await workspace.apply();
    for (const entry of entries) {
      const svcState = workspace.stateAttributes(`svc_blacklist_entry.${entry.name}`);
      const floorState = workspace.stateAttributes(`floor_wide_entry.${entry.name}`);
      expect(withoutCreated(floorState)).toEqual(withoutCreated(svcState));
      expect(typeof svcState.created).toBe('number');
      expect(floorState.created).toBe(FLOOR_WIDE_CREATED);
    }
    await workspace.planExpecting(0);
  });

  test('an update in place and replacements (another ip, another tenant) plan alike, created kept only in place', async () => {
    workspace.write(
      configuration(
        pairs((index) => {
          if (index === 0) return { description: 'changed' };
          if (index === 1) return { description: null, ip: '10.200.0.1' };
          if (index === 2) return { tenant: TENANT };
          return {};
        }),
      ),
    );
    const outcome = await workspace.planExpecting(2);
    const changes = pairedChanges(outcome.plan);
    for (const { name, svc: svcChange, floor } of changes) {
      expect({ name, actions: floor.actions, after: withoutCreated(floor.after), afterUnknown: floor.afterUnknown }).toEqual({
        name,
        actions: svcChange.actions,
        after: withoutCreated(svcChange.after),
        afterUnknown: svcChange.afterUnknown,
      });
    }
    expect(changes.map(({ floor }) => floor.actions)).toEqual([['update'], ['delete', 'create'], ['delete', 'create'], ['no-op']]);
    expect(changes[0].floor.after.created).toBe(FLOOR_WIDE_CREATED);
  });

  test('floor_entry plans and reads back its two attributes as given', async () => {
    const own = new Workspace({ dir: path.join(scratch, 'floor-entry'), cliConfigFile: workspace.env.TF_CLI_CONFIG_FILE as string, trackChild: track });
    own.write(floorProviderBlock() + floorResources(entries.slice(0, 2)) + wideFloorResources(entries.slice(2)));
    await own.init();
    await own.apply();
    expect(own.stateAttributes(`floor_entry.${entries[0].name}`)).toEqual({ ip: entries[0].ip, description: entries[0].description });
    expect(own.stateAttributes(`floor_wide_entry.${entries[2].name}`)).toMatchObject({ ip: entries[2].ip, tenant: TENANT, id: `${TENANT}/${entries[2].ip}` });
    await own.planExpecting(0);
  });
});
