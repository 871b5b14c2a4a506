/** Jest runs TypeScript through ts-jest without type checking (isolatedModules in tsconfig.json):
 *  `npm run typecheck` is the type gate, and it keeps the suite fast on 2 cores. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  testTimeout: 60000,
  // One temporary directory per run, removed after it (cdktf's Testing helpers never clean up).
  globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
  globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
  // Kills processes a test left running (a timed-out test is abandoned, not stopped).
  setupFilesAfterEnv: ['<rootDir>/__tests__/support/kill-children.ts'],
};
