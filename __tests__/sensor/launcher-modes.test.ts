/** Container and host mode, interface choice and the replace path of bin/run-svc-sensor.sh,
 *  driven against the stub container runtime. */
import { expectedTraceVolumes, flagValues, LauncherRun, removeSandboxes, REQUIRED, runCall, runLauncher, subcommands, traceVolumes } from './harness';

afterAll(removeSandboxes);

describe('container mode (default)', () => {
  test('binds the sensor to the app container and passes the analyzer address and settings', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['eth0'] } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(subcommands(run)).toEqual([
      'info',
      'info',
      'container inspect',
      '--version',
      'image inspect',
      'image inspect',
      'container inspect',
      'container inspect',
      'run',
      'container inspect',
      'container inspect',
    ]);
    // The interfaces come from /proc/<app pid>/net/dev on the host: nothing runs in the app.
    expect(run.calls[2]).toEqual(['container', 'inspect', '--format', '{{.State.Status}} {{.State.Pid}} {{.HostConfig.NetworkMode}}', 'shop-web']);
    expect(run.calls[5]).toEqual(['image', 'inspect', '--format', '{{.Id}}|{{.Config.User}}|{{range .RepoDigests}}{{.}}|{{end}}', 'registry.svc.example/svc/runtime-sensor:1.2.0']);
    expect(run.calls[6]).toEqual(['container', 'inspect', '--format', '{{index .Config.Labels "svc.sensor.name"}}', 'svc-sensor-shop-web.previous']);
    expect(run.calls[7]).toEqual(['container', 'inspect', '--format', '{{.State.Status}}', 'svc-sensor-shop-web']);

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
    expect(subcommands(run)).toEqual(['info', 'info', 'container inspect']);
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

  test('interfaces cannot be listed (no /proc/<app pid>/net/dev here, e.g. a remote daemon): fails without -N', () => {
    const run = runLauncher(REQUIRED, { stub: { appNetDevMissing: true } });
    expect(run.status).toBe(13);
    expect(run.stderr).toMatch(/cannot list the network interfaces of container 'shop-web' \(its process 4240 has no readable \S+\/4240\/net\/dev.*name the interface with -N/);
  });

  test('interfaces cannot be listed: -N is used unchecked, with a warning', () => {
    const run = runLauncher([...REQUIRED, '-N', 'eth3'], { stub: { appNetDevMissing: true } });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/warning: cannot list the interfaces of container shop-web .* using -N eth3 unchecked/);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth3');
  });

  test('an app container on the host network: the default-route interface, not every host interface', () => {
    const run = runLauncher(REQUIRED, { stub: { appNetworkMode: 'host', hostInterfaces: ['eth0', 'eth1', 'ifb0', 'docker0'] } });
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth0');
    expect(flagValues(runCall(run), '--network')).toEqual(['container:shop-web']);
    expect(run.stdout).toContain('Container shop-web uses the host network');
    // -N is checked against the host's interfaces there.
    const named = runLauncher([...REQUIRED, '-N', 'eth1'], { stub: { appNetworkMode: 'host', hostInterfaces: ['eth0', 'eth1'] } });
    expect(named.status).toBe(0);
    expect(flagValues(runCall(named), '--env')).toContain('SVC_INTERFACE=eth1');
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
    expect(subcommands(run)).toEqual(['info', 'info', '--version', 'image inspect', 'image inspect', 'container inspect', 'container inspect', 'run', 'container inspect', 'container inspect']);
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

/** The runtime calls from the first look at an existing sensor on (after the image check). */
function replacementCalls(run: LauncherRun): string[] {
  const calls = subcommands(run);
  const imageCheck = Math.max(calls.lastIndexOf('image inspect'), calls.lastIndexOf('pull'));
  return calls.slice(imageCheck + 1);
}

const PREVIOUS = 'svc-sensor-shop-web.previous';

describe('replacing an existing sensor: stopped gracefully, kept until the new one is healthy', () => {
  test('a running sensor is renamed aside, stopped with a grace period, and removed once the new one is healthy', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running' } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The .previous label check, the state, then rename, stop, run, the health check, rm, the image ID.
    expect(replacementCalls(run)).toEqual(['container inspect', 'container inspect', 'rename', 'stop', 'run', 'container inspect', 'rm', 'container inspect']);
    expect(run.calls.find((call) => call[0] === 'rename')).toEqual(['rename', 'svc-sensor-shop-web', PREVIOUS]);
    // The default grace period, and the stop call's own limit: 60 s on top of it.
    expect(run.calls.find((call) => call[0] === 'stop')).toEqual(['stop', '-t', '30', PREVIOUS]);
    expect(run.toolCalls.find((call) => call[0] === 'timeout' && call[4] === 'stop')).toEqual(['timeout', '--foreground', '90', 'docker', 'stop', '-t', '30', PREVIOUS]);
    expect(run.calls.find((call) => call[0] === 'rm')).toEqual(['rm', '--force', PREVIOUS]);
    expect(run.stdout).toMatch(/Stopping the running sensor svc-sensor-shop-web \(grace period 30 s; kept as svc-sensor-shop-web\.previous until the new one is healthy\)/);
    expect(run.stdout).toMatch(/Removing the previous sensor container \(as svc-sensor-shop-web\.previous\)/);
  });

  // Docker and podman name their states differently; every state that is not known to be
  // stopped gets the graceful stop.
  test.each([
    ['paused', 'paused'],
    ['docker restarting', 'restarting'],
    ['podman stopping', 'stopping'],
    ['podman initialized', 'initialized'],
  ] as const)('%s: stopped with the grace period', (_name, sensorState) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState } });
    expect(run.status).toBe(0);
    expect(replacementCalls(run).slice(2)).toEqual(['rename', 'stop', 'run', 'container inspect', 'rm', 'container inspect']);
  });

  test.each([
    ['exited', 'exited'],
    ['created', 'created'],
    ['docker dead', 'dead'],
    ['podman stopped', 'stopped'],
    ['podman configured', 'configured'],
  ] as const)('%s: set aside and removed without a stop', (_name, sensorState) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState } });
    expect(run.status).toBe(0);
    expect(replacementCalls(run).slice(2)).toEqual(['rename', 'run', 'container inspect', 'rm', 'container inspect']);
    expect(run.stdout).not.toMatch(/Stopping/);
  });

  test('no sensor yet: nothing is renamed, stopped or removed', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'missing' } });
    expect(run.status).toBe(0);
    expect(replacementCalls(run)).toEqual(['container inspect', 'container inspect', 'run', 'container inspect', 'container inspect']);
  });

  test('the image is pulled before the running sensor is touched', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', imageIsLocal: false } });
    expect(run.status).toBe(0);
    const calls = subcommands(run);
    expect(calls.indexOf('pull')).toBeLessThan(calls.indexOf('rename'));
    expect(run.calls.find((call) => call[0] === 'pull')).toEqual(['pull', 'registry.svc.example/svc/runtime-sensor:1.2.0']);
  });

  test('an image that cannot be pulled leaves the running sensor alone', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', imageIsLocal: false, pullFails: true } });
    expect(run.status).toBe(15);
    expect(run.stderr).toMatch(/image 'registry\.svc\.example\/svc\/runtime-sensor:1\.2\.0' is not available locally and cannot be pulled; check -i\/--image-repo and -t\/--image-tag/);
    expect(subcommands(run)).not.toContain('rename');
    expect(subcommands(run)).not.toContain('stop');
    expect(subcommands(run)).not.toContain('run');
  });

  test('stop fails: exit 16, no new sensor, the old one back under its name', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', stopFails: true } });
    expect(run.status).toBe(16);
    expect(run.stderr).toMatch(/could not stop the running sensor \(now 'svc-sensor-shop-web\.previous'\)/);
    expect(subcommands(run)).not.toContain('run');
    expect(run.calls.filter((call) => call[0] === 'rename')).toEqual([
      ['rename', 'svc-sensor-shop-web', PREVIOUS],
      ['rename', PREVIOUS, 'svc-sensor-shop-web'],
    ]);
  });

  test('the previous sensor cannot be removed after the new one is healthy: exit 0, with a warning', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', rmFails: true } });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(`run-svc-sensor.sh: warning: could not remove the previous sensor container ${PREVIOUS}; remove it by hand (docker rm ${PREVIOUS})\n`);
  });

  test('the runtime refuses to start the new sensor: exit 17, the old one renamed back and started again', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', runFails: true } });
    expect(run.status).toBe(17);
    expect(run.stderr).toMatch(/the sensor container svc-sensor-shop-web did not start \(docker run failed, see above\)/);
    expect(run.stderr).toMatch(/the previous sensor svc-sensor-shop-web was started again/);
    expect(replacementCalls(run)).toEqual(['container inspect', 'container inspect', 'rename', 'stop', 'run', 'rm', 'rename', 'start']);
    expect(run.calls.slice(-3)).toEqual([
      ['rm', '--force', 'svc-sensor-shop-web'],
      ['rename', PREVIOUS, 'svc-sensor-shop-web'],
      ['start', 'svc-sensor-shop-web'],
    ]);
  });
});

