/**
 * The svc bindings (modules/svc-provider) agree with the provider's schema, checked twice:
 * - the generator's output equals the committed files (a schema change without
 *   `npm run bindings` fails here), and the generator's --check logic reports what differs;
 * - independently of the generator: each binding, synthesized with every settable attribute,
 *   produces exactly the schema's settable attribute names with values of the schema's types,
 *   and every attribute has a getter resolving to its terraform reference. So a hand-edited or
 *   stale binding fails even if the generator were wrong the same way.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Fn, TerraformDataSource, TerraformOutput, TerraformResource, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import type { Construct } from 'constructs';
import type { AttributeSchema, Schema } from '../../src/provider/core/schema';
import { createSvcProvider } from '../../src/provider/provider';
import { SensitiveLiteralValueError, SvcProvider } from '../../modules/svc-provider/provider';
import { BindingsError, GENERATED_HEADER_FIRST_LINE, compareBindings, main, renderBindings, versionConstraintOf, writeBindings } from '../../scripts/generate-bindings';

const REPOSITORY = path.resolve(__dirname, '..', '..');
const BINDINGS_DIRECTORY = path.join(REPOSITORY, 'modules', 'svc-provider');
const provider = createSvcProvider({ env: {} });
const packageVersion = (JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as { version: string }).version;

let temporaryRoot: string;
beforeAll(() => {
  temporaryRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bindings-'));
});
afterAll(() => fs.rmSync(temporaryRoot, { recursive: true, force: true }));

function newStack(name: string): TerraformStack {
  const app = new App({ outdir: fs.mkdtempSync(path.join(temporaryRoot, `${name}-`)) });
  return new TerraformStack(app, name);
}

// ---- the generator and the committed files -----------------------------------------------------

describe('the committed bindings are what the generator writes from the schema', () => {
  test('no file differs, is missing or is left over (fix: run `npm run bindings`)', () => {
    const differences = compareBindings(renderBindings(), REPOSITORY);
    expect(differences.map(({ path: file, problem }) => `${file}: ${problem}; run \`npm run bindings\``)).toEqual([]);
  });

  test('every file says in its first line that it is generated', () => {
    const files = fs.readdirSync(BINDINGS_DIRECTORY).filter((name) => name.endsWith('.ts'));
    expect(files.filter((name) => !fs.readFileSync(path.join(BINDINGS_DIRECTORY, name), 'utf8').startsWith(GENERATED_HEADER_FIRST_LINE))).toEqual([]);
  });

  test('rendering twice gives the same text (deterministic)', () => {
    expect(renderBindings()).toEqual(renderBindings());
  });
});

describe('the --check logic', () => {
  test.each([
    ['a hand-edited file', 'differs', (root: string, file: string) => fs.appendFileSync(path.join(root, file), '// edited\n')],
    ['a deleted file', 'missing', (root: string, file: string) => fs.rmSync(path.join(root, file))],
    [
      'a generated file the schema no longer produces',
      'not generated any more',
      (root: string) => fs.writeFileSync(path.join(root, 'modules/svc-provider/old-resource.ts'), `${GENERATED_HEADER_FIRST_LINE}\n`),
    ],
  ] as const)('reports %s as %s', (_name, problem, damage) => {
    const root = fs.mkdtempSync(path.join(temporaryRoot, 'check-'));
    const rendered = renderBindings();
    writeBindings(rendered, root);
    expect(compareBindings(rendered, root)).toEqual([]);
    damage(root, 'modules/svc-provider/blacklist.ts');
    const expectedPath = problem === 'not generated any more' ? 'modules/svc-provider/old-resource.ts' : 'modules/svc-provider/blacklist.ts';
    expect(compareBindings(rendered, root)).toEqual([{ path: expectedPath, problem }]);
    writeBindings(rendered, root);
    expect(compareBindings(rendered, root)).toEqual([]);
  });

  test('a file without the generated header in the directory is left alone', () => {
    const root = fs.mkdtempSync(path.join(temporaryRoot, 'check-'));
    const rendered = renderBindings();
    writeBindings(rendered, root);
    fs.writeFileSync(path.join(root, 'modules/svc-provider/hand-written.ts'), 'export const x = 1;\n');
    expect(compareBindings(rendered, root)).toEqual([]);
  });

  test('the CLI exits 0 with --check on the committed files and rejects unknown arguments', () => {
    const lines: string[] = [];
    expect(main(['--check'], (line) => lines.push(line))).toBe(0);
    expect(lines.join('\n')).toContain('match the provider');
    expect(() => main(['--write-everything'], () => undefined)).toThrow(expect.objectContaining({ code: 'cli_usage' }) as BindingsError);
  });

  test.each([
    ['0.1.0', '~> 0.1'],
    ['1.12.3', '~> 1.12'],
    ['2.0.0-rc.1', '~> 2.0'],
  ])('version %s gives the constraint %s', (version, constraint) => {
    expect(versionConstraintOf(version)).toBe(constraint);
  });

  test('a version that is not semantic is an invalid_version error naming it', () => {
    expect(() => versionConstraintOf('latest')).toThrow(expect.objectContaining({ code: 'invalid_version', message: expect.stringContaining('"latest"') }) as BindingsError);
  });
});

// ---- the bindings, independently of the generator ----------------------------------------------

type BindingClass = (new (scope: Construct, id: string, config: Record<string, unknown>) => TerraformResource | TerraformDataSource) & {
  readonly tfResourceType: string;
};

/** Every exported binding class in modules/svc-provider, by `<type>` or `data.<type>`. */
function loadBindingClasses(): Map<string, { file: string; className: string; binding: BindingClass }> {
  const found = new Map<string, { file: string; className: string; binding: BindingClass }>();
  for (const file of fs.readdirSync(BINDINGS_DIRECTORY).filter((name) => name.endsWith('.ts')).sort()) {
    const exported = require(path.join(BINDINGS_DIRECTORY, file)) as Record<string, unknown>;
    for (const [className, value] of Object.entries(exported)) {
      if (typeof value !== 'function') continue;
      const prototype = (value as { prototype: unknown }).prototype;
      const isResource = prototype instanceof TerraformResource;
      if (!isResource && !(prototype instanceof TerraformDataSource)) continue;
      const binding = value as BindingClass;
      found.set(isResource ? binding.tfResourceType : `data.${binding.tfResourceType}`, { file, className, binding });
    }
  }
  return found;
}

