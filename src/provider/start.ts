/**
 * Starts the provider process: the gRPC server and the handshake line first, the provider itself
 * (src/provider/service.ts: resources, API client, undici, most of the code) at terraform's first
 * call. Terraform waits for the handshake line at every provider start, and the line needs only
 * the server (issue 13, help/performance-history.md, "The provider loads at terraform's first
 * call"). The dev build (main.ts) and the released executable (scripts/release/executable-entry.ts)
 * start the same way and differ only in how they load the service module, and in that the
 * executable answers GetProviderSchema from a reply its build made (so the process terraform
 * starts for the schema alone never loads the service).
 */
import { createLogger, logLevelFromEnv, PROCESS_STDERR, type Logger } from './protocol/log';
import type { ProviderService } from './protocol/messages';
import type { Redact } from './protocol/redaction';
import { serveProvider, type ServeOptions } from './protocol/serve';

export type ServiceLoader = (logger: Logger) => ProviderService;

/** A service whose every method loads the real one first (once). */
export function loadedOnFirstCall(load: () => ProviderService): ProviderService {
  let service: ProviderService | undefined;
  return new Proxy({} as ProviderService, {
    get: (_unloaded, method) =>
      // `then` stays undefined so that the proxy is never taken for a promise.
      typeof method === 'string' && method !== 'then'
        ? (request: never) => ((service ??= load())[method as keyof ProviderService] as (request: never) => Promise<object>)(request)
        : undefined,
  });
}

/**
 * `redact` scrubs secrets from the server's log lines and gRPC errors (the wire layer knows none
 * itself); `readyReply` gives replies made before the process started (ServeOptions says which).
 */
export function startProvider(loadService: ServiceLoader, redact: Redact, readyReply?: ServeOptions['readyReply']): void {
  const logger = createLogger(PROCESS_STDERR, logLevelFromEnv(process.env), redact);
  serveProvider(loadedOnFirstCall(() => loadService(logger)), { redact, ...(readyReply === undefined ? {} : { readyReply }) }).catch((error: unknown) => {
    // Refusals have already told the human what to do and exited; this is anything else.
    logger.error(`the provider failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
