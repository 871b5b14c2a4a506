/**
 * How the wire layer scrubs secrets out of text that leaves the provider: diagnostics, log
 * lines, console output and gRPC error messages. The layer knows no secrets of its own (it
 * serves any provider), so whoever builds the server passes one in; the svc provider's entry
 * point (src/provider/main.ts) passes the API client's registry of secrets.
 */
export type Redact = (text: string) => string;

/** The default: text leaves as it is. */
export const NO_REDACTION: Redact = (text) => text;
