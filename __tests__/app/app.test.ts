/**
 * main.ts: the shipped svc.config.json builds the three stacks with the expected resources;
 * configuration errors name the file, the field and the value. (The real `cdktf synth` CLI runs
 * in cdktf-end-to-end.test.ts.)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Testing, type TerraformStack } from 'cdktf';
import { buildApp, synthesizeApp } from '../../main';
import { builtProviderMirror, prepareSynthesizedStacks } from '../../src/pipeline/provider-mirror';
import { currentPlatform, packageVersion } from '../../src/provider-identity';
import { AppConfigError, loadAppConfig, parseAppConfig } from '../../app/config';

const root = path.join(__dirname, '..', '..');
const shippedConfig = path.join(root, 'svc.config.json');

interface StackJson {
  provider?: Record<string, Array<Record<string, unknown>>>;
  output?: Record<string, { value: string }>;
  resource?: Record<string, Record<string, Record<string, unknown>>>;
  data?: Record<string, Record<string, unknown>>;
  variable?: Record<string, Record<string, unknown>>;
  terraform?: { required_providers?: Record<string, { source: string; version?: string }> };
}

function synthStack(app: ReturnType<typeof buildApp>, name: string): StackJson {
  const stack = app.node.findChild(name) as TerraformStack;
  return JSON.parse(Testing.synth(stack)) as StackJson;
}

function resourceCounts(json: StackJson): Record<string, number> {
  return Object.fromEntries(Object.entries(json.resource ?? {}).map(([type, instances]) => [type, Object.keys(instances).length]));
}

function withConfigFile<T>(config: unknown, use: (file: string) => T): T {
  const directory = mkdtempSync(path.join(tmpdir(), 'svc-config-'));
  const file = path.join(directory, 'svc.config.json');
  writeFileSync(file, JSON.stringify(config));
  try {
    return use(file);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('the shipped configuration', () => {
  const app = buildApp(Testing.app(), shippedConfig);

  test('builds the control-plane, deployment-policy and security-policy stacks', () => {
    const stackIds = app.node.children.map((child) => child.node.id).sort();
    expect(stackIds).toEqual(['control-plane', 'deployment-policy', 'security-policy']);
  });

  test('the AWS stacks are pinned to the configured account', () => {
    for (const name of ['control-plane', 'deployment-policy']) {
      expect(synthStack(app, name).provider?.aws[0].allowed_account_ids).toEqual(['123456789012']);
    }
  });

  test('security-policy declares the policy files\' entries, a whole-list whitelist and both SSO settings', () => {
    const json = synthStack(app, 'security-policy');
    expect(resourceCounts(json)).toEqual({
      svc_blacklist_entry: 4,
      svc_blocklist_entry: 3,
      svc_whitelist: 1,
      svc_tenant_sso: 1,
      svc_channel_sso: 1,
    });
    expect(Object.keys(json.resource!.svc_blacklist_entry)).toContain('blacklist_203_0_113_9');
    expect(json.resource!.svc_whitelist.whitelist).toMatchObject({ mode: 'additive', entries: { '192.0.2.0/28': 'office egress' } });
    expect(json.resource!.svc_channel_sso.channel_main).toMatchObject({ name: 'main', enabled: true });
    expect(json.resource!.svc_tenant_sso.tenant).toMatchObject({ name: 'acme-corp', enabled: false });
    expect(json.terraform?.required_providers?.svc).toEqual({ source: 'svc-prevent/svc', version: '~> 0.1' });
    // No AWS in this stack unless allowControlPlaneEgress is configured.
    expect(json.provider?.aws).toBeUndefined();
  });

  test('the provider takes the API key from the null, sensitive, ephemeral variable api_key, and no base_url from the file', () => {
    const json = synthStack(app, 'security-policy');
    expect(json.provider?.svc).toEqual([{ api_key: '${var.api_key}', tenant: 'acme-corp', sso_base: 'https://sso.example.com' }]);
    expect(json.variable?.api_key).toMatchObject({ type: 'string', sensitive: true, ephemeral: true, nullable: true, default: null });
  });

  test('the channel with SSO gets its SAML service-provider URLs as outputs', () => {
    const json = synthStack(app, 'security-policy');
    expect(Object.keys(json.output ?? {}).sort()).toEqual(['saml_main_acs_url', 'saml_main_entity_id', 'saml_main_metadata_url']);
    expect(json.output?.saml_main_acs_url.value).toBe('${svc_channel_sso.channel_main.sp_acs_url}');
  });
});

describe('securityPolicy.providerSource', () => {
  test('names where the stack installs svc from, and the app prepares no link to this repository\'s build for it', () => {
    const config = JSON.parse(readFileSync(shippedConfig, 'utf8'));
    config.securityPolicy.providerSource = 'registry.example.com/acme/svc';
    for (const list of ['blacklist', 'blocklist', 'whitelist']) config.securityPolicy[list].files = config.securityPolicy[list].files.map((file: string) => path.join(root, file));
    withConfigFile(config, (file) => {
      const outdir = path.join(path.dirname(file), 'out');
      expect(synthesizeApp(outdir, file)).toBe(outdir);
      const prepared = prepareSynthesizedStacks(outdir, () => {
        throw new Error('a stack that installs svc from elsewhere needs no build of this repository');
      });
      expect(prepared).toEqual([]);
      const stack = JSON.parse(readFileSync(path.join(outdir, 'stacks', 'security-policy', 'cdk.tf.json'), 'utf8')) as StackJson;
      expect(stack.terraform?.required_providers?.svc.source).toBe('registry.example.com/acme/svc');
      expect(existsSync(path.join(outdir, 'stacks', 'security-policy', 'terraform.d'))).toBe(false);
    });
  });

  test('without it the stack names svc-prevent/svc and is prepared', () => {
    const json = synthStack(buildApp(Testing.app(), shippedConfig), 'security-policy');
    expect(json.terraform?.required_providers?.svc.source).toBe('svc-prevent/svc');
  });
});

describe('the control plane settings that are construct props', () => {
  const valid = JSON.parse(readFileSync(shippedConfig, 'utf8'));
  function controlPlaneStack(change: (config: any) => void): StackJson {
    const config = structuredClone(valid);
    delete config.securityPolicy;
    change(config);
    return withConfigFile(config, (file) => synthStack(buildApp(Testing.app(), file), 'control-plane'));
  }
  const ebsCondition = (json: StackJson): string => {
    const [key] = Object.values(json.data?.aws_ebs_default_kms_key as Record<string, { lifecycle: { postcondition: Array<{ condition: string }> } }>);
    return key.lifecycle.postcondition[0].condition;
  };

  test('customerManagedEbsKeyGranted reaches the EBS key check of the plan (false when left out)', () => {
    expect(ebsCondition(controlPlaneStack(() => undefined))).toMatch(/\|\| false\}$/);
    expect(ebsCondition(controlPlaneStack((config) => (config.customerManagedEbsKeyGranted = true)))).toMatch(/\|\| true\}$/);
  });

  test('containers override the contract per service; what is left out keeps its default', () => {
    const json = controlPlaneStack((config) => (config.containers = { sts: { port: 8443, healthCheck: { path: '/healthz' } }, otel: { runAsUid: 20001 } }));
    const targetGroups = Object.entries(json.resource!.aws_lb_target_group);
    const targetGroup = (service: string) => targetGroups.find(([name]) => name.includes(`_${service}_`))![1] as Record<string, any>;
    expect(targetGroup('sts')).toMatchObject({ port: 8443, health_check: { path: '/healthz', protocol: 'HTTPS', matcher: '200' } });
    expect(targetGroup('analyzer')).toMatchObject({ port: 50051, health_check: { path: '/grpc.health.v1.Health/Check' } });
    const userData = (service: string) => {
      const template = Object.entries(json.resource!.aws_launch_template).find(([name]) => name.includes(`_${service}_`))![1] as { user_data: string };
      return Buffer.from(template.user_data, 'base64').toString('utf8');
    };
    expect(userData('otel')).toContain('CONTAINER_UID=20001');
    expect(userData('sts')).toContain('-p 8443:8443');
    expect(userData('analyzer')).toContain('CONTAINER_UID=10001');
  });
});

describe('allowControlPlaneEgress', () => {
  test('adds the AWS provider and the NAT gateway, whose public IP joins the whitelist', () => {
    const config = JSON.parse(readFileSync(shippedConfig, 'utf8'));
    config.securityPolicy.allowControlPlaneEgress = { natGatewayIds: ['nat-0123456789abcdef0'] };
    for (const list of ['blacklist', 'blocklist', 'whitelist']) config.securityPolicy[list].files = config.securityPolicy[list].files.map((file: string) => path.join(root, file));
    const json = withConfigFile(config, (file) => synthStack(buildApp(Testing.app(), file), 'security-policy'));
    expect(json.provider?.aws).toEqual([{ region: 'eu-west-1', allowed_account_ids: ['123456789012'] }]);
    expect(json.data?.aws_nat_gateway).toHaveProperty('control_plane_egress_nat_0123456789abcdef0');
    expect(json.resource!.svc_whitelist.whitelist.entries).toMatchObject({
      '${data.aws_nat_gateway.control_plane_egress_nat_0123456789abcdef0.public_ip}': 'control plane egress (NAT gateway nat-0123456789abcdef0)',
      '192.0.2.0/28': 'office egress',
    });
  });

  test('a bad NAT gateway id is named', () => {
    const config = JSON.parse(readFileSync(shippedConfig, 'utf8'));
    config.securityPolicy.allowControlPlaneEgress = { natGatewayIds: ['nat-1'] };
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(/securityPolicy\.allowControlPlaneEgress\.natGatewayIds\[0\]: "nat-1" is not a NAT gateway id/);
  });
});

describe('configuration errors name the file, the field and the value', () => {
  const valid = JSON.parse(readFileSync(shippedConfig, 'utf8'));
  const cases: Array<[name: string, change: (config: any) => void, field: RegExp]> = [
    ['empty object', (config) => Object.keys(config).forEach((key) => delete config[key]), /aws/],
    ['unknown top-level field', (config) => (config.region = 'eu-west-1'), /region: unknown field/],
    ['missing aws.region', (config) => delete config.aws.region, /aws\.region: expected a non-empty string, got undefined/],
    ['empty account id', (config) => (config.aws.accountId = ''), /aws\.accountId: .*""/],
    ['API key in the file', (config) => (config.controlPlane.ApiKey = 'k'), /controlPlane\.ApiKey: secrets never go in this file/],
    ['parameter not a string', (config) => (config.controlPlane.Subnets = ['subnet-1']), /controlPlane\.Subnets: expected a non-empty string/],
    ['sensorCidrs not a list', (config) => (config.sensorCidrs = '10.0.0.0/8'), /sensorCidrs: expected an array/],
    ['installationRole not boolean', (config) => (config.installationRole = 'yes'), /installationRole: expected true or false, got "yes"/],
    ['customerManagedEbsKeyGranted not boolean', (config) => (config.customerManagedEbsKeyGranted = 'true'), /customerManagedEbsKeyGranted: expected true or false, got "true"/],
    ['containers not an object', (config) => (config.containers = ['otel']), /containers: is not an object \(got \["otel"\]\)/],
    ['containers of an unknown service', (config) => (config.containers = { web: {} }), /containers\.web: unknown field; expected one of analyzer, sts, otel$/],
    ['an unknown container field', (config) => (config.containers = { otel: { uid: 1 } }), /containers\.otel\.uid: unknown field; expected one of port, extraPorts, /],
    ['a container port out of range', (config) => (config.containers = { sts: { port: 70000 } }), /containers\.sts\.port: is not a port \(got 70000\); give a whole number from 1 to 65535/],
    ['a UID given as a string', (config) => (config.containers = { otel: { runAsUid: '10001' } }), /containers\.otel\.runAsUid: is not a UID \(got "10001"\)/],
    ['a health check path that would run a command', (config) => (config.containers = { otel: { healthCheck: { path: '/`reboot`' } } }), /containers\.otel\.healthCheck\.path: is not a health check path \(got "\/`reboot`"\)/],
    ['an HTTP matcher for the gRPC analyzer', (config) => (config.containers = { analyzer: { healthCheck: { matcher: '200' } } }), /containers\.analyzer\.healthCheck\.matcher: is not a success code matcher \(got "200"\); give gRPC codes 0-99/],
    ['a TLS directory that is not absolute', (config) => (config.containers = { analyzer: { tlsDirectory: 'tls' } }), /containers\.analyzer\.tlsDirectory: is not an absolute path in the container \(got "tls"\)/],
    ['securityPolicy not an object', (config) => (config.securityPolicy = ['blacklist']), /securityPolicy: expected an object/],
    ['API key in securityPolicy', (config) => (config.securityPolicy.apiKey = 'k'), /securityPolicy\.apiKey: secrets never go in this file/],
    ['unknown securityPolicy field', (config) => (config.securityPolicy.blacklists = {}), /securityPolicy\.blacklists: unknown field/],
    ['bad inline entry', (config) => (config.securityPolicy.blocklist = { entries: [{ ip: '10.0.0.1/24' }] }), /securityPolicy\.blocklist\.entries\[0\]\.ip: "10\.0\.0\.1\/24"/],
    ['baseUrl not a URL', (config) => (config.securityPolicy.baseUrl = 'svc.example.com'), /securityPolicy\.baseUrl: "svc\.example\.com" is not an http or https URL/],
    ['SSO without enabled', (config) => (config.securityPolicy.tenantSso = { name: 'acme-corp' }), /securityPolicy\.tenantSso\.enabled: is missing/],
  ];
  test.each(cases)('%s', (_name, change, field) => {
    const config = structuredClone(valid);
    change(config);
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(field);
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(/^svc\.config\.json: /);
  });

  test.each(['APIKey', 'api-key', 'ApiKeySecret', 'DbPassword'])('a secret under any spelling (%s) is refused without its value', (key) => {
    const config = structuredClone(valid);
    config.controlPlane[key] = 'canary-secret-value';
    let message = '';
    try {
      parseAppConfig('svc.config.json', config);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`controlPlane.${key}: secrets never go in this file`);
    expect(message).not.toContain('canary-secret-value');
  });

  test('errors of the top-level fields are AppConfigErrors with code invalid_config', () => {
    const config = structuredClone(valid);
    delete config.aws;
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(AppConfigError);
  });

  test('a missing file says how to point at one', () => {
    expect(() => loadAppConfig('/nonexistent/svc.config.json')).toThrow(/cannot be read \(ENOENT\); set SVC_CONFIG/);
  });

  test('a file that is not JSON is named', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'svc-config-'));
    const file = path.join(directory, 'broken.json');
    writeFileSync(file, '{ "aws": ');
    try {
      expect(() => loadAppConfig(file)).toThrow(new RegExp(`${file}: \\(file\\): is not valid JSON`));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a bad template parameter fails the build with the construct error', () => {
    const config = structuredClone(valid);
    config.controlPlane.VPC = 'vpc_bad';
    withConfigFile(config, (file) => expect(() => buildApp(Testing.app(), file)).toThrow(/vpc_bad/));
  });

  test('entry files are found relative to the config file, and a missing one is named', () => {
    const config = structuredClone(valid);
    config.securityPolicy.blacklist = { files: ['policy/missing.yaml'] };
    withConfigFile(config, (file) => expect(() => buildApp(Testing.app(), file)).toThrow(path.join(path.dirname(file), 'policy', 'missing.yaml')));
  });

  test('without a securityPolicy section the app has no security-policy stack', () => {
    const config = structuredClone(valid);
    delete config.securityPolicy;
    withConfigFile(config, (file) => {
      const stackIds = buildApp(Testing.app(), file).node.children.map((child) => child.node.id).sort();
      expect(stackIds).toEqual(['control-plane', 'deployment-policy']);
    });
  });
});

describe('synth is pure; preparing the stacks is a step of its own', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'svc-pure-synth-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  /** Every path under `directory`, relative, symbolic links included (not followed). */
  function tree(directory: string): string[] {
    if (!existsSync(directory)) return [];
    return readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort();
  }

  /** A build directory holding a current (fake) provider for this platform, as npm run build lays it out. */
  function fakeBuild(buildDir: string): void {
    const version = packageVersion();
    const packageDir = path.join(buildDir, 'mirror', 'registry.terraform.io', 'svc-prevent', 'svc', version, currentPlatform());
    mkdirSync(packageDir, { recursive: true });
    const executable = path.join(packageDir, `terraform-provider-svc_v${version}`);
    writeFileSync(executable, 'fake bundle');
    const future = new Date(Date.now() + 60_000);
    utimesSync(executable, future, future);
    writeFileSync(path.join(buildDir, 'terraform.rc'), '');
  }

  test('synthesizeApp writes the stacks only: no provider build, no mirror link, no lock file', () => {
    const buildDir = path.join(scratch, 'build');
    const outdir = path.join(scratch, 'out');
    const previous = process.env.SVC_PROVIDER_BUILD_DIR;
    process.env.SVC_PROVIDER_BUILD_DIR = buildDir;
    try {
      synthesizeApp(outdir, shippedConfig);
    } finally {
      if (previous === undefined) delete process.env.SVC_PROVIDER_BUILD_DIR;
      else process.env.SVC_PROVIDER_BUILD_DIR = previous;
    }
    expect(existsSync(buildDir)).toBe(false);
    const written = tree(outdir);
    expect(written).toContain(path.join('stacks', 'security-policy', 'cdk.tf.json'));
    expect(written.filter((file) => file.includes('terraform.d') || file.endsWith('.terraform.lock.hcl'))).toEqual([]);
  });

  test('the explicit step links and locks the stacks that use svc, and only those', () => {
    const buildDir = path.join(scratch, 'build');
    const outdir = path.join(scratch, 'out');
    synthesizeApp(outdir, shippedConfig);
    fakeBuild(buildDir);
    const mirror = builtProviderMirror(buildDir);
    expect(prepareSynthesizedStacks(outdir, () => mirror)).toEqual(['security-policy']);
    const stackDir = path.join(outdir, 'stacks', 'security-policy');
    expect(readlinkSync(path.join(stackDir, 'terraform.d', 'plugins'))).toBe(mirror.mirrorDir);
    expect(readFileSync(path.join(stackDir, '.terraform.lock.hcl'), 'utf8')).toContain(`"${mirror.hash}"`);
    expect(existsSync(path.join(outdir, 'stacks', 'control-plane', 'terraform.d'))).toBe(false);
  });
});
