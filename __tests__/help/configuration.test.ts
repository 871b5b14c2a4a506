/**
 * help/configuration.md documents exactly the fields the parsers accept and the environment
 * variables the code reads. The parsers refuse an unknown field with the list of the fields
 * they know ("unknown field; expected one of ..."); each table of the page is compared with
 * that list, so a field added to a parser without a row here (or a row for a field the parser
 * does not know) fails. The page's example file must parse, and the "required" column must say
 * which fields the parser cannot do without.
 */
import { AppConfigError, parseAppConfig } from '../../src/app/config';
import { codeBlocks, codeSpans, readPage, section, tableRows } from './support/markdown';
import { sourceStrings } from './support/source-text';

const PAGE = 'configuration.md';
const markdown = readPage(PAGE);
const FILE = 'svc.config.json';
const PROBE = 'zzHelpProbeField';

const minimalConfig = (): Record<string, any> => ({
  aws: { region: 'eu-west-1', accountId: '123456789012' },
  controlPlane: { TenantId: 'acme-corp' },
});

interface DocumentedField {
  readonly name: string;
  readonly required: boolean;
}

/** The rows of the table right under a heading (not its sub-headings): field name (a code span) and its "required" cell. */
function documentedFields(heading: string): DocumentedField[] {
  const own = section(markdown, heading).split(/^#/m)[0]!;
  return tableRows(own)
    .filter((cells) => /^`[^`]+`$/.test(cells[0] ?? ''))
    .map((cells) => ({ name: cells[0]!.slice(1, -1), required: cells[2] === 'yes' }));
}

/** The error the parser raises for `raw`, or undefined when it accepts it. */
function parseError(raw: unknown): Error | undefined {
  try {
    parseAppConfig(FILE, raw);
    return undefined;
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return error;
  }
}

/** The fields the parser knows at the place `withProbe` puts an unknown field, read from its refusal. */
function acceptedFields(withProbe: (probe: Record<string, unknown>) => unknown): string[] {
  const error = parseError(withProbe({ [PROBE]: true }));
  const match = /unknown field; expected one of (.+)$/.exec(error?.message ?? '');
  if (match === null) throw new Error(`the parser did not refuse the probe field with its list of known fields: ${error?.message ?? 'it accepted it'}`);
  return match[1]!.split(', ');
}

/**
 * Each table's object: where it sits in a configuration (`place` builds a configuration around
 * the object's fields) and the smallest object the parser accepts (exactly the required fields).
 */
interface ObjectTable {
  readonly heading: string;
  readonly place: (fields: Record<string, unknown>) => unknown;
  readonly smallest: Record<string, unknown>;
}

const OBJECT_TABLES: readonly ObjectTable[] = [
  { heading: 'Top level', place: (fields) => fields, smallest: minimalConfig() },
  { heading: 'securityPolicy', place: (fields) => ({ ...minimalConfig(), securityPolicy: fields }), smallest: {} },
  { heading: 'blacklist, blocklist, whitelist', place: (fields) => ({ ...minimalConfig(), securityPolicy: { blacklist: fields } }), smallest: {} },
  { heading: 'entries', place: (fields) => ({ ...minimalConfig(), securityPolicy: { whitelist: { entries: [fields] } } }), smallest: { ip: '192.0.2.1' } },
  { heading: 'tenantSso and channelSso', place: (fields) => ({ ...minimalConfig(), securityPolicy: { tenantSso: fields } }), smallest: { name: 'acme-corp', enabled: false } },
  {
    heading: 'allowControlPlaneEgress',
    place: (fields) => ({ ...minimalConfig(), securityPolicy: { allowControlPlaneEgress: fields } }),
    // natGatewayIds or vpcId: neither alone is required.
    smallest: { natGatewayIds: ['nat-0123456789abcdef0'] },
  },
];

describe('help/configuration.md and the config parsers agree', () => {
  test.each(OBJECT_TABLES.map((table) => [table.heading, table] as const))('the "%s" table names exactly the fields the parser accepts there', (heading, table) => {
    const documented = documentedFields(heading).map((field) => field.name);
    const accepted = acceptedFields((probe) => table.place({ ...table.smallest, ...probe }));
    expect({ heading, fields: [...documented].sort() }).toEqual({ heading, fields: [...accepted].sort() });
  });

  // "yes": the parser refuses the object without the field, naming it; "no": it accepts the object without it.
  test.each(OBJECT_TABLES.map((table) => [table.heading, table] as const))('the "required" column of "%s" matches the parser', (heading, table) => {
    expect(parseError(table.place(table.smallest))).toBeUndefined();
    const documented = documentedFields(heading);
    const required = documented.filter((field) => field.required).map((field) => field.name);
    const alternatives = heading === 'allowControlPlaneEgress' ? ['natGatewayIds'] : [];
    expect({ heading, required: [...required].sort() }).toEqual({ heading, required: Object.keys(table.smallest).filter((name) => !alternatives.includes(name)).sort() });
    for (const name of required) {
      const { [name]: _left, ...without } = table.smallest;
      const error = parseError(table.place(without));
      expect({ heading, field: name, error: error?.message.includes(name) ?? false }).toEqual({ heading, field: name, error: true });
    }
  });

  test('channelSso items take the same fields as tenantSso', () => {
    const channel = acceptedFields((probe) => ({ ...minimalConfig(), securityPolicy: { channelSso: [{ name: 'main', enabled: false, ...probe }] } }));
    expect([...channel].sort()).toEqual(documentedFields('tenantSso and channelSso').map((field) => field.name).sort());
  });

  test('the "aws" table names exactly what the parser keeps of aws', () => {
    const parsed = parseAppConfig(FILE, minimalConfig());
    expect(documentedFields('aws').map((field) => field.name).sort()).toEqual(Object.keys(parsed.aws).sort());
  });

  test('aws.region and aws.accountId are required, and an error names them', () => {
    for (const field of documentedFields('aws')) {
      const config = minimalConfig();
      delete config.aws[field.name];
      const error = parseError(config);
      expect({ field: field.name, error: error instanceof AppConfigError ? error.field : error?.message }).toEqual({ field: field.name, error: `aws.${field.name}` });
    }
  });

  test('the example file on the page parses', () => {
    const example = codeBlocks(PAGE).find((block) => block.language === 'json' && block.code.includes('"securityPolicy"'));
    expect(example).toBeDefined();
    const parsed = parseAppConfig(FILE, JSON.parse(example!.code));
    expect(parsed.securityPolicy?.channelSso?.[0]?.name).toBe('main');
  });
});

describe('help/configuration.md names exactly the environment variables the app and the provider read', () => {
  const documented = tableRows(section(markdown, 'Environment variables'))
    .map((cells) => codeSpans(cells[0] ?? '')[0])
    .filter((name): name is string => name !== undefined);

  // The code a user's configuration reaches: the app, its constructs, the provider.
  const sources = sourceStrings(['main.ts', 'src/app', 'modules', 'src/provider']);
  const variableName = /\b(SVC_[A-Z][A-Z_]*[A-Z]|TF_VAR_[a-z_]+)\b/g;
  const read = new Set<string>();
  for (const source of sources) {
    for (const text of [...source.literals, ...source.envProperties]) for (const match of text.matchAll(variableName)) read.add(match[1]!);
  }

  test('every documented variable appears in the code', () => {
    expect(documented.filter((name) => !read.has(name))).toEqual([]);
  });

  test('every SVC_* or TF_VAR_* variable the code names is documented', () => {
    expect([...read].filter((name) => !documented.includes(name)).sort()).toEqual([]);
  });
});
