/**
 * The code cache of the released executable's service bundle (scripts/release/service-warm-up.ts):
 * made after running the service through the plan and apply of one entry against the emulator,
 * with the node running the tests (the release's own Node line in CI) and the executable's
 * options, as scripts/release/build.ts makes it with the target's binary.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Script } from 'node:vm';
import { EXECUTABLE_NODE_OPTIONS } from '../../scripts/release/build';
import { bundleProvider, bundleServiceWarmUp } from '../../scripts/release/bundle';
import { SERVICE_ASSET } from '../../scripts/release/executable-assets';
import { WarmUpError, warmUpServiceCache } from '../../scripts/release/service-warm-up';
import { createLogger } from '../../src/provider/protocol/log';
import type { ProviderService } from '../../src/provider/protocol/messages';
import { DiagnosticSeverity } from '../../src/provider/protocol/tfplugin6';
import { createSvcService } from '../../src/provider/service';

let scratch: string;
let servicePath: string;
let warmUpPath: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'service-cache-'));
  const bundles = await bundleProvider('0.1.0');
  servicePath = path.join(scratch, SERVICE_ASSET);
  fs.writeFileSync(servicePath, bundles.service);
  warmUpPath = path.join(scratch, 'service-warm-up.js');
  fs.writeFileSync(warmUpPath, await bundleServiceWarmUp(bundles.shared));
}, 120_000);

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs the bundled warm-up as the build does (fixed seed, the executable's options, no environment). */
function warmUp(output: string): void {
  const run = spawnSync(process.execPath, ['--random-seed=1', ...EXECUTABLE_NODE_OPTIONS, warmUpPath, servicePath, output, SERVICE_ASSET], { encoding: 'utf8', env: {}, timeout: 60_000 });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
}

test('the warmed cache is accepted by a node started with the options, holds far more than compiling alone, and is the same on a second run', () => {
  const first = path.join(scratch, 'first.cache');
  const second = path.join(scratch, 'second.cache');
  warmUp(first);
  warmUp(second);
  const cache = fs.readFileSync(first);
  expect(fs.readFileSync(second).equals(cache)).toBe(true);

  const compiledOnly = new Script(fs.readFileSync(servicePath, 'utf8'), { filename: SERVICE_ASSET }).createCachedData();
  // The hooks, the API client and undici's request path come compiled (about 560 KiB against 100).
  expect(cache.length).toBeGreaterThan(3 * compiledOnly.length);

  const check = [
    "const fs = require('node:fs'); const { Script } = require('node:vm');",
    'const [source, cache, name] = process.argv.slice(1);',
    "const script = new Script(fs.readFileSync(source, 'utf8'), { filename: name, cachedData: fs.readFileSync(cache) });",
    'process.stdout.write(String(script.cachedDataRejected));',
  ].join('\n');
  const accepted = spawnSync(process.execPath, [...EXECUTABLE_NODE_OPTIONS, '-e', check, servicePath, first, SERVICE_ASSET], { encoding: 'utf8', env: {} });
  expect({ status: accepted.status, rejected: accepted.stdout, stderr: accepted.stderr }).toEqual({ status: 0, rejected: 'false', stderr: '' });
}, 120_000);

test('a step that ends in an error diagnostic stops the warm-up with an error naming it, and no cache is written', async () => {
  const real = createSvcService(createLogger({ write: () => undefined }, 'error'));
  const refusing: ProviderService = {
    ...real,
    validateResourceConfig: async () => ({ diagnostics: [{ severity: DiagnosticSeverity.Error, summary: 'Refused', detail: 'for the test' }] }),
  };
  const source = path.join(scratch, 'refusing-service.js');
  fs.writeFileSync(source, "(function (exports, require, module) { module.exports = require('svc-shared:refusing'); })");
  const output = path.join(scratch, 'refused.cache');
  const warming = warmUpServiceCache(source, output, SERVICE_ASSET, { refusing: { createSvcService: () => refusing } });
  await expect(warming).rejects.toBeInstanceOf(WarmUpError);
  await expect(warming).rejects.toThrow('ValidateResourceConfig: Refused: for the test');
  expect(fs.existsSync(output)).toBe(false);
}, 60_000);
