/** Container and host mode, interface choice and the replace path of bin/run-svc-sensor.sh,
 *  driven against the stub container runtime. */
import { expectedTraceVolumes, traceVolumes, flagValues, removeSandboxes, REQUIRED, runCall, runLauncher, subcommands } from './harness';

afterAll(removeSandboxes);

describe('container mode (default)', () => {
  test('binds the sensor to the app container and passes the analyzer address and settings', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['eth0'] } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(subcommands(run)).toEqual([
      'info',
      'container inspect',
      'exec',
      '--version',
      'image inspect',
      'container inspect',
      'run',
    ]);
    expect(run.calls[1]).toEqual(['container', 'inspect', '--format', '{{.State.Status}}', 'shop-web']);
    expect(run.calls[2]).toEqual(['exec', 'shop-web', 'cat', '/proc/net/dev']);
    expect(run.calls[5]).toEqual(['container', 'inspect', '--format', '{{.State.Status}}', 'svc-sensor-shop-web']);

    const call = runCall(run);
    expect(flagValues(call, '--name')).toEqual(['svc-sensor-shop-web']);
    expect(flagValues(call, '--network')).toEqual(['container:shop-web']);
    expect(flagValues(call, '--env')).toEqual([
      'SVC_SENSOR_API_KEY_FILE=/run/secrets/svc-sensor-api-key',
      'SVC_TENANT_ID=acme',
      'SVC_ANALYZER_ADDRESS=analyzer.svcprevent.corp.example.com:50051',
      'SVC_ANALYZER_TLS=true',
      'SVC_LOG_LEVEL=info',
      'SVC_INTERFACE=eth0',
      'SVC_TRACE_PATH=/sys',
      'SVC_SENSOR_MODE=container',
    ]);
    expect(traceVolumes(call)).toEqual(expectedTraceVolumes('/sys'));
    expect(call[call.length - 1]).toBe('registry.svc.example/svc/runtime-sensor:1.2.0');
  });

  test('prints the support information and the container id', () => {
    const run = runLauncher(REQUIRED);
    expect(run.status).toBe(0);
    for (const expected of [
      /launcher version: +1\.0\.0/,
      /operating system: +\S/,
      /kernel: +6\.1\.0-stub x86_64/,
      /container runtime: +docker \(Stub version 99\.1\.0\)/,
      /mode: +container/,
      /interface: +eth0/,
      /analyzer: +analyzer\.svcprevent\.corp\.example\.com:50051 \(TLS\)/,
      /image: +registry\.svc\.example\/svc\/runtime-sensor:1\.2\.0/,
      /resources: +4 cores, 3906 MB memory/,
      /container id: +0f1e2d3c4b5a6978/,
    ]) {
      expect(run.stdout).toMatch(expected);
    }
  });

  test('a stack name and domain are lower-cased into the analyzer address, a trailing dot dropped', () => {
    const run = runLauncher(['-n', 'acme', '-d', 'Corp.Example.COM.', '-a', 'web', '-s', 'ProdEU-1']);
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_ANALYZER_ADDRESS=analyzer.prodeu-1.corp.example.com:50051');
  });

  const appFailures: Array<[name: string, state: 'missing' | 'exited' | 'created', status: number, message: RegExp]> = [
    ['app container missing', 'missing', 9, /no container named 'shop-web' \(-a\/--app-name\)/],
    ['app container stopped', 'exited', 10, /'shop-web' \(-a\/--app-name\) is 'exited', not running; start it first \(docker start shop-web\)/],
    ['app container created, never started', 'created', 10, /is 'created', not running/],
  ];
  test.each(appFailures)('%s', (_name, appState, status, message) => {
    const run = runLauncher(REQUIRED, { stub: { appState, sensorState: 'running' } });
    expect(run.status).toBe(status);
    expect(run.stderr).toMatch(message);
    expect(subcommands(run)).toEqual(['info', 'container inspect']);
  });
});

