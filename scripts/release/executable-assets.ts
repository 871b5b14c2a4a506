/**
 * What the released executable carries besides node (help/releasing.md, "How the executables
 * are made"), and the names both sides use. The SEA's own main script is only a loader
 * (executable-loader.ts); the two real scripts are SEA assets, each with V8's code cache:
 *
 *   main     scripts/release/executable-entry.ts: --version, the gRPC server, the handshake
 *   service  src/provider/service.ts: the provider, its resources, the API client, undici,
 *            compiled at the first call that needs it
 *
 * and GetProviderSchema's reply, encoded by the build from that service (schema-reply.ts), which
 * the main script sends without loading the service.
 *
 * Assets rather than the SEA main script because node's `useCodeCache` caches what compiling a
 * script compiles, not what running it does; the main script's cache is made after running it
 * to the handshake line (build.ts), so the functions the start calls come compiled.
 */

/** The main script, wrapped as `(function (exports, require, module) { ... })`. */
export const MAIN_ASSET = 'provider-main.js';
/** V8's code cache of the main script, made after running it to the handshake line; empty where it cannot be. */
export const MAIN_CACHE_ASSET = 'provider-main.cache';
/** The service bundle, wrapped the same way. */
export const SERVICE_ASSET = 'provider-service.js';
/** V8's code cache of that wrapped source, made by the target's own Node binary after running it through a plan (service-warm-up.ts); empty where it cannot be. */
export const SERVICE_CACHE_ASSET = 'provider-service.cache';
/** GetProviderSchema's encoded reply (schema-reply.ts), sent for the schema process without loading the service. */
export const SCHEMA_REPLY_ASSET = 'provider-schema.reply';
/**
 * Prefix of the ids the service bundle requires instead of bundling a second copy of a module
 * the main script already holds (e.g. `svc-shared:src/api/redaction.ts`: one secret registry).
 */
export const SHARED_MODULE_PREFIX = 'svc-shared:';

export function wrapScriptSource(source: string): string {
  return `(function (exports, require, module) {${source}\n})`;
}

type WrappedScript = (exports: object, require: (id: string) => unknown, module: { exports: object }) => void;

/** Runs a compiled wrapped script (wrapScriptSource) with `requireForScript` as its `require`, and returns its exports. */
export function runWrappedScript(script: import('node:vm').Script, requireForScript: (id: string) => unknown): object {
  const module = { exports: {} };
  (script.runInThisContext() as WrappedScript)(module.exports, requireForScript, module);
  return module.exports;
}

/** Compiles a wrapped script asset of the running executable (with its code cache, if any), runs it, and returns its exports. */
export function runScriptAsset(sourceAsset: string, cacheAsset: string, requireForScript: (id: string) => unknown): object {
  const { getAsset } = require('node:sea') as typeof import('node:sea');
  const { Script } = require('node:vm') as typeof import('node:vm');
  const cache = getAsset(cacheAsset);
  const script = new Script(getAsset(sourceAsset, 'utf8'), { filename: sourceAsset, ...(cache.byteLength === 0 ? {} : { cachedData: Buffer.from(cache) }) });
  return runWrappedScript(script, requireForScript);
}
