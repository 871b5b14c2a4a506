/**
 * How long a step a test runs may take, named by what the step is, on a loaded 2-core machine
 * (CI, or a contributor's laptop while other work runs). A command run through runCommand gets
 * its step's budget as its own limit, and the test's jest timeout is its steps' budgets added
 * up plus TEST_MARGIN_MS for its own checks: the command's limit fires first, killing its whole
 * process group, and the failure names the step instead of a bare jest timeout.
 */
export const STEP_BUDGET_MS = {
  /** `npm ci` of a project whose only dependency is a local directory, offline. */
  offlineNpmCi: 60_000,
  /** `npm run demo`: the provider build, the emulator, cdktf synth and deploy, the drift check, destroy. */
  demo: 360_000,
  /** `npm run demo:client`: the emulator as a process and the client's tour (2,500-entry bulk calls). */
  clientDemo: 60_000,
  /** A nested jest run of two unit files, with a cold transform cache. */
  nestedJestRun: 300_000,
  /** One curl request to the local emulator. */
  curlRequest: 10_000,
} as const;

/** The test's own work around its commands (reading output, assertions, clean-up). */
export const TEST_MARGIN_MS = 30_000;

/** A jest timeout for a test that runs these steps one after another. */
export function testTimeoutFor(...stepBudgetsMs: readonly number[]): number {
  return stepBudgetsMs.reduce((total, budget) => total + budget, 0) + TEST_MARGIN_MS;
}
