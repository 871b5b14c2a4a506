/**
 * Two jest projects, one per tier (help/testing.md):
 * - `unit`: the areas whose tests need node alone (no terraform, no cdktf CLI, no container
 *   runtime, no provider or release build): `npm run test:unit`, the edit loop.
 * - `end-to-end`: everything else, run with the unit tier by `npm test` (the README's command).
 * Every test file is in exactly one of them, so `npx jest <file>` runs any file as before.
 *
 * Jest runs TypeScript through esbuild, or TypeScript's transpiler for coverage runs, without type
 * checking (__tests__/support/typescript-transform.js, isolatedModules in tsconfig.json):
 * `npm run typecheck` is the type gate, and it keeps the suite fast on 2 cores.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const TESTS = path.join(__dirname, '__tests__');

/** Folders of __tests__ whose files are unit tests, but for END_TO_END_IN_UNIT_AREAS. */
const UNIT_AREAS = [
  'address',
  'api',
  'architecture-rules',
  'bench',
  'bindings',
  'control-plane',
  'deployment-policy',
  'emulator',
  'help',
  'pipeline',
  'provider-framework',
  'provider-resources',
  'provider-wire',
  'readme',
  'security-policy',
  'sensor',
  'shared-rules',
  'test-hygiene',
];

/** Files of those areas that need more than node (what they need, in help/testing.md). */
const END_TO_END_IN_UNIT_AREAS = [
  'bench/bench.test.ts', // npm run bench -- --quick: terraform, the provider build
  'bench/handshake-floor.test.ts', // the release build's floor executable
  'bench/stopped-run.test.ts', // npm run bench -- --quick stopped early: the provider and release builds, terraform
  'bench/floor-provider-terraform.test.ts', // terraform against the protocol floor's executable and the provider build
  'bindings/terraform-validate.test.ts', // terraform validate against the provider build
  'control-plane/boot-run.test.ts', // podman: the boot scripts run in instance containers
  'control-plane/plan-checks.test.ts', // terraform plan and test against hashicorp/aws
  'control-plane/user-data.test.ts', // terraform apply of the user-data, shellcheck
  'help/getting-started.test.ts', // the page's commands in a copy of the repository
  'help/typescript-examples.test.ts', // terraform against the provider build
  'pipeline/pipeline-run.test.ts', // the release build, terraform, the pipeline template's steps
  'pipeline/pipeline-run-cdktf.test.ts', // npm pack, npm ci, the cdktf CLI, terraform: the cdktf templates' steps
  'pipeline/plan-report.test.ts', // terraform against the provider build
  'pipeline/svc-drift.test.ts', // terraform against the provider build
  'pipeline/terraform-cli.test.ts', // terraform, the demo
  'provider-wire/terraform.test.ts', // terraform driving the provider
  'readme/readme.test.ts', // npm run demo
  'security-policy/apply.test.ts', // terraform against the provider build
  'security-policy/wiring.test.ts', // terraform against hashicorp/aws and the provider build
  'sensor/real-runtime.test.ts', // podman
  'test-hygiene/temporary-files.test.ts', // a nested jest run
];

function testFiles(directory) {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixture' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function isUnit(file) {
  const relative = path.relative(TESTS, file).split(path.sep).join('/');
  return UNIT_AREAS.includes(relative.split('/')[0]) && !END_TO_END_IN_UNIT_AREAS.includes(relative);
}

const files = testFiles(TESTS);

/** `--coverage` (or `--collectCoverage`) on the command line: coverage figures need TypeScript's transpiler (typescript-transform.js). */
function collectsCoverage(argv) {
  return argv.some((value) => /^--(coverage|collectCoverage)(=true)?$/.test(value));
}

/** What both projects share. */
const project = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  transform: {
    '^.+\\.ts$': ['<rootDir>/__tests__/support/typescript-transform.js', { transpiler: collectsCoverage(process.argv) ? 'typescript' : 'esbuild' }],
  },
  // Kills processes a test left running (a timed-out test is abandoned, not stopped).
  setupFilesAfterEnv: ['<rootDir>/__tests__/support/kill-children.ts'],
};

const cores = os.availableParallelism();

module.exports = {
  testTimeout: 60000,
  // jest's default (one worker per core but one) gave a 2-core machine a single worker, running
  // every file in band: a file waiting on terraform, npm or podman left the second core idle
  // (help/testing.md, "Where the time goes"). One worker more than there are cores: the slow
  // files spend part of their time waiting on the processes they start (terraform, npm, podman,
  // the sensor launcher's bash). On 2 cores a third worker took the unit tier from 66 s to 54 s
  // and the whole suite from 665 s to 627 s (1,203 s of CPU: both cores busy nearly throughout);
  // the check under load (help/testing.md, "Under load") ran four at once with no test within 2x
  // of its limit.
  maxWorkers: cores + 1,
  projects: [
    {
      ...project,
      displayName: 'unit',
      testMatch: files.filter(isUnit),
      // One temporary directory per run, removed after it (cdktf's Testing helpers never clean up).
      globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
      globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
    },
    {
      ...project,
      displayName: 'end-to-end',
      testMatch: files.filter((file) => !isUnit(file)),
      // The run's directory too, then what several files share: the provider built once.
      globalSetup: '<rootDir>/__tests__/support/end-to-end-setup.ts',
      globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
    },
  ],
};
