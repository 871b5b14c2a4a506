#!/usr/bin/env node
// svc-deployment-policy: prints the control plane's deployment policy JSON
// (modules/deployment-policy/cli.ts), run through ts-node without type checking so it starts
// fast; `npm run typecheck` is the type gate.
'use strict';
const path = require('node:path');

const repository = path.resolve(__dirname, '..');
require('ts-node').register({ transpileOnly: true, project: path.join(repository, 'tsconfig.json') });

process.exitCode = require(path.join(repository, 'modules/deployment-policy/cli.ts')).main(process.argv.slice(2));
