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
  /**
   * `npm run synth|diff|deploy|destroy` or `npx cdktf synth`: the cdktf CLI starting, the app
   * synthesized through bin/run-ts.js, then terraform init and plan or apply (the first one of a
   * checkout also builds the provider into dist/). Twice the slowest under load: 80 s for the
   * first `npm run diff` of help/getting-started.md, load average 24.
   */
  cdktfCommand: 180_000,
  /** One `terraform init`, `plan` or `apply` of a small configuration against the provider build. */
  terraformCommand: 60_000,
  /**
   * `terraform test` of a dozen plan-only test files against a mocked hashicorp/aws (its 675 MB
   * plugin loaded for each): 26 s under load, 42.6 s with two full runs at once (load average
   * about 10; help/testing.md, "Under load"), where a 60 s limit left too little room.
   */
  terraformTestMockedAws: 120_000,
  /** A shell built-in or a short command: export, cat, kill, a process started in the background. */
  shellCommand: 10_000,
  /**
   * A bin/ command of the checkout run to its exit. Its first start after an edit transpiles
   * the TypeScript (bin/launch.js): about 1 s on a quiet machine, 18 s under load (two of them
   * took 36 s with the load average at 20 to 27); later starts load it from the cache.
   */
  binCommand: 30_000,
  /** Copying the repository's tracked files into a scratch checkout (git ls-files: about 600 files). */
  repositoryCopy: 30_000,
} as const;

/** The test's own work around its commands (reading output, assertions, clean-up). */
export const TEST_MARGIN_MS = 30_000;

/** A jest timeout for a test that runs these steps one after another. */
export function testTimeoutFor(...stepBudgetsMs: readonly number[]): number {
  return stepBudgetsMs.reduce((total, budget) => total + budget, 0) + TEST_MARGIN_MS;
}
