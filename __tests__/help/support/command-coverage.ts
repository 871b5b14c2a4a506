/**
 * Which test runs each command of the help pages. A page in PAGES_RUN_BY_TESTS has every
 * command of its ```sh blocks run literally, in order, by the named test, except the commands
 * an exemption names (or that sit in an exempted section). Any other command must be named by
 * an exemption: why this suite does not run it, and which test covers what it does instead.
 * __tests__/help/commands.test.ts enforces both, so a new command in help/ is either run or
 * explained.
 */

/** Pages whose commands a test runs literally, in order, in a copy of the repository. */
export const PAGES_RUN_BY_TESTS: Readonly<Record<string, string>> = {
  'getting-started.md': '__tests__/help/getting-started.test.ts',
};

/**
 * Text replaced in every command of a page before it runs, and why. The commands stay literal
 * otherwise.
 */
export const SUBSTITUTIONS: ReadonlyArray<{ readonly page: string; readonly text: string; readonly reason: string }> = [
  {
    page: 'getting-started.md',
    text: '8080',
    reason: 'the emulator port: the test takes a free port, so a port in use on the machine (or a parallel run) cannot break it',
  },
];

export interface Exemption {
  readonly page: string;
  /** The commands it covers: those matching `command`, or every command of `section`. */
  readonly command?: RegExp;
  readonly section?: string;
  readonly reason: string;
  /** The test files (or CI script) that run the same thing, or what the page's test does instead. */
  readonly coveredBy: readonly string[];
}

const IMPORT_TESTS = ['__tests__/provider-acceptance/entry-resources.test.ts', '__tests__/provider-acceptance/list-resources.test.ts', '__tests__/provider-acceptance/sso-resources.test.ts'];

