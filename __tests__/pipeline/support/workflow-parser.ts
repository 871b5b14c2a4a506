/**
 * @actions/workflow-parser (the parser GitHub's own tooling uses) for the tests. The package is
 * ESM that imports its JSON schema without an import attribute, which node refuses; esbuild
 * bundles it once per process into a CommonJS file in a temporary directory, removed at exit.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface WorkflowStep {
  readonly id: string;
  readonly name?: unknown;
  readonly uses?: unknown;
  readonly run?: unknown;
  readonly env?: unknown;
  readonly with?: unknown;
  readonly 'working-directory'?: unknown;
}

export interface WorkflowJob {
  readonly id: { readonly value: string };
  readonly if?: { readonly expr?: string };
  readonly env?: unknown;
  readonly steps: readonly WorkflowStep[];
}

export interface ParsedWorkflow {
  /** The parser's errors (schema, expressions), as it words them; empty for a valid workflow. */
  readonly errors: readonly string[];
  readonly events: Record<string, unknown>;
  readonly jobs: readonly WorkflowJob[];
}

interface ParserModule {
  parseWorkflow(file: { name: string; content: string }, trace: unknown): { context: { errors: { getErrors(): Array<{ message: string }> } }; value: unknown };
  convertWorkflowTemplate(context: unknown, value: unknown): Promise<{ events?: Record<string, unknown>; jobs?: WorkflowJob[]; errors?: Array<{ Message: string }> }>;
  NoOperationTraceWriter: new () => unknown;
}

let parser: ParserModule | undefined;

function loadParser(): ParserModule {
  if (parser !== undefined) return parser;
  const esbuild = require('esbuild') as typeof import('esbuild');
  const bundle = esbuild.buildSync({
    stdin: { contents: "export { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } from '@actions/workflow-parser';", resolveDir: path.join(__dirname, '..', '..', '..'), loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
  });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-parser-'));
  const file = path.join(directory, 'workflow-parser.cjs');
  fs.writeFileSync(file, bundle.outputFiles[0].text);
  process.once('exit', () => fs.rmSync(directory, { recursive: true, force: true }));
  parser = require(file) as ParserModule;
  return parser;
}

/** Parses and converts a workflow as GitHub would; `errors` lists what the parser refused. */
export async function parseGithubWorkflow(name: string, content: string): Promise<ParsedWorkflow> {
  const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = loadParser();
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((error) => error.message);
  if (errors.length > 0 || parsed.value === undefined) return { errors, events: {}, jobs: [] };
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return { errors: (template.errors ?? []).map((error) => error.Message), events: template.events ?? {}, jobs: template.jobs ?? [] };
}
