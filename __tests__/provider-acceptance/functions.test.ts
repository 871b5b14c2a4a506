/**
 * Acceptance: the provider functions (terraform 1.8+) evaluated by the real terraform CLI, in
 * `terraform console` and in a configuration's outputs and check blocks through plan and apply,
 * including the errors terraform shows for an invalid argument (exit code, the parameter named),
 * and the examples of help/provider.md's Functions section, with the results the page states.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { terraformConsole } from './support/console';
import { useAcceptanceHarness } from './support/harness';
import { hclString } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(180_000);

const TENANT = 'functions';
const harness = useAcceptanceHarness({ tenants: [TENANT] });

describe('terraform console', () => {
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = harness().createWorkspace('functions-console');
    workspace.write(harness().providerBlock(TENANT));
    await workspace.init();
  });

  const results: ReadonlyArray<readonly [string, string | boolean]> = [
    ['provider::svc::canonical_address("2001:DB8:0:0::/32")', '2001:db8::/32'],
    ['provider::svc::canonical_address("10.0.0.1/32")', '10.0.0.1'],
    ['provider::svc::canonical_address("::FFFF:192.0.2.1")', '::ffff:192.0.2.1'],
    ['provider::svc::contains("10.0.0.0/8", "10.1.2.3")', true],
    ['provider::svc::contains("10.0.0.0/8", "10.1.0.0/16")', true],
    ['provider::svc::contains("10.1.0.0/16", "10.0.0.0/8")', false],
    ['provider::svc::contains("2001:db8::/32", "10.0.0.1")', false],
    ['provider::svc::overlaps("192.0.2.0/24", "192.0.2.128/25")', true],
    ['provider::svc::overlaps("192.0.2.0/25", "192.0.2.128/25")', false],
    ['provider::svc::overlaps("0.0.0.0/0", "::/0")', false],
  ];

  test('evaluates each function to what the address rules say', async () => {
    // One console run for all: a JSON object of the results, which console prints as an HCL string.
    const expression = `jsonencode([${results.map(([call]) => call).join(', ')}])`;
    const result = await terraformConsole(workspace, [expression]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const values = JSON.parse(JSON.parse(result.stdout.trim()) as string) as unknown[];
    expect(Object.fromEntries(results.map(([call], index) => [call, values[index]]))).toEqual(Object.fromEntries(results));
  });

  const errors = [
    { call: 'provider::svc::canonical_address("10.0.0.300")', parameter: 'address', problem: '"10.0.0.300" (octet 300 is above 255)' },
    { call: 'provider::svc::canonical_address("10.0.0.1/24")', parameter: 'address', problem: 'host bits are set; the network of this range is 10.0.0.0/24' },
    { call: 'provider::svc::contains("10.0.0.0/33", "10.0.0.1")', parameter: 'range', problem: 'prefix length 33 is above 32' },
    { call: 'provider::svc::contains("10.0.0.0/8", "10.0.0.1/8")', parameter: 'address', problem: '"10.0.0.1/8" (host bits are set' },
    { call: 'provider::svc::overlaps("example.com", "10.0.0.1")', parameter: 'a', problem: '"example.com" (not a dotted-quad IPv4 address)' },
    { call: 'provider::svc::overlaps("10.0.0.1", "2001:db8::g")', parameter: 'b', problem: '"2001:db8::g" (not a valid IPv6 address)' },
    { call: 'provider::svc::canonical_address(null)', parameter: 'address', problem: 'must not be null' },
  ];
  test.each(errors)('$call fails naming the "$parameter" parameter', async ({ call, parameter, problem }) => {
    const result = await terraformConsole(workspace, [call]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const message = result.stderr.replace(/\s+/g, ' ');
    expect(message).toContain('Error: Invalid function argument');
    expect(message).toContain(`Invalid value for "${parameter}" parameter:`);
    expect(message).toContain(problem);
  });

  test('a 6 MB argument is quoted cut: its first 100 characters and its length', async () => {
    // format pads 0 to 6,000,296 digits: an argument of 6 MB, not an address.
    const result = await terraformConsole(workspace, ['provider::svc::canonical_address(format("%06000296d", 0))']);
    expect(result.code).toBe(1);
    const message = result.stderr.replace(/\s+/g, ' ');
    expect(message).toContain(`Invalid IP address or CIDR: "${'0'.repeat(100)}"... (6000296 characters) (longer than any address or CIDR)`);
    expect(result.stderr.length).toBeLessThan(2_000);
  });

  test('a function name the provider does not have is refused by terraform', async () => {
    const result = await terraformConsole(workspace, ['provider::svc::canonical("10.0.0.1")']);
    expect(result.code).toBe(1);
    expect(result.stderr.replace(/\s+/g, ' ')).toContain('Unknown provider function');
  });
});

describe('outputs and check blocks through plan and apply', () => {
  let workspace: Workspace;

  const configuration = (office: string) =>
    harness().providerBlock(TENANT) +
    [
      `variable "office" {`,
      `  type    = string`,
      `  default = ${hclString(office)}`,
      `}`,
      ``,
      `output "canonical" {`,
      `  value = provider::svc::canonical_address("2001:DB8:0:0::/32")`,
      `}`,
      `output "inside" {`,
      `  value = provider::svc::contains("10.0.0.0/8", var.office)`,
      `}`,
      `output "overlap" {`,
      `  value = provider::svc::overlaps("192.0.2.0/24", "192.0.2.128/25")`,
      `}`,
      ``,
      `# The id is known only after apply: terraform skips the call at plan and makes it at apply.`,
      `resource "terraform_data" "later" {}`,
      `output "later" {`,
      `  value = provider::svc::canonical_address(replace(terraform_data.later.id, "/.*/", "2001:DB8::1/128"))`,
      `}`,
      ``,
      `check "office_is_internal" {`,
      `  assert {`,
      `    condition     = provider::svc::contains("10.0.0.0/8", var.office)`,
      `    error_message = "The office address \${var.office} is outside 10.0.0.0/8."`,
      `  }`,
      `}`,
      ``,
    ].join('\n');

  beforeAll(async () => {
    workspace = harness().createWorkspace('functions-plan');
    workspace.write(configuration('10.20.30.40'));
    await workspace.init();
  });

  test('plan shows the results, and "known after apply" for a call on an unknown value', async () => {
    const plan = await workspace.planExpecting(2);
    expect(plan.stdout).toMatch(/\+ canonical += "2001:db8::\/32"/);
    expect(plan.stdout).toMatch(/\+ inside += true/);
    expect(plan.stdout).toMatch(/\+ overlap += true/);
    expect(plan.stdout).toMatch(/\+ later += \(known after apply\)/);
    expect(plan.text).not.toContain('Check block assertion failed');
  });

  test('apply evaluates the deferred call; the outputs hold the results', async () => {
    await workspace.apply();
    const outputs = await workspace.terraformExpecting(['output', '-json']);
    const values = Object.fromEntries(Object.entries(JSON.parse(outputs.stdout) as Record<string, { value: unknown }>).map(([name, output]) => [name, output.value]));
    expect(values).toEqual({ canonical: '2001:db8::/32', inside: true, overlap: true, later: '2001:db8::1' });
  });

  test('a check block using contains warns, naming the address, when it fails', async () => {
    workspace.write(configuration('192.0.2.7'));
    const plan = await workspace.planExpecting(2);
    const text = plan.text.replace(/\s+/g, ' ');
    expect(text).toContain('Warning: Check block assertion failed');
    expect(text).toContain('The office address 192.0.2.7 is outside 10.0.0.0/8.');
    expect(plan.stdout).toMatch(/~ inside += true -> false/);
  });

  test('an invalid argument in the configuration fails plan with the file, the line and the parameter', async () => {
    workspace.write(configuration('10.0.0.1/8'));
    const plan = await workspace.planDetailed();
    expect(plan.code).toBe(1);
    const text = plan.text.replace(/\s+/g, ' ');
    expect(text).toContain('Error: Invalid function argument');
    expect(text).toMatch(/on main\.tf line \d+, in output "inside":/);
    expect(text).toContain('Invalid value for "address" parameter: Invalid IP address or CIDR: "10.0.0.1/8" (host bits are set; the network of this range is 10.0.0.0/8)');
  });
});

