/** What bin/run-svc-sensor.sh grants the sensor container: capabilities by kernel version, the
 *  hardening flags, limits and log rotation and their options, driven against the stub runtime.
 *  real-runtime.test.ts checks on podman that the sensor really gets only this. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expectedTraceVolumes, flagValues, removeSandboxes, REQUIRED, runCall, runLauncher, startBlockedLauncher, subcommands, traceVolumes } from './harness';

afterAll(removeSandboxes);

describe('capabilities: all dropped, then only what an eBPF network sensor needs', () => {
  test.each([
    ['6.1.0-18-cloud-amd64', ['BPF', 'PERFMON', 'NET_ADMIN', 'NET_RAW']],
    ['5.8.0', ['BPF', 'PERFMON', 'NET_ADMIN', 'NET_RAW']],
    ['10.0.1', ['BPF', 'PERFMON', 'NET_ADMIN', 'NET_RAW']],
  ])('kernel %s: %j, no SYS_ADMIN, no warning', (kernelRelease, expected) => {
    const run = runLauncher(REQUIRED, { stub: { kernelRelease } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(flagValues(call, '--cap-drop')).toEqual(['ALL']);
    expect(flagValues(call, '--cap-add')).toEqual(expected);
    // The drop comes first: an add after it is what remains.
    expect(call.indexOf('--cap-drop')).toBeLessThan(call.indexOf('--cap-add'));
    expect(run.stdout).toMatch(new RegExp(`capabilities: +${expected.join(' ')} \\(all others dropped\\)`));
  });

  test.each([
    ['5.4.0-150-generic', '5.4.0-150-generic'],
    ['4.19.0', '4.19.0'],
    ['custom-build', 'custom-build'],
  ])('kernel %s (no CAP_BPF, or no version to tell): SYS_ADMIN, and a warning that says why', (kernelRelease, shown) => {
    const run = runLauncher(REQUIRED, { stub: { kernelRelease } });
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--cap-add')).toEqual(['SYS_ADMIN', 'NET_ADMIN', 'NET_RAW']);
    expect(run.stderr).toBe(
      `run-svc-sensor.sh: warning: kernel ${shown} is older than 5.8 (or unreadable), which has no CAP_BPF and CAP_PERFMON; the sensor gets CAP_SYS_ADMIN instead, which is close to host root: upgrade the kernel to drop it\n`,
    );
  });
});

describe('hardening, limits and log rotation', () => {
  test('defaults: no new privileges, read-only root with a small tmpfs, 512m, 1 CPU, 256 pids, 10m x 3 logs', () => {
    const run = runLauncher(REQUIRED);
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(flagValues(call, '--security-opt')).toEqual(['no-new-privileges']);
    expect(call).toContain('--read-only');
    expect(flagValues(call, '--tmpfs')).toEqual(['/tmp:rw,nosuid,nodev,noexec,size=16m']);
    expect(flagValues(call, '--memory')).toEqual(['512m']);
    expect(flagValues(call, '--cpus')).toEqual(['1']);
    expect(flagValues(call, '--pids-limit')).toEqual(['256']);
    expect(flagValues(call, '--log-opt')).toEqual(['max-size=10m', 'max-file=3']);
    // Only the tracing and BPF filesystems, never /sys itself.
    expect(traceVolumes(call)).toEqual(expectedTraceVolumes('/sys'));
    expect(traceVolumes(call)).not.toContain('/sys:/sys:ro');
    expect(call).not.toContain('--privileged');
    expect(run.stdout).toMatch(/limits: +memory 512m, cpus 1, pids 256, log rotation 10m x 3 files/);
  });

  test('--memory-limit, --cpu-limit and --log-max-size set them; --log-max-size 0 passes no log option', () => {
    const run = runLauncher([...REQUIRED, '--memory-limit', '1g', '--cpu-limit=0.5', '--log-max-size', '0']);
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(flagValues(call, '--memory')).toEqual(['1g']);
    expect(flagValues(call, '--cpus')).toEqual(['0.5']);
    expect(flagValues(call, '--log-opt')).toEqual([]);
    expect(run.stdout).toMatch(/log rotation by the runtime's log driver/);
  });

  test.each([
    ['--memory-limit', '0', /invalid value '0' for --memory-limit: give a size such as 512m or 1g/],
    ['--memory-limit', '512 m', /invalid value '512 m' for --memory-limit/],
    ['--memory-limit', '1t', /invalid value '1t' for --memory-limit/],
    ['--cpu-limit', '0', /invalid value '0' for --cpu-limit: give a number of CPUs greater than 0/],
    ['--cpu-limit', '0.00', /invalid value '0.00' for --cpu-limit/],
    ['--cpu-limit', '1.234', /invalid value '1.234' for --cpu-limit/],
    ['--log-max-size', '-1', /invalid value '-1' for --log-max-size: give a size such as 10m, or 0/],
    ['--log-max-size', '10mb', /invalid value '10mb' for --log-max-size/],
  ])('%s %s: exit 2 before any runtime call', (option, value, message) => {
    const run = runLauncher([...REQUIRED, `${option}=${value}`]);
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });
});

describe('log level: one word of the list, not a substring of it', () => {
  test.each(['info warn', 'inf', 'o w', 'INFO', ''])('%j is refused with exit 2', (level) => {
    const run = runLauncher([...REQUIRED, `--sensor-log-level=${level}`]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`invalid value '${level}' for -l/--sensor-log-level: use one of trace, debug, info, warn, error`);
    expect(subcommands(run)).toEqual([]);
  });
});

describe('image integrity: digests, the pull policy, the image that runs', () => {
  test.each([
    ['-t sha256:<digest>', ['-t', `sha256:${'a'.repeat(64)}`], `registry.svc.example/svc/runtime-sensor@sha256:${'a'.repeat(64)}`],
    ['-i repository@sha256:<digest>', ['-i', `mirror.corp.example:5000/sec/sensor@sha256:${'b'.repeat(64)}`], `mirror.corp.example:5000/sec/sensor@sha256:${'b'.repeat(64)}`],
  ])('%s runs the image by digest', (_name, args, image) => {
    const run = runLauncher([...REQUIRED, ...args]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const call = runCall(run);
    expect(call[call.length - 1]).toBe(image);
    expect(run.stdout).toContain(`image:             ${image}`);
    expect(run.stdout).toMatch(/image id: +sha256:5ab7bf7b2dd0/);
  });

  test.each([
    ['a short digest', ['-t', 'sha256:abc'], /invalid value 'sha256:abc' for -t\/--image-tag: a digest is sha256: and 64 lower-case hex digits/],
    ['an upper-case digest', ['-i', `repo.example/s@sha256:${'A'.repeat(64)}`], /invalid digest 'sha256:A+' in -i\/--image-repo/],
    ['a digest and a tag', ['-i', `repo.example/s@sha256:${'c'.repeat(64)}`, '-t', '1.2.0'], /names a digest \(@sha256:c+\) and -t\/--image-tag a tag \('1\.2\.0'\): give one of them/],
    ['--pull sometimes', ['--pull', 'sometimes'], /invalid value 'sometimes' for --pull: use always/],
  ])('%s: exit 2 before any runtime call', (_name, args, message) => {
    const run = runLauncher([...REQUIRED, ...args]);
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
    expect(run.calls).toEqual([]);
  });

  test('--pull always pulls although the image is local (a re-pushed tag is refreshed)', () => {
    const run = runLauncher([...REQUIRED, '--pull', 'always'], { stub: { imageIsLocal: true } });
    expect(run.status).toBe(0);
    expect(run.calls.filter((call) => call[0] === 'pull')).toEqual([['pull', 'registry.svc.example/svc/runtime-sensor:1.2.0']]);
  });

  test('--pull missing (default) uses the local image', () => {
    const run = runLauncher(REQUIRED, { stub: { imageIsLocal: true } });
    expect(run.status).toBe(0);
    expect(subcommands(run)).not.toContain('pull');
  });

  describe('--signature-policy FILE (podman): passed to the pull, which then happens on every run', () => {
    const policyDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sensor-policy-'));
    const policy = path.join(policyDirectory, 'policy.json');
    fs.writeFileSync(policy, '{"default":[{"type":"reject"}]}\n');
    afterAll(() => fs.rmSync(policyDirectory, { recursive: true, force: true }));
    const podman = { runtimeNames: ['podman'] };

    test('a local image is pulled anyway, with the policy', () => {
      const run = runLauncher([...REQUIRED, '--signature-policy', policy], { stub: { ...podman, imageIsLocal: true } });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.calls.filter((call) => call[0] === 'pull')).toEqual([['pull', '--signature-policy', policy, 'registry.svc.example/svc/runtime-sensor:1.2.0']]);
      expect(run.stdout).toContain(`verified against the signature policy ${policy}`);
    });

    test('a pull podman refuses: exit 15 naming the policy, the running sensor untouched', () => {
      const run = runLauncher([...REQUIRED, '--signature-policy', policy], { stub: { ...podman, pullFails: true, sensorState: 'running' } });
      expect(run.status).toBe(15);
      expect(run.stderr).toContain(`podman refused it under the signature policy '${policy}' (--signature-policy), or cannot reach it`);
      for (const mutating of ['rename', 'stop', 'rm', 'run']) expect(subcommands(run)).not.toContain(mutating);
    });

    test.each([
      ['docker', { runtimeNames: ['docker'] }, [], 2, "--signature-policy needs podman, and the runtime is 'docker'", ['info']],
      ['--pull never', podman, ['--pull', 'never'], 2, '--signature-policy and --pull never cannot be combined', []],
      ['no such file', podman, ['--signature-policy', '/nonexistent/policy.json'], 2, "invalid value '/nonexistent/policy.json' for --signature-policy: no readable file", []],
    ])('%s: refused before anything is pulled or touched', (_name, stub, extra, status, message, calls) => {
      const args = extra[0] === '--signature-policy' ? [...REQUIRED, ...extra] : [...REQUIRED, '--signature-policy', policy, ...extra];
      const run = runLauncher(args, { stub: { ...stub, sensorState: 'running' } });
      expect(run.stderr).toContain(message);
      expect(run.status).toBe(status);
      expect(subcommands(run)).toEqual(calls);
    });
  });

  test('--pull never with no local image: exit 15, nothing pulled, the running sensor untouched', () => {
    const run = runLauncher([...REQUIRED, '--pull=never'], { stub: { imageIsLocal: false, sensorState: 'running' } });
    expect(run.status).toBe(15);
    expect(run.stderr).toMatch(/is not available locally and --pull never forbids pulling it/);
    expect(subcommands(run)).not.toContain('pull');
    expect(subcommands(run)).not.toContain('rename');
  });
});

describe('fleet affordances', () => {
  test('--version prints the launcher version and exits 0 without a runtime call', () => {
    const run = runLauncher(['--version']);
    expect(run.stdout).toBe('run-svc-sensor.sh 1.0.0\n');
    expect(run.status).toBe(0);
    expect(run.calls).toEqual([]);
  });

  test('--dry-run checks, prints the run command without the key, and changes nothing', () => {
    const run = runLauncher([...REQUIRED, '--dry-run', '--key-delivery', 'env'], { stub: { sensorState: 'running', imageIsLocal: false } });
    expect(run.status).toBe(0);
    for (const mutating of ['pull', 'rename', 'stop', 'rm', 'run', 'start']) expect(subcommands(run)).not.toContain(mutating);
    expect(run.stdout).toMatch(/Dry run: nothing was pulled, stopped, removed or started\. Image: registry\.svc\.example\/svc\/runtime-sensor:1\.2\.0 \(pull policy missing\)\./);
    expect(run.stdout).toContain("docker run --detach --name svc-sensor-shop-web --restart unless-stopped --network container:shop-web --cap-drop ALL --cap-add BPF");
    expect(run.stdout).toContain('--env-file \\<env\\ file\\ with\\ SVC_SENSOR_API_KEY=\\<redacted\\>\\>');
    expect(run.stdout + run.stderr).not.toContain('sk-test');
    expect(run.envFiles).toEqual([]);
    expect(run.leftoverTempFiles).toEqual([]);
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
  });

  test('a second run for the same sensor while one holds the lock: exit 23, nothing touched', async () => {
    const first = startBlockedLauncher(REQUIRED, { stub: { sensorState: 'running', blockIn: 'stop' } });
    await first.blocked();
    // The same key store, another sandbox for the second run's stub.
    const second = runLauncher(REQUIRED, { stub: { sensorState: 'running' }, env: { SVC_SENSOR_SECRET_DIR: first.sandbox.secretDir } });
    first.release();
    const firstRun = await first.finished;
    expect(second.stderr).toMatch(/another run of the launcher for svc-sensor-shop-web is in progress/);
    expect(second.status).toBe(23);
    expect(subcommands(second)).not.toContain('rename');
    expect(firstRun.status).toBe(0);
    // Released with the first run: a third run goes ahead.
    const third = runLauncher(REQUIRED, { env: { SVC_SENSOR_SECRET_DIR: first.sandbox.secretDir } });
    expect(third.status).toBe(0);
  });

  test('tunnel devices of the ipip/sit modules are no candidates: eth0 is the only interface', () => {
    const run = runLauncher(REQUIRED, { stub: { containerInterfaces: ['tunl0', 'sit0', 'ip6tnl0', 'eth0'] } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain('SVC_INTERFACE=eth0');
  });
});
