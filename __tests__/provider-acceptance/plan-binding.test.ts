/**
 * Acceptance: a saved plan applies to the service it read, or not at all (issue 30, item 1),
 * with the real terraform CLI and two emulators. Every change is refused before any API call
 * when base_url (SVC_BASE_URL) or the provider's tenant (SVC_TENANT) changed between plan and
 * apply, with an error that names the setting and says to plan again; the other service's
 * entries stay untouched. Whole list, per entry, destroy, and SSO.
 */
import { useAcceptanceHarness } from './support/harness';
import { providerBlock, hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import type { TerraformResult, Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(240_000);

const TENANTS = { list: 'bind-list', other: 'bind-other', entry: 'bind-entry', sso: 'bind-sso' };
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });
let second: AcceptanceEmulator;

beforeAll(async () => {
  second = await harness().startEmulator({ tenants: Object.values(TENANTS) });
}, 60_000);

/** Settings of the provider through the environment, as a pipeline sets them. */
function envFor(emulator: AcceptanceEmulator, tenant: string): Record<string, string> {
  return { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.apiKey, SVC_TENANT: tenant };
}

function workspaceOn(name: string, tenant: string, resources: string): Workspace {
  const workspace = harness().createWorkspace(name, envFor(harness().emulator, tenant));
  workspace.write(providerBlock() + resources);
  return workspace;
}

async function entries(emulator: AcceptanceEmulator, tenant: string, list: 'blacklist' = 'blacklist'): Promise<Record<string, string>> {
  const listed = await emulator.client(tenant).listEntries(list);
  return Object.fromEntries(listed.map((entry) => [entry.ip, entry.description ?? '']));
}

function blacklist(entriesHcl: Record<string, string>): string {
  const body = Object.entries(entriesHcl).map(([ip, description]) => `    ${hclString(ip)} = ${hclString(description)}`);
  return ['resource "svc_blacklist" "bl" {', '  entries = {', ...body, '  }', '}', ''].join('\n');
}

function expectRefused(result: TerraformResult, setting: 'base_url' | 'tenant'): void {
  // terraform wraps long lines.
  const output = (result.stdout + result.stderr).replace(/\s+/g, ' ');
  expect(result.code).toBe(1);
  expect(output).toContain(`Plan made against another svc service: ${setting} changed`);
  expect(output).toContain('Nothing was sent');
  expect(output).toContain('Run terraform plan again');
  expect(output).not.toContain('inconsistent final plan');
  expect(output).not.toContain('This is a bug in the provider');
}

describe('a saved plan is bound to the service it read', () => {
  test('whole list: applying against another base_url or tenant is refused, and the other service keeps its entries', async () => {
    const workspace = workspaceOn('bind-list', TENANTS.list, blacklist({ '203.0.113.1': 'A one', '203.0.113.2': 'A two' }));
    await workspace.init();
    await workspace.apply();
    await second.client(TENANTS.list).addEntry('blacklist', { ip: '203.0.113.2', description: 'emu2 production entry' });
    await second.client(TENANTS.list).addEntry('blacklist', { ip: '203.0.113.77', description: 'emu2 other' });
    await harness().emulator.client(TENANTS.other).addEntry('blacklist', { ip: '203.0.113.2', description: 'other tenant entry' });

    workspace.write(providerBlock() + blacklist({ '203.0.113.1': 'A one' }));
    const plan = await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=p2']);
    expect(plan.stdout).toMatch(/- "203\.0\.113\.2" += "A two" -> null/);

    const elsewhere = await workspace.terraform(['apply', '-no-color', '-input=false', 'p2'], envFor(second, TENANTS.list));
    expectRefused(elsewhere, 'base_url');
    expect(await entries(second, TENANTS.list)).toEqual({ '203.0.113.2': 'emu2 production entry', '203.0.113.77': 'emu2 other' });

    // A refused apply still writes the state (terraform then calls the plan stale): plan again.
    await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=p3']);
    const otherTenant = await workspace.terraform(['apply', '-no-color', '-input=false', 'p3'], { SVC_TENANT: TENANTS.other });
    expectRefused(otherTenant, 'tenant');
    expect(await entries(harness().emulator, TENANTS.other)).toEqual({ '203.0.113.2': 'other tenant entry' });

    // Against the service it read, a plan applies.
    await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=p4']);
    await workspace.terraformExpecting(['apply', '-no-color', '-input=false', 'p4']);
    expect(await entries(harness().emulator, TENANTS.list)).toEqual({ '203.0.113.1': 'A one' });
    expect(await entries(second, TENANTS.list)).toEqual({ '203.0.113.2': 'emu2 production entry', '203.0.113.77': 'emu2 other' });
  });

  test('per entry: an update and a destroy planned on one service are refused on another', async () => {
    const entry = (description: string) =>
      resourceBlock('svc_blacklist_entry', 'one', { ip: hclString('198.51.100.9'), description: hclString(description) });
    const workspace = workspaceOn('bind-entry', TENANTS.entry, entry('planned here'));
    await workspace.init();
    await workspace.apply();
    await second.client(TENANTS.entry).addEntry('blacklist', { ip: '198.51.100.9', description: 'emu2 entry' });

    workspace.write(providerBlock() + entry('changed here'));
    await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=update.plan']);
    expectRefused(await workspace.terraform(['apply', '-no-color', '-input=false', 'update.plan'], envFor(second, TENANTS.entry)), 'base_url');

    await workspace.terraformExpecting(['plan', '-destroy', '-no-color', '-input=false', '-out=destroy.plan']);
    expectRefused(await workspace.terraform(['apply', '-no-color', '-input=false', 'destroy.plan'], envFor(second, TENANTS.entry)), 'base_url');
    expect(await entries(second, TENANTS.entry)).toEqual({ '198.51.100.9': 'emu2 entry' });
    expect(await entries(harness().emulator, TENANTS.entry)).toEqual({ '198.51.100.9': 'planned here' });
  });

  test('SSO: a tenant SSO change planned on one service is refused on another', async () => {
    const sso = (required: boolean) =>
      resourceBlock('svc_tenant_sso', 'sso', {
        name: hclString(TENANTS.sso),
        enabled: 'true',
        required: String(required),
        saml_metadata_url: hclString('https://idp.example.com/metadata'),
      });
    const workspace = workspaceOn('bind-sso', TENANTS.sso, sso(false));
    await workspace.init();
    await workspace.apply();
    workspace.write(providerBlock() + sso(true));
    await workspace.terraformExpecting(['plan', '-no-color', '-input=false', '-out=sso.plan']);
    expectRefused(await workspace.terraform(['apply', '-no-color', '-input=false', 'sso.plan'], envFor(second, TENANTS.sso)), 'base_url');
    const listed = (await second.client(TENANTS.sso).listCustomers()).find((tenant) => tenant.name === TENANTS.sso);
    expect(listed?.sso ?? null).toBeNull();
  });
});