describe('healthy or failed: the new sensor must stay up', () => {
  test.each([
    ['exits at once (a bad key)', { newSensorState: 'exited' }, /the new sensor 'svc-sensor-shop-web' did not stay up: after 0 s it is 'exited' with 0 restart\(s\)/],
    ['crash-loops (restarted by the runtime)', { newSensorState: 'running', newSensorRestarts: 2 }, /did not stay up: after 0 s it is 'running' with 2 restart\(s\)/],
    ['reports its health check unhealthy', { newSensorHealth: 'unhealthy' }, /reports its health check as unhealthy/],
  ])('%s: exit 21 with its last log lines; the previous sensor is restored', (_name, stub, message) => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', ...stub } });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(21);
    expect(run.stderr).toMatch(/Last 20 log lines of svc-sensor-shop-web:\n {2}\| stand-in sensor: starting\n {2}\| stand-in sensor: authentication failed: invalid sensor key\n/);
    expect(run.calls.find((call) => call[0] === 'logs')).toEqual(['logs', '--tail', '20', 'svc-sensor-shop-web']);
    expect(run.calls.slice(-3)).toEqual([
      ['rm', '--force', 'svc-sensor-shop-web'],
      ['rename', PREVIOUS, 'svc-sensor-shop-web'],
      ['start', 'svc-sensor-shop-web'],
    ]);
    expect(run.stdout).not.toMatch(/Sensor svc-sensor-shop-web started/);
    // The new sensor's key directory went with it.
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
  });

  test('a sensor that was stopped is put back stopped', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'exited', newSensorState: 'exited' } });
    expect(run.status).toBe(21);
    expect(run.stderr).toMatch(/the previous sensor svc-sensor-shop-web is back \(stopped, as it was\)/);
    expect(subcommands(run)).not.toContain('start');
  });

  test('--health-wait 2: inspected for 2 s, once a second', () => {
    const run = runLauncher([...REQUIRED, '--health-wait', '2']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Waiting 2 s for svc-sensor-shop-web to stay up/);
    // The .previous label and the state, 3 health checks, the image ID.
    expect(replacementCalls(run).filter((call) => call === 'container inspect')).toHaveLength(2 + 3 + 1);
    expect(run.toolCalls.filter((call) => call[0] === 'sleep')).toEqual([['sleep', '1'], ['sleep', '1']]);
  });

  test.each(['-1', '601', '1.5', 'ten'])('--health-wait %s: exit 2', (value) => {
    const run = runLauncher([...REQUIRED, `--health-wait=${value}`]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`invalid value '${value.replace('.', '\\.')}' for --health-wait \\(or SVC_SENSOR_HEALTH_WAIT\\)`));
  });

  test('--stop-timeout 5: the running sensor gets 5 s to stop on SIGTERM, the stop call 60 s more', () => {
    const run = runLauncher([...REQUIRED, '--stop-timeout', '5'], { stub: { sensorState: 'running' } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.calls.find((call) => call[0] === 'stop')).toEqual(['stop', '-t', '5', PREVIOUS]);
    expect(run.toolCalls.find((call) => call[0] === 'timeout' && call[4] === 'stop')).toEqual(['timeout', '--foreground', '65', 'docker', 'stop', '-t', '5', PREVIOUS]);
    expect(run.stdout).toMatch(/Stopping the running sensor svc-sensor-shop-web \(grace period 5 s; kept as/);
  });

  test.each(['0', '601', '1.5', 'ten', ''])('--stop-timeout=%s: exit 2 before the runtime is asked anything', (value) => {
    const run = runLauncher([...REQUIRED, `--stop-timeout=${value}`], { stub: { sensorState: 'running' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`invalid value '${value}' for --stop-timeout: give the seconds the running sensor has to stop on SIGTERM before it is killed, 1 to 600, e.g. 30`);
    expect(run.calls).toEqual([]);
  });

  test('a capability asked for but not granted (e.g. a non-root image user): exit 22, rolled back', () => {
    // CapEff without BPF (39) and PERFMON (38).
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', sensorCapEff: '0000000000003000' } });
    expect(run.stderr).toMatch(/the sensor was not granted BPF PERFMON \(the runtime dropped what this host or the image's user does not allow/);
    expect(run.status).toBe(22);
    expect(run.calls.slice(-2)).toEqual([['rename', PREVIOUS, 'svc-sensor-shop-web'], ['start', 'svc-sensor-shop-web']]);
  });
});

describe('a run interrupted while the previous sensor was set aside', () => {
  test('no sensor under the name: the one left as .previous is renamed back first, then replaced', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'missing', previousState: 'exited' } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Renaming svc-sensor-shop-web\.previous, left by an interrupted run, back to svc-sensor-shop-web/);
    expect(run.calls.filter((call) => call[0] === 'rename')).toEqual([
      ['rename', PREVIOUS, 'svc-sensor-shop-web'],
      ['rename', 'svc-sensor-shop-web', PREVIOUS],
    ]);
  });

  test('a sensor runs under the name: the .previous one is superseded and removed', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'running', previousState: 'exited' } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Removing svc-sensor-shop-web\.previous, left by an interrupted run/);
    expect(run.calls.filter((call) => call[0] === 'rm')[0]).toEqual(['rm', '--force', PREVIOUS]);
  });

  test('a .previous container of another application (its label says so) is never touched', () => {
    const run = runLauncher(REQUIRED, { stub: { sensorState: 'missing', previousState: 'running', previousLabel: 'svc-sensor-shop-web.previous' } });
    expect(run.status).toBe(0);
    expect(run.calls.some((call) => call.includes(PREVIOUS) && call[0] !== 'container')).toBe(false);
  });
});