const bindingClasses = loadBindingClasses();
const schemaObjects: Array<[string, Schema]> = [
  ...provider.resources.map((resource): [string, Schema] => [resource.typeName, resource.schema]),
  ...provider.dataSources.map((dataSource): [string, Schema] => [`data.${dataSource.typeName}`, dataSource.schema]),
];

const camelCase = (snake: string) => snake.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
const isSettable = (attribute: AttributeSchema) => attribute.required === true || attribute.optional === true;

/** A literal of the attribute's type, distinct per attribute so a swapped mapping shows. */
function sampleValue(name: string, attribute: AttributeSchema): unknown {
  const kind = attribute.type?.kind;
  if (kind === 'string') return `value of ${name}`;
  if (kind === 'number') return name.length;
  if (kind === 'bool') return true;
  if (kind === 'map' && attribute.type?.kind === 'map' && attribute.type.element.kind === 'string') return { '192.0.2.1': `description in ${name}`, '2001:db8::/32': '' };
  throw new Error(`no sample value for ${name} (${JSON.stringify(attribute.type ?? attribute.nested)}): extend sampleValue in this test`);
}

describe('the contract table: file, class and terraform type of each binding', () => {
  const CONTRACT: Array<[string, string, string]> = [
    ['blacklist-entry.ts', 'BlacklistEntry', 'svc_blacklist_entry'],
    ['blocklist-entry.ts', 'BlocklistEntry', 'svc_blocklist_entry'],
    ['whitelist-entry.ts', 'WhitelistEntry', 'svc_whitelist_entry'],
    ['blacklist.ts', 'Blacklist', 'svc_blacklist'],
    ['blocklist.ts', 'Blocklist', 'svc_blocklist'],
    ['whitelist.ts', 'Whitelist', 'svc_whitelist'],
    ['tenant-sso.ts', 'TenantSso', 'svc_tenant_sso'],
    ['channel-sso.ts', 'ChannelSso', 'svc_channel_sso'],
    ['data-svc-list.ts', 'DataSvcList', 'data.svc_list'],
    ['data-svc-audit-events.ts', 'DataSvcAuditEvents', 'data.svc_audit_events'],
    ['data-svc-tenant.ts', 'DataSvcTenant', 'data.svc_tenant'],
    ['data-svc-channel.ts', 'DataSvcChannel', 'data.svc_channel'],
  ];

  test('there is exactly one binding per resource and data source of the provider', () => {
    expect([...bindingClasses.keys()].sort()).toEqual(schemaObjects.map(([key]) => key).sort());
  });

  test.each(CONTRACT)('%s exports %s for %s', (file, className, key) => {
    expect(bindingClasses.get(key)).toEqual({ file, className, binding: expect.any(Function) });
  });
});

