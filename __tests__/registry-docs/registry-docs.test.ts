/**
 * The provider's documentation for the Terraform registry (scripts/generate-registry-docs.ts):
 * docs/ and examples/ are what the generator writes from the schema and help/ today; every
 * resource, data source and function has a page with the registry's frontmatter; every attribute
 * and parameter has a description; and every example passes `terraform validate` with the
 * provider built from source.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GENERATED_MARK, renderRegistryDocs, staleRegistryDocs } from '../../scripts/generate-registry-docs';
import type { AttributeSchema } from '../../src/provider/core/schema';
import { createSvcProvider } from '../../src/provider/provider';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const provider = createSvcProvider({ env: {} });
const rendered = renderRegistryDocs();

/** Every attribute path of a schema whose description is empty. */
function undescribed(attributes: Readonly<Record<string, AttributeSchema>>, prefix: string): string[] {
  return Object.entries(attributes).flatMap(([name, attribute]) => [
    ...(attribute.description.trim() === '' ? [`${prefix}.${name}`] : []),
    ...(attribute.nested === undefined ? [] : undescribed(attribute.nested.attributes, `${prefix}.${name}`)),
  ]);
}

test('every attribute of the provider, every resource and data source, and every function parameter has a description', () => {
  const missing = [
    ...(provider.schema.description.trim() === '' ? ['provider'] : []),
    ...undescribed(provider.schema.attributes, 'provider'),
    ...[...provider.resources, ...provider.dataSources].flatMap((object) => [
      ...(object.schema.description.trim() === '' ? [object.typeName] : []),
      ...undescribed(object.schema.attributes, object.typeName),
    ]),
    ...(provider.functions ?? []).flatMap((definition) => [
      ...(definition.description.trim() === '' || definition.summary.trim() === '' ? [`function ${definition.name}`] : []),
      ...definition.parameters.filter((parameter) => parameter.description.trim() === '').map((parameter) => `function ${definition.name}(${parameter.name})`),
    ]),
  ];
  expect(missing).toEqual([]);
});

test('docs/ and examples/ are what npm run registry-docs writes', () => {
  expect(staleRegistryDocs()).toEqual([]);
});

test('every resource, data source and function has its page, with frontmatter and the generated mark after it', () => {
  const expected = [
    'docs/index.md',
    ...provider.resources.map((resource) => `docs/resources/${resource.typeName.replace(/^svc_/, '')}.md`),
    ...provider.dataSources.map((dataSource) => `docs/data-sources/${dataSource.typeName.replace(/^svc_/, '')}.md`),
    ...(provider.functions ?? []).map((definition) => `docs/functions/${definition.name}.md`),
  ];
  expect(expected.filter((page) => !rendered.has(page))).toEqual([]);
  for (const [file, text] of rendered) {
    if (!file.endsWith('.md')) continue;
    const [, frontmatter, after] = /^---\n([\s\S]*?)\n---\n\n([^\n]*)\n/.exec(text) ?? [];
    expect([file, frontmatter]).toEqual([file, expect.stringMatching(/^page_title: ".+"\nsubcategory: ".*"\ndescription: \|-\n  \S/)]);
    expect([file, after]).toEqual([file, expect.stringContaining(GENERATED_MARK)]);
  }
  // Only the registry's pages are in docs/: the contributors' pages moved out.
  expect(fs.existsSync(path.join(REPOSITORY, 'docs', 'architecture.md'))).toBe(false);
});

test('a resource page shows its schema: required, optional, read-only, forces replacement, its example and import', () => {
  const page = rendered.get('docs/resources/blacklist_entry.md') ?? '';
  expect(page).toMatch(/### Required\n\n- `ip` \(String, Forces replacement\) /);
  expect(page).toMatch(/### Read-Only\n\n(- .*\n)*- `id` \(String\) /);
  expect(page).toContain(rendered.get('examples/resources/svc_blacklist_entry/resource.tf')?.split('\n').slice(1).join('\n').trimEnd());
  expect(page).toMatch(/## Import[\s\S]*terraform import svc_blacklist_entry\./);
  expect(page).not.toMatch(/\]\((?!https?:)[^)]*\.md/);
});

test('a nested attribute, or one of objects, gets its own schema section', () => {
  const holdsObjects = (attribute: AttributeSchema) => attribute.nested !== undefined || /"kind":"object"/.test(JSON.stringify(attribute.type));
  const nested = [...provider.resources, ...provider.dataSources].flatMap((object) =>
    Object.entries(object.schema.attributes)
      .filter(([, attribute]) => holdsObjects(attribute))
      .map(([name]) => ({ type: object.typeName, name, kind: provider.resources.includes(object as never) ? 'resources' : 'data-sources' })),
  );
  expect(nested.length).toBeGreaterThan(0);
  for (const { type, name, kind } of nested) {
    expect(rendered.get(`docs/${kind}/${type.replace(/^svc_/, '')}.md`)).toContain(`<a id="nestedatt--${name}"></a>\n### Nested Schema for \`${name}\``);
  }
  expect(rendered.get('docs/data-sources/list.md')).toMatch(/### Nested Schema for `entries`\n\nRead-Only:\n\n(- `\w+` \(\w+\)\n)*- `ip` \(String\)/);
});

describe('the examples pass terraform validate with the provider built from source', () => {
  let root: string;
  let build: TestProviderBuild;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-registry-examples-'));
    build = buildTestProvider();
  }, 120_000);
  afterAll(() => {
    build?.remove();
    if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
  });

  const directories = [...new Set([...rendered.keys()].filter((file) => file.startsWith('examples/') && file.endsWith('.tf')).map((file) => path.posix.dirname(file)))].sort();
  const requiredProviders = 'terraform {\n  required_providers {\n    svc = { source = "svc-prevent/svc" }\n  }\n}\n';

  test('there is an example for the provider, each resource, data source and function', () => {
    expect(directories).toEqual(
      [
        'examples/provider',
        ...provider.resources.map((resource) => `examples/resources/${resource.typeName}`),
        ...provider.dataSources.map((dataSource) => `examples/data-sources/${dataSource.typeName}`),
        ...(provider.functions ?? []).map((definition) => `examples/functions/${definition.name}`),
      ].sort(),
    );
  });

  test.each(directories)('%s', async (directory) => {
    const workspace = new Workspace({ dir: path.join(root, directory), cliConfigFile: build.cliConfigFile, trackChild: track });
    for (const file of fs.readdirSync(path.join(REPOSITORY, directory)).filter((name) => name.endsWith('.tf'))) {
      workspace.write(fs.readFileSync(path.join(REPOSITORY, directory, file), 'utf8'), file);
    }
    // The provider's own example declares it; the others are fragments of a configuration that does.
    if (directory !== 'examples/provider') workspace.write(requiredProviders, 'versions.tf');
    await workspace.init();
    const result = await workspace.validate();
    expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({ code: 0, output: expect.stringContaining('Success!') });
  }, 120_000);
});
