#!/usr/bin/env node
// `node bin/run-ts.js <file.ts> [arguments...]`: runs a TypeScript file of this checkout as the
// main module, as `ts-node --transpile-only <file.ts>` did, through bin/launch.js's transpile
// cache: the npm scripts (package.json), cdktf.json's app and scripts of your own. An edited
// file takes effect at the next run; an unchanged one starts without loading TypeScript
// (ts-node loaded it and transpiled every file on each start: about 1 s of CPU).
//
// The file runs in this process, as under ts-node: process.argv is [node, <file>, ...arguments],
// `require.main === module` holds in it, its exit code is this process's and signals reach it.
'use strict';
const Module = require('node:module');
const path = require('node:path');
const { registerCheckoutTypeScript } = require('./launch');

const [file, ...args] = process.argv.slice(2);
if (file === undefined || file.startsWith('-')) {
  const asked = file === '--help' || file === '-h';
  (asked ? process.stdout : process.stderr).write(
    `${asked ? '' : `run-ts: ${file === undefined ? 'no file given' : `unknown option ${file}`}\n`}Usage: node bin/run-ts.js <file.ts> [arguments...]\n` +
      "Runs <file.ts> as the main module with this checkout's tsconfig.json, transpiled without type checking (npm run typecheck checks types).\n",
  );
  process.exit(asked ? 0 : 2);
}
process.argv = [process.argv[0], path.resolve(file), ...args];
registerCheckoutTypeScript();
Module.runMain();
