/** Command line of bin/run-svc-sensor.sh: help, option forms, defaults, image selection and
 *  every usage failure (exit 2, before the container runtime is called at all). */
import { expectedTraceVolumes, traceVolumes, flagValues, removeSandboxes, REQUIRED, runCall, runLauncher } from './harness';

afterAll(removeSandboxes);

describe('help', () => {
  test.each([['-h'], ['--help']])('%s prints every option with its default and the exit codes', (flag) => {
    const run = runLauncher([flag]);
    expect(run.status).toBe(0);
    expect(run.calls).toEqual([]);
    for (const expected of [
      /-n, --tenant-id ID +Tenant ID \(required\)/,
      /-d, --domain DOMAIN .*\(required\)/,
      /-a, --app-name NAME .*\n.*\(required\)/,
      /-s, --stack-name NAME .*\(default: SvcPrevent;/,
      /-i, --image-repo REPOSITORY .*\n.*\(default: \$SVC_SENSOR_IMAGE_REPOSITORY, with -I:\n.*\$SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY; none built in\)/,
      /-t, --image-tag TAG .*\(default: 1\.2\.0\)/,
      /-N, --network-interface NAME .*\(default: none/,
      /-l, --sensor-log-level LEVEL .*trace, debug, info, warn, error \(default: info\)/,
      /-p, --trace-path PATH .*\(default: \/sys\)/,
      /-H, --host-mode .*\(default: disabled\)/,
      /-I, --internal .*\(default: disabled\)/,
      /-h, --help /,
      /SVC_SENSOR_API_KEY/,
      /SVC_CONTAINER_RUNTIME/,
      /Exit codes:/,
      /\n {2}2 +invalid command line/,
      /\n {2}17 +the sensor container did not start/,
    ]) {
      expect(run.stdout).toMatch(expected);
    }
  });

  test('help wins even when required options are missing', () => {
    const run = runLauncher(['-l', 'debug', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: run-svc-sensor\.sh/);
  });
});

describe('option forms and defaults', () => {
  test('long options with = and with a separate value give the same sensor', () => {
    const longForm = runLauncher([
      '--tenant-id=acme',
      '--domain=corp.example.com',
      '--app-name=shop-web',
      '--stack-name=Prod1',
      '--image-tag=1.3.0',
      '--sensor-log-level=debug',
      '--trace-path=/sys/kernel',
    ]);
    const spacedForm = runLauncher([
      '--tenant-id', 'acme',
      '--domain', 'corp.example.com',
      '--app-name', 'shop-web',
      '--stack-name', 'Prod1',
      '--image-tag', '1.3.0',
      '--sensor-log-level', 'debug',
      '--trace-path', '/sys/kernel',
    ]);
    const shortForm = runLauncher(['-n', 'acme', '-d', 'corp.example.com', '-a', 'shop-web', '-s', 'Prod1', '-t', '1.3.0', '-l', 'debug', '-p', '/sys/kernel']);
    for (const run of [longForm, spacedForm, shortForm]) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
    // The key file's path differs from run to run (a random directory in each sandbox), and so
    // does the key fingerprint's salt.
    const withoutKeyPath = (call: string[]): string[] =>
      call.map((argument) => argument.replace(/^\S+\/key:\/run\/secrets\//, '<key>:/run/secrets/').replace(/^(svc\.sensor\.key-fingerprint=)[0-9a-f]{32}:[0-9a-f]{64}$/, '$1<salted hash>'));
    const expected = withoutKeyPath(runCall(shortForm));
    expect(expected).toContain('<key>:/run/secrets/svc-sensor-api-key:ro');
    for (const run of [longForm, spacedForm]) {
      expect(withoutKeyPath(runCall(run))).toEqual(expected);
    }
    expect(flagValues(expected, '--env')).toEqual(
      expect.arrayContaining([
        'SVC_ANALYZER_ADDRESS=analyzer.prod1.corp.example.com:50051',
        'SVC_LOG_LEVEL=debug',
        'SVC_TRACE_PATH=/sys/kernel',
      ]),
    );
    expect(traceVolumes(expected)).toEqual(expectedTraceVolumes('/sys/kernel'));
    expect(expected[expected.length - 1]).toBe('registry.svc.example/svc/runtime-sensor:1.3.0');
  });

  test.each(['trace', 'debug', 'info', 'warn', 'error'])('log level %s is accepted', (level) => {
    const run = runLauncher([...REQUIRED, '-l', level]);
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain(`SVC_LOG_LEVEL=${level}`);
  });

  test('the default stack name given explicitly is accepted', () => {
    const run = runLauncher([...REQUIRED, '-s', 'SvcPrevent']);
    expect(run.status).toBe(0);
  });

  test('a later option overrides an earlier one', () => {
    const run = runLauncher([...REQUIRED, '-l', 'warn', '--sensor-log-level=error']);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_LOG_LEVEL=error');
  });
});

describe('image selection', () => {
  const cases: Array<[name: string, options: string[], image: string]> = [
    ['default repository and tag', [], 'registry.svc.example/svc/runtime-sensor:1.2.0'],
    ['-I internal repository', ['-I'], 'registry.internal.svc.example/svc/runtime-sensor:1.2.0'],
    ['--internal internal repository', ['--internal'], 'registry.internal.svc.example/svc/runtime-sensor:1.2.0'],
    ['-t overrides the tag', ['-t', '1.2.3'], 'registry.svc.example/svc/runtime-sensor:1.2.3'],
    ['-I with -t', ['-I', '--image-tag=2.0.0-rc.1'], 'registry.internal.svc.example/svc/runtime-sensor:2.0.0-rc.1'],
    ['-i overrides the repository', ['-i', 'mirror.corp.example:5000/sec/sensor'], 'mirror.corp.example:5000/sec/sensor:1.2.0'],
    ['-i wins over -I', ['-I', '--image-repo=mirror.corp.example/sensor'], 'mirror.corp.example/sensor:1.2.0'],
    ['-i and -t', ['-i', 'mirror.corp.example/sensor', '-t', 'edge'], 'mirror.corp.example/sensor:edge'],
  ];
  test.each(cases)('%s', (_name, options, image) => {
    const run = runLauncher([...REQUIRED, ...options]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(call[call.length - 1]).toBe(image);
    expect(run.stdout).toContain(`image:             ${image}`);
  });
});

describe('the image repository is a required setting: -i, else the host\'s SVC_SENSOR_IMAGE_REPOSITORY', () => {
  const unset = { SVC_SENSOR_IMAGE_REPOSITORY: undefined, SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY: undefined };

  test.each([
    ['neither -i nor the variable', [], "no image repository: the vendor's sensor image repository is a required setting", 'SVC_SENSOR_IMAGE_REPOSITORY'],
    ['-I without -i nor its variable', ['-I'], 'no image repository: the internal sensor image repository (-I/--internal) is a required setting', 'SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY'],
  ])('%s: exit 2 before the runtime is called', (_name, options, message, variable) => {
    const run = runLauncher([...REQUIRED, ...options], { env: unset });
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(`give it with -i/--image-repo REPOSITORY, or set ${variable} for this host`);
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });

  test('-i alone is enough, as the spec\'s option says', () => {
    const run = runLauncher([...REQUIRED, '-i', 'vendor.example/sensor'], { env: unset });
    expect(run.status).toBe(0);
    expect(runCall(run).at(-1)).toBe('vendor.example/sensor:1.2.0');
  });

  test('the variable is checked like -i, and the error names it', () => {
    const run = runLauncher(REQUIRED, { env: { SVC_SENSOR_IMAGE_REPOSITORY: 'vendor.example/sensor:1.0' } });
    expect(run.stderr).toContain("invalid value 'vendor.example/sensor:1.0' for SVC_SENSOR_IMAGE_REPOSITORY: give the repository without a tag");
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });
});

describe('usage errors: exit 2 before anything is touched', () => {
  const cases: Array<[name: string, args: string[], message: RegExp]> = [
    ['no options at all', [], /missing required option\(s\): -n\/--tenant-id, -d\/--domain, -a\/--app-name/],
    ['tenant id missing', ['-d', 'corp.example.com', '-a', 'web'], /missing required option\(s\): -n\/--tenant-id$/m],
    ['domain missing', ['-n', 'acme', '-a', 'web'], /missing required option\(s\): -d\/--domain$/m],
    ['app name missing', ['-n', 'acme', '-d', 'corp.example.com'], /missing required option\(s\): -a\/--app-name$/m],
    ['unknown short option', [...REQUIRED, '-x'], /unknown option '-x'/],
    ['unknown long option', [...REQUIRED, '--colour=red'], /unknown option '--colour'/],
    ['stray argument', [...REQUIRED, 'extra'], /unexpected argument 'extra'/],
    ['value missing at the end', [...REQUIRED, '-l'], /option -l needs a value/],
    ['value missing before the next option', ['-n', '-d', 'corp.example.com', '-a', 'web'], /option -n needs a value/],
    ['empty value with =', ['--tenant-id=', '-d', 'corp.example.com', '-a', 'web'], /missing required option\(s\): -n\/--tenant-id/],
    ['flag given a value', [...REQUIRED, '--host-mode=yes'], /option --host-mode takes no value \(got '--host-mode=yes'\)/],
    ['log level not in the list', [...REQUIRED, '-l', 'verbose'], /invalid value 'verbose' for -l\/--sensor-log-level: use one of trace, debug, info, warn, error/],
    ['log level in upper case', [...REQUIRED, '--sensor-log-level=INFO'], /invalid value 'INFO' for -l\/--sensor-log-level/],
    ['stack name over 14 characters', [...REQUIRED, '-s', 'ProductionEurope'], /invalid value 'ProductionEurope' for -s\/--stack-name: a non-default stack name has at most 14 characters \(this one has 16\)/],
    ['stack name with a dot', [...REQUIRED, '-s', 'prod.eu'], /invalid value 'prod\.eu' for -s\/--stack-name/],
    ['domain with a space', ['-n', 'acme', '-d', 'corp example.com', '-a', 'web'], /invalid value 'corp example\.com' for -d\/--domain/],
    ['domain with an empty label', ['-n', 'acme', '-d', 'corp..example.com', '-a', 'web'], /invalid value 'corp\.\.example\.com' for -d\/--domain/],
    ['app name with a slash', ['-n', 'acme', '-d', 'corp.example.com', '-a', 'shop/web'], /invalid value 'shop\/web' for -a\/--app-name/],
    ['app name starting with a dash', ['-n', 'acme', '-d', 'corp.example.com', '--app-name=-web'], /invalid value '-web' for -a\/--app-name/],
    ['tenant id with a line break', ['-n', 'acme\nSVC_LOG_LEVEL=trace', '-d', 'corp.example.com', '-a', 'web'], /invalid value for -n\/--tenant-id: it contains a control character/],
    ['image repository with a space', [...REQUIRED, '-i', 'repo/sensor x'], /invalid value 'repo\/sensor x' for -i\/--image-repo/],
    ['image repository with a tag', [...REQUIRED, '-i', 'repo/sensor:1.0'], /invalid value 'repo\/sensor:1\.0' for -i\/--image-repo: give the repository without a tag/],
    ['image repository with port and tag', [...REQUIRED, '-i', 'host:5000/sensor:1.0'], /invalid value 'host:5000\/sensor:1\.0' for -i\/--image-repo: give the repository without a tag/],
    ['image repository in upper case', [...REQUIRED, '-i', 'Registry/Sensor'], /invalid value 'Registry\/Sensor' for -i\/--image-repo/],
    ['image tag with a slash', [...REQUIRED, '-t', 'v1/2'], /invalid value 'v1\/2' for -t\/--image-tag/],
    ['interface name too long', [...REQUIRED, '-N', 'averyveryverylongname'], /invalid value 'averyveryverylongname' for -N\/--network-interface/],
    ['relative trace path', [...REQUIRED, '-p', 'sys/kernel'], /invalid value 'sys\/kernel' for -p\/--trace-path: give an absolute directory path/],
    ['trace path with a colon', [...REQUIRED, '-p', '/sys:/etc'], /invalid value '\/sys:\/etc' for -p\/--trace-path/],
  ];
  test.each(cases)('%s', (_name, args, message) => {
    const run = runLauncher(args, { stub: { sensorState: 'running' } });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run run-svc-sensor\.sh --help for the options\./);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.calls).toEqual([]);
  });
});
