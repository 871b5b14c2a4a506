/**
 * The entry of the released executable (a Node.js single executable application): answers
 * `--version` and `--help`, tells a human who runs it by hand how it is installed, and
 * otherwise starts the provider exactly as the node script does (src/provider/main.ts). The
 * release build bundles this file with esbuild, which replaces SVC_PROVIDER_VERSION.
 */
import { MAGIC_COOKIE_KEY } from '../../src/provider/protocol/handshake';

declare const SVC_PROVIDER_VERSION: string;

const NAME = `terraform-provider-svc ${SVC_PROVIDER_VERSION}`;
const argument = process.argv[2];
if (argument === '--version' || argument === '-v') {
  process.stdout.write(`${NAME} (node ${process.version}, ${process.platform}_${process.arch})\n`);
} else if (argument === '--help' || argument === '-h' || process.env[MAGIC_COOKIE_KEY] === undefined) {
  // The node script's refusal names the dev build (npm run build); a released binary is installed by terraform init.
  process.stderr.write(
    [
      `${NAME}: the svc Terraform provider (svc-prevent/svc). terraform starts it; run by hand it only answers --version.`,
      'To use it, require svc-prevent/svc in a configuration and run terraform init: terraform installs it from a',
      'registry or a network mirror (see "Install" in help/provider.md).',
      '',
    ].join('\n'),
  );
  if (argument !== '--help' && argument !== '-h') process.exitCode = 1;
} else {
  // Loaded only here: the provider's console guard and start-up run only when terraform starts it.
  require('../../src/provider/main');
}
