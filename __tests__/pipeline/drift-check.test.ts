/**
 * The drift check's rules and command line: exit codes, terraform's first error line, stack
 * selection and arguments; the cdktf flags the npm scripts add. Real terraform runs in
 * cdktf-end-to-end.test.ts.
 */
import { describeStackCheck, driftExitCode, firstErrorLine, selectStacks, type StackCheck } from '../../src/pipeline/drift-check';
import { cdktfArguments, outputDirectory, synthArguments } from '../../scripts/cdktf-command';
import { main, parseDriftArguments } from '../../scripts/drift-check';

describe('driftExitCode', () => {
  const stack = (status: StackCheck['status']): StackCheck => ({ name: status, status });
  const cases: Array<[name: string, statuses: Array<StackCheck['status']>, code: 0 | 1 | 2]> = [
    ['all clean', ['clean', 'clean'], 0],
    ['one drifted', ['clean', 'drift'], 2],
    ['an error wins over drift: the check is incomplete', ['drift', 'error'], 1],
    ['skipped stacks do not fail a clean check', ['clean', 'skipped'], 0],
    ['skipped stacks do not hide drift', ['drift', 'skipped'], 2],
    ['every stack skipped: nothing was checked', ['skipped', 'skipped'], 1],
  ];
  test.each(cases)('%s', (_name, statuses, code) => expect(driftExitCode(statuses.map(stack))).toBe(code));
});

describe('describeStackCheck', () => {
  const update = { address: 'svc_tenant_sso.t', action: 'update' as const, attributes: [] };
  const cases: Array<[name: string, check: StackCheck, expected: string]> = [
    ['clean', { name: 's', status: 'clean', changes: { drift: [], changes: [], outputs: [] } }, 'no drift, nothing to change'],
    [
      'clean, though refresh found differences the configuration does not set (exit 0 from terraform)',
      { name: 's', status: 'clean', changes: { drift: [update], changes: [], outputs: [] } },
      'nothing to change: 1 changed outside terraform only in what the configuration does not set (listed below)',
    ],
    ['drift', { name: 's', status: 'drift', changes: { drift: [update], changes: [update], outputs: [] } }, 'DRIFT: 1 changed outside terraform, 1 planned change'],
    ['pending changes', { name: 's', status: 'drift', changes: { drift: [], changes: [update, update], outputs: [] } }, 'PENDING CHANGES: 0 changed outside terraform, 2 planned changes'],
    [
      'skipped: says what could not be reached',
      { name: 's', status: 'skipped', unreachable: 'no AWS credentials', error: 'terraform plan: Error: No valid credential sources found' },
      'skipped (cannot be reached: no AWS credentials): terraform plan: Error: No valid credential sources found',
    ],
  ];
  test.each(cases)('%s', (_name, check, expected) => expect(describeStackCheck(check)).toBe(expected));
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
});

describe('selectStacks', () => {
  const stacks = ['control-plane', 'security-policy'].map((name) => ({ name, workingDirectory: `/out/stacks/${name}`, file: `/out/stacks/${name}/cdk.tf.json` }));
  test('every stack by default, or the ones named', () => {
    expect(selectStacks(stacks).map((stack) => stack.name)).toEqual(['control-plane', 'security-policy']);
    expect(selectStacks(stacks, ['security-policy']).map((stack) => stack.name)).toEqual(['security-policy']);
  });
  test('an unknown name lists the stacks there are', () => {
    expect(() => selectStacks(stacks, ['security'])).toThrow('no stack named "security"; the app has control-plane, security-policy');
  });
});

describe('command line', () => {
  const cases: Array<[name: string, argv: string[], expected: Partial<ReturnType<typeof parseDriftArguments>>]> = [
    ['defaults', [], { help: false, stacks: [], synth: true, output: 'cdktf.out', skipUnreachable: false }],
    ['repeated --stack, both spellings', ['--stack', 'a', '--stack=b'], { stacks: ['a', 'b'] }],
    ['--no-synth --output', ['--no-synth', '--output', 'elsewhere'], { synth: false, output: 'elsewhere' }],
    ['--skip-unreachable', ['--skip-unreachable'], { skipUnreachable: true }],
    ['--help wins', ['--stack', 'a', '-h'], { help: true }],
  ];
  test.each(cases)('%s', (_name, argv, expected) => expect(parseDriftArguments(argv)).toMatchObject(expected));

  const errors: Array<[name: string, argv: string[], message: RegExp]> = [
    ['unknown flag', ['--all'], /unknown argument "--all"; run with --help/],
    ['--stack without a name', ['--stack'], /--stack needs a value, e.g. --stack security-policy/],
    ['--stack followed by a flag', ['--stack', '--no-synth'], /--stack needs a value/],
    ['empty --stack=', ['--stack='], /--stack needs a stack name/],
  ];
  test.each(errors)('%s', (_name, argv, message) => expect(() => parseDriftArguments(argv)).toThrow(message));

  function captured(run: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
    const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    return run()
      .then((code) => ({ code, stdout: stdout.join(''), stderr: stderr.join('') }))
      .finally(() => {
        out.mockRestore();
        err.mockRestore();
      });
  }

  test('--help prints the usage and exits 0', async () => {
    const result = await captured(() => main(['--help']));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run drift -- /);
    expect(result.stdout).toContain('Exit status: 0 no drift');
    expect(result.stdout.replace(/\s+/g, ' ')).toContain('A refused key (svc login, AWS 401/403), a configuration error or an invalid value still fails it');
  });

  test('a usage error exits 1 and says what is wrong', async () => {
    const result = await captured(() => main(['--bogus']));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('drift check: unknown argument "--bogus"; run with --help for the options\n');
  });

  test('--no-synth on a directory that was never synthesized exits 1 and says how to synthesize', async () => {
    const result = await captured(() => main(['--no-synth', '--output', '/nonexistent/cdktf.out']));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/drift check: \/nonexistent\/cdktf\.out\/manifest\.json does not exist; synthesize first/);
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
