/**
 * How the released executable is split (help/releasing.md, "What is inside"): the SEA's main
 * script holds the gRPC server and the handshake; the provider itself (src/provider/service.ts,
 * with its resources, the API client and undici) is a second bundle stored as a SEA asset and
 * compiled at terraform's first call. The names both sides use.
 */

/** The service bundle, already wrapped as `(function (exports, require, module) { ... })`. */
export const SERVICE_ASSET = 'provider-service.js';
/** V8's code cache of that wrapped source, made by the target's own Node binary; empty where it cannot be. */
export const SERVICE_CACHE_ASSET = 'provider-service.cache';
/**
 * Prefix of the ids the service bundle requires instead of bundling a second copy of a module
 * the main script already holds (e.g. `svc-shared:src/api/redaction.ts`: one secret registry).
 */
export const SHARED_MODULE_PREFIX = 'svc-shared:';

export function wrapServiceSource(source: string): string {
  return `(function (exports, require, module) {${source}\n})`;
}
