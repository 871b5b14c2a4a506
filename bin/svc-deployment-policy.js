#!/usr/bin/env node
// svc-deployment-policy: prints the control plane's deployment policy JSON
// (modules/deployment-policy/cli.ts); see bin/launch.js.
'use strict';
process.exitCode = require('./launch')('modules/deployment-policy/cli').main(process.argv.slice(2));
