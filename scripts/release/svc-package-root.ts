/**
 * src/package-root.ts as the released `svc` executable sees it (svc-bundle.ts puts this module in
 * its place): the executable carries no package.json, and modules of the npm package find their
 * files through packageRoot() when they load (src/pipeline/provider-mirror.ts: the repository's
 * provider build and the packaged mirror, for `--link-mirror`). Outside a checkout or an installed
 * package this answers the executable's own directory instead of throwing, so the command starts;
 * `svc drift --link-mirror` then finds no packaged mirror there and says so, and `--mirror DIR`
 * names one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PACKAGE_NAME = 'svc-prevent';

export function packageRoot(from: string = path.dirname(process.execPath)): string {
  let directory = path.resolve(from);
  for (;;) {
    const manifest = path.join(directory, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return directory;
    const parent = path.dirname(directory);
    if (parent === directory) return path.dirname(process.execPath);
    directory = parent;
  }
}
