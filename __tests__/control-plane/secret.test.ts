import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformVariable, Testing } from 'cdktf';
import { controlPlanePropsFromParameters } from '../../modules/control-plane';
import { REQUIRED_PROPS, resourceNamed, resourcesOfType, synthControlPlane, type Synthesized } from './fixtures';

const API_KEY = 'svc-test-api-key-4f1c9e2b7a';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

describe('the API key: sensitive, ephemeral variable, write-only secret argument', () => {
  let built: Synthesized;
  beforeAll(() => {
    // The way a user with a template parameter file gets here: ApiKey is in the file.
    built = synthControlPlane(controlPlanePropsFromParameters({
      TenantId: REQUIRED_PROPS.tenantId,
      ApiKey: API_KEY,
      VPC: REQUIRED_PROPS.vpcId,
      Subnets: REQUIRED_PROPS.subnetIds.join(','),
      HostedZoneId: REQUIRED_PROPS.hostedZoneId,
      HostedZoneName: REQUIRED_PROPS.hostedZoneName,
      KeyName: REQUIRED_PROPS.keyName,
      AnalyzerTags: REQUIRED_PROPS.analyzerTags,
    }));
  });

  it('declares the variable api_key as sensitive and ephemeral, without a default', () => {
    expect(built.json.variable).toEqual({
      api_key: { type: 'string', sensitive: true, ephemeral: true, nullable: false, description: expect.stringContaining('TF_VAR_api_key') },
    });
  });

  it('writes the secret only through secret_string_wo, with a version', () => {
    const version = resourcesOfType(built.json, 'aws_secretsmanager_secret_version');
    expect(version).toHaveLength(1);
    expect(version[0]).toEqual({
      secret_id: expect.stringMatching(/^\$\{aws_secretsmanager_secret\..*\.id\}$/),
      secret_string_wo: '${var.api_key}',
      secret_string_wo_version: 1,
    });
    expect(resourcesOfType(built.json, 'aws_secretsmanager_secret')[0].name).toBe('SvcPrevent/api-key');
  });

  it('deletes the secret at once on destroy, so the same stack name can be deployed again', () => {
    expect(resourcesOfType(built.json, 'aws_secretsmanager_secret')[0].recovery_window_in_days).toBe(0);
  });

  it('references the variable nowhere else (an ephemeral value may only go to write-only arguments)', () => {
    expect(built.synthesized.match(/var\.api_key/g)).toHaveLength(1);
  });

  it('never writes the key itself: not in the JSON, not in any file cdktf synth writes', () => {
    expect(built.synthesized).not.toContain(API_KEY);
    const outdir = Testing.fullSynth(built.stack);
    const files = filesUnder(outdir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(fs.readFileSync(file, 'utf8')).not.toContain(API_KEY);
  });

  it('lets boot scripts read the secret by name, never by value', () => {
    for (const template of resourcesOfType(built.json, 'aws_launch_template')) {
      expect(Buffer.from(template.user_data, 'base64').toString('utf8')).not.toContain(API_KEY);
    }
  });
});

describe('an API key variable supplied by the user', () => {
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane({ apiKeyVersion: 2 }, (stack) => ({
      apiKey: new TerraformVariable(stack, 'svc_api_key', { type: 'string', sensitive: true }),
    }));
  });

  it('is used instead of a new one, and made ephemeral', () => {
    expect(Object.keys(built.json.variable ?? {})).toEqual(['svc_api_key']);
    expect(built.json.variable!.svc_api_key).toMatchObject({ sensitive: true, ephemeral: true });
    expect(resourceNamed(built.json, 'aws_secretsmanager_secret_version', 'api-key-secret-version')).toMatchObject({
      secret_string_wo: '${var.svc_api_key}',
      secret_string_wo_version: 2,
    });
  });
});