describe.each(schemaObjects)('%s', (key, schema) => {
  const isData = key.startsWith('data.');
  const terraformType = key.replace(/^data\./, '');

  function synthesizeWithEverySetting(): Record<string, unknown> {
    const { binding } = bindingClasses.get(key)!;
    const config = Object.fromEntries(
      Object.entries(schema.attributes)
        .filter(([, attribute]) => isSettable(attribute))
        .map(([name, attribute]) => [camelCase(name), sampleValue(name, attribute)]),
    );
    const stack = newStack('subject');
    new SvcProvider(stack, 'svc');
    new binding(stack, 'subject', config);
    const synthesized = JSON.parse(Testing.synth(stack)) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const block = (isData ? synthesized.data : synthesized.resource)?.[terraformType]?.subject;
    if (block === undefined) throw new Error(`the binding of ${key} synthesized no ${isData ? 'data' : 'resource'} "${terraformType}" "subject"`);
    return block;
  }

  test('tfResourceType is the terraform type name', () => {
    expect(bindingClasses.get(key)!.binding.tfResourceType).toBe(terraformType);
  });

  test('with every settable attribute set, it synthesizes exactly those attributes, snake_case, with the values given', () => {
    const expected = Object.fromEntries(
      Object.entries(schema.attributes)
        .filter(([, attribute]) => isSettable(attribute))
        .map(([name, attribute]) => [name, sampleValue(name, attribute)]),
    );
    expect(synthesizeWithEverySetting()).toEqual(expected);
  });

  test('every attribute of the schema has a getter that resolves to its terraform reference', () => {
    const { binding } = bindingClasses.get(key)!;
    const stack = newStack('getters');
    new SvcProvider(stack, 'svc');
    const config = Object.fromEntries(
      Object.entries(schema.attributes)
        .filter(([, attribute]) => attribute.required === true)
        .map(([name, attribute]) => [camelCase(name), sampleValue(name, attribute)]),
    );
    const instance = new binding(stack, 'subject', config) as unknown as Record<string, unknown>;
    for (const name of Object.keys(schema.attributes)) new TerraformOutput(stack, name, { value: instance[camelCase(name)] });
    const synthesized = JSON.parse(Testing.synth(stack)) as { output: Record<string, { value: unknown }> };
    const prefix = isData ? `data.${terraformType}.subject` : `${terraformType}.subject`;
    expect(synthesized.output).toEqual(Object.fromEntries(Object.keys(schema.attributes).map((name) => [name, { value: `\${${prefix}.${name}}` }])));
  });
});

