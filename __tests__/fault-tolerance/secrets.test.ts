/**
 * Secrets under TF_LOG=trace and TF_LOG_PROVIDER=trace (logs on terraform's stderr): through a
 * saved plan, its apply, a refresh, an import, an apply that fails with an API error and a
 * destroy, neither the API key nor any session token the emulator issued (collected as issued,
 * the emulator keeps only hashes) appears in terraform's stdout or stderr, in any file of the
 * working directory (state, state backup, lock file...) or inside the plan file's zip entries.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ManagementClient } from '../../src/api/client';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import { filesContaining, zipEntriesContaining } from '../provider-acceptance/support/search';
import { printFigures, useFaultHarness } from './support';

jest.setTimeout(120_000);

const harness = useFaultHarness();
const TENANT = 'secrets';

test('no API key and no session token in output, state or plan file, across plan, apply, refresh, import, a failed apply and destroy', async () => {
  const emulator = await harness().startEmulator({ tenants: [TENANT] });
  const workspace = harness().createWorkspace('secrets', emulator.apiKey, {
    TF_LOG: 'trace',
    TF_LOG_PROVIDER: 'trace',
    // Everything on stderr, where the test reads it; SVC_LOG would take precedence over TF_LOG_PROVIDER.
    TF_LOG_PATH: undefined,
    SVC_LOG: undefined,
  });
  const resources = [
    'resource "svc_blacklist_entry" "one" {\n  ip          = "192.0.2.1"\n  description = "secrets test"\n}\n',
    'resource "svc_whitelist" "all" {\n  entries = { "198.51.100.0/24" = "partners", "2001:db8::1" = "" }\n}\n',
    'resource "svc_channel_sso" "main" {\n  name              = "main"\n  enabled           = true\n  saml_metadata_url = "https://idp.example.com/metadata"\n}\n',
    'data "svc_list" "blacklist" {\n  list = "blacklist"\n  depends_on = [svc_blacklist_entry.one]\n}\n',
  ];
  const write = (extra = '') => workspace.write(providerBlock({ baseUrl: emulator.url, tenant: TENANT }) + resources.join('\n') + extra);
  write();
  await workspace.init();

  // plan to a file, apply that file, refresh
  await workspace.terraformExpecting(['plan', '-input=false', '-no-color', '-out=saved.tfplan']);
  const planFile = path.join(workspace.dir, 'saved.tfplan');
  const planCopy = path.join(harness().root, 'secrets-saved.tfplan');
  fs.copyFileSync(planFile, planCopy);
  await workspace.apply([planFile]);
  await workspace.terraformExpecting(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);

  // import an entry added outside terraform
  const outside = new ManagementClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, tenant: TENANT });
  try {
    await outside.addEntry('blocklist', { ip: '203.0.113.9', description: 'added elsewhere' });
  } finally {
    await outside.close();
  }
  resources.push('resource "svc_blocklist_entry" "imported" {\n  ip          = "203.0.113.9"\n  description = "added elsewhere"\n}\n');
  write();
  await workspace.importResource('svc_blocklist_entry.imported', `${TENANT}/203.0.113.9`);
  await workspace.planExpecting(0);

  // an apply the API refuses: a tenant the service does not know (the customers listing lacks
  // it, so the apply's plan stops before any write)
  write(`resource "svc_blacklist_entry" "refused" {\n  ip     = "192.0.2.99"\n  tenant = ${hclString('no-such-tenant')}\n}\n`);
  const refused = await workspace.terraform(['apply', '-auto-approve', '-input=false', '-no-color']);
  expect(refused.code).toBe(1);
  expect(`${refused.stdout} ${refused.stderr}`.replace(/\s+/g, " ")).toMatch(/Error: Cannot use tenant "no-such-tenant" .*The service lists no tenant named "no-such-tenant"/);

  write();
  await workspace.destroy();

  const tokens = [...emulator.issuedTokens];
  const secrets = [{ name: 'API key', value: emulator.apiKey }, ...tokens.map((token, index) => ({ name: `session token ${index + 1}`, value: token }))];
  const logBytes = workspace.history.reduce((sum, result) => sum + result.stdout.length + result.stderr.length, 0);
  const found = secrets.flatMap(({ name, value }) => [
    ...workspace.history.filter((result) => (result.stdout + result.stderr).includes(value)).map((result) => `${name} in the output of terraform ${result.args.join(' ')}`),
    ...filesContaining(workspace.dir, value).map((file) => `${name} in ${file}`),
    ...zipEntriesContaining(planCopy, value).map((entry) => `${name} in plan file entry ${entry}`),
  ]);
  printFigures('secrets under TF_LOG=trace', {
    terraform_commands: workspace.history.length,
    trace_output_bytes: logBytes,
    tokens_issued: tokens.length,
    secrets_found: found.length,
  });
  // The search looked at real trace output and real sessions: the provider logged, and logged in.
  expect(workspace.history.some((result) => /\[TRACE\]/.test(result.stderr))).toBe(true);
  expect(workspace.history.some((result) => /provider\.terraform-provider-svc.*svc client/.test(result.stderr))).toBe(true);
  expect(tokens.length).toBeGreaterThanOrEqual(5);
  // The searches find what is there: a description inside the deflated plan file, an address in a state file.
  expect(zipEntriesContaining(planCopy, 'secrets test').length).toBeGreaterThan(0);
  expect(filesContaining(workspace.dir, '203.0.113.9')).toContain('terraform.tfstate.backup');
  expect(found).toEqual([]);
});
