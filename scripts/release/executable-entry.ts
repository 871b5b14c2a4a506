/**
 * The main script of the released executable (a Node.js single executable application), run by
 * its loader (executable-loader.ts): answers `--version` and `--help`, tells a human who runs it
 * by hand how it is installed, and otherwise starts the provider as the node script does
 * (src/provider/start.ts), except that the provider's service comes from the executable's
 * service asset (executable-assets.ts) instead of this bundle, and that GetProviderSchema is
 * answered from the reply the build encoded from that service (schema-reply.ts), so a process
 * that terraform starts for the schema alone never loads the service. The release build bundles this
 * file with esbuild, which replaces SVC_PROVIDER_VERSION, and fills `sharedModules` before any
 * call can come in (scripts/release/bundle.ts).
 */
import { MAGIC_COOKIE_KEY } from '../../src/provider/protocol/handshake';
import { runScriptAsset, SCHEMA_REPLY_ASSET, SERVICE_ASSET, SERVICE_CACHE_ASSET, SHARED_MODULE_PREFIX } from './executable-assets';

declare const SVC_PROVIDER_VERSION: string;

type ServiceModule = typeof import('../../src/provider/service');

/** This bundle's modules that the service bundle uses too, by repository path: one instance of each. */
export const sharedModules: Record<string, unknown> = {};

function requireForService(id: string): unknown {
  if (!id.startsWith(SHARED_MODULE_PREFIX)) return require(id);
  const name = id.slice(SHARED_MODULE_PREFIX.length);
  if (!(name in sharedModules)) throw new Error(`the provider's service bundle needs ${name}, which the executable's main script does not share; this is a bug in the release build`);
  return sharedModules[name];
}

function loadServiceModule(): ServiceModule {
  return runScriptAsset(SERVICE_ASSET, SERVICE_CACHE_ASSET, requireForService) as ServiceModule;
}

let schemaReply: Buffer | undefined;

/** GetProviderSchema's reply from its asset, read at the first call (the build runs this script to its handshake line outside the executable). */
function readyReply(rpcName: string): Buffer | undefined {
  if (rpcName !== 'GetProviderSchema') return undefined;
  const { getAsset } = require('node:sea') as typeof import('node:sea');
  return (schemaReply ??= Buffer.from(getAsset(SCHEMA_REPLY_ASSET)));
}

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
  require('../../src/provider/console-guard');
  const { redact } = require('../../src/api/redaction') as typeof import('../../src/api/redaction');
  const { startProvider } = require('../../src/provider/start') as typeof import('../../src/provider/start');
  startProvider((logger) => loadServiceModule().createSvcService(logger), redact, readyReply);
}
