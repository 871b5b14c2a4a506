/**
 * The provider build a test run shares (scripts/terraform-harness/provider-build.ts): the
 * end-to-end tier's global set-up builds it once and every buildTestProvider() without a
 * fixture entry returns it, so the files that run terraform no longer bundle the provider each;
 * a fixture entry, buildOwnTestProvider() or a run without the shared build still get a build of
 * their own, which remove() deletes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SHARED_PROVIDER_BUILD_ENV, buildOwnTestProvider, buildTestProvider } from '../../scripts/terraform-harness/provider-build';
import { providerBuildState } from '../../src/pipeline/provider-mirror';

const FIXTURE_ENTRY = path.join(__dirname, 'fixtures', 'hello-entry.ts');

test("the end-to-end tier's set-up built the provider once, inside the run's directory, and it is current", () => {
  const shared = JSON.parse(process.env[SHARED_PROVIDER_BUILD_ENV] ?? 'null') as { executable: string; cliConfigFile: string } | null;
  expect(shared).not.toBeNull();
  expect(shared!.executable.startsWith(`${process.env.SVC_TEST_RUN_TMPDIR}${path.sep}`)).toBe(true);
  // Current: ensureProviderBuilt() on it (npm run synth|diff|deploy in a test) finds nothing to rebuild.
  expect(providerBuildState(path.dirname(shared!.cliConfigFile)).state).toBe('current');
});

test('buildTestProvider() returns the shared build, and its remove() leaves it for the other files', () => {
  const first = buildTestProvider();
  const second = buildTestProvider();
  expect(second.executable).toBe(first.executable);
  expect(first.executable).toBe((JSON.parse(process.env[SHARED_PROVIDER_BUILD_ENV]!) as { executable: string }).executable);
  first.remove();
  expect(fs.existsSync(first.executable)).toBe(true);
  expect(fs.existsSync(first.cliConfigFile)).toBe(true);
});

describe('a build of its own', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[SHARED_PROVIDER_BUILD_ENV];
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[SHARED_PROVIDER_BUILD_ENV];
    else process.env[SHARED_PROVIDER_BUILD_ENV] = saved;
  });

  test.each<[string, () => ReturnType<typeof buildTestProvider>]>([
    ['a fixture entry', () => buildTestProvider(FIXTURE_ENTRY)],
    ['buildOwnTestProvider()', () => buildOwnTestProvider()],
    [
      'no shared build in this run',
      () => {
        delete process.env[SHARED_PROVIDER_BUILD_ENV];
        return buildTestProvider();
      },
    ],
    [
      'a shared build that is gone',
      () => {
        process.env[SHARED_PROVIDER_BUILD_ENV] = JSON.stringify({ executable: '/nonexistent/terraform-provider-svc', cliConfigFile: '/nonexistent/terraform.rc' });
        return buildTestProvider();
      },
    ],
  ])('%s: a fresh directory, removed by remove()', (_name, build) => {
    const shared = (JSON.parse(saved!) as { executable: string }).executable;
    const own = build();
    try {
      expect(own.executable).not.toBe(shared);
      expect(fs.existsSync(own.executable)).toBe(true);
    } finally {
      own.remove();
    }
    expect(fs.existsSync(own.executable)).toBe(false);
  });
});
