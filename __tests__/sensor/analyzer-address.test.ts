/** The launcher's analyzer address against the ControlPlane construct's own: the construct
 *  decides the DNS name and the listener port, the launcher must reach exactly that. Both the
 *  address from `-s`/`-d` and the sensor command line the construct outputs are checked. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import { TerraformStack, Testing } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { ControlPlane } from '../../modules/control-plane';
import { SERVICES } from '../../modules/control-plane/services';
import { REQUIRED_PROPS } from '../control-plane/fixtures';
import { flagValues, LAUNCHER, launcherEnvironment, createSandbox, collectRun, realBash, removeSandboxes, runCall, runLauncher } from './harness';

afterAll(removeSandboxes);

/** What the construct computes: its analyzer record name and listener port, and its sensor command. */
function constructAnalyzer(stackName: string | undefined, hostedZoneName: string): { address: string; sensorCommand: string } {
  const stack = new TerraformStack(Testing.app(), 'sensor-address');
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  const controlPlane = new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, hostedZoneName, ...(stackName ? { stackName } : {}) });
  const analyzer = SERVICES.find((service) => service.name === 'analyzer')!;
  return { address: `${controlPlane.services.analyzer.hostname}:${analyzer.port}`, sensorCommand: controlPlane.sensorCommand };
}

const cases: Array<[name: string, stackName: string | undefined, hostedZoneName: string]> = [
  ['default stack', undefined, 'corp.example.com'],
  ['custom stack with capitals', 'ProdEU-1', 'corp.example.com'],
  ['custom stack of 14 characters', 'Prevent-Europe', 'example.org'],
  ['zone with capitals and a trailing dot', 'Stage2', 'Corp.Example.COM.'],
  ['default stack, zone with a trailing dot', undefined, 'svc.internal.example.net.'],
];

describe('analyzer address: launcher and ControlPlane construct agree', () => {
  test.each(cases)('%s, from -s and -d', (_name, stackName, hostedZoneName) => {
    const expected = constructAnalyzer(stackName, hostedZoneName).address;
    const stackOption = stackName ? ['-s', stackName] : [];
    const run = runLauncher(['-n', 'acme', '-d', hostedZoneName, '-a', 'shop-web', ...stackOption]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain(`SVC_ANALYZER_ADDRESS=${expected}`);
    expect(run.stdout).toContain(`analyzer:          ${expected} (TLS)`);
  });

  test.each(cases)('%s, from the sensor command the construct outputs', (_name, stackName, hostedZoneName) => {
    const { address, sensorCommand } = constructAnalyzer(stackName, hostedZoneName);
    expect(sensorCommand).toMatch(/^run-svc-sensor\.sh .*<APP>/);
    // Run the command line as a user pastes it: through a shell, <APP> filled in.
    const commandLine = sensorCommand.replace(/^run-svc-sensor\.sh/, '"$LAUNCHER"').replace('<APP>', 'shop-web');
    const sandbox = createSandbox();
    const result = spawnSync(realBash(), ['-c', commandLine], {
      env: { ...launcherEnvironment(sandbox, {}), LAUNCHER },
      input: '',
      encoding: 'utf8',
    });
    const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
    fs.rmSync(sandbox.root, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(flagValues(runCall(run), '--env')).toContain(`SVC_ANALYZER_ADDRESS=${address}`);
  });
});
