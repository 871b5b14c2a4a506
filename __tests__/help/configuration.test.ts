/**
 * help/configuration.md documents exactly the fields the parsers accept and the environment
 * variables the code reads. The parsers refuse an unknown field with the list of the fields
 * they know ("unknown field; expected one of ..."); each table of the page is compared with
 * that list, so a field added to a parser without a row here (or a row for a field the parser
 * does not know) fails. The page's example file must parse, and the "required" column must say
 * which fields the parser cannot do without.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PolicyFileError, loadPolicyEntryFile } from '../../modules/security-policy';
import { AppConfigError, parseAppConfig } from '../../app/config';
import { codeBlocks, codeSpans, readPage, repositoryRoot, section, tableRows } from './support/markdown';
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
  { heading: 'containers', place: (fields) => ({ ...minimalConfig(), containers: { analyzer: fields } }), smallest: {} },
  { heading: 'healthCheck', place: (fields) => ({ ...minimalConfig(), containers: { otel: { healthCheck: fields } } }), smallest: {} },
  { heading: 'securityPolicy', place: (fields) => ({ ...minimalConfig(), securityPolicy: fields }), smallest: {} },
  { heading: 'blacklist, blocklist, whitelist', place: (fields) => ({ ...minimalConfig(), securityPolicy: { blacklist: fields } }), smallest: {} },
  { heading: 'entries', place: (fields) => ({ ...minimalConfig(), securityPolicy: { whitelist: { entries: [fields] } } }), smallest: { ip: '192.0.2.1' } },
  { heading: 'tenantSso and channelSso', place: (fields) => ({ ...minimalConfig(), securityPolicy: { tenantSso: fields } }), smallest: { name: 'acme-corp', enabled: false } },
  { heading: 'acknowledge', place: (fields) => ({ ...minimalConfig(), securityPolicy: { acknowledge: [fields] } }), smallest: { rule: 'SVC-POLICY-3', reason: 'accepted' } },
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
  const sources = sourceStrings(['main.ts', 'app', 'src/pipeline', 'modules', 'src/provider']);
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

describe('the entry files and entry-file errors the pages show are real', () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-help-entry-files-'));
  });
  afterAll(() => {
    fs.rmSync(directory, { recursive: true, force: true });
  });

  test('the YAML and JSON examples of "Entry files" load', () => {
    const examples = codeBlocks(PAGE).filter((block) => block.section === 'Entry files' && (block.language === 'yaml' || block.language === 'json'));
    expect(examples.map((block) => block.language).sort()).toEqual(['json', 'yaml']);
    for (const [index, block] of examples.entries()) {
      const file = path.join(directory, `example-${index}.${block.language}`);
      fs.writeFileSync(file, block.code);
      expect({ language: block.language, entries: loadPolicyEntryFile(file).length }).toEqual({ language: block.language, entries: expect.any(Number) });
      expect(loadPolicyEntryFile(file).length).toBeGreaterThan(1);
    }
  });

  /** The message loading `text` (saved as `name` in the temp directory) raises. */
  function loadError(name: string, text: string): string {
    const file = path.join(directory, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    try {
      loadPolicyEntryFile(file);
    } catch (error) {
      if (!(error instanceof PolicyFileError)) throw error;
      return error.message;
    }
    throw new Error(`${name} loaded without an error`);
  }

  test('configuration.md\'s bad-entry message is what a bad third entry on line 7 gives', () => {
    const quotedMessage = /`policy\/blacklist\.yaml:7: (entries\[2\]\.ip: "10\.0\.0\.300" is not an IPv4 or IPv6 address) \.\.\.`/.exec(markdown);
    expect(quotedMessage).not.toBeNull();
    const text = ['entries:', '  - ip: 203.0.113.9', '    description: a', '  - ip: 198.51.100.0/24', '    description: b', '  - description: c', '    ip: 10.0.0.300', ''].join('\n');
    expect(loadError('policy/blacklist.yaml', text)).toContain(`blacklist.yaml:7: ${quotedMessage![1]}`);
  });

  test('getting-started.md\'s typo in the appended entry is reported at the line and index it quotes', () => {
    const gettingStarted = readPage('getting-started.md');
    const quotedMessage = /`policy\/blacklist\.yaml:(\d+): (entries\[\d+\]\.ip: "192\.0\.2\.300" is not an IPv4\s+or IPv6 address) \.\.\.`/.exec(gettingStarted);
    expect(quotedMessage).not.toBeNull();
    const appended = /cat >> policy\/blacklist\.yaml <<'YAML'\n([\s\S]*?)YAML\n/.exec(gettingStarted)![1]!;
    const shipped = fs.readFileSync(path.join(repositoryRoot, 'policy', 'blacklist.yaml'), 'utf8');
    const message = loadError('typo/policy/blacklist.yaml', shipped + appended.replace('192.0.2.200', '192.0.2.300'));
    expect(message).toContain(`blacklist.yaml:${quotedMessage![1]}: ${quotedMessage![2]!.replace(/\s+/g, ' ')}`);
  });
});
