#!/usr/bin/env node
// svc-emulator: the local management-API emulator (src/emulator/cli.ts); see bin/launch.js.
'use strict';
require('./launch')('src/emulator/cli')
  .main(process.argv.slice(2))
  .catch((error) => {
    process.stderr.write(`svc-emulator: unexpected error: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  });
