/**
 * Jest's transformer for the suite's TypeScript, one file at a time, with a source map for stack
 * traces and coverage; types are not checked (`npm run typecheck` is the type gate, and
 * tsconfig.json's `isolatedModules` keeps the code to what a one-file transpiler compiles).
 *
 * Two transpilers, chosen in jest.config.js by its option `{ transpiler }`:
 * - `esbuild` for test runs: about 1 ms a file. TypeScript's transpiler (what ts-jest ran) took
 *   10 to 20 ms a file and a load of TypeScript in each worker: on a fresh clone, where jest's
 *   cache is empty, 15 s more of the unit tier's CPU (help/testing.md, "Where the time goes").
 * - `typescript` for coverage runs (bin/launch.js's transpile): esbuild's CommonJS output adds a
 *   getter per export, which V8 coverage counts as branches (about 480 more in the unit tier, all
 *   covered), so its figures would not compare with the runs before it. TypeScript's output gives
 *   ts-jest's counts exactly.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const PROJECT = path.join(__dirname, '..', '..', 'tsconfig.json');
const PROJECT_TEXT = fs.readFileSync(PROJECT, 'utf8');
const LAUNCH = path.join(__dirname, '..', '..', 'bin', 'launch.js');
/** This transformer and bin/launch.js (whose transpile coverage runs use). */
const OWN_TEXT = fs.readFileSync(__filename, 'utf8') + fs.readFileSync(LAUNCH, 'utf8');
const ESBUILD_TARGET = 'node20';

/** Made at a worker's first file to transpile: a worker whose files all come from jest's cache loads neither. */
const transpilers = {
  esbuild: undefined,
  typescript: undefined,
};

function makeEsbuild() {
  const esbuild = require('esbuild');
  // The options esbuild reads from tsconfig.json (class fields, strict mode), as the type check sees them.
  const tsconfigRaw = JSON.stringify({ compilerOptions: JSON.parse(PROJECT_TEXT).compilerOptions });
  return (sourceText, sourcePath) => {
    const result = esbuild.transformSync(sourceText, {
      loader: 'ts',
      format: 'cjs',
      platform: 'node',
      target: ESBUILD_TARGET,
      sourcefile: sourcePath,
      sourcemap: 'external',
      tsconfigRaw,
    });
    return { code: result.code, map: result.map };
  };
}

function makeTypescript() {
  // bin/launch.js's transpile, as the bin/ commands and npm scripts run: its inline source map is
  // the one jest reads when a transformer returns none.
  const transpile = require(LAUNCH).transpiler(PROJECT);
  return (sourceText, sourcePath) => ({ code: transpile(sourceText, sourcePath) });
}

function transpilerName(options) {
  const name = options.transformerConfig?.transpiler ?? 'esbuild';
  if (!(name in transpilers)) throw new Error(`typescript-transform: transpiler must be one of ${Object.keys(transpilers).join(', ')}, not ${JSON.stringify(name)}`);
  return name;
}

function transpilerVersion(name) {
  return require(`${name}/package.json`).version;
}

module.exports = {
  getCacheKey(sourceText, sourcePath, options) {
    const name = transpilerName(options);
    return crypto
      .createHash('sha256')
      .update([name, transpilerVersion(name), PROJECT_TEXT, OWN_TEXT, sourcePath, sourceText].join('\0'))
      .digest('hex');
  },
  process(sourceText, sourcePath, options) {
    const name = transpilerName(options);
    transpilers[name] ??= name === 'esbuild' ? makeEsbuild() : makeTypescript();
    return transpilers[name](sourceText, sourcePath);
  },
};
