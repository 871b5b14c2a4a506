/** main.ts: the shipped svc.config.json synthesizes both stacks; configuration errors name the field. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Testing } from 'cdktf';
import { buildApp } from '../../main';
import { AppConfigError, loadAppConfig, parseAppConfig } from '../../src/app/config';

const root = path.join(__dirname, '..', '..');
const shippedConfig = path.join(root, 'svc.config.json');

describe('the shipped configuration', () => {
  test('builds the control-plane and deployment-policy stacks', () => {
    const app = buildApp(Testing.app(), shippedConfig);
    const stackIds = app.node.children.map((child) => child.node.id).sort();
    expect(stackIds).toEqual(['control-plane', 'deployment-policy']);
  });

  test('cdktf synth writes both stacks, with no API key in them', () => {
    const output = mkdtempSync(path.join(tmpdir(), 'svc-synth-'));
    try {
      const result = spawnSync('npx', ['cdktf', 'synth', '--output', output], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, CHECKPOINT_DISABLE: '1', SVC_CONFIG: shippedConfig, TF_VAR_api_key: 'key-that-must-not-appear' },
        timeout: 120_000,
      });
      expect(result.status).toBe(0);
      for (const stack of ['control-plane', 'deployment-policy']) {
        const json = readFileSync(path.join(output, 'stacks', stack, 'cdk.tf.json'), 'utf8');
        expect(json).not.toContain('key-that-must-not-appear');
        expect(JSON.parse(json).provider.aws[0].allowed_account_ids).toEqual(['123456789012']);
      }
    } finally {
      rmSync(output, { recursive: true, force: true });
    }
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
  ];
  test.each(cases)('%s', (_name, change, field) => {
    const config = structuredClone(valid);
    change(config);
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(AppConfigError);
    expect(() => parseAppConfig('svc.config.json', config)).toThrow(field);
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
    const directory = mkdtempSync(path.join(tmpdir(), 'svc-config-'));
    const file = path.join(directory, 'svc.config.json');
    const config = structuredClone(valid);
    config.controlPlane.VPC = 'vpc_bad';
    writeFileSync(file, JSON.stringify(config));
    try {
      expect(() => buildApp(Testing.app(), file)).toThrow(/vpc_bad/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
