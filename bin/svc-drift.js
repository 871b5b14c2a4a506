#!/usr/bin/env node
// svc-drift: the drift check for an already synthesized cdktf app (src/pipeline/drift-cli.ts);
// see bin/launch.js. Exit 0 no drift, 2 drift or pending changes, 1 error.
'use strict';
require('./launch')('src/pipeline/drift-cli')
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`svc-drift: unexpected error: ${error && error.stack ? error.stack : error}\n`);
      process.exitCode = 1;
    },
  );
