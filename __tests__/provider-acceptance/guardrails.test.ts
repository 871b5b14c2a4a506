/**
 * Acceptance: the provider's guardrails (help/guardrails.md) with the real terraform against
 * the emulator. Errors stop validate or plan before anything is written; warnings name the
 * attribute and value and do not stop the plan; the opt-outs work; a wrong key or an
 * unreachable API is reported once, not once per resource.
 */
import { useAcceptanceHarness } from './support/harness';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { TerraformResult } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(180_000);

const TENANTS = { validate: 'guard-validate', plan: 'guard-plan', once: 'guard-once' };
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });

/** Output as one line: terraform's box drawing and wrapping removed. */
function flat(result: TerraformResult): string {
  return `${result.stdout}\n${result.stderr}`.replace(/│/g, ' ').replace(/\s+/g, ' ');
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

/** API commands that change something; none may be sent by validate or plan. */
const WRITES = /^(new_|delete_|bulk_|update)/;
function writesSent(): string[] {
  return Object.keys(harness().emulator.emulator.stats().byCommand).filter((command) => WRITES.test(command));
}

describe('errors at validate: nothing is sent', () => {
  test.each([
    ['a catch-all on a blacklist entry', resourceBlock('svc_blacklist_entry', 'all', { ip: hclString('0.0.0.0/0') }), /Catch-all range on the blacklist.*ip = "0\.0\.0\.0\/0"/],
    ['a catch-all in a whole whitelist', resourceBlock('svc_whitelist', 'all', { entries: `{ "0:0::/0" = "everyone" }` }), /Catch-all range on the whitelist.*entries key = "0:0::\/0" is ::\/0/],
    ['base_url over http to a remote host', '', /Insecure base_url: http:\/\/ to a remote host.*base_url = "http:\/\/api\.vendor\.example".*https:\/\/api\.vendor\.example/],
  ])('%s', async (_name, block, says) => {
    const workspace = harness().createWorkspace('guard-validate');
    const baseUrl = block === '' ? 'http://api.vendor.example' : harness().emulator.url;
    const uses = block === '' ? 'data "svc_tenant" "uses_provider" {}\n' : block;
    workspace.write(providerBlock({ baseUrl, tenant: TENANTS.validate }) + uses);
    await workspace.init();
    harness().emulator.emulator.resetStats();
    const result = await workspace.validate().catch((error: { result?: TerraformResult }) => error.result!);
    expect(result.code).toBe(1);
    expect(flat(result)).toMatch(says);
    expect(harness().emulator.emulator.stats().requests).toBe(0);
  });

  test('allow_insecure_http = true and SVC_ALLOW_INSECURE_HTTP=1 let an http base_url through validate', async () => {
    const workspace = harness().createWorkspace('guard-insecure-allowed');
    workspace.write(providerBlock({ baseUrl: 'http://api.vendor.example', tenant: TENANTS.validate, extra: { allow_insecure_http: 'true' } }) + 'data "svc_tenant" "uses_provider" {}\n');
    await workspace.init();
    expect((await workspace.terraform(['validate', '-no-color'])).code).toBe(0);
    workspace.write(providerBlock({ baseUrl: 'http://api.vendor.example', tenant: TENANTS.validate }) + 'data "svc_tenant" "uses_provider" {}\n');
    expect((await workspace.terraform(['validate', '-no-color'], { SVC_ALLOW_INSECURE_HTTP: '1' })).code).toBe(0);
  });

  test('SVC_BASE_URL over http to a remote host fails the plan, naming the variable', async () => {
    const workspace = harness().createWorkspace('guard-insecure-env', { SVC_BASE_URL: 'http://api.vendor.example', SVC_TENANT: TENANTS.validate });
    workspace.write('terraform {\n  required_providers {\n    svc = { source = "svc-prevent/svc" }\n  }\n}\nprovider "svc" {}\n' + resourceBlock('svc_blacklist_entry', 'one', { ip: hclString('192.0.2.1') }));
    await workspace.init();
    const result = await workspace.terraform(['plan', '-input=false', '-no-color']);
    expect(result.code).toBe(1);
    expect(flat(result)).toMatch(/Insecure SVC_BASE_URL: http:\/\/ to a remote host.*SVC_BASE_URL = "http:\/\/api\.vendor\.example"/);
  });
});

describe('warnings at plan do not stop it', () => {
  const tenant = TENANTS.plan;
  const configuration = (extra: Record<string, string> = {}) =>
    providerBlock({ baseUrl: harness().emulator.url, tenant, extra }) +
    resourceBlock('svc_whitelist_entry', 'partner', { ip: hclString('203.0.113.9') }) +
    resourceBlock('svc_blacklist_entry', 'wide', { ip: hclString('10.0.0.0/7') }) +
    resourceBlock('svc_whitelist_entry', 'mapped', { ip: hclString('::ffff:192.0.2.1') }) +
    resourceBlock('svc_blocklist', 'all', { entries: `{ "198.51.100.0/24" = "net", "198.51.100.7" = "inside" }`, mode: hclString('additive') });

  let plan: TerraformResult;
  beforeAll(async () => {
    await harness().emulator.client(tenant).addEntry('blacklist', { ip: '203.0.113.0/24', description: 'scanners' });
    const workspace = harness().createWorkspace('guard-plan');
    workspace.write(configuration());
    await workspace.init();
    harness().emulator.emulator.resetStats();
    plan = await workspace.terraform(['plan', '-input=false', '-no-color', '-detailed-exitcode']);
  });

  test('the plan succeeds with changes (exit 2) and writes nothing', () => {
    expect(plan.code).toBe(2);
    expect(writesSent()).toEqual([]);
  });

  test.each([
    ['a whitelisted /32 inside a blacklisted /24 on the service', /Address on the whitelist and the blacklist at once.*ip = "203\.0\.113\.9".*overlaps 203\.0\.113\.0\/24 on the blacklist \(on the service\)/],
    ['a range broader than /8', /Very broad range on the blacklist.*ip = "10\.0\.0\.0\/7".*allow_broad_ranges = true/],
    ['an IPv4-mapped address', /IPv4-mapped IPv6 address on the whitelist.*ip = "::ffff:192\.0\.2\.1".*Did you mean "192\.0\.2\.1"\?/],
    ['an entry covered by a broader one of the same whole list', /Entry already covered on the blocklist.*entries key = "198\.51\.100\.7".*inside 198\.51\.100\.0\/24/],
  ])('warns: %s', (_name, says) => {
    expect(flat(plan)).toMatch(says);
  });

  test('allow_broad_ranges = true silences the broad-range warning only', async () => {
    const workspace = harness().createWorkspace('guard-plan-allowed');
    workspace.write(configuration({ allow_broad_ranges: 'true' }));
    await workspace.init();
    const allowed = await workspace.terraform(['plan', '-input=false', '-no-color', '-detailed-exitcode']);
    expect(allowed.code).toBe(2);
    expect(flat(allowed)).not.toMatch(/Very broad range/);
    expect(flat(allowed)).toMatch(/IPv4-mapped IPv6 address on the whitelist/);
  });
});

describe('one error, not one per resource', () => {
  const tenant = TENANTS.once;
  const resources =
    resourceBlock('svc_blacklist_entry', 'a', { ip: hclString('192.0.2.1') }) +
    resourceBlock('svc_blocklist_entry', 'b', { ip: hclString('192.0.2.2') }) +
    resourceBlock('svc_whitelist_entry', 'c', { ip: hclString('192.0.2.3') }) +
    resourceBlock('svc_blacklist', 'd', { entries: '{ "192.0.2.4" = "" }', tenant: hclString(tenant) });

  test('a wrong API key: one login, the full error once, a short note for the other three', async () => {
    const workspace = harness().createWorkspace('guard-wrong-key', { SVC_API_KEY: 'not-the-key' });
    workspace.write(providerBlock({ baseUrl: harness().emulator.url, tenant }) + resources);
    await workspace.init();
    harness().emulator.emulator.resetStats();
    const result = await workspace.terraform(['plan', '-input=false', '-no-color']);
    expect(result.code).toBe(1);
    const text = flat(result);
    expect(count(text, 'Error: Login to the svc management API failed')).toBe(1);
    expect(count(text, 'Error: Skipped: the svc provider could not log in')).toBe(3);
    expect(harness().emulator.emulator.stats().byCommand).toEqual({ login: 1 });
  });

  test('an unreachable API: the retries are spent once', async () => {
    const workspace = harness().createWorkspace('guard-unreachable');
    workspace.write(providerBlock({ baseUrl: 'http://127.0.0.1:9', tenant, extra: { max_retries: '3' } }) + resources);
    await workspace.init();
    const started = Date.now();
    const result = await workspace.terraform(['plan', '-input=false', '-no-color']);
    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(1);
    const text = flat(result);
    expect(count(text, 'Error: Could not reach the svc management API')).toBe(1);
    expect(count(text, 'Error: Skipped: the svc provider could not log in')).toBe(3);
    // Three retries of one login (backoff below 2 s each), not four logins' worth.
    expect(seconds).toBeLessThan(30);
  });
});
