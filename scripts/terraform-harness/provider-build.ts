/** The provider built from source for terraform runs (a test file, a bench session): for this machine's platform only. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentPlatform } from '../../src/provider-identity';
import { buildProvider, type BuildResult } from '../build-provider';

export interface TestProviderBuild extends BuildResult {
  /** Removes the build directory. */
  remove(): void;
}

/** Builds src/provider/main.ts (or `entry`) into a fresh temporary directory. */
export function buildTestProvider(entry?: string): TestProviderBuild {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-provider-build-'));
  const result = buildProvider({ outDir, platforms: [currentPlatform()], ...(entry === undefined ? {} : { entry }) });
  return { ...result, remove: () => fs.rmSync(outDir, { recursive: true, force: true }) };
}
