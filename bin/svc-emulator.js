#!/usr/bin/env node
// svc-emulator: the local management-API emulator (src/emulator/cli.ts), run through ts-node
// without type checking so it starts fast; `npm run typecheck` is the type gate.
'use strict';
const path = require('node:path');

const repository = path.resolve(__dirname, '..');
require('ts-node').register({ transpileOnly: true, project: path.join(repository, 'tsconfig.json') });

require(path.join(repository, 'src/emulator/cli.ts'))
  .main(process.argv.slice(2))
  .catch((error) => {
    process.stderr.write(`svc-emulator: unexpected error: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  });
