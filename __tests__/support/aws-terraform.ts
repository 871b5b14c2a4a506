/**
 * A terraform working directory that installs providers from local filesystem mirrors only (the
 * hashicorp/aws plugin in /opt/tf-plugins, our dev build), with HOME, the data dir and the CLI
 * config inside it: what the tests that plan synthesized JSON against real AWS schemas share.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface FilesystemMirror {
  readonly path: string;
  /** Provider addresses served from this mirror, e.g. `registry.terraform.io/hashicorp/*`. */
  readonly include: string;
}

/** Writes `<dir>/cli.tfrc` installing from the mirrors only, and returns terraform's environment for `dir`. */
export function mirroredTerraformEnvironment(dir: string, mirrors: readonly FilesystemMirror[]): NodeJS.ProcessEnv {
  const cliConfig = path.join(dir, 'cli.tfrc');
  fs.writeFileSync(
    cliConfig,
    [
      'provider_installation {',
      ...mirrors.map((mirror) => `  filesystem_mirror {\n    path    = ${JSON.stringify(mirror.path)}\n    include = [${JSON.stringify(mirror.include)}]\n  }`),
      '}',
      '',
    ].join('\n'),
  );
  return {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_DATA_DIR: path.join(dir, '.terraform'),
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
  };
}
