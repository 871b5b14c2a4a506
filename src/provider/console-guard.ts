/**
 * Imported FIRST by the svc provider's entry point (main.ts), for its side effect: from here on
 * every console method writes to stderr, redacted with the API client's secret registry, never
 * to stdout (the handshake channel; see protocol/console-to-stderr.ts for why).
 */
import { redact } from '../api/redaction';
import { routeConsoleTo } from './protocol/console-to-stderr';
import { PROCESS_STDERR } from './protocol/log';

routeConsoleTo(PROCESS_STDERR, redact);
