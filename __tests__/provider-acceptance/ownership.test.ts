/**
 * Acceptance: nothing taken over silently, nothing lost to terraform's replacement and ordering
 * rules (issue 30, items 2, 8-11), with the real terraform CLI and the emulator.
 *
 * - An additive whole list declaring an entry someone else made with another description is an
 *   error at plan, unless adopt_existing = true, when the plan names the description it replaces.
 * - create_before_destroy replacement (-replace) of a whole list, of tenant SSO and of an entry
 *   keeps what the state says on the service; -replace of a whole list never empties it.
 * - Two per-entry resources for one address are an error at plan; import writes the canonical ip.
 * - Swapping per-entry resources for a whole list in one apply loses nothing, and the documented
 *   move with removed { lifecycle { destroy = false } } + import works both ways.
 */
import { useAcceptanceHarness } from './support/harness';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';
import type { ListName } from '../../src/api/types';

jest.setTimeout(240_000);

const TENANTS = { adopt: 'own-adopt', cbd: 'own-cbd', entry: 'own-entry', swap: 'own-swap', move: 'own-move' };
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });

async function entries(tenant: string, list: ListName): Promise<Record<string, string>> {
  const listed = await harness().emulator.client(tenant).listEntries(list);
  return Object.fromEntries(listed.map((entry) => [entry.ip, entry.description ?? '']));
}

function listResource(type: string, name: string, declared: Record<string, string>, extra: string[] = []): string {
  const body = Object.entries(declared).map(([ip, description]) => `    ${hclString(ip)} = ${hclString(description)}`);
  return [`resource "${type}" "${name}" {`, ...extra.map((line) => `  ${line}`), '  entries = {', ...body, '  }', '}', ''].join('\n');
}