describe('container mode: interface choice', () => {
  test('exactly one non-loopback interface is used', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['ens5'] } });
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=ens5');
  });

  test('several interfaces: their names are printed and nothing is started', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['eth0', 'eth1', 'vxlan7'], sensorState: 'running' } });
    expect(run.status).toBe(11);
    expect(run.stderr).toMatch(/several network interfaces:\n {2}eth0\n {2}eth1\n {2}vxlan7\n/);
    expect(run.stderr).toMatch(/choose one with -N\/--network-interface, e\.g\. -N eth0/);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
  });

  test.each([['-N', 'eth1'], ['--network-interface', 'eth1'], ['--network-interface=eth1']])(
    'several interfaces and %s picks one',
    (...option) => {
      const run = runLauncher([...REQUIRED, ...option], { stub: { containerInterfaces: ['eth0', 'eth1'] } });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth1');
    },
  );

  test('-N naming an interface the container lacks fails and lists the real ones', () => {
    const run = runLauncher([...REQUIRED, '-N', 'eth9'], { stub: { containerInterfaces: ['eth0', 'eth1'] } });
    expect(run.status).toBe(12);
    expect(run.stderr).toMatch(/interface 'eth9' \(-N\/--network-interface\) does not exist in container 'shop-web'; its interfaces are: eth0 eth1/);
    expect(subcommands(run)).not.toContain('run');
  });

  test('a 15-character interface name (no padding before the colon in /proc/net/dev) is listed whole', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['veth0123456789a'] } });
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=veth0123456789a');
  });

  // `ip link` shows veth and VLAN interfaces as name@peer; users copy that form.
  test.each([
    ['container: -N eth1@if12 means eth1', [], 'eth1@if12', 0, 'eth1'],
    ['container: -N eth9@if12 is still unknown', [], 'eth9@if12', 12, undefined],
    ['host: -N eth1@if7 means eth1', ['-H'], 'eth1@if7', 0, 'eth1'],
  ] as const)('%s', (_name, mode, named, status, used) => {
    const interfaces = ['eth0', 'eth1'];
    const run = runLauncher([...REQUIRED, ...mode, '-N', named], { stub: { containerInterfaces: interfaces, hostInterfaces: interfaces } });
    expect(run.status).toBe(status);
    if (used) expect(flagValues(runCall(run), '--env')).toContain(`SVC_INTERFACE=${used}`);
    else expect(run.stderr).toMatch(/interface 'eth9@if12' \(-N\/--network-interface\) does not exist in container 'shop-web'; its interfaces are: eth0 eth1/);
  });

  test('only loopback: no usable interface', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: [] } });
    expect(run.status).toBe(13);
    expect(run.stderr).toMatch(/no network interface besides loopback/);
  });

  test('interfaces cannot be listed (no cat in the image): fails without -N', () => {
    const run = runLauncher(REQUIRED, { stub: { execFails: true } });
    expect(run.status).toBe(13);
    expect(run.stderr).toMatch(/cannot list the network interfaces of container 'shop-web'.*name the interface with -N/);
  });

  test('interfaces cannot be listed: -N is used unchecked, with a warning', () => {
    const run = runLauncher([...REQUIRED, '-N', 'eth3'], { stub: { execFails: true } });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/warning: cannot list the interfaces of container shop-web .* using -N eth3 unchecked/);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth3');
  });
});

