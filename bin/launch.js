// Shared by the svc-* commands in bin/: in a checkout (the TypeScript sources are there) they
// run the sources transpiled without type checking, so a change needs no build and starts fast
// (`npm run typecheck` is the type gate); in an installed package, which ships no .ts sources,
// they run the compiled library in lib/ (scripts/build-library.ts, run by `npm pack`).
// bin/run-ts.js runs any .ts file of the checkout the same way: the npm scripts, cdktf.json's app.
//
// In a checkout each .ts file's JavaScript is kept in node_modules/.cache/svc-launch, named by
// the hash of the file's path (relative to the checkout), its content and the compiler
// (TypeScript's version, tsconfig.json, this file): an edited file misses the cache and is
// transpiled again, an unchanged one is not.
// Transpiling (TypeScript itself takes 0.2 s of CPU to load) was most of a start: about 1 s of
// CPU for `svc-emulator --help`, against 0.1 s from the cache (help/testing.md).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Loads `<module>` ('src/emulator/cli'): `<root>/<module>.ts` in a checkout, else `<root>/lib/<module>.js`. */
function launch(module) {
  const source = path.join(root, `${module}.ts`);
  if (fs.existsSync(source)) {
    registerCheckoutTypeScript();
    return require(source);
  }
  return require(path.join(root, 'lib', `${module}.js`));
}

/** registerTypeScript with this checkout's tsconfig.json and cache: for the bin/ commands and bin/run-ts.js. */
function registerCheckoutTypeScript() {
  registerTypeScript({ project: path.join(root, 'tsconfig.json'), cacheDirectory: path.join(root, 'node_modules', '.cache', 'svc-launch') });
}

function sha256(...parts) {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

/**
 * Makes `require` load .ts files (outside node_modules) as their transpiled JavaScript, with the
 * compiler options of `project` and inline source maps (stack traces name the .ts lines), each
 * file's output cached in `cacheDirectory`.
 */
function registerTypeScript({ project, cacheDirectory }) {
  const typescriptVersion = require('typescript/package.json').version;
  const compiler = sha256(typescriptVersion, fs.readFileSync(project), fs.readFileSync(__filename));
  let transpile; // made on the first cache miss: loading TypeScript is the cost the cache avoids

  process.setSourceMapsEnabled(true);
  const loadJavaScript = require.extensions['.js'];
  require.extensions['.ts'] = (module, filename) => {
    if (filename.split(path.sep).includes('node_modules')) return loadJavaScript(module, filename);
    const compile = module._compile;
    module._compile = function compileTranspiled(code, name) {
      return compile.call(this, cached(code, name), name);
    };
    return loadJavaScript(module, filename);
  };

  function cached(code, filename) {
    const name = cacheName(filename);
    const file = sha256(name).slice(0, 32);
    const entry = path.join(cacheDirectory, `${file}-${sha256(compiler, name, code).slice(0, 32)}.js`);
    try {
      return fs.readFileSync(entry, 'utf8');
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    transpile ??= transpiler(project);
    const output = transpile(code, filename);
    store(entry, `${file}-`, output);
    return output;
  }

  /**
   * A file of the project by its path relative to the project (the output does not depend on
   * where the checkout is): a copy of the checkout that links this node_modules (the tests of
   * help/getting-started and of the packed library make one per run) finds the checkout's
   * entries instead of adding a set of its own each time. Other files by their absolute path.
   */
  function cacheName(filename) {
    const relative = path.relative(path.dirname(project), filename);
    return relative.startsWith('..') || path.isAbsolute(relative) ? filename : relative;
  }

  /** Writes the entry (atomically: other commands may read it) and removes the file's older ones. */
  function store(entry, filePrefix, output) {
    const partial = `${entry}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(cacheDirectory, { recursive: true });
      fs.writeFileSync(partial, output);
      fs.renameSync(partial, entry);
      for (const name of fs.readdirSync(cacheDirectory)) {
        if (name.startsWith(filePrefix) && name.endsWith('.js') && path.join(cacheDirectory, name) !== entry) fs.rmSync(path.join(cacheDirectory, name), { force: true });
      }
    } catch (error) {
      // The cache only saves time: a read-only or full disk must not stop the command.
      if (!['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT'].includes(error.code)) throw error;
      fs.rmSync(partial, { force: true });
    }
  }
}

/**
 * ts.transpileModule with the project's options (as ts-node --transpile-only), with an inline
 * source map: syntax errors throw, naming file and line. Also jest's transpiler for coverage runs
 * (__tests__/support/typescript-transform.js).
 */
function transpiler(project) {
  const ts = require('typescript');
  const read = ts.readConfigFile(project, ts.sys.readFile);
  if (read.error) throw new Error(ts.formatDiagnostic(read.error, formatHost()));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(project), undefined, project);
  const configErrors = parsed.errors.filter(relevant);
  if (configErrors.length > 0) throw new Error(ts.formatDiagnostics(configErrors, formatHost()));
  // No outDir or rootDir: with them the source map would name the file relative to where tsc
  // writes it (build/scripts/x.js: '../../scripts/x.ts'), and Node, resolving that from the .ts
  // file itself, would print a path two folders off in every stack trace.
  const { outDir, rootDir, ...options } = parsed.options;
  const compilerOptions = { ...options, sourceMap: false, inlineSourceMap: true, inlineSources: true, declaration: false, declarationMap: false, noEmit: false };
  return (code, fileName) => {
    const result = ts.transpileModule(code, { fileName, compilerOptions, reportDiagnostics: true });
    const errors = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error && relevant(diagnostic));
    if (errors.length > 0) throw new SyntaxError(`cannot transpile ${fileName}:\n${ts.formatDiagnostics(errors, formatHost())}`);
    return result.outputText;
  };

  // What ts-node ignores by default too: a file outside rootDir (6059), no inputs in `files` or
  // `include` (18002, 18003): none matters to transpiling one file.
  function relevant(diagnostic) {
    return ![6059, 18002, 18003].includes(diagnostic.code);
  }

  function formatHost() {
    return { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
  }
}

module.exports = launch;
module.exports.registerTypeScript = registerTypeScript;
module.exports.registerCheckoutTypeScript = registerCheckoutTypeScript;
module.exports.transpiler = transpiler;
