/**
 * The help pages are a contract with the user: every resource and data source the provider
 * registers has its page, and every page's argument and attribute tables name exactly the
 * attributes of the schema in code, with the same type, required/optional/computed and
 * replace behaviour, and a description that starts with the schema's own, word for word (the
 * page may add to it). A schema change without a page change fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { AttributeSchema, Schema, ValueType } from '../../src/provider/core';
import { SETTING_SOURCES } from '../../src/provider/context';
import { createSvcProvider } from '../../src/provider/provider';

const helpDirectory = path.join(__dirname, '..', '..', 'help');
const provider = createSvcProvider();

interface TableRow {
  readonly name: string;
  readonly cells: readonly string[];
}

interface DocumentedObject {
  readonly kind: 'resource' | 'data source';
  readonly typeName: string;
  readonly schema: Schema;
  readonly page: string;
}

const documentedObjects: readonly DocumentedObject[] = [
  ...provider.resources.map((resource) => ({
    kind: 'resource' as const,
    typeName: resource.typeName,
    schema: resource.schema,
    page: `resources/${resource.typeName}.md`,
  })),
  ...provider.dataSources.map((dataSource) => ({
    kind: 'data source' as const,
    typeName: dataSource.typeName,
    schema: dataSource.schema,
    page: `data-sources/${dataSource.typeName}.md`,
  })),
];

function readPage(page: string): string {
  return readFileSync(path.join(helpDirectory, page), 'utf8');
}

/** The text under `## <heading>` up to the next `## ` heading. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) return '';
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The cells of a table line; `\|` is a pipe inside a cell. */
function tableCells(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The rows of the tables in `text` whose first cell is a `code` name (headers and rules skipped). */
function tableRows(text: string): TableRow[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map(tableCells)
    .filter((cells) => /^`[^`]+`$/.test(cells[0] ?? ''))
    .map((cells) => ({ name: cells[0]!.slice(1, -1), cells }));
}

/** The page's description of an attribute (its last cell) starts with the schema's, word for word. */
function expectSchemaDescription(row: TableRow, attribute: AttributeSchema): void {
  if (attribute.description === '') return;
  const cell = row.cells[row.cells.length - 1]!;
  expect({ name: row.name, description: cell.slice(0, attribute.description.length) }).toEqual({ name: row.name, description: attribute.description });
}

/** How a page spells an attribute's type. */
function typeWords(type: ValueType): string {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return type.kind;
    case 'object':
      return 'object';
    case 'list':
    case 'set':
    case 'map':
      return `${type.kind} of ${type.element.kind === 'object' ? 'objects' : `${typeWords(type.element)}s`}`;
  }
}

function attributeTypeWords(attribute: AttributeSchema): string {
  if (attribute.nested === undefined) return typeWords(attribute.type);
  const { nesting } = attribute.nested;
  return nesting === 'single' ? 'object' : `${nesting} of objects`;
}

/** The members of an attribute holding objects (nested, or a list/set/map of objects), else undefined. */
function memberAttributes(attribute: AttributeSchema): Record<string, AttributeSchema> | undefined {
  if (attribute.nested !== undefined) return { ...attribute.nested.attributes };
  const type = attribute.type;
  const objectType = type.kind === 'object' ? type : 'element' in type && type.element.kind === 'object' ? type.element : undefined;
  if (objectType === undefined || objectType.kind !== 'object') return undefined;
  // Members of a computed object type carry only their type; they inherit "computed".
  return Object.fromEntries(
    Object.entries(objectType.attributes).map(([name, memberType]) => [
      name,
      { type: memberType, computed: true, description: '' } as AttributeSchema,
    ]),
  );
}

/** Every attribute with its documented name: `entries`, `entries.ip`, ... */
function flattenAttributes(attributes: Readonly<Record<string, AttributeSchema>>, prefix = ''): Map<string, AttributeSchema> {
  const flat = new Map<string, AttributeSchema>();
  for (const [name, attribute] of Object.entries(attributes)) {
    flat.set(prefix + name, attribute);
    const members = memberAttributes(attribute);
    if (members !== undefined) {
      for (const [memberName, member] of flattenAttributes(members, `${prefix}${name}.`)) flat.set(memberName, member);
    }
  }
  return flat;
}

/** Arguments are what a user may set; attributes are what only the provider sets. */
function isArgument(attribute: AttributeSchema): boolean {
  return attribute.required === true || attribute.optional === true;
}

function expectedPresence(attribute: AttributeSchema): string {
  if (attribute.required === true) return 'required';
  return attribute.computed === true ? 'optional, computed' : 'optional';
}

const resourceTypes = provider.resources.map((resource) => resource.typeName);
const dataSourceTypes = provider.dataSources.map((dataSource) => dataSource.typeName);

describe('help pages of the provider', () => {
  test('the provider registers the resources and data sources the user interface promises', () => {
    expect([...resourceTypes].sort()).toEqual(
      [
        'svc_blacklist',
        'svc_blacklist_entry',
        'svc_blocklist',
        'svc_blocklist_entry',
        'svc_channel_sso',
        'svc_tenant_sso',
        'svc_whitelist',
        'svc_whitelist_entry',
      ].sort(),
    );
    expect([...dataSourceTypes].sort()).toEqual(['svc_audit_events', 'svc_channel', 'svc_list', 'svc_tenant'].sort());
  });

  test.each(documentedObjects.map((object) => [object.typeName, object] as const))('%s has its page, titled by its type', (_typeName, object) => {
    expect(existsSync(path.join(helpDirectory, object.page))).toBe(true);
    const title = readPage(object.page).split('\n')[0];
    expect(title).toBe(object.kind === 'resource' ? `# ${object.typeName}` : `# ${object.typeName} (data source)`);
  });

  test('help/provider.md links the page of every resource and data source', () => {
    const overview = readPage('provider.md');
    const table = tableRows(section(overview, 'Resources and data sources'));
    expect(table.map((row) => row.name).sort()).toEqual(documentedObjects.map((object) => object.typeName).sort());
    for (const object of documentedObjects) {
      const row = table.find((candidate) => candidate.name === object.typeName)!;
      expect(row.cells).toEqual([`\`${object.typeName}\``, object.kind, `[${object.page}](${object.page})`]);
    }
  });

  test('every local link of every page points at a file that exists', () => {
    const pages = ['provider.md', ...documentedObjects.map((object) => object.page)];
    const broken: string[] = [];
    for (const page of pages) {
      for (const match of readPage(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const link = match[1]!;
        if (/^https?:/.test(link)) continue;
        if (!existsSync(path.join(helpDirectory, path.dirname(page), link))) broken.push(`${page} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('help/provider.md documents every provider configuration attribute with its type, env variable and description', () => {
    const rows = tableRows(section(readPage('provider.md'), 'Provider configuration'));
    const schemaAttributes = provider.schema.attributes;
    const envByAttribute = new Map<string, string>(Object.values(SETTING_SOURCES).map((source) => [source.attribute, source.env]));
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(schemaAttributes).sort());
    for (const row of rows) {
      const attribute = schemaAttributes[row.name]!;
      const expectedType = attributeTypeWords(attribute) + (attribute.sensitive === true ? ', sensitive' : '');
      const env = envByAttribute.get(row.name);
      expect({ name: row.name, type: row.cells[1], env: row.cells[2] }).toEqual({
        name: row.name,
        type: expectedType,
        env: env === undefined ? 'none' : `\`${env}\``,
      });
      expectSchemaDescription(row, attribute);
    }
  });

  describe.each(documentedObjects.map((object) => [object.typeName, object] as const))('%s', (_typeName, object) => {
    const markdown = existsSync(path.join(helpDirectory, object.page)) ? readPage(object.page) : '';
    const flat = flattenAttributes(object.schema.attributes);

    test('the argument reference names exactly the settable attributes, with type, presence and description', () => {
      const rows = tableRows(section(markdown, 'Argument reference'));
      const expected = [...flat].filter(([, attribute]) => isArgument(attribute)).map(([name]) => name);
      expect(rows.map((row) => row.name).sort()).toEqual(expected.sort());
      for (const row of rows) {
        const attribute = flat.get(row.name)!;
        expect({ name: row.name, type: row.cells[1], presence: row.cells[2] }).toEqual({
          name: row.name,
          type: attributeTypeWords(attribute),
          presence: expectedPresence(attribute),
        });
        expectSchemaDescription(row, attribute);
      }
    });

    test('the attribute reference names exactly the computed-only attributes, with type and description', () => {
      const rows = tableRows(section(markdown, 'Attribute reference'));
      const expected = [...flat].filter(([, attribute]) => !isArgument(attribute)).map(([name]) => name);
      expect(rows.map((row) => row.name).sort()).toEqual(expected.sort());
      for (const row of rows) {
        expect({ name: row.name, type: row.cells[1] }).toEqual({ name: row.name, type: attributeTypeWords(flat.get(row.name)!) });
        expectSchemaDescription(row, flat.get(row.name)!);
      }
    });

    if (object.kind === 'resource') {
      test('the change column says "replaces" exactly for attributes whose change replaces the resource', () => {
        const rows = tableRows(section(markdown, 'Argument reference'));
        for (const row of rows) {
          const replaces = flat.get(row.name)?.requiresReplace === true;
          expect({ name: row.name, change: row.cells[4] }).toEqual({ name: row.name, change: replaces ? 'replaces' : 'in place' });
        }
      });

      test('the page shows a terraform import command and an import block', () => {
        const importSection = section(markdown, 'Import');
        expect(importSection).toMatch(new RegExp(`terraform import ${object.typeName}\\.\\w+ \\S+`));
        expect(importSection).toMatch(new RegExp(`import \\{\\s+to = ${object.typeName}\\.\\w+\\s+id = "[^"]+"\\s+\\}`));
      });
    }

    test('the example uses the type', () => {
      const blockKind = object.kind === 'resource' ? 'resource' : 'data';
      expect(section(markdown, 'Example')).toContain(`${blockKind} "${object.typeName}"`);
    });
  });
});

describe('the Functions section of help/provider.md', () => {
  test('its table names every provider function with its parameters, in order, and its return type', () => {
    const rows = tableRows(section(readPage('provider.md'), 'Functions'));
    const functions = provider.functions ?? [];
    expect(functions.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.name).sort()).toEqual(
      functions.map((definition) => `${definition.name}(${definition.parameters.map((parameter) => parameter.name).join(', ')})`).sort(),
    );
    for (const definition of functions) {
      const row = rows.find((candidate) => candidate.name.startsWith(`${definition.name}(`))!;
      expect({ name: definition.name, returns: row.cells[1]!.split(':')[0] }).toEqual({ name: definition.name, returns: typeWords(definition.returnType) });
    }
  });
});