describe('the Functions section of help/provider.md', () => {
  const markdown = readFileSync(path.join(__dirname, '..', '..', 'help', 'provider.md'), 'utf8');
  const start = markdown.indexOf('\n## Functions\n');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = start < 0 ? '' : markdown.slice(start, end < 0 ? undefined : end);
  const blocks = (language: string) => [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
  const [outputsExample = '', checkExample = ''] = blocks('hcl');
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = harness().createWorkspace('functions-help');
    workspace.write(harness().providerBlock(TENANT));
    await workspace.init();
  });

  test('has an output example per function and a check block example', () => {
    for (const name of ['canonical_address', 'contains', 'overlaps']) expect(outputsExample).toContain(`provider::svc::${name}(`);
    expect(checkExample).toMatch(/check "\w+" \{/);
    expect(checkExample).toContain('provider::svc::contains(');
    expect(checkExample).toContain('provider::svc::overlaps(');
  });

  test('each output of the example applies to the value its "# =>" comment states', async () => {
    const stated = Object.fromEntries(
      [...outputsExample.matchAll(/output "(\w+)" \{\n[^\n]*# => ([^\n]+)\n/g)].map((match) => [match[1]!, JSON.parse(match[2]!) as unknown]),
    );
    expect(Object.keys(stated)).toHaveLength(3);
    workspace.write(outputsExample, 'example.tf');
    await workspace.apply();
    const outputs = JSON.parse((await workspace.terraformExpecting(['output', '-json'])).stdout) as Record<string, { value: unknown }>;
    expect(Object.fromEntries(Object.entries(outputs).map(([name, output]) => [name, output.value]))).toEqual(stated);
    await workspace.destroy();
  });

  test('the check block example passes with its defaults and warns twice for an office address', async () => {
    workspace.write(checkExample, 'example.tf');
    const passing = await workspace.planExpecting(2);
    expect(passing.text).not.toContain('Check block assertion failed');
    const failing = await workspace.planExpecting(2, ['-var', 'blocked=["10.20.1.1"]']);
    const text = failing.text.replace(/\s+/g, ' ');
    expect(text).toContain('An address in var.blocked overlaps one of var.office_ranges.');
    expect(text).toContain('var.blocked holds a private 10.0.0.0/8 address.');
  });

  test('the terraform console line prints what the page shows', () => {
    const [command = ''] = blocks('sh').map((block) => block.trim());
    const [shown = ''] = blocks('text');
    expect(command).toMatch(/\| terraform console$/);
    const result = spawnSync('sh', ['-c', command], { cwd: workspace.dir, env: workspace.env, encoding: 'utf8' });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: shown, stderr: '' });
  });
});