/** terraform's output on one line: it wraps long messages. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe('an additive whole list never takes over an entry silently', () => {
  test('refused at plan, naming the existing description; adopt_existing = true adopts it with a warning', async () => {
    const tenant = TENANTS.adopt;
    await harness().emulator.consoleClient(tenant).addEntry('whitelist', { ip: '192.0.2.44', description: 'SOC partner - do not remove' });
    await harness().emulator.consoleClient(tenant).addEntry('whitelist', { ip: '192.0.2.99', description: 'not declared' });
    const declared = { '192.0.2.44': 'C owns', '192.0.2.45': 'mine' };
    const workspace = harness().createWorkspace('adopt');
    workspace.write(harness().providerBlock(tenant) + listResource('svc_whitelist', 'c', declared, ['mode = "additive"']));
    await workspace.init();

    const refused = await workspace.planDetailed();
    expect(refused.code).toBe(1);
    expect(flat(refused.text)).toContain('The whitelist already holds 192.0.2.44');
    expect(flat(refused.text)).toContain('description "SOC partner - do not remove"');
    expect(flat(refused.text)).toContain('adopt_existing = true');
    expect(await entries(tenant, 'whitelist')).toEqual({ '192.0.2.44': 'SOC partner - do not remove', '192.0.2.99': 'not declared' });

    workspace.write(harness().providerBlock(tenant) + listResource('svc_whitelist', 'c', declared, ['mode = "additive"', 'adopt_existing = true']));
    const adopting = await workspace.planDetailed();
    expect(adopting.code).toBe(2);
    expect(flat(adopting.text)).toContain('svc_whitelist: adopts existing entry 192.0.2.44, was: "SOC partner - do not remove"');
    await workspace.apply();
    expect(await entries(tenant, 'whitelist')).toEqual({ '192.0.2.44': 'C owns', '192.0.2.45': 'mine', '192.0.2.99': 'not declared' });

    await workspace.destroy();
    expect(await entries(tenant, 'whitelist')).toEqual({ '192.0.2.99': 'not declared' });
  });
});

const CBD = 'lifecycle {\n    create_before_destroy = true\n  }';

async function expectNoChanges(workspace: Workspace): Promise<void> {
  const next = await workspace.planDetailed();
  expect(next.code).toBe(0);
}

describe('replacements keep what the state says', () => {
  test('create_before_destroy -replace of an additive whole list and of tenant SSO leaves the service as the state says', async () => {
    const tenant = TENANTS.cbd;
    const declared = { '192.0.2.10': 'one', '192.0.2.11': 'two' };
    const sso = resourceBlock('svc_tenant_sso', 'sso', {
      name: hclString(tenant),
      enabled: 'true',
      saml_metadata_url: hclString('https://idp.example.com/metadata'),
    }).replace(/}\n$/, `  ${CBD}\n}\n`);
    const workspace = harness().createWorkspace('cbd');
    workspace.write(harness().providerBlock(tenant) + listResource('svc_whitelist', 'cbdl', declared, ['mode = "additive"', CBD]) + sso);
    await workspace.init();
    await workspace.apply();

    const replaced = await workspace.apply(['-replace=svc_whitelist.cbdl', '-replace=svc_tenant_sso.sso']);
    const output = flat(replaced.stdout + replaced.stderr);
    expect(output).toContain('2 entries kept for the resource that replaces this one');
    expect(output).toContain(`SSO of tenant "${tenant}" left as set earlier in this apply`);
    expect(await entries(tenant, 'whitelist')).toEqual(declared);
    const listed = (await harness().emulator.client(tenant).listCustomers()).find((candidate) => candidate.name === tenant);
    expect(listed?.sso?.enabled).toBe(true);
    await expectNoChanges(workspace);
  });

  test('-replace of a whole list without create_before_destroy never empties it: the destroy keeps what the new object declares', async () => {
    const tenant = TENANTS.cbd;
    const declared = { '192.0.2.30': 'three', '192.0.2.31': 'four' };
    const workspace = harness().createWorkspace('replace');
    workspace.write(harness().providerBlock(tenant) + listResource('svc_blacklist', 'plain', declared));
    await workspace.init();
    await workspace.apply();
    const replaced = await workspace.apply(['-replace=svc_blacklist.plain']);
    expect(flat(replaced.stdout + replaced.stderr)).toContain('2 entries kept for the resource that replaces this one');
    expect(await entries(tenant, 'blacklist')).toEqual(declared);
    // Nothing was removed, not even for a moment: the audit log holds no removal.
    const events = await harness().emulator.client(tenant).auditEvents(50);
    expect(events.filter((event) => event.action === 'remove_entry')).toEqual([]);
    await expectNoChanges(workspace);
  });

  test('create_before_destroy -replace of a per-entry resource keeps the entry; nothing is stuck', async () => {
    const tenant = TENANTS.entry;
    const workspace = harness().createWorkspace('entry-replace');
    workspace.write(
      harness().providerBlock(tenant) +
        resourceBlock('svc_blacklist_entry', 'cbd', { ip: hclString('198.51.100.61'), description: hclString('kept') }).replace(/}\n$/, `  ${CBD}\n}\n`),
    );
    await workspace.init();
    await workspace.apply();
    const replaced = await workspace.apply(['-replace=svc_blacklist_entry.cbd']);
    expect(replaced.stdout).toContain('1 added, 0 changed, 1 destroyed');
    expect(flat(replaced.stdout + replaced.stderr)).toContain('svc_blacklist_entry: 198.51.100.61 kept for the resource that replaces this one');
    expect(await entries(tenant, 'blacklist')).toEqual({ '198.51.100.61': 'kept' });
    await expectNoChanges(workspace);
  });

  test('two per-entry resources for one address are an error at plan; import writes the canonical ip', async () => {
    const tenant = TENANTS.entry;
    const workspace = harness().createWorkspace('entry-twice');
    workspace.write(
      harness().providerBlock(tenant) +
        resourceBlock('svc_whitelist_entry', 'a', { ip: hclString('198.18.5.5'), description: hclString('a') }) +
        resourceBlock('svc_whitelist_entry', 'b', { ip: hclString('198.18.5.5/32'), description: hclString('b') }),
    );
    await workspace.init();
    const twice = await workspace.planDetailed();
    expect(twice.code).toBe(1);
    expect(flat(twice.text)).toContain('Two svc_whitelist_entry resources for 198.18.5.5');
    expect(await entries(tenant, 'whitelist')).toEqual({});

    await harness().emulator.consoleClient(tenant).addEntry('blacklist', { ip: '2001:db8::7', description: 'v6' });
    workspace.write(harness().providerBlock(tenant) + resourceBlock('svc_blacklist_entry', 'v6', { ip: hclString('2001:db8::7'), description: hclString('v6') }));
    await workspace.importResource('svc_blacklist_entry.v6', `${tenant}/2001:DB8:0::7`);
    const shown = await workspace.terraformExpecting(['state', 'show', '-no-color', 'svc_blacklist_entry.v6']);
    expect(shown.stdout).toMatch(/ip +=\s*"2001:db8::7"/);
    await expectNoChanges(workspace);
  });
});

/** Enough that terraform runs the deletes in parallel with the whole list's create (-parallelism 10). */
const SWAP_IPS = Array.from({ length: 20 }, (_unused, index) => `203.0.113.${20 + index}`);