export const EXEMPTIONS: readonly Exemption[] = [
  // client.md and drift-in-ci.md: the svc command against a service of the reader's.
  {
    page: 'client.md',
    command: /^(export SVC_BASE_URL=|export SVC_API_KEY=|svc (entries|audit|sso) )/,
    reason: "the reader's service and secret store; the test runs every verb of svc entries, svc audit and svc sso show against the emulator, with a bad key and an unreachable service",
    coveredBy: ['__tests__/pipeline/svc-entries.test.ts'],
  },
  {
    page: 'client.md',
    command: /^(TOKEN=\$\(curl |curl )/,
    reason: "the reader's service; the test runs this block of the page with bash against the emulator (login, list, delete)",
    coveredBy: ['__tests__/pipeline/svc-entries.test.ts'],
  },
  {
    page: 'drift-in-ci.md',
    command: /^(npx )?svc drift /,
    reason: "the reader's roots and state; the test runs svc drift on an HCL root and a synthesized cdktf app against the emulator: clean, pending, drift, markdown and json",
    coveredBy: ['__tests__/pipeline/svc-drift.test.ts'],
  },
  // cdktf-or-cdk-terrain.md: a user's own project moving to CDK Terrain.
  {
    page: 'cdktf-or-cdk-terrain.md',
    section: 'Moving a project that uses our constructs to CDK Terrain',
    reason: "commands in the user's own project (package swaps from the registry, cdktn against their stacks); the test sets up such a project from a pinned lock and runs cdktn synth, deploy security-policy and destroy in it",
    coveredBy: ['__tests__/cdktn/cdktn-project.test.ts'],
  },
  {
    page: 'cdktf-or-cdk-terrain.md',
    command: /^node scripts\/native-addons\.js$/,
    reason: 'builds a native addon into node_modules for the running Node; the runtimes test runs the same function against the installed tree',
    coveredBy: ['__tests__/runtimes/native-addons.test.ts'],
  },
  // getting-started.md: the copy of the repository stands in for the clone.
  {
    page: 'getting-started.md',
    command: /^git clone /,
    reason: 'needs the network; the test copies the working tree (tracked and new files) into a temporary directory instead',
    coveredBy: ['__tests__/help/getting-started.test.ts'],
  },
  { page: 'getting-started.md', command: /^cd terraform-provider-svc$/, reason: 'the test runs in its copy of the repository', coveredBy: ['__tests__/help/getting-started.test.ts'] },
  {
    page: 'getting-started.md',
    command: /^npm ci$/,
    reason: 'needs the registry and takes minutes; the test links the installed node_modules into its copy, and CI runs npm ci first',
    coveredBy: ['.ci/run'],
  },
  {
    page: 'getting-started.md',
    section: 'Against the real management API',
    reason: 'needs the real management API and a real key; the same cdktf commands run against the emulator above, and import is tested with real terraform',
    coveredBy: ['__tests__/help/getting-started.test.ts', ...IMPORT_TESTS],
  },

  // provider.md: plain terraform in a directory of HCL, against the emulator.
  { page: 'provider.md', command: /^npm ci && npm run build$/, reason: 'npm ci needs the registry; the build is what the acceptance harness does', coveredBy: ['__tests__/packaging/build-provider.test.ts'] },
  {
    page: 'provider.md',
    command: /^(export TF_CLI_CONFIG_FILE=|cd my-policy && terraform init$|export SVC_API_KEY=\.\.\.$|terraform (plan|apply)$|TF_LOG_PROVIDER=DEBUG terraform apply)/,
    reason: 'terraform against a directory of the user\'s HCL; the acceptance tests run init, plan and apply with the mirror\'s CLI configuration and the key from SVC_API_KEY',
    coveredBy: ['__tests__/provider-acceptance/walkthrough.test.ts', '__tests__/provider-wire/log-level.test.ts'],
  },
  {
    page: 'provider.md',
    command: /^(npx svc-emulator --port 8080 |export SVC_BASE_URL=http:\/\/127\.0\.0\.1:8080 |cat > seed\.json|curl -s -X POST -H 'Content-Type: application\/json' http:\/\/127\.0\.0\.1:8080\/_emulator\/risk-block)/,
    reason: 'the emulator on a fixed port with a seed file and its admin route; the emulator tests start it the same way on a free port and run the curl line against it',
    coveredBy: ['__tests__/emulator/cli.test.ts', '__tests__/emulator/seed.test.ts', '__tests__/emulator/blocking.test.ts', '__tests__/emulator/hardening.test.ts'],
  },

  {
    page: 'provider.md',
    command: /^echo 'provider::svc::canonical_address\("2001:DB8:0:0::\/32"\)' \| terraform console$/,
    reason: 'needs a directory initialised with the provider; the functions acceptance test runs this exact line from the page in such a workspace and compares its output with the page',
    coveredBy: ['__tests__/provider-acceptance/functions.test.ts'],
  },

  // drift-in-ci.md: the drift check needs a deployed stack and its state.
  {
    page: 'leaving-cdktf.md',
    command: /^npm run synth( -- --hcl)?$/,
    reason: 'synthesizes this repository\'s app into cdktf.out; the tests synthesize into their own directories: --hcl through the cdktf CLI, the JSON through npm run synth',
    coveredBy: ['__tests__/app/synth-hcl.test.ts', '__tests__/runtimes/npm-scripts.test.ts'],
  },
  {
    page: 'leaving-cdktf.md',
    command: /^npm run --silent moved-blocks -- /,
    reason: 'reads cdktf.out of the app; the migration test runs the same command line (its main) on a stack it synthesized and applied, then plans the module with the blocks',
    coveredBy: ['__tests__/migration/leaving-cdktf.test.ts'],
  },
  {
    page: 'drift-in-ci.md',
    command: /^npm run drift\b/,
    reason: 'the drift check needs a deployed stack and its state; the app\'s tests run it against the emulator after out-of-band changes (exit 2, drift named by address), on an unreachable stack (exit 1, or skipped) and its command line',
    coveredBy: ['__tests__/app/cdktf-end-to-end.test.ts', '__tests__/pipeline/drift-check.test.ts'],
  },

  // resource pages: import commands.
  {
    page: 'resources/*',
    command: /^terraform import svc_\w+\.\w+ \S+$/,
    reason: 'terraform import needs a configuration and an entry to import; the acceptance tests import every resource type with IDs of these forms',
    coveredBy: IMPORT_TESTS,
  },

  // emulator.md
  {
    page: 'emulator.md',
    command: /^curl -s -X POST -H 'Content-Type: application\/json' http:\/\/127\.0\.0\.1:8080\/_emulator\/clock /,
    reason: 'port 8080 may be taken; the hardening test runs this line with the port of an emulator it started',
    coveredBy: ['__tests__/emulator/hardening.test.ts'],
  },
  { page: 'emulator.md', command: /^npx svc-emulator --port 0 --tenant acme --api-key k1$/, reason: 'the emulator runs until stopped; the tests start the same executable on a free port and stop it', coveredBy: ['__tests__/emulator/cli.test.ts', '__tests__/emulator/child-process.test.ts'] },

  // control-plane.md and deployment-policy.md: AWS.
  {
    page: 'control-plane.md',
    command: /./,
    reason: 'plans and applies in an AWS account (credentials, a VPC, a hosted zone); synth and plan-time checks run against a mocked AWS provider',
    coveredBy: ['__tests__/control-plane/plan-checks.test.ts', '__tests__/app/app.test.ts'],
  },
  {
    page: 'deployment-policy.md',
    command: /^for part in 1 2 3; do/,
    reason: 'creates and attaches IAM policies with the aws CLI in a real account; the command that prints each part is tested',
    coveredBy: ['__tests__/deployment-policy/cli.test.ts'],
  },

  // performance.md (the bench helper's page): minutes of measuring.
  {
    page: 'performance.md',
    command: /^npm run bench\b/,
    reason: 'the full bench measures for minutes and its figures are machine-dependent; the bench smoke test runs the same command with --quick into a temporary file, the stopped-run test with its output on pipes it closes early (`| head`), and the option parsing is unit-tested',
    coveredBy: ['__tests__/bench/bench.test.ts', '__tests__/bench/stopped-run.test.ts', '__tests__/bench/options.test.ts'],
  },

  // releasing.md: the release build takes minutes (postject rewrites ~120 MB per platform) and publishing needs real hosts.
  {
    page: 'releasing.md',
    command: /^(npm run release|git checkout v0\.1\.0 && npm ci && npm run release|npm run release -- --sign)$/,
    reason: 'minutes per build, into release/ of the repository; the reproducible test runs npm run release -- --sign with --out-dir, SVC_RELEASE_GPG_KEY and GNUPGHOME naming a throwaway key, and compares it byte for byte with the run\'s shared release (the same build, buildRelease, signed), which the release test installs with terraform; the CLI test runs the command\'s --help and --sign refusal',
    coveredBy: ['__tests__/release/reproducible.test.ts', '__tests__/release/release.test.ts', '__tests__/release/cli.test.ts'],
  },
  {
    page: 'releasing.md',
    command: /^(export GNUPGHOME=|gpg --import release-signing-key\.asc|export SVC_RELEASE_GPG_KEY=)/,
    reason: 'a maintainer\'s real signing key; the release tests make a throwaway key in a GNUPGHOME of their own and sign with it (reproducible.test.ts through SVC_RELEASE_GPG_KEY)',
    coveredBy: ['__tests__/release/reproducible.test.ts', '__tests__/release/release.test.ts'],
  },
  {
    page: 'releasing.md',
    command: /^(mkdir -m 700 -p "\$GNUPGHOME"|cat > key-params <<'PARAMS'\n|gpg --batch --gen-key key-params$|FINGERPRINT=\$\(gpg --list-secret-keys|gpg --armor --export(-secret-keys)? "\$FINGERPRINT")/,
    reason: 'the signing-key test runs this block literally (bash, no terminal, a throwaway HOME) and signs and verifies a SHA256SUMS with the key it made; the run here would leave a key in the user\'s HOME',
    coveredBy: ['__tests__/release/signing-key.test.ts'],
  },
  {
    page: 'releasing.md',
    command: /^npm run release:(registry|mirror) -- --out-dir (site|mirror)$/,
    reason: 'needs a built release; the release test writes both sites from its release with the same functions and installs from them with terraform, the CLI test runs the commands against a missing release',
    coveredBy: ['__tests__/release/release.test.ts', '__tests__/release/cli.test.ts'],
  },
  {
    page: 'releasing.md',
    command: /^(sha256sum -c (--ignore-missing )?(release\/)?terraform-provider-svc_0\.1\.0_SHA256SUMS|gpg --(import|verify) terraform-provider-svc_0\.1\.0_)/,
    reason: 'needs a downloaded release; the release test runs sha256sum -c and gpg --import/--verify on the release it built',
    coveredBy: ['__tests__/release/release.test.ts'],
  },
  {
    page: 'releasing.md',
    command: /^npm publish( --dry-run)?$/,
    reason: 'publishing needs the npm registry and a token; the published-package test packs the library and runs npm publish --dry-run of the tarball against a closed loopback registry, asserting no warning',
    coveredBy: ['__tests__/library/published-package.test.ts'],
  },
  // own-cdktf-project.md: another team's project, outside this repository.
  {
    page: 'own-cdktf-project.md',
    command: /^(npm pack$|npm install \.\.\/terraform-provider-svc\/svc-prevent-|npm install @cdktf\/provider-aws@|export CHECKPOINT_DISABLE=1$|npx cdktf synth$|npx svc drift cdktf\.out --stack policy$)/,
    reason: 'a team\'s own project installing the packed library (npm install needs the registry, or its cache); the library test packs it, installs the tarball offline in a scratch project outside the repository, runs the page\'s program, deploys it, and runs svc drift cdktf.out --stack policy',
    coveredBy: ['__tests__/library/consumer.test.ts'],
  },

  // testing.md: running this suite.
  {
    page: 'testing.md',
    command: /^npx jest /,
    reason: 'runs this suite itself (a run inside the run would recurse); the tiers test checks which files each tier selects, and CI runs every file',
    coveredBy: ['__tests__/test-hygiene/tiers.test.ts', '.ci/run'],
  },

  // sensor.md: a container runtime on a Linux host.
  {
    page: 'sensor.md',
    command: /./,
    reason: 'starts a sensor container (needs a container runtime and the vendor image); the launcher tests run it against stub runtimes',
    coveredBy: ['__tests__/sensor/launcher-modes.test.ts', '__tests__/sensor/launcher-options.test.ts', '__tests__/sensor/launcher-secret.test.ts', '__tests__/sensor/launcher-systemd-unit.test.ts', '__tests__/sensor/real-runtime.test.ts'],
  },
];

/** The exemption that names a command of `page` (in `sectionHeading`), if any. */
export function exemptionFor(page: string, command: string, sectionHeading: string | undefined): Exemption | undefined {
  return EXEMPTIONS.find((exemption) => {
    const pageMatches = exemption.page === page || (exemption.page.endsWith('/*') && page.startsWith(exemption.page.slice(0, -1)));
    if (!pageMatches) return false;
    if (exemption.section !== undefined) return exemption.section === sectionHeading;
    return exemption.command!.test(command);
  });
}
