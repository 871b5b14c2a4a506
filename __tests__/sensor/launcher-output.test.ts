/** --output json: one JSON object on stdout whatever the outcome, the human text on stderr.
 *  With the stub runtime; --ensure's comparison with a running sensor is tested on real podman
 *  (real-runtime.test.ts). */
import { REQUIRED, removeSandboxes, runLauncher, subcommands } from './harness';

afterAll(removeSandboxes);

/** stdout must be exactly one JSON object and a line break. */
function resultOf(stdout: string): Record<string, unknown> {
  expect(stdout.endsWith('}\n')).toBe(true);
  expect(stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('--output json', () => {
  test('a new sensor: action started, its IDs, digest, capabilities and interface; messages on stderr', () => {
    const run = runLauncher([...REQUIRED, '--output', 'json']);
    expect(run.status).toBe(0);
    expect(resultOf(run.stdout)).toEqual({
      action: 'started',
      exit_code: 0,
      message: null,
      sensor: 'svc-sensor-shop-web',
      mode: 'container',
      container_id: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
      image: 'registry.svc.example/svc/runtime-sensor:1.2.0',
      image_id: 'sha256:5ab7bf7b2dd01f21790734ed4ec4f9824dd94d1bfb4eaf7748ccc7c8549a2655',
      image_digest: 'sha256:9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a',
      capabilities: ['BPF', 'PERFMON', 'NET_ADMIN', 'NET_RAW'],
      interface: 'eth0',
      unit_file: null,
      launcher_version: '1.0.0',
    });
    expect(run.stderr).toMatch(/Sensor svc-sensor-shop-web started/);
    expect(run.stderr).toMatch(/image digest: +sha256:9d8c7b6a/);
  });

  test('a running sensor of that name: action replaced', () => {
    const run = runLauncher([...REQUIRED, '--output=json'], { stub: { sensorState: 'running' } });
    expect(run.status).toBe(0);
    expect(resultOf(run.stdout).action).toBe('replaced');
    expect(subcommands(run)).toContain('stop');
  });

  test('a failure: action failed, the exit code and the error message', () => {
    const run = runLauncher([...REQUIRED, '--output', 'json'], { stub: { appState: 'missing' } });
    expect(run.status).toBe(9);
    const result = resultOf(run.stdout);
    expect(result).toEqual(expect.objectContaining({ action: 'failed', exit_code: 9, container_id: null, interface: null }));
    expect(result.message).toMatch(/^no container named 'shop-web' \(-a\/--app-name\) exists/);
    expect(run.stderr).toContain("run-svc-sensor.sh: error: no container named 'shop-web'");
  });

  test('a new sensor that does not stay up: failed with 21, the previous sensor restored', () => {
    const run = runLauncher([...REQUIRED, '--output', 'json'], { stub: { sensorState: 'running', newSensorState: 'exited' } });
    expect(run.status).toBe(21);
    expect(resultOf(run.stdout)).toEqual(expect.objectContaining({ action: 'failed', exit_code: 21 }));
  });

  test('a usage error after --output json is reported as JSON too; before it, only as text', () => {
    const after = runLauncher([...REQUIRED, '--output', 'json', '-l', 'loud']);
    expect(after.status).toBe(2);
    expect(resultOf(after.stdout)).toEqual(expect.objectContaining({ action: 'failed', exit_code: 2, message: "invalid value 'loud' for -l/--sensor-log-level: use one of trace, debug, info, warn, error" }));
    const invalid = runLauncher([...REQUIRED, '--output', 'yaml']);
    expect(invalid.status).toBe(2);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toContain("invalid value 'yaml' for --output: use text or json");
  });

  test('an interface name with a quote, a backslash and a control character is escaped', () => {
    const name = 'we"i\\r\x01d';
    const run = runLauncher([...REQUIRED, '--output', 'json'], { stub: { containerInterfaces: [name] } });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('"interface":"we\\"i\\\\r\\u0001d"');
    expect(resultOf(run.stdout).interface).toBe(name);
  });

  test('a dry run: action dry-run, nothing started', () => {
    const run = runLauncher([...REQUIRED, '--output', 'json', '--dry-run']);
    expect(run.status).toBe(0);
    expect(resultOf(run.stdout)).toEqual(expect.objectContaining({ action: 'dry-run', container_id: null }));
    expect(subcommands(run)).not.toContain('run');
    expect(run.stderr).toContain('docker run --detach');
  });

  test('--help and --version stay text', () => {
    expect(runLauncher(['--output', 'json', '--version']).stdout).toBe('run-svc-sensor.sh 1.0.0\n');
    expect(runLauncher(['--output', 'json', '--help']).stdout).toMatch(/^Usage: /);
  });
});