function perEntry(ips: readonly string[]): string {
  return ips.map((ip, index) => resourceBlock('svc_blacklist_entry', `e${index}`, { ip: hclString(ip), description: hclString(`entry ${index}`) })).join('\n');
}

function wholeList(ips: readonly string[]): string {
  return listResource('svc_blacklist', 'all', Object.fromEntries(ips.map((ip, index) => [ip, `entry ${index}`])));
}

describe('moving between per-entry and whole-list resources', () => {
  test('swapping per-entry resources for a whole list in one apply keeps every entry', async () => {
    const tenant = TENANTS.swap;
    const workspace = harness().createWorkspace('swap');
    workspace.write(harness().providerBlock(tenant) + perEntry(SWAP_IPS));
    await workspace.init();
    await workspace.apply();
    workspace.write(harness().providerBlock(tenant) + wholeList(SWAP_IPS));
    await workspace.apply();
    expect(Object.keys(await entries(tenant, 'blacklist')).sort()).toEqual([...SWAP_IPS].sort());
    await expectNoChanges(workspace);
  });

  test('removed { lifecycle { destroy = false } } + import moves them both ways without a change on the service', async () => {
    const tenant = TENANTS.move;
    const workspace = harness().createWorkspace('move');
    workspace.write(harness().providerBlock(tenant) + perEntry(SWAP_IPS));
    await workspace.init();
    await workspace.apply();
    const forget = (type: string, names: readonly string[]) =>
      names.map((name) => `removed {\n  from = ${type}.${name}\n  lifecycle {\n    destroy = false\n  }\n}\n`).join('\n');
    const entryNames = SWAP_IPS.map((_ip, index) => `e${index}`);

    // Per entry -> whole list: forget the entries, import the list.
    workspace.write(
      harness().providerBlock(tenant) + forget('svc_blacklist_entry', entryNames) + wholeList(SWAP_IPS) +
        `import {\n  to = svc_blacklist.all\n  id = ${hclString(tenant)}\n}\n`,
    );
    const toList = await workspace.planDetailed();
    expect(toList.summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
    await workspace.apply();
    expect(Object.keys(await entries(tenant, 'blacklist')).sort()).toEqual([...SWAP_IPS].sort());

    // Whole list -> per entry: forget the list, import each entry.
    const imports = SWAP_IPS.map((ip, index) => `import {\n  to = svc_blacklist_entry.e${index}\n  id = ${hclString(`${tenant}/${ip}`)}\n}\n`).join('\n');
    workspace.write(harness().providerBlock(tenant) + forget('svc_blacklist', ['all']) + perEntry(SWAP_IPS) + imports);
    const toEntries = await workspace.planDetailed();
    expect(toEntries.summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
    await workspace.apply();
    expect(Object.keys(await entries(tenant, 'blacklist')).sort()).toEqual([...SWAP_IPS].sort());
    workspace.write(harness().providerBlock(tenant) + perEntry(SWAP_IPS));
    await expectNoChanges(workspace);
  });
});
