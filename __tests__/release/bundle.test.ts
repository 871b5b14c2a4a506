/**
 * The released executable's two scripts (scripts/release/bundle.ts): the main script holds what
 * the handshake needs and nothing of the provider; the service takes every module the main
 * script also holds from it, so such a module (the secret registry above all) exists once. And
 * the GetProviderSchema reply the build makes from the service (scripts/release/schema-reply.ts).
 */
import { bundleProvider } from '../../scripts/release/bundle';
import { SHARED_MODULE_PREFIX } from '../../scripts/release/executable-assets';
import { schemaReplyOf } from '../../scripts/release/schema-reply';
import { createLogger } from '../../src/provider/protocol/log';
import { decodeMessage } from '../../src/provider/protocol/protobuf';
import { callProviderRpc, GetProviderSchemaResponse, providerRpcs } from '../../src/provider/protocol/tfplugin6';
import { createSvcService } from '../../src/provider/service';

let bundles: Awaited<ReturnType<typeof bundleProvider>>;

beforeAll(async () => {
  bundles = await bundleProvider('0.1.0');
}, 120_000);

test('the main script holds the server and the handshake, not the provider, its client or undici', () => {
  expect(bundles.main).toContain('// src/provider/protocol/serve.ts');
  expect(bundles.main).toContain('// src/provider/protocol/handshake.ts');
  for (const absent of ['// src/provider/provider.ts', '// src/provider/resources/', '// src/api/client.ts']) {
    expect(bundles.main).not.toContain(absent);
  }
  // node_modules may be a link elsewhere (esbuild names the real path).
  expect(bundles.main).not.toMatch(/^\/\/ .*node_modules\/undici\//m);
});

test('the service holds the provider and takes the redaction module (one secret registry) from the main script', () => {
  expect(bundles.service).toContain('// src/provider/provider.ts');
  expect(bundles.service).toMatch(/^\/\/ .*node_modules\/undici\//m);
  expect(bundles.shared).toContain('src/api/redaction.ts');
  expect(bundles.service).not.toContain('// src/api/redaction.ts');
  expect(bundles.service).toContain(`require("${SHARED_MODULE_PREFIX}src/api/redaction.ts")`);
  expect(bundles.main).toContain('sharedModules["src/api/redaction.ts"] = ');
});

// undici's HTTP/1 client itself uses parts of its fetch (bodies, WebIDL); the rest of the index is left out.
test("the service holds undici's pool and request, not its index: cookies, websockets, mocks, interceptors and caches are never loaded", () => {
  expect(bundles.service).toMatch(/^\/\/ .*node_modules\/undici\/lib\/dispatcher\/pool\.js$/m);
  expect(bundles.service).toMatch(/^\/\/ .*node_modules\/undici\/lib\/api\/api-request\.js$/m);
  for (const absent of ['index.js', 'lib/web/cookies/', 'lib/web/websocket/', 'lib/mock/', 'lib/interceptor/', 'lib/cache/']) {
    expect(bundles.service).not.toMatch(new RegExp(`^// .*node_modules/undici/${absent.replace('.', '\\.')}`, 'm'));
  }
});

test('no module is in both scripts: whatever the service would take from the main script is shared', () => {
  const modules = (text: string) => new Set([...text.matchAll(/^\/\/ ((?:src|scripts)\/[^\s]+\.ts)$/gm)].map((match) => match[1]));
  const inMain = modules(bundles.main);
  const duplicated = [...modules(bundles.service)].filter((module) => inMain.has(module));
  expect(duplicated).toEqual([]);
  expect(bundles.shared.every((module) => inMain.has(module))).toBe(true);
});

test("GetProviderSchema's ready reply, made from the service bundle, is byte for byte what the service answers, and holds svc's resources", async () => {
  const reply = await schemaReplyOf(bundles.service);
  const fromService = await callProviderRpc(createSvcService(createLogger({ write: () => undefined }, 'error')), providerRpcs.GetProviderSchema, Buffer.alloc(0));
  expect(reply.equals(fromService)).toBe(true);
  const decoded = decodeMessage(GetProviderSchemaResponse, reply);
  expect(Object.keys(decoded.resourceSchemas ?? {})).toEqual(expect.arrayContaining(['svc_blacklist', 'svc_blacklist_entry', 'svc_whitelist_entry']));
  expect(decoded.provider?.block?.attributes?.map((attribute) => attribute.name)).toEqual(expect.arrayContaining(['base_url', 'api_key', 'tenant']));
  expect(decoded.diagnostics ?? []).toEqual([]);
});
