/**
 * The cdktf app: which stacks exist, from what configuration (SVC_CONFIG, default
 * svc.config.json). `npx cdktf synth` writes them to cdktf.out/.
 *
 *   control-plane      the self-hosted control plane (ControlPlane construct)
 *   deployment-policy  the least-privilege policy that may deploy it (DeploymentPolicy)
 */
import { App, TerraformStack } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import type { Construct } from 'constructs';
import { ControlPlane, controlPlanePropsFromParameters } from './modules/control-plane';
import { DeploymentPolicy } from './modules/deployment-policy';
import { DEFAULT_CONFIG_FILE, loadAppConfig, type AppConfig } from './src/app/config';

class ControlPlaneStack extends TerraformStack {
  readonly controlPlane: ControlPlane;
  constructor(scope: Construct, id: string, config: AppConfig) {
    super(scope, id);
    new AwsProvider(this, 'aws', { region: config.aws.region, allowedAccountIds: [config.aws.accountId] });
    this.controlPlane = new ControlPlane(
      this,
      'control-plane',
      controlPlanePropsFromParameters(config.controlPlane, {
        ...(config.stackName ? { stackName: config.stackName } : {}),
        ...(config.vpcCidr ? { vpcCidr: config.vpcCidr } : {}),
        ...(config.sensorCidrs ? { sensorCidrs: config.sensorCidrs } : {}),
      }),
    );
  }
}

class DeploymentPolicyStack extends TerraformStack {
  constructor(scope: Construct, id: string, config: AppConfig, hostedZoneId: string) {
    super(scope, id);
    new AwsProvider(this, 'aws', { region: config.aws.region, allowedAccountIds: [config.aws.accountId] });
    new DeploymentPolicy(this, 'deployment-policy', {
      ...(config.stackName ? { stackName: config.stackName } : {}),
      accountId: config.aws.accountId,
      hostedZoneId,
      region: config.aws.region,
      ...(config.installationRole ? { installationRole: {} } : {}),
    });
  }
}

export function buildApp(app: App, configFile: string): App {
  const config = loadAppConfig(configFile);
  new ControlPlaneStack(app, 'control-plane', config);
  new DeploymentPolicyStack(app, 'deployment-policy', config, config.controlPlane.HostedZoneId ?? '');
  return app;
}

if (require.main === module) {
  const app = buildApp(new App(), process.env.SVC_CONFIG ?? DEFAULT_CONFIG_FILE);
  app.synth();
}
