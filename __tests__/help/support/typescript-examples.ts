/**
 * The ```ts blocks of help/ as programs: each is a complete file as a user of the package would
 * write it (imports like `svc-prevent/security-policy`), type-checked in memory against the
 * real modules with the repository's compiler options, and, for running, transpiled to
 * CommonJS with its imports pointed at the repository. `svc-prevent/<entry>` resolves, for
 * both, to the source of that entry point of package.json's exports (scripts/api-report.ts's
 * entryPoints), so an example can import only what the package exports.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { codeBlocks, helpPages, repositoryRoot, type CodeBlock } from './markdown';
import { entryPoints } from '../../../scripts/api-report';

/** `svc-prevent/security-policy` -> the absolute path of its source, `modules/security-policy/index.ts`. */
function packageEntrySources(): Map<string, string> {
  return new Map(entryPoints().map((entry) => [entry.specifier, path.join(repositoryRoot, entry.source)]));
}

export interface TypeScriptExample extends CodeBlock {
  /** Where the example is checked as if saved: a file in the repository's root (never written). */
  readonly virtualFile: string;
}

export function typeScriptExamples(): TypeScriptExample[] {
  return helpPages().flatMap((page) =>
    codeBlocks(page)
      .filter((block) => block.language === 'ts' || block.language === 'typescript')
      .map((block) => ({
        ...block,
        virtualFile: path.join(repositoryRoot, `help-example--${page.replace(/[/.]/g, '-')}--line-${block.line}.ts`),
      })),
  );
}

function repositoryCompilerOptions(): ts.CompilerOptions {
  const configFile = path.join(repositoryRoot, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repositoryRoot, undefined, configFile);
  // The package's entry points, and nothing else of it, as a consumer's compiler sees them.
  const paths = Object.fromEntries([...packageEntrySources()].map(([specifier, source]) => [specifier, [source]]));
  return { ...parsed.options, noEmit: true, sourceMap: false, types: ['node'], baseUrl: repositoryRoot, paths };
}

export interface ExampleProblem {
  readonly example: string;
  readonly message: string;
}

/** Type-checks every example in one program; the problems name the page, the example's line and the code line. */
export function typeCheckExamples(examples: readonly TypeScriptExample[]): ExampleProblem[] {
  const options = repositoryCompilerOptions();
  const byFile = new Map(examples.map((example) => [example.virtualFile, example]));
  const host = ts.createCompilerHost(options, true);
  const originalGetSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => byFile.has(file) || ts.sys.fileExists(file);
  host.readFile = (file) => byFile.get(file)?.code ?? ts.sys.readFile(file);
  host.getSourceFile = (file, languageVersion, onError, shouldCreate) => {
    const example = byFile.get(file);
    if (example !== undefined) return ts.createSourceFile(file, example.code, languageVersion, true);
    return originalGetSourceFile(file, languageVersion, onError, shouldCreate);
  };
  const program = ts.createProgram([...byFile.keys()], options, host);
  const problems: ExampleProblem[] = [];
  for (const diagnostic of [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]) {
    problems.push({ example: '(compiler options)', message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n') });
  }
  for (const example of examples) {
    const sourceFile = program.getSourceFile(example.virtualFile)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const codeLine = example.code.split('\n')[line] ?? '';
      problems.push({
        example: `help/${example.page}, block at line ${example.line}`,
        message: `line ${line + 1} of the block (${codeLine.trim()}): TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
      });
    }
  }
  return problems;
}

/**
 * The example as a CommonJS file that can run from anywhere: relative imports (written for the
 * repository's root) and package imports both resolved to absolute paths in the repository.
 */
export function runnableJavaScript(example: TypeScriptExample): string {
  const output = ts.transpileModule(example.code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: example.virtualFile,
  }).outputText;
  const entries = packageEntrySources();
  return output.replace(/require\("([^"]+)"\)/g, (_match, specifier: string) => {
    if (specifier.startsWith('node:')) return `require(${JSON.stringify(specifier)})`;
    if (specifier === 'svc-prevent' || specifier.startsWith('svc-prevent/')) {
      const source = entries.get(specifier);
      if (source === undefined) throw new Error(`${example.page}, block at line ${example.line}: ${specifier} is not an entry point of package.json's exports`);
      return `require(${JSON.stringify(source)})`;
    }
    const absolute = specifier.startsWith('.') ? path.join(repositoryRoot, specifier) : require.resolve(specifier, { paths: [repositoryRoot] });
    return `require(${JSON.stringify(absolute)})`;
  });
}

/** Writes the runnable form of `example` into `directory` and returns its path. */
export function writeRunnable(example: TypeScriptExample, directory: string, name: string): string {
  const file = path.join(directory, `${name}.js`);
  fs.writeFileSync(file, runnableJavaScript(example));
  return file;
}
