/**
 * The directory of svc-prevent's package.json, found by walking up from this file: the
 * repository when the TypeScript sources run, the installed package when the compiled library
 * runs from lib/ (where `__dirname + '/..'` would land inside lib/).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PACKAGE_NAME = 'svc-prevent';

export function packageRoot(from: string = __dirname): string {
  let directory = path.resolve(from);
  for (;;) {
    const manifest = path.join(directory, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return directory;
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json of ${PACKAGE_NAME} above ${from}; the package is incomplete, reinstall it`);
    directory = parent;
  }
}
