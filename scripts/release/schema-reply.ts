/**
 * GetProviderSchema's reply, made at build time for the released executable to send as it is
 * (executable-assets.ts, SCHEMA_REPLY_ASSET): terraform starts a provider process for the
 * schema alone at the beginning of every command, and with the reply ready that process never
 * loads the service (help/performance-history.md, "The plan of one entry").
 *
 * The reply is encoded from the service bundle the executable carries, run here with the
 * repository's own copies of the modules it takes from the main script (the same sources the
 * main script bundles), so it is the service's own answer. The schema depends on nothing of the
 * process (no environment, no configuration): the same bytes as the service would send.
 */
import * as path from 'node:path';
import { Script } from 'node:vm';
import { createLogger } from '../../src/provider/protocol/log';
import type { ProviderService } from '../../src/provider/protocol/messages';
import { callProviderRpc, providerRpcs } from '../../src/provider/protocol/tfplugin6';
import { runWrappedScript, SERVICE_ASSET, SHARED_MODULE_PREFIX } from './executable-assets';

const REPOSITORY = path.resolve(__dirname, '..', '..');

type ServiceModule = typeof import('../../src/provider/service');

/** The wrapped service bundle (bundle.ts) evaluated in this process; `svc-shared:` ids load the repository's modules. */
function evaluateServiceBundle(wrappedSource: string): ServiceModule {
  const requireForService = (id: string): unknown => (id.startsWith(SHARED_MODULE_PREFIX) ? require(path.join(REPOSITORY, id.slice(SHARED_MODULE_PREFIX.length))) : require(id));
  return runWrappedScript(new Script(wrappedSource, { filename: SERVICE_ASSET }), requireForService) as ServiceModule;
}

/** The encoded GetProviderSchema reply of the wrapped service bundle. */
export async function schemaReplyOf(wrappedServiceSource: string): Promise<Buffer> {
  // Nothing is logged while the schema is made; a line would be a bug, and the build fails on a throw anyway.
  const service: ProviderService = evaluateServiceBundle(wrappedServiceSource).createSvcService(createLogger({ write: () => undefined }, 'error'));
  return callProviderRpc(service, providerRpcs.GetProviderSchema, Buffer.alloc(0));
}
