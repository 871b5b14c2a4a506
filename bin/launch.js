// Shared by the svc-* commands in bin/: in a checkout (the TypeScript sources are there) they
// run the sources through ts-node without type checking, so a change needs no build and starts
// fast (`npm run typecheck` is the type gate); in an installed package, which ships no .ts
// sources, they run the compiled library in lib/ (scripts/build-library.ts, run by `npm pack`).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Loads `<module>` ('src/emulator/cli'): `<root>/<module>.ts` in a checkout, else `<root>/lib/<module>.js`. */
module.exports = function launch(module) {
  const source = path.join(root, `${module}.ts`);
  if (fs.existsSync(source)) {
    require('ts-node').register({ transpileOnly: true, project: path.join(root, 'tsconfig.json') });
    return require(source);
  }
  return require(path.join(root, 'lib', `${module}.js`));
};
