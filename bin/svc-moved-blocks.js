#!/usr/bin/env node
// svc-moved-blocks: moved blocks from a synthesized security-policy stack into the HCL module
// svc-security-policy (src/migration/moved-blocks-cli.ts, help/leaving-cdktf.md); see bin/launch.js.
'use strict';
process.exitCode = require('./launch')('src/migration/moved-blocks-cli').main(
  process.argv.slice(2),
  (text) => process.stdout.write(text),
  (text) => process.stderr.write(text),
);
