/**
 * The TypeScript of help/ is real code: every ```ts block type-checks, as a user's file that
 * imports the package's entry points (`svc-prevent/security-policy`, resolved to this
 * repository's sources), against the modules as they are now (the svc bindings, SecurityPolicy,
 * ControlPlane, the client) with the repository's strict compiler options. The CDKTF example of
 * each resource and data-source page also runs: it synthesizes, the stack holds the page's
 * type, and `terraform validate` accepts the synthesized JSON with the provider as built.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { useAcceptanceHarness } from '../provider-acceptance/support/harness';
import type { Workspace } from '../../scripts/terraform-harness/workspace';
import { section } from './support/markdown';
import { typeCheckExamples, typeScriptExamples, writeRunnable, type TypeScriptExample } from './support/typescript-examples';

jest.setTimeout(120_000);

const examples = typeScriptExamples();

interface SynthesizedStack {
  terraform: { backend?: unknown; required_providers: Record<string, { source: string } | undefined> };
  resource?: Record<string, unknown>;
  data?: Record<string, unknown>;
}
const CDKTF_SECTION = 'CDKTF (TypeScript)';

interface ObjectPage {
  readonly page: string;
  /** `resource.svc_blacklist` or `data.svc_list`: where the synthesized JSON holds it. */
  readonly kind: 'resource' | 'data';
  readonly typeName: string;
}

const objectPages: ObjectPage[] = [
  ...fs.readdirSync(path.join(__dirname, '..', '..', 'help', 'resources')).map((file) => ({ page: `resources/${file}`, kind: 'resource' as const, typeName: file.replace(/\.md$/, '') })),
  ...fs.readdirSync(path.join(__dirname, '..', '..', 'help', 'data-sources')).map((file) => ({ page: `data-sources/${file}`, kind: 'data' as const, typeName: file.replace(/\.md$/, '') })),
].filter((object) => object.page.endsWith('.md'));

/** The ```ts blocks inside the page's "CDKTF (TypeScript)" section. */
function cdktfExamples(object: ObjectPage): TypeScriptExample[] {
  const markdown = fs.readFileSync(path.join(__dirname, '..', '..', 'help', object.page), 'utf8');
  const body = section(markdown, CDKTF_SECTION);
  if (body === '') return [];
  const start = markdown.indexOf(body);
  const blockLineMin = markdown.slice(0, start).split('\n').length;
  const blockLineMax = blockLineMin + body.split('\n').length;
  return examples.filter((example) => example.page === object.page && example.line >= blockLineMin && example.line <= blockLineMax);
}

describe('the ```ts blocks of help/ type-check against the real modules', () => {
  test('there are examples to check', () => {
    expect(examples.length).toBeGreaterThan(objectPages.length);
  });

  test('they import the library as a user does, through the package\'s entry points, never a path of this repository', () => {
    const relative = examples.flatMap((example) =>
      [...example.code.matchAll(/from\s+['"](\.[^'"]*)['"]/g)].map((match) => `help/${example.page}, block at line ${example.line}: ${match[1]}`),
    );
    expect(relative).toEqual([]);
    expect(examples.filter((example) => /from\s+'svc-prevent\/security-policy'/.test(example.code)).length).toBeGreaterThan(0);
  });

  test('no compiler errors', () => {
    expect(typeCheckExamples(examples)).toEqual([]);
  });
});

describe('the CDKTF example of every resource and data-source page synthesizes and validates', () => {
  const harness = useAcceptanceHarness({ tenants: ['help-cdktf'] });
  let workspace: Workspace;
  let scratch: string;

  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-help-cdktf-'));
    workspace = harness().createWorkspace('help-cdktf');
  });

  afterAll(() => {
    delete process.env.CDKTF_OUTDIR;
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const cases: Array<[string, ObjectPage, TypeScriptExample | undefined]> = objectPages.flatMap((object): Array<[string, ObjectPage, TypeScriptExample | undefined]> => {
    const found = cdktfExamples(object);
    if (found.length === 0) return [[`${object.page} (no CDKTF example)`, object, undefined]];
    return found.map((example): [string, ObjectPage, TypeScriptExample | undefined] => [`${object.page}, block at line ${example.line}`, object, example]);
  });

  test.each(cases)('%s', async (name: string, object: ObjectPage, example: TypeScriptExample | undefined) => {
    expect({ page: object.page, hasCdktfExample: example !== undefined }).toEqual({ page: object.page, hasCdktfExample: true });
    const label = `${object.typeName}-${example!.line}`;
    const outdir = path.join(scratch, label);
    process.env.CDKTF_OUTDIR = outdir;
    require(writeRunnable(example!, scratch, label));
    const stacksDirectory = path.join(outdir, 'stacks');
    const synthesized = fs
      .readdirSync(stacksDirectory)
      .map((stack) => JSON.parse(fs.readFileSync(path.join(stacksDirectory, stack, 'cdk.tf.json'), 'utf8')) as SynthesizedStack);
    const withType = synthesized.filter((stack) => stack[object.kind]?.[object.typeName] !== undefined);
    expect({ example: name, stacksWithType: withType.length }).toEqual({ example: name, stacksWithType: 1 });
    const stack = withType[0]!;
    expect(stack.terraform.required_providers.svc?.source).toBe('svc-prevent/svc');
    // The backend block points into the synth directory; validate needs only the configuration.
    delete stack.terraform.backend;
    workspace.write(JSON.stringify(stack, null, 2), 'main.tf.json');
    await workspace.init();
    const result = await workspace.validate();
    expect({ example: name, code: result.code, output: result.stdout + result.stderr }).toEqual({
      example: name,
      code: 0,
      output: expect.stringContaining('Success!'),
    });
  });
});