describe('host mode (-H)', () => {
  test.each([['-H'], ['--host-mode']])('%s uses the host network and the lowest-metric default route', (flag) => {
    const run = runLauncher(['-n', 'acme', '-d', 'corp.example.com', '-a', 'i-0abc123', flag], {
      stub: { appState: 'missing' },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // No app container is looked at in host mode.
    expect(run.calls.some((call) => call.includes('i-0abc123'))).toBe(false);
    expect(subcommands(run)).toEqual(['info', '--version', 'image inspect', 'container inspect', 'run']);
    const call = runCall(run);
    expect(flagValues(call, '--name')).toEqual(['svc-sensor-i-0abc123']);
    expect(flagValues(call, '--network')).toEqual(['host']);
    expect(flagValues(call, '--env')).toContain('SVC_INTERFACE=eth0');
    expect(flagValues(call, '--env')).toContain('SVC_SENSOR_MODE=host');
    expect(run.stdout).toMatch(/mode: +host/);
  });

  test('-N picks a host interface', () => {
    const run = runLauncher([...REQUIRED, '-H', '-N', 'eth1'], { stub: { hostInterfaces: ['eth0', 'eth1'] } });
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth1');
  });

  test('-N naming an interface the host lacks fails', () => {
    const run = runLauncher([...REQUIRED, '-H', '-N', 'wlan0'], { stub: { hostInterfaces: ['eth0', 'eth1'] } });
    expect(run.status).toBe(12);
    expect(run.stderr).toMatch(/interface 'wlan0' \(-N\/--network-interface\) does not exist on this host; its interfaces are: eth0 eth1/);
  });

  test('without an IPv4 default route the IPv6 default route is used', () => {
    const zeros = '0'.repeat(32);
    const ipv6RouteTable = [
      `${zeros} 00 ${zeros} 00 ${zeros} ffffffff 00000001 00000000 00200200       lo`,
      `${zeros} 00 ${zeros} 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     ens6`,
      `fd000000000000000000000000000000 40 ${zeros} 00 ${zeros} 00000100 00000001 00000000 00000001     ens5`,
    ].join('\n');
    const run = runLauncher([...REQUIRED, '-H'], { stub: { routeTable: 'Iface\tDestination\tGateway', ipv6RouteTable } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=ens6');
  });

  test('an unreachable (reject) default route is no interface', () => {
    // `ip route add unreachable default` shows up with Iface '*' and RTF_REJECT (0x0200).
    const routeTable = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      '*\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0',
      'ens5\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
    ].join('\n');
    const run = runLauncher([...REQUIRED, '-H'], { stub: { routeTable } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=ens5');
  });

  test('only an unreachable default route: asks for -N', () => {
    const routeTable = ['Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask', '*\t00000000\t00000000\t0201\t0\t0\t0\t00000000'].join('\n');
    const run = runLauncher([...REQUIRED, '-H'], { stub: { routeTable } });
    expect(run.status).toBe(13);
    expect(run.stderr).toMatch(/no default route/);
  });

  test('no default route at all: asks for -N', () => {
    const run = runLauncher([...REQUIRED, '-H'], { stub: { routeTable: null } });
    expect(run.status).toBe(13);
    expect(run.stderr).toMatch(/no default route.*-N\/--network-interface/);
  });
});

describe('replacing an existing sensor', () => {
  test('a running sensor is stopped with a grace period, then removed, then the new one starts', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' } });
    expect(run.status).toBe(0);
    const tail = subcommands(run).slice(-4);
    expect(tail).toEqual(['container inspect', 'stop', 'rm', 'run']);
    expect(run.calls.find((call) => call[0] === 'stop')).toEqual(['stop', '-t', '30', 'svc-sensor-shop-web']);
    expect(run.calls.find((call) => call[0] === 'rm')).toEqual(['rm', 'svc-sensor-shop-web']);
    expect(run.stdout).toMatch(/Stopping the running sensor svc-sensor-shop-web \(grace period 30 s\)/);
  });

  test.each([['exited'], ['created']] as const)('an existing %s sensor is removed without a stop', (sensorState) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState } });
    expect(run.status).toBe(0);
    expect(subcommands(run).slice(-3)).toEqual(['container inspect', 'rm', 'run']);
  });

  test('a paused sensor is stopped too', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'paused' } });
    expect(run.status).toBe(0);
    expect(subcommands(run).slice(-3)).toEqual(['stop', 'rm', 'run']);
  });

  // Docker and podman name their states differently; `rm` refuses a container that may still
  // run, so every state that is not known to be stopped gets the graceful stop first.
  test.each([
    ['docker restarting', 'restarting'],
    ['podman stopping', 'stopping'],
    ['podman initialized', 'initialized'],
  ] as const)('%s: stopped with the grace period, then removed', (_name, sensorState) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState } });
    expect(run.status).toBe(0);
    expect(subcommands(run).slice(-3)).toEqual(['stop', 'rm', 'run']);
    expect(run.calls.find((call) => call[0] === 'stop')).toEqual(['stop', '-t', '30', 'svc-sensor-shop-web']);
  });

  test.each([
    ['docker dead', 'dead'],
    ['podman stopped', 'stopped'],
    ['podman configured', 'configured'],
  ] as const)('%s: removed without a stop', (_name, sensorState) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState } });
    expect(run.status).toBe(0);
    expect(subcommands(run).slice(-3)).toEqual(['container inspect', 'rm', 'run']);
  });

  test('no sensor yet: nothing is stopped or removed', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'missing' } });
    expect(run.status).toBe(0);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('rm');
  });

  test('the image is pulled before the running sensor is touched', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', imageIsLocal: false } });
    expect(run.status).toBe(0);
    expect(subcommands(run).slice(-6)).toEqual(['image inspect', 'pull', 'container inspect', 'stop', 'rm', 'run']);
    expect(run.calls.find((call) => call[0] === 'pull')).toEqual(['pull', 'registry.svc.example/svc/runtime-sensor:1.2.0']);
  });

  test('an image that cannot be pulled leaves the running sensor alone', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', imageIsLocal: false, pullFails: true } });
    expect(run.status).toBe(15);
    expect(run.stderr).toMatch(/image 'registry\.svc\.example\/svc\/runtime-sensor:1\.2\.0' is not available locally and cannot be pulled; check -i\/--image-repo and -t\/--image-tag/);
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
  });

  test.each([
    ['stop fails', { stopFails: true }, /could not stop the running sensor 'svc-sensor-shop-web'/],
    ['rm fails', { rmFails: true }, /could not remove the previous sensor container 'svc-sensor-shop-web'/],
  ])('%s: exit 16 and no new sensor', (_name, failure, message) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', ...failure } });
    expect(run.status).toBe(16);
    expect(run.stderr).toMatch(message);
    expect(subcommands(run)).not.toContain('run');
  });

  test('the runtime refuses to start the sensor: exit 17', () => {
    const run = runLauncher(REQUIRED, { stub: { runFails: true } });
    expect(run.status).toBe(17);
    expect(run.stderr).toMatch(/the sensor container 'svc-sensor-shop-web' did not start/);
  });
});
