/**
 * The SEA config of the released executable (scripts/release/build.ts): what node is told to
 * build, and that the node options the executable starts with do what the build says they do,
 * checked on the node running the tests (the release's own Node line in CI).
 */
import { spawnSync } from 'node:child_process';
import { EXECUTABLE_NODE_OPTIONS, seaConfig } from '../../scripts/release/build';
import { MAIN_ASSET, MAIN_CACHE_ASSET, SCHEMA_REPLY_ASSET, SERVICE_ASSET, SERVICE_CACHE_ASSET } from '../../scripts/release/executable-assets';

const FILES = { loader: 'loader.js', output: 'sea.blob', main: 'main.js', mainCache: 'main.cache', service: 'service.js', serviceCache: 'service.cache', schemaReply: 'schema.reply' };

function runNode(args: readonly string[], script: string): string {
  const result = spawnSync(process.execPath, [...args, '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} -e failed (exit ${result.status}): ${result.stderr}`);
  return result.stdout.trim();
}

test('runs the loader, carries both scripts, their caches and the schema reply, the code cache as asked, no snapshot, and the executable\'s node options', () => {
  expect(seaConfig(FILES, true)).toEqual({
    main: 'loader.js',
    output: 'sea.blob',
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    useSnapshot: false,
    execArgv: ['--min-semi-space-size=4', '--liftoff-only'],
    assets: { [MAIN_ASSET]: 'main.js', [MAIN_CACHE_ASSET]: 'main.cache', [SERVICE_ASSET]: 'service.js', [SERVICE_CACHE_ASSET]: 'service.cache', [SCHEMA_REPLY_ASSET]: 'schema.reply' },
  });
  expect(seaConfig(FILES, false)).toMatchObject({ useCodeCache: false });
});

test('the options give the young generation a 4 MiB semi-space from the start (1 MiB without)', () => {
  const newSpace = "process.stdout.write(String(require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size))";
  const withOptions = Number(runNode(EXECUTABLE_NODE_OPTIONS, newSpace));
  const without = Number(runNode([], newSpace));
  expect(withOptions).toBeGreaterThanOrEqual(4 * 1024 * 1024);
  expect(withOptions).toBeGreaterThan(without);
});

test('a code cache made as the build makes it (fixed seed, the same options) is accepted by a node started with the options', () => {
  const source = 'function add(a, b) { return a + b; } add(1, 2);';
  const cache = runNode(['--random-seed=1', ...EXECUTABLE_NODE_OPTIONS], `process.stdout.write(new (require('node:vm').Script)(${JSON.stringify(source)}).createCachedData().toString('base64'))`);
  const rejected = runNode(EXECUTABLE_NODE_OPTIONS, `process.stdout.write(String(new (require('node:vm').Script)(${JSON.stringify(source)}, { cachedData: Buffer.from(${JSON.stringify(cache)}, 'base64') }).cachedDataRejected))`);
  expect(rejected).toBe('false');
});
