/**
 * The svc provider's executable entry point (bundled by `npm run build`). Terraform starts it;
 * it checks the plugin handshake, then serves tfplugin6 until terraform shuts it down.
 * Only the handshake line goes to stdout; every log line goes to stderr, where terraform files
 * it under TF_LOG.
 */
// First, so that no module (ours or a dependency) can print to stdout, even while loading.
import './console-guard';
import { redact } from '../api/redaction';
import { createLogger, logLevelFromEnv } from './protocol/log';
import { createProviderService } from './protocol/provider-service';
import { serveProvider } from './protocol/serve';
import { createSvcProvider } from './provider';

// The wire layer knows no secrets: every log line, diagnostic and gRPC error is scrubbed with the API client's registry.
const logger = createLogger(process.stderr, logLevelFromEnv(process.env), redact);
const provider = createSvcProvider({ env: process.env, log: (level, message) => logger[level](message) });
const service = createProviderService(provider, { log: (line) => process.stderr.write(`${line}\n`), redact });

serveProvider(service, { redact }).catch((error: unknown) => {
  // Refusals have already told the human what to do and exited; this is anything else.
  logger.error(`the provider failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
