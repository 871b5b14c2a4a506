/**
 * The cdktf app: which stacks exist, from what configuration (SVC_CONFIG, default
 * svc.config.json). `npx cdktf synth` writes them to cdktf.out/.
 *
 *   control-plane      the self-hosted control plane (ControlPlane construct)
 *   deployment-policy  the least-privilege policy that may deploy it (DeploymentPolicy)
 *   security-policy    lists and SSO of the svc service (SecurityPolicy), when the file has a
 *                      securityPolicy section; outputs saml_<channel>_* per channel with SSO;
 *                      with allowControlPlaneEgress also the AWS provider and the NAT gateways
 *                      whose public IPs join the whitelist (ControlPlaneEgress)
 *
 * Every stack keeps its state where the file's stateBackend says (app/state-backend.ts),
 * else in cdktf's local terraform.<stack>.tfstate.
 *
 * The app synthesizes and nothing else: it neither builds the svc provider nor links or locks
 * it in the stacks. `npm run synth|diff|deploy|destroy` (scripts/cdktf-command.ts), the drift
 * check and the demo do that, as explicit steps around cdktf. After a bare `npx cdktf synth` the
 * app notes on stderr which stacks terraform cannot install svc in yet.
 */
import * as os from 'node:os';
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import type { Construct } from 'constructs';
import { ControlPlane, controlPlanePropsFromParameters } from './modules/control-plane';
import { DeploymentPolicy } from './modules/deployment-policy';
import { SecurityPolicy } from './modules/security-policy/security-policy';
import { securityPolicyPropsFromConfig, svcProviderSettings, type SecurityPolicyConfig } from './modules/security-policy/config';
import { ControlPlaneEgress } from './modules/security-policy/aws';
import { ChannelServiceProviderOutputs } from './modules/security-policy/saml-outputs';
import { SvcProvider } from './modules/svc-provider/provider';
import { DEFAULT_CONFIG_FILE, loadAppConfig, type AppConfig } from './app/config';
import { sharedPluginCacheNote, unpreparedStacksNote } from './src/pipeline/provider-mirror';
import { applyStateBackendToStacks } from './app/state-backend';
import { runReportingUserErrors } from './app/user-errors';

export const STACK_NAMES = { controlPlane: 'control-plane', deploymentPolicy: 'deployment-policy', securityPolicy: 'security-policy' } as const;

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
        ...(config.customerManagedEbsKeyGranted !== undefined ? { customerManagedEbsKeyGranted: config.customerManagedEbsKeyGranted } : {}),
        ...(config.containers ? { containers: config.containers } : {}),
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
      ...(config.controlPlane.InstanceImageParameter ? { instanceImageParameter: config.controlPlane.InstanceImageParameter } : {}),
      ...(config.installationRole ? { installationRole: {} } : {}),
    });
  }
}

class SecurityPolicyStack extends TerraformStack {
  readonly policy: SecurityPolicy;
  constructor(scope: Construct, id: string, section: SecurityPolicyConfig, config: AppConfig) {
    super(scope, id);
    const aws = config.aws;
    // Null unless TF_VAR_api_key is set; then the provider reads SVC_API_KEY. Ephemeral (an
    // override: cdktf 0.21 has no such option), so terraform keeps it out of plan and state.
    const apiKey = new TerraformVariable(this, 'api_key', {
      type: 'string',
      sensitive: true,
      nullable: true,
      description: 'API key of the svc management API. Set TF_VAR_api_key, or leave it unset and export SVC_API_KEY. Never stored in plan or state.',
    });
    apiKey.overrideLogicalId('api_key');
    apiKey.addOverride('default', null);
    apiKey.addOverride('ephemeral', true);
    const provider = new SvcProvider(this, 'svc', { ...svcProviderSettings(section), apiKey: apiKey.stringValue });
    // The control plane's VPC and sensor ranges must never be denied (policy rule SVC-POLICY-5).
    const ownInfrastructure = { ...(config.vpcCidr ? { vpcCidr: config.vpcCidr } : {}), ...(config.sensorCidrs ? { sensorCidrs: config.sensorCidrs } : {}) };
    this.policy = new SecurityPolicy(this, 'security-policy', { provider, ...securityPolicyPropsFromConfig(section), ownInfrastructure });
    for (const { rule, reason } of section.acknowledge ?? []) this.policy.acknowledge(rule, reason);
    for (const channel of section.channelSso ?? []) {
      new ChannelServiceProviderOutputs(this, `saml-${channel.name}`, { policy: this.policy, channel: channel.name });
    }
    // Only when configured: it brings the AWS provider, so planning needs AWS credentials.
    if (section.allowControlPlaneEgress !== undefined) {
      const awsProvider = new AwsProvider(this, 'aws', { region: aws.region, allowedAccountIds: [aws.accountId] });
      new ControlPlaneEgress(this, 'control-plane-egress', { policy: this.policy, ...section.allowControlPlaneEgress, provider: awsProvider });
    }
  }
}

export function buildApp(app: App, configFile: string): App {
  const config = loadAppConfig(configFile);
  new ControlPlaneStack(app, STACK_NAMES.controlPlane, config);
  new DeploymentPolicyStack(app, STACK_NAMES.deploymentPolicy, config, config.controlPlane.HostedZoneId ?? '');
  if (config.securityPolicy !== undefined) new SecurityPolicyStack(app, STACK_NAMES.securityPolicy, config.securityPolicy, config);
  applyStateBackendToStacks(app, config.stateBackend);
  return app;
}

/**
 * Synthesizes the app into `outdir` (default: CDKTF_OUTDIR, which cdktf sets, else cdktf.out)
 * and returns that directory. Writes the stacks and nothing else.
 */
export function synthesizeApp(outdir: string | undefined, configFile: string): string {
  const app = buildApp(new App(outdir === undefined ? {} : { outdir }), configFile);
  app.synth();
  return app.outdir;
}

if (require.main === module) {
  runReportingUserErrors(() => {
    const outdir = synthesizeApp(undefined, process.env.SVC_CONFIG ?? DEFAULT_CONFIG_FILE);
    for (const note of [sharedPluginCacheNote(process.env, os.homedir()), unpreparedStacksNote(outdir, process.env)]) {
      if (note !== undefined) process.stderr.write(`${note}\n`);
    }
  });
}
