/**
 * The drift check's rules and npm run drift's command line: exit codes (pending changes never
 * counted as drift), terraform's first error line, which directories are roots, the audit lookup
 * (against the emulator), a mirror refused before terraform starts, which arguments are npm run
 * drift's and which go to svc drift; the cdktf flags the npm scripts add. Real terraform runs
 * in svc-drift.test.ts (svc drift) and cdktf-end-to-end.test.ts (npm run drift on a synthesized
 * app).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManagementClient } from '../../src/api/client';
import { startEmulator, type EmulatorSeed } from '../../src/emulator/server';
import { auditLookupFor, driftRunExitCode, findRoots, firstErrorLine, type DriftRoot, type RootCheck } from '../../src/pipeline/drift-roots';
import type { JsonPlanDocument } from '../../src/pipeline/plan-report';
import { main as svcMain } from '../../src/pipeline/svc-cli';
import { cdktfArguments, outputDirectory, synthArguments } from '../../scripts/cdktf-command';
import { main, parseNpmDriftArguments } from '../../scripts/drift-check';

describe('driftRunExitCode', () => {
  const root: DriftRoot = { name: 'stack', kind: 'cdktf stack', directory: '/out/stacks/stack' };
  const check = (status: RootCheck['status']): RootCheck => ({ root, status });
  const cases: Array<[name: string, statuses: Array<RootCheck['status']>, failOnPending: boolean, code: 0 | 1 | 2]> = [
    ['all clean', ['clean', 'clean'], false, 0],
    ['one drifted', ['clean', 'drift'], false, 2],
    ['pending changes are not drift', ['pending', 'clean'], false, 0],
    ['pending changes with --fail-on-pending', ['pending', 'clean'], true, 2],
    ['an error wins over drift: the check is incomplete', ['drift', 'error'], false, 1],
    ['skipped stacks do not fail a clean check', ['clean', 'skipped'], false, 0],
    ['skipped stacks do not hide drift', ['drift', 'skipped'], false, 2],
    ['every stack skipped: nothing was checked', ['skipped', 'skipped'], false, 1],
  ];
  test.each(cases)('%s', (_name, statuses, failOnPending, code) => expect(driftRunExitCode(statuses.map(check), failOnPending)).toBe(code));
});

describe('firstErrorLine', () => {
  const cases: Array<[name: string, stderr: string, stdout: string, expected: string]> = [
    [
      'a boxed diagnostic',
      '╷\n│ Error: No valid credential sources found\n│ \n│   with provider["registry.terraform.io/hashicorp/aws"],\n╵\n╷\n│ Error: second\n╵\n',
      '',
      'Error: No valid credential sources found (provider["registry.terraform.io/hashicorp/aws"])',
    ],
    [
      'an unboxed one (-no-color): the detail says why',
      '\nError: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/aws:\ncould not connect to registry.terraform.io\n\nTo see which modules...\n',
      '',
      'Error: Failed to query available provider packages: Could not retrieve the list of available versions for provider hashicorp/aws: could not connect to registry.terraform.io',
    ],
    [
      'a resource diagnostic: its address and what to fix, not the quoted source',
      '\nError: Login to the svc management API failed\n\n  with svc_blacklist_entry.b,\n  on cdk.tf.json line 52, in resource.svc_blacklist_entry.b:\n  52:       },\n\nread svc_blacklist_entry: login refused for tenant "acme": bad API key\nor inactive user.\n\nError: Login to the svc management API failed\n',
      '',
      'Error: Login to the svc management API failed (svc_blacklist_entry.b): read svc_blacklist_entry: login refused for tenant "acme": bad API key or inactive user.',
    ],
    [
      'the provider\'s follow-on notes of a failed login come first: the cause is shown',
      '\nError: Skipped: the svc provider could not log in\n\nread svc_blacklist_entry: not sent.\n\nError: Login to the svc management API failed\n\nread svc_whitelist: login refused for tenant "acme": bad API key or inactive user.\n',
      '',
      'Error: Login to the svc management API failed: read svc_whitelist: login refused for tenant "acme": bad API key or inactive user.',
    ],
    ['no Error line: the last line and the code', 'something odd\nthe end\n', '', 'the end (exit code 1)'],
    ['no output at all', '', '', 'exit code 1, no output'],
  ];
  test.each(cases)('%s', (_name, stderr, stdout, expected) => expect(firstErrorLine({ code: 1, stderr, stdout })).toBe(expected));

  test('a long detail is cut to 400 characters', () => {
    const line = firstErrorLine({ code: 1, stderr: `\nError: Invalid value\n\n${'word '.repeat(200)}\n`, stdout: '' });
    expect(line).toHaveLength(400);
    expect(line).toMatch(/^Error: Invalid value: word word .*\.\.\.$/);
  });
});

describe('findRoots: which directories are roots, and of which kind', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-find-roots-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('an HCL root and a synthesized stack directory named by themselves; the current directory is "."', () => {
    fs.mkdirSync(path.join(dir, 'hcl'));
    fs.writeFileSync(path.join(dir, 'hcl', 'main.tf'), '');
    fs.mkdirSync(path.join(dir, 'stack'));
    fs.writeFileSync(path.join(dir, 'stack', 'cdk.tf.json'), '{}');
    expect(findRoots(['hcl', 'stack'], dir)).toEqual([
      { name: 'hcl', kind: 'hcl', directory: path.join(dir, 'hcl') },
      { name: 'stack', kind: 'cdktf stack', directory: path.join(dir, 'stack') },
    ]);
    expect(findRoots([], path.join(dir, 'hcl'))).toEqual([{ name: '.', kind: 'hcl', directory: path.join(dir, 'hcl') }]);
  });

  test.each([
    ['a file', ['main.tf'], 'DIR "main.tf" is not a directory'],
    ['a directory that does not exist', ['nowhere'], 'DIR "nowhere" is not a directory'],
    ['a directory without configuration', ['empty'], 'DIR "empty" holds no terraform configuration (*.tf, *.tf.json) and no synthesized cdktf app (manifest.json)'],
  ])('refused: %s', (_name, directories, message) => {
    fs.writeFileSync(path.join(dir, 'main.tf'), '');
    fs.mkdirSync(path.join(dir, 'empty'));
    expect(() => findRoots(directories, dir)).toThrow(message);
  });

  test('--stack on an HCL root is refused and says what --stack is for', () => {
    fs.writeFileSync(path.join(dir, 'main.tf'), '');
    expect(() => findRoots(['.'], dir, ['prod'])).toThrow('--stack names stacks of a synthesized cdktf app, and "." has no manifest.json');
  });
});

describe('auditLookupFor: the audit log of the root\'s service, over real HTTP to the emulator', () => {
  const KEY = 'drift-audit-test-key';
  const SEED = {
    tenants: [
      {
        name: 'acme', contact_email: 'sec@acme.example', description: 'Acme', active: true, autoblock_threshold: 10, autoblock_timeout: 1800, block_embargo: 0,
        ssl_ciphers: '', notify_threshold: 5, sso: null, allow_super_admin_users: true, allow_channel_admin_users: true, tenant_admin_default: false,
      },
    ],
    channels: [],
    users: [{ email: 'ops@acme.example', apiKey: KEY, active: true, readOnly: false }],
  } as unknown as EmulatorSeed;
  const providerPlan = (expressions: Record<string, string>): JsonPlanDocument => ({
    format_version: '1.2',
    configuration: { provider_config: { svc: { name: 'svc', expressions: Object.fromEntries(Object.entries(expressions).map(([name, value]) => [name, { constant_value: value }])) } } },
  });

  test('the provider block\'s literal base_url and tenant first, else SVC_BASE_URL and SVC_TENANT; the key from the environment', async () => {
    const emulator = await startEmulator({ seed: SEED });
    try {
      const client = new ManagementClient({ baseUrl: emulator.url, apiKey: KEY, tenant: 'acme', allowInsecureHttp: true });
      await client.addEntry('blacklist', { ip: '203.0.113.9', description: 'by hand' });
      await client.close();
      const fromBlock = await auditLookupFor(providerPlan({ base_url: emulator.url, tenant: 'acme' }), { TF_VAR_api_key: KEY, SVC_ALLOW_INSECURE_HTTP: '1' })(undefined, 10);
      expect(fromBlock.map((event) => `${event.user} ${event.action} ${event.description}`)).toContainEqual(expect.stringMatching(/^ops@acme\.example new_entry .*203\.0\.113\.9/));
      const fromEnvironment = await auditLookupFor({ format_version: '1.2' }, { SVC_BASE_URL: emulator.url, SVC_API_KEY: KEY, SVC_TENANT: 'acme', SVC_ALLOW_INSECURE_HTTP: 'true' })(undefined, 10);
      expect(fromEnvironment).toEqual(fromBlock);
    } finally {
      await emulator.close();
    }
  });

  test.each([
    ['no base URL', {}, { SVC_API_KEY: 'k', SVC_TENANT: 't' }, 'no base URL: the provider block sets no literal base_url and SVC_BASE_URL is unset'],
    ['no API key', { base_url: 'https://svc.example' }, { TF_VAR_api_key: '', SVC_TENANT: 't' }, 'no API key in TF_VAR_api_key or SVC_API_KEY'],
    ['no tenant', { base_url: 'https://svc.example', tenant: '' }, { SVC_API_KEY: 'k' }, 'no tenant: the provider block sets no literal tenant and SVC_TENANT is unset'],
  ])('%s: refused before any request', async (_name, expressions, env, message) => {
    await expect(auditLookupFor(providerPlan(expressions as Record<string, string>), env)(undefined, 10)).rejects.toThrow(message);
  });
});

describe('npm run drift\'s command line', () => {
  const cases: Array<[name: string, argv: string[], expected: Partial<ReturnType<typeof parseNpmDriftArguments>>]> = [
    ['defaults', [], { help: false, synth: true, output: 'cdktf.out', forwarded: [] }],
    ['svc drift\'s options go to it, with their values', ['--stack', 'a', '--stack=b', '--format', 'json', '--skip-unreachable'], { forwarded: ['--stack', 'a', '--stack=b', '--format', 'json', '--skip-unreachable'] }],
    ['--no-synth --output', ['--no-synth', '--output', 'elsewhere'], { synth: false, output: 'elsewhere', forwarded: [] }],
    ['--output=', ['--output=elsewhere'], { output: 'elsewhere' }],
    ['--help wins', ['--stack', 'a', '-h'], { help: true }],
  ];
  test.each(cases)('%s', (_name, argv, expected) => expect(parseNpmDriftArguments(argv)).toMatchObject(expected));

  const errors: Array<[name: string, argv: string[], message: RegExp]> = [
    ['--output without a directory', ['--output'], /--output needs a directory, e.g. --output cdktf\.out/],
    ['--output followed by a flag', ['--output', '--no-synth'], /--output needs a directory/],
    ['a stack name without --stack', ['security-policy'], /"security-policy": npm run drift checks the app's stacks; name one with --stack security-policy/],
    ['--link-mirror is npm run drift\'s', ['--link-mirror'], /--link-mirror is npm run drift's to set/],
  ];
  test.each(errors)('%s', (_name, argv, message) => expect(() => parseNpmDriftArguments(argv)).toThrow(message));

  async function captured(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {} });
    return { code, stdout, stderr };
  }

  test('--help prints npm run drift\'s usage, then svc drift\'s, and exits 0', async () => {
    const result = await captured(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run drift -- /);
    expect(result.stdout).toContain('Usage: svc drift [DIR...]');
    expect(result.stdout).toContain('Exit status (svc drift\'s): 0 no drift (pending changes included, unless --fail-on-pending);');
  });

  test('a usage error exits 1 and says what is wrong', async () => {
    const result = await captured(['security-policy']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('npm run drift: "security-policy": npm run drift checks the app\'s stacks; name one with --stack security-policy\n');
  });

  test('--no-synth on a directory that was never synthesized exits 1 and says how to synthesize, before anything is built', async () => {
    const result = await captured(['--no-synth', '--output', '/nonexistent/cdktf.out', '--stack', 'x']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('npm run drift: /nonexistent/cdktf.out/manifest.json does not exist; synthesize first (npm run synth, or leave --no-synth out)\n');
  });
});

describe('npm run deploy and friends (scripts/cdktf-command.ts)', () => {
  const cases: Array<[command: string, rest: string[], expected: string[]]> = [
    ['synth', [], ['synth']],
    ['deploy', ['security-policy', '--auto-approve'], ['deploy', '--skip-synth', '--skip-provider-lock', 'security-policy', '--auto-approve']],
    ['diff', ['security-policy'], ['diff', '--skip-synth', '--skip-provider-lock', 'security-policy']],
    ['destroy', ['security-policy', '--skip-provider-lock'], ['destroy', '--skip-synth', 'security-policy', '--skip-provider-lock']],
    ['deploy', ['--skip-synth', 'security-policy'], ['deploy', '--skip-provider-lock', '--skip-synth', 'security-policy']],
  ];
  test.each(cases)('%s %j', (command, rest, expected) => expect(cdktfArguments(command, rest)).toEqual(expected));

  // The synth before diff, deploy, destroy gets where to write and which app, not the stacks or their flags.
  const synthCases: Array<[rest: string[], expected: string[]]> = [
    [['security-policy', '--auto-approve'], ['synth']],
    [['security-policy', '--output', 'elsewhere', '--var', 'x=1'], ['synth', '--output', 'elsewhere']],
    [['-o', 'short', '-a', 'node app.js'], ['synth', '-o', 'short', '-a', 'node app.js']],
    [['--output=joined', '--app=node app.js', '--parallelism', '2'], ['synth', '--output=joined', '--app=node app.js']],
  ];
  test.each(synthCases)('synth before %j: %j', (rest, expected) => expect(synthArguments(rest)).toEqual(expected));
});

describe('the output directory scripts/cdktf-command.ts prepares after synth', () => {
  const cases: Array<[rest: string[], expected: string]> = [
    [[], 'cdktf.out'],
    [['security-policy', '--output', 'elsewhere'], 'elsewhere'],
    [['-o', 'short'], 'short'],
    [['--output=joined', '--skip-synth'], 'joined'],
  ];
  test.each(cases)('%j -> %s', (rest, expected) => expect(outputDirectory(rest)).toBe(expected));
});

describe('svc drift refuses a mirror it cannot use before terraform starts', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-drift-mirror-refused-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('--mirror naming a directory without the provider: exit 1, the directory named, nothing linked into the root', async () => {
    fs.writeFileSync(path.join(dir, 'main.tf'), 'terraform {\n  required_providers {\n    svc = {\n      source = "svc-prevent/svc"\n    }\n  }\n}\n');
    fs.mkdirSync(path.join(dir, 'empty-mirror'));
    let stdout = '';
    let stderr = '';
    const code = await svcMain(['drift', '--mirror', path.join(dir, 'empty-mirror'), '.'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { CHECKPOINT_DISABLE: '1', PATH: '/nonexistent' },
      workingDirectory: dir,
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.startsWith(`svc drift: ${path.join(dir, 'empty-mirror')} holds no svc provider: expected ${path.join(dir, 'empty-mirror', 'registry.terraform.io', 'svc-prevent', 'svc')}/`)).toBe(true);
    expect(stderr).toMatch(/\/terraform-provider-svc_v<version>\n$/);
    expect(fs.existsSync(path.join(dir, 'terraform.d'))).toBe(false);
  });
});