describe('SvcProvider', () => {
  test('with every setting, the provider block has exactly the schema attributes and the alias', () => {
    const stack = newStack('provider');
    // A sensitive setting takes tokens only (see 'sensitive settings' below): one that resolves to the sample.
    const settings = Object.fromEntries(
      Object.entries(provider.schema.attributes).map(([name, attribute]) => {
        const sample = sampleValue(name, attribute);
        return [camelCase(name), attribute.sensitive === true ? Token.asString({ resolve: () => sample }) : sample];
      }),
    );
    new SvcProvider(stack, 'svc', { ...settings, alias: 'second' });
    const synthesized = JSON.parse(Testing.synth(stack)) as { provider: { svc: Array<Record<string, unknown>> }; terraform: unknown };
    const expected = Object.fromEntries(Object.entries(provider.schema.attributes).map(([name, attribute]) => [name, sampleValue(name, attribute)]));
    expect(synthesized.provider.svc).toEqual([{ ...expected, alias: 'second' }]);
  });

  test('required_providers names the source svc-prevent/svc and a constraint from package.json', () => {
    const stack = newStack('provider');
    new SvcProvider(stack, 'svc');
    const synthesized = JSON.parse(Testing.synth(stack)) as { terraform: unknown; provider: unknown };
    expect(synthesized).toEqual({
      terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: versionConstraintOf(packageVersion) } } },
      provider: { svc: [{}] },
    });
  });

  test('the sensitive api_key is documented as sensitive and has no default', () => {
    expect(provider.schema.attributes.api_key?.sensitive).toBe(true);
    const source = fs.readFileSync(path.join(BINDINGS_DIRECTORY, 'provider.ts'), 'utf8');
    const apiKeyDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*readonly apiKey\?: string;/.exec(source);
    expect(apiKeyDoc?.[1]).toContain('Sensitive');
    expect(new SvcProvider(newStack('provider'), 'svc').apiKey).toBeUndefined();
  });
});

