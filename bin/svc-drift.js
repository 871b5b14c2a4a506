#!/usr/bin/env node
// svc-drift: an alias of `svc drift` with svc-drift's old options (--outdir, stack names), see
// src/pipeline/svc/drift-command.ts and bin/launch.js. Exit 0 no drift, 2 drift, 1 error.
'use strict';
const launch = require('./launch');
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${launch('src/pipeline/svc/drift-command').SVC_DRIFT_ALIAS_USAGE}\n`);
} else {
  const { legacySvcDriftArguments } = launch('src/pipeline/svc/drift-command');
  launch('src/pipeline/svc-cli')
    .main(['drift', ...legacySvcDriftArguments(argv)])
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error) => {
        process.stderr.write(`svc-drift: unexpected error: ${error && error.stack ? error.stack : error}\n`);
        process.exitCode = 1;
      },
    );
}
