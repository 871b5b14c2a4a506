/** The provider built from source for terraform runs (a test file, a bench session): for this machine's platform only. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentPlatform } from '../../src/provider-identity';
import { buildProvider, type BuildResult } from '../build-provider';

export interface TestProviderBuild extends BuildResult {
  /** Removes the build directory (nothing, for the run's shared build: the run removes it). */
  remove(): void;
}

/**
 * A build of src/provider/main.ts that a whole test run shares, made once by the tests' global
 * set-up (__tests__/support/end-to-end-setup.ts): its BuildResult as JSON. Read-only by
 * agreement: a caller that changes the build's files takes its own (buildOwnTestProvider).
 */
export const SHARED_PROVIDER_BUILD_ENV = 'SVC_TEST_SHARED_PROVIDER_BUILD';

/** Builds src/provider/main.ts (or `entry`) for this platform into `outDir`. */
export function buildProviderForThisPlatform(outDir: string, entry?: string): BuildResult {
  return buildProvider({ outDir, platforms: [currentPlatform()], ...(entry === undefined ? {} : { entry }) });
}

function sharedBuild(): BuildResult | undefined {
  const text = process.env[SHARED_PROVIDER_BUILD_ENV];
  if (text === undefined || text === '') return undefined;
  const shared = JSON.parse(text) as BuildResult;
  // Gone (a variable left over from an ended run): build afresh instead.
  return fs.existsSync(shared.executable) && fs.existsSync(shared.cliConfigFile) ? shared : undefined;
}

/** Builds src/provider/main.ts (or `entry`) into a fresh temporary directory of its own. */
export function buildOwnTestProvider(entry?: string): TestProviderBuild {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-provider-build-'));
  const result = buildProviderForThisPlatform(outDir, entry);
  return { ...result, remove: () => fs.rmSync(outDir, { recursive: true, force: true }) };
}

/**
 * src/provider/main.ts built for this platform: the run's shared build when there is one
 * (SHARED_PROVIDER_BUILD_ENV), else a build of its own. With `entry` (a fixture provider)
 * always a build of its own.
 */
export function buildTestProvider(entry?: string): TestProviderBuild {
  const shared = entry === undefined ? sharedBuild() : undefined;
  if (shared !== undefined) return { ...shared, remove: () => undefined };
  return buildOwnTestProvider(entry);
}
