/**
 * The acceptance harness's own parts that need no provider: plan text reading, HCL quoting,
 * the workspace environment and how terraform failures are reported.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';
import { planSummary, plannedActions } from '../../scripts/terraform-harness/plan-text';
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

describe('plannedActions', () => {
  it.each([
    { name: 'a create', line: '  # svc_blacklist_entry.this will be created', expected: { 'svc_blacklist_entry.this': 'create' } },
    { name: 'an in-place update', line: '  # svc_whitelist_entry.x will be updated in-place', expected: { 'svc_whitelist_entry.x': 'update' } },
    { name: 'a replacement', line: '  # svc_blocklist_entry.y must be replaced', expected: { 'svc_blocklist_entry.y': 'replace' } },
    { name: 'a tainted replacement', line: '  # svc_blocklist_entry.y is tainted, so must be replaced', expected: { 'svc_blocklist_entry.y': 'replace' } },
    { name: 'a destroy', line: '  # svc_blacklist_entry.z will be destroyed', expected: { 'svc_blacklist_entry.z': 'delete' } },
    { name: 'a counted instance', line: '  # svc_blacklist_entry.many[3] will be created', expected: { 'svc_blacklist_entry.many[3]': 'create' } },
    { name: 'a deferred data read', line: '  # data.svc_list.all will be read during apply', expected: { 'data.svc_list.all': 'read' } },
    { name: 'drift, which is not an action', line: '  # svc_blacklist_entry.this has been deleted', expected: {} },
    { name: 'a changed-outside note', line: '  # svc_blacklist_entry.this has changed', expected: {} },
  ])('reads $name', ({ line, expected }) => {
    expect(plannedActions(`Terraform will perform the following actions:\n\n${line}\n  + resource "x" "y" {\n`)).toEqual(expected);
  });

  it.each([
    { text: 'Plan: 1 to add, 2 to change, 3 to destroy.', expected: { add: 1, change: 2, destroy: 3 } },
    { text: 'No changes. Your infrastructure matches the configuration.', expected: undefined },
  ])('reads the summary of "$text"', ({ text, expected }) => {
    expect(planSummary(text)).toEqual(expected);
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

  it('finds a needle in files below a directory, by relative path', () => {
    const dir = path.join(scratch, 'search');
    fs.mkdirSync(path.join(dir, 'nested'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'nested', 'a.txt'), 'xx needle xx');
    fs.writeFileSync(path.join(dir, 'b.txt'), 'nothing here');
    expect(filesContaining(dir, 'needle')).toEqual([path.join('nested', 'a.txt')]);
  });
});
