/** bin/run-svc-sensor.sh interrupted: Ctrl-C (SIGINT to the process group), SIGTERM and
 *  SIGHUP (to the launcher alone) while the runtime is busy. The key file of the run must be gone
 *  afterwards, the previous sensor back under its name and running, and nothing else done. */
import { removeSandboxes, REQUIRED, startBlockedLauncher, stubSignals, subcommands } from './harness';

afterAll(removeSandboxes);

const cases: Array<[name: string, signal: NodeJS.Signals, target: 'launcher' | 'group', blockIn: string, status: number]> = [
  ['Ctrl-C while the sensor is being started', 'SIGINT', 'group', 'run', 130],
  ['SIGTERM while the sensor is being started', 'SIGTERM', 'launcher', 'run', 143],
  ['SIGHUP (terminal closed) while the sensor is being started', 'SIGHUP', 'launcher', 'run', 129],
  ['Ctrl-C during the grace period of the old sensor', 'SIGINT', 'group', 'stop', 130],
  ['SIGTERM during the grace period of the old sensor', 'SIGTERM', 'launcher', 'stop', 143],
];

describe('interrupted launcher', () => {
  test.each(cases)('%s: key file removed, the previous sensor back and running, nothing else done', async (_name, signal, target, blockIn, status) => {
    const launcher = startBlockedLauncher(REQUIRED, { stub: { sensorState: 'running', blockIn } });
    await launcher.blocked();
    launcher.signal(signal, target);
    // The launcher alone was signalled: the runtime call finishes, then the launcher stops.
    if (target === 'launcher') launcher.release();
    const run = await launcher.finished;

    expect(run.status).toBe(status);
    // Ctrl-C reaches the runtime call from the terminal, and `timeout` (in the same group) may pass
    // it on once more: the runtime saw that signal and no other.
    if (target === 'group') expect([...new Set(stubSignals(run))]).toEqual([signal.replace('SIG', '')]);
    // The interrupted call, then the rollback: the new container (if any) removed, the
    // previous sensor renamed back and started again.
    const calls = subcommands(run);
    const rollback = blockIn === 'run' ? ['rm', 'rename', 'start'] : ['rename', 'start'];
    expect(calls.slice(calls.lastIndexOf(blockIn))).toEqual([blockIn, ...rollback]);
    expect(run.calls.slice(-2)).toEqual([
      ['rename', 'svc-sensor-shop-web.previous', 'svc-sensor-shop-web'],
      ['start', 'svc-sensor-shop-web'],
    ]);
    if (blockIn === 'run') {
      // The key file existed, private, while the runtime read it.
      expect(run.keyFiles).toHaveLength(1);
      expect(run.keyFiles[0].mode).toBe('600');
    }
    // Its directory is gone; only the (empty) directory of the sensor name stays.
    expect(run.keyStoreEntries).toEqual(['svc-sensor-shop-web']);
    expect(run.leftoverTempFiles).toEqual([]);
  });
});

test('Ctrl-C while the runtime is asked whether it answers reaches the runtime at once', async () => {
  // `timeout` must stay in the launcher's process group, else the terminal's SIGINT never
  // reaches the hung runtime call and the launcher waits for the 20 s limit instead.
  const launcher = startBlockedLauncher(REQUIRED, { stub: { sensorState: 'running', blockIn: 'info' } });
  await launcher.blocked();
  launcher.signal('SIGINT', 'group');
  const run = await launcher.finished;
  expect(run.status).toBe(130);
  expect(stubSignals(run)).toContain('INT');
  expect(stubSignals(run)).not.toContain('TERM');
  expect(subcommands(run)).toEqual(['info']);
});
