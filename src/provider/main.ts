/**
 * The svc provider's executable entry point (bundled by `npm run build`). Terraform starts it;
 * it checks the plugin handshake, then serves tfplugin6 until terraform shuts it down.
 * Only the handshake line goes to stdout; every log line goes to stderr, where terraform files
 * it under TF_LOG.
 */
// First, so that no module (ours or a dependency) can print to stdout, even while loading.
import './console-guard';
import { setFlagsFromString } from 'node:v8';
import { redact } from '../api/redaction';
import { startProvider } from './start';

// WebAssembly (undici's HTTP parser) stays on V8's baseline compiler, as in the released
// executable (EXECUTABLE_NODE_OPTIONS in scripts/release/build.ts says why): the exit waited for
// its background optimising compile. Set before the service, and so undici, loads.
setFlagsFromString('--liftoff-only');

// Required, not imported: the bundle evaluates the provider at terraform's first call (start.ts).
// The wire layer knows no secrets: its log lines and gRPC errors are scrubbed with the API client's registry.
startProvider((logger) => (require('./service') as typeof import('./service')).createSvcService(logger), redact);
