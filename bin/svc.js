#!/usr/bin/env node
// svc: the management API, plan reports and the drift check from the shell (src/pipeline/svc-cli.ts);
// see bin/launch.js. Exit 0 ok, 1 error, 2 drift or changes where a command says so.
'use strict';
require('./launch')('src/pipeline/svc-cli')
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`svc: unexpected error: ${error && error.stack ? error.stack : error}\n`);
      process.exitCode = 1;
    },
  );
