/**
 * The ```ts blocks of help/ as programs: each is a complete file as a user would save it in
 * the repository's root (imports like `./modules/svc-provider/blacklist-entry`), type-checked
 * in memory against the real modules with the repository's compiler options, and, for running,
 * transpiled to CommonJS with its imports pointed at the repository.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { codeBlocks, helpPages, repositoryRoot, type CodeBlock } from './markdown';

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
  return { ...parsed.options, noEmit: true, sourceMap: false, types: ['node'] };
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
  return output.replace(/require\("([^"]+)"\)/g, (_match, specifier: string) => {
    if (specifier.startsWith('node:')) return `require(${JSON.stringify(specifier)})`;
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
