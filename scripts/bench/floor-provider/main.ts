/**
 * The floor provider's executable entry: serves floorProvider() (provider.ts) with the same wire
 * layer and start as the svc provider (src/provider/protocol/serve.ts: handshake checks, mutual
 * TLS, unix socket, shutdown), minus the svc parts (console guard, secret redaction, the service
 * loaded at the first call: there is almost nothing to load).
 */
import { createProviderService } from '../../../src/provider/protocol/provider-service';
import { createLogger, logLevelFromEnv, PROCESS_STDERR } from '../../../src/provider/protocol/log';
import { serveProvider } from '../../../src/provider/protocol/serve';
import { floorProvider } from './provider';

const logger = createLogger(PROCESS_STDERR, logLevelFromEnv(process.env));
serveProvider(createProviderService(floorProvider(), { log: (line) => logger.error(line) })).catch((error: unknown) => {
  logger.error(`the floor provider failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
