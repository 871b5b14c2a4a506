/**
 * The acceptance harness's own parts that need no provider: reading a saved plan's JSON, HCL quoting,
 * the workspace environment and how terraform failures are reported.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JsonPlan } from '../../src/pipeline/plan-changes';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';
import { planCounts, plannedActions } from '../../scripts/terraform-harness/plan-summary';
import { filesContaining } from './support/search';
import { TerraformCommandError, Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-acceptance-harness-'));
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('what a saved plan says, from terraform show -json', () => {
  const plan = (actions: readonly string[], address = 'svc_blacklist_entry.this', mode = 'managed'): JsonPlan => ({ resource_changes: [{ address, mode, change: { actions } }] });

  it.each([
    { name: 'a create', json: plan(['create']), expected: { 'svc_blacklist_entry.this': 'create' } },
    { name: 'an in-place update', json: plan(['update'], 'svc_whitelist_entry.x'), expected: { 'svc_whitelist_entry.x': 'update' } },
    { name: 'a replacement', json: plan(['delete', 'create'], 'svc_blocklist_entry.y'), expected: { 'svc_blocklist_entry.y': 'replace' } },
    { name: 'a create-before-destroy replacement', json: plan(['create', 'delete'], 'svc_blocklist_entry.y'), expected: { 'svc_blocklist_entry.y': 'replace' } },
    { name: 'a destroy', json: plan(['delete'], 'svc_blacklist_entry.z'), expected: { 'svc_blacklist_entry.z': 'delete' } },
    { name: 'a counted instance', json: plan(['create'], 'svc_blacklist_entry.many[3]'), expected: { 'svc_blacklist_entry.many[3]': 'create' } },
    { name: 'a deferred data read', json: plan(['read'], 'data.svc_list.all', 'data'), expected: { 'data.svc_list.all': 'read' } },
    { name: 'an unchanged instance, which is not an action', json: plan(['no-op']), expected: {} },
    { name: 'drift, which is not an action', json: { resource_drift: [{ address: 'svc_blacklist_entry.this', change: { actions: ['delete'] } }] }, expected: {} },
  ])('reads $name', ({ json, expected }) => {
    expect(plannedActions(json)).toEqual(expected);
  });

  it.each([
    {
      name: 'a plan with every action',
      json: {
        resource_changes: [
          ...(['create', 'update', 'update', 'delete'] as const).map((action, index) => ({ address: `terraform_data.r${index}`, mode: 'managed', change: { actions: [action] } })),
          { address: 'terraform_data.replaced', mode: 'managed', change: { actions: ['delete', 'create'] } },
          { address: 'data.svc_list.all', mode: 'data', change: { actions: ['read'] } },
          { address: 'terraform_data.same', mode: 'managed', change: { actions: ['no-op'] } },
        ],
      },
      expected: { add: 2, change: 2, destroy: 2 },
    },
    { name: 'no changes', json: plan(['no-op']), expected: { add: 0, change: 0, destroy: 0 } },
  ])('counts $name as terraform does', ({ json, expected }) => {
    expect(planCounts(json)).toEqual(expected);
  });
});

describe('HCL text', () => {
  it.each([
    { name: 'plain text', value: '10.0.0.1', expected: '"10.0.0.1"' },
    { name: 'quotes and backslashes', value: 'a "b" \\c', expected: '"a \\"b\\" \\\\c"' },
    { name: 'template openers', value: '${var.x} %{if}', expected: '"$${var.x} %%{if}"' },
    { name: 'a newline', value: 'one\ntwo', expected: '"one\\ntwo"' },
  ])('quotes $name', ({ value, expected }) => {
    expect(hclString(value)).toBe(expected);
  });

  it('writes the provider block without an api_key (it travels as SVC_API_KEY)', () => {
    const text = providerBlock({ baseUrl: 'http://127.0.0.1:1234', tenant: 'acme', extra: { max_retries: '2' } });
    expect(text).toContain('svc = { source = "svc-prevent/svc" }');
    expect(text).toContain('provider "svc" {\n  base_url = "http://127.0.0.1:1234"\n  tenant = "acme"\n  max_retries = 2\n}');
    expect(text).not.toContain('api_key');
    expect(resourceBlock('svc_blacklist_entry', 'this', { ip: '"10.0.0.1"' })).toBe('resource "svc_blacklist_entry" "this" {\n  ip = "10.0.0.1"\n}\n');
  });
});

describe('Workspace', () => {
  const inherited = { TF_LOG: 'trace', TF_DATA_DIR: '/elsewhere', SVC_API_KEY: 'inherited-key', SVC_TENANT: 'inherited' };
  let saved: Record<string, string | undefined>;

  beforeAll(() => {
    saved = Object.fromEntries(Object.keys(inherited).map((name) => [name, process.env[name]]));
    Object.assign(process.env, inherited);
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('runs terraform with its own CLI config and no inherited TF_* or SVC_* variables; HOME stays', () => {
    const workspace = new Workspace({ dir: path.join(scratch, 'env'), cliConfigFile: '/tmp/terraform.rc', trackChild: track, env: { SVC_API_KEY: 'test-key', SVC_TENANT: undefined } });
    const chosen = Object.fromEntries(Object.entries(workspace.env).filter(([name]) => /^(TF_|SVC_|CHECKPOINT_)/.test(name)));
    expect(chosen).toEqual({
      TF_CLI_CONFIG_FILE: '/tmp/terraform.rc',
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      TF_LOG_PROVIDER: 'DEBUG',
      TF_LOG_PATH: path.join(workspace.dir, 'terraform-provider.log'),
      SVC_LOG: 'debug',
      SVC_API_KEY: 'test-key',
    });
    expect(workspace.env.HOME).toBe(process.env.HOME);
  });

  it('returns a failed command without throwing; the throwing helpers report stdout and stderr', async () => {
    const workspace = new Workspace({ dir: path.join(scratch, 'failing'), cliConfigFile: '/tmp/terraform.rc', trackChild: track });
    workspace.write('this is not HCL {');
    const result = await workspace.terraform(['validate', '-no-color']);
    expect(result.code).toBe(1);
    let caught: unknown;
    await workspace.terraformExpecting(['validate', '-no-color']).catch((error: unknown) => {
      caught = error;
    });
    expect(caught).toBeInstanceOf(TerraformCommandError);
    const message = (caught as Error).message;
    expect(message).toMatch(/^terraform validate -no-color exited with code 1 \(expected exit code 0\) in /);
    expect(message).toContain('--- stdout ---');
    expect(message).toMatch(/--- stderr ---\n[\s\S]*Error: /);
    expect(workspace.history.map((entry) => entry.code)).toEqual([1, 1]);
  });

  it('reads a plan\'s actions and counts from its JSON, agreeing with the Plan: line terraform prints; the plan file it saved is gone', async () => {
    const cliConfigFile = path.join(scratch, 'empty.tfrc');
    fs.writeFileSync(cliConfigFile, '');
    const workspace = new Workspace({ dir: path.join(scratch, 'plan-json'), cliConfigFile, trackChild: track });
    const data = (name: string, attributes: string) => `resource "terraform_data" "${name}" {\n  ${attributes}\n}\n`;
    workspace.write(data('updated', 'input = "one"') + data('replaced', 'triggers_replace = "x"') + data('same', 'input = "same"') + data('removed', 'input = "gone"'));
    await workspace.init();
    await workspace.apply();
    workspace.write(data('updated', 'input = "two"') + data('replaced', 'triggers_replace = "y"') + data('same', 'input = "same"') + data('added', 'input = "new"'));

    const plan = await workspace.planExpecting(2);
    expect(plan.actions).toEqual({ 'terraform_data.updated': 'update', 'terraform_data.replaced': 'replace', 'terraform_data.removed': 'delete', 'terraform_data.added': 'create' });
    expect(plan.summary).toEqual({ add: 2, change: 1, destroy: 2 });
    expect(plan.text).toContain('Plan: 2 to add, 1 to change, 2 to destroy.');
    expect(fs.readdirSync(workspace.dir).filter((file) => file.endsWith('.tfplan'))).toEqual([]);

    const kept = await workspace.planExpecting(2, ['-out=kept.tfplan']);
    expect(kept.summary).toEqual(plan.summary);
    expect(fs.existsSync(path.join(workspace.dir, 'kept.tfplan'))).toBe(true);

    workspace.write('resource "terraform_data" "broken" {\n  input = var.missing\n}\n');
    const failed = await workspace.planDetailed();
    expect({ code: failed.code, plan: failed.plan, actions: failed.actions, summary: failed.summary }).toEqual({ code: 1, plan: undefined, actions: {}, summary: undefined });
  });

  it('finds a needle in files below a directory, by relative path', () => {
    const dir = path.join(scratch, 'search');
    fs.mkdirSync(path.join(dir, 'nested'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'nested', 'a.txt'), 'xx needle xx');
    fs.writeFileSync(path.join(dir, 'b.txt'), 'nothing here');
    expect(filesContaining(dir, 'needle')).toEqual([path.join('nested', 'a.txt')]);
  });
});