describe('sensitive settings: a literal never reaches cdk.tf.json', () => {
  const LITERAL_KEY = 'literal-api-key-from-process-env';
  const sensitiveSettings = Object.entries(provider.schema.attributes).filter(([, attribute]) => attribute.sensitive === true);

  test('the schema has sensitive settings to guard (api_key)', () => {
    expect(sensitiveSettings.map(([name]) => name)).toEqual(['api_key']);
  });

  test.each([
    ['in the config', (stack: TerraformStack, property: string) => new SvcProvider(stack, 'svc', { [property]: LITERAL_KEY })],
    ['through the setter', (stack: TerraformStack, property: string) => {
      const svc = new SvcProvider(stack, 'svc') as unknown as Record<string, unknown>;
      svc[property] = LITERAL_KEY;
    }],
  ])('a literal value %s is a sensitive_literal_value error naming the setting and the fix, never the value', (_name, give) => {
    for (const [name] of sensitiveSettings) {
      const stack = newStack('sensitive');
      let thrown: unknown;
      try {
        give(stack, camelCase(name));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SensitiveLiteralValueError);
      const error = thrown as SensitiveLiteralValueError;
      expect(error).toMatchObject({ code: 'sensitive_literal_value', owner: 'SvcProvider', setting: camelCase(name) });
      expect(error.message).toContain(`${camelCase(name)} is a literal value`);
      expect(error.message).toContain(`TF_VAR_${name}`);
      expect(error.message).toContain('SVC_API_KEY');
      expect(error.message).not.toContain(LITERAL_KEY);
    }
  });

  test.each([
    ['joined to a reference, in the config', (stack: TerraformStack, variable: TerraformVariable) => new SvcProvider(stack, 'svc', { apiKey: `${LITERAL_KEY}${variable.stringValue}` })],
    ['joined to a reference, through the setter', (stack: TerraformStack, variable: TerraformVariable) => {
      new SvcProvider(stack, 'svc').apiKey = `${variable.stringValue}:${LITERAL_KEY}`;
    }],
  ])('a literal %s is refused at once, never quoted', (_name, give) => {
    const stack = newStack('sensitive');
    const variable = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
    let thrown: unknown;
    try {
      give(stack, variable);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SensitiveLiteralValueError);
    expect(thrown).toMatchObject({ code: 'sensitive_literal_value', form: 'expression with literal text' });
    expect((thrown as Error).message).toContain('apiKey is an expression with literal text in it');
    expect((thrown as Error).message).not.toContain(LITERAL_KEY);
  });

  /** Synthesizes a fresh app (validations included) and returns the error and every file it wrote. */
  function synthesizeWith(give: (stack: TerraformStack) => void): { error: string | undefined; written: string } {
    const outdir = fs.mkdtempSync(path.join(temporaryRoot, 'synth-'));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'guarded');
    give(stack);
    let error: string | undefined;
    try {
      app.synth();
    } catch (caught) {
      error = (caught as Error).message;
    }
    const files = fs.readdirSync(outdir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const written = files.map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8')).join('\n');
    return { error, written };
  }

  test.each([
    ['Fn.trimspace(literal)', (stack: TerraformStack) => new SvcProvider(stack, 'svc', { apiKey: Fn.trimspace(LITERAL_KEY) })],
    ['Fn.join over a literal and a variable', (stack: TerraformStack) => {
      const variable = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
      new SvcProvider(stack, 'svc', { apiKey: Fn.join('', [LITERAL_KEY, variable.stringValue]) });
    }],
    ['Fn.trimspace(literal) through the setter', (stack: TerraformStack) => {
      new SvcProvider(stack, 'svc').apiKey = Fn.trimspace(LITERAL_KEY);
    }],
  ])('a function over a literal (%s) fails synth before cdk.tf.json is written, naming the setting only', (_name, give) => {
    const { error, written } = synthesizeWith(give);
    expect(error).toContain('[guarded/svc] SvcProvider: apiKey is an expression with literal text in it');
    expect(error).not.toContain(LITERAL_KEY);
    expect(written).not.toContain(LITERAL_KEY);
  });

  test.each([
    ['Fn.trimspace(variable)', (variable: TerraformVariable) => Fn.trimspace(variable.stringValue), '${trimspace(var.api_key)}'],
    ['a key of a JSON secret', (variable: TerraformVariable) => Fn.lookup(Fn.jsondecode(variable.stringValue), 'api_key'), '${jsondecode(var.api_key).api_key}'],
    ['a key in quotes of a JSON secret', (variable: TerraformVariable) => Fn.lookup(Fn.jsondecode(variable.stringValue), 'api-key'), '${jsondecode(var.api_key)["api-key"]}'],
  ])('functions over references pass: %s', (_name, make, expected) => {
    let variable: TerraformVariable | undefined;
    const { error, written } = synthesizeWith((stack) => {
      variable = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
      new SvcProvider(stack, 'svc', { apiKey: make(variable) });
    });
    expect(error).toBeUndefined();
    expect(variable).toBeDefined();
    expect(written).toContain(JSON.stringify(expected));
  });

  test('the value of a sensitive TerraformVariable is written as a reference; unset is left out', () => {
    const stack = newStack('sensitive');
    const variable = new TerraformVariable(stack, 'api_key', { type: 'string', sensitive: true });
    new SvcProvider(stack, 'svc', { apiKey: variable.stringValue });
    new SvcProvider(stack, 'unset', { alias: 'unset' });
    const synthesized = JSON.parse(Testing.synth(stack)) as { provider: { svc: Array<Record<string, unknown>> } };
    expect(synthesized.provider.svc).toEqual([{ api_key: '${var.api_key}' }, { alias: 'unset' }]);
  });
});
