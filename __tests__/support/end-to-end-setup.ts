/**
 * jest globalSetup of the end-to-end tier (jest.config.js): the run's temporary directory
 * (global-setup.ts), then what many test files would otherwise each repeat, made once and
 * shared read-only through the environment the workers inherit:
 * - the provider built from source: buildTestProvider() without a fixture entry returns this
 *   build (scripts/terraform-harness/provider-build.ts) instead of bundling again per file.
 */
import * as path from 'node:path';
import { SHARED_PROVIDER_BUILD_ENV, buildProviderForThisPlatform } from '../../scripts/terraform-harness/provider-build';
import globalSetup, { RUN_TMPDIR_ENV } from './global-setup';

export default function endToEndSetup(): void {
  globalSetup();
  const build = buildProviderForThisPlatform(path.join(process.env[RUN_TMPDIR_ENV]!, 'shared-provider-build'));
  process.env[SHARED_PROVIDER_BUILD_ENV] = JSON.stringify(build);
}
