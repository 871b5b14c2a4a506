/**
 * The svc provider as the tfplugin6 service terraform calls: the provider definition (its
 * resources, data sources, functions and the API client) served through the framework. Loaded
 * at terraform's first call, not before the handshake line (src/provider/start.ts).
 */
import { redact } from '../api/redaction';
import type { Logger } from './protocol/log';
import type { ProviderService } from './protocol/messages';
import { createProviderService } from './protocol/provider-service';
import { createSvcProvider } from './provider';

export function createSvcService(logger: Logger): ProviderService {
  const provider = createSvcProvider({ env: process.env, log: (level, message) => logger[level](message) });
  // Diagnostics and function errors are scrubbed with the API client's secret registry.
  return createProviderService(provider, { log: (line) => process.stderr.write(`${line}\n`), redact });
}
