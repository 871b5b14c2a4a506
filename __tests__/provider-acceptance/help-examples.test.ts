/**
 * The HCL examples of the help pages are valid configurations for the provider as built:
 * `terraform validate` accepts them (attribute names, types, required arguments, the
 * provider's own validation, import blocks). A renamed attribute or a tightened rule that the
 * pages miss fails here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { useAcceptanceHarness } from './support/harness';
import type { Workspace } from '../../scripts/terraform-harness/workspace';

jest.setTimeout(120_000);

const helpDirectory = path.join(__dirname, '..', '..', 'help');
const harness = useAcceptanceHarness({ tenants: ['help-examples'] });

const REQUIRED_PROVIDERS = ['terraform {', '  required_providers {', '    svc = { source = "svc-prevent/svc" }', '  }', '}', ''].join('\n');

function hclBlocks(page: string): string[] {
  const markdown = readFileSync(path.join(helpDirectory, page), 'utf8');
  return [...markdown.matchAll(/```hcl\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The configuration to validate: the example, with required_providers and the variables it uses but does not declare. */
function configurationOf(example: string): string {
  const undeclared = [...new Set([...example.matchAll(/\bvar\.(\w+)/g)].map((match) => match[1]!))].filter(
    (name) => !example.includes(`variable "${name}"`),
  );
  const variables = undeclared.map((name) => `variable "${name}" {\n  type    = list(string)\n  default = []\n}\n`).join('\n');
  return (example.includes('required_providers') ? '' : REQUIRED_PROVIDERS) + example + '\n' + variables;
}

// provider.md shows alternatives (two provider blocks), so each of its examples stands alone;
// a resource or data source page's examples (resource, import block, output) belong together.
const examples: Array<[string, string]> = [
  ...hclBlocks('provider.md').map((block, index): [string, string] => [`provider.md, example ${index + 1}`, block]),
  ...['resources', 'data-sources'].flatMap((directory) =>
    readdirSync(path.join(helpDirectory, directory))
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file): [string, string] => [`${directory}/${file}`, hclBlocks(`${directory}/${file}`).join('\n')]),
  ),
];

describe('the HCL examples of the help pages pass terraform validate', () => {
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = harness().createWorkspace('help-examples');
    workspace.write(REQUIRED_PROVIDERS);
    await workspace.init();
  });

  test('every resource and data source page has an example', () => {
    expect(examples.filter(([, example]) => example.trim() === '').map(([name]) => name)).toEqual([]);
  });

  test.each(examples)('%s', async (_name, example) => {
    workspace.write(configurationOf(example));
    const result = await workspace.validate();
    expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({ code: 0, output: expect.stringContaining('Success!') });
  });
});
