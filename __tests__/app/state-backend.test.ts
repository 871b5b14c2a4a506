/**
 * The config file's stateBackend: every stack gets the configured backend with its own state
 * object; bad values are refused naming the file, the field and the value, credentials without
 * their value; help/configuration.md documents the fields the parser accepts. Then, for real:
 * the security-policy stack applied with the local backend against the emulator, and the drift
 * check run from a fresh copy of the project (new cdktf.out, no terraform.*.tfstate there)
 * finds the state and reports an out-of-band change.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'cdktf';
import { buildApp } from '../../main';
import { AppConfigError, parseAppConfig } from '../../app/config';
import { isolatedEnvironment } from '../../src/pipeline/cdktf-project';
import { prepareSynthesizedStacks } from '../../src/pipeline/provider-mirror';
import { ensureProviderBuilt } from '../../scripts/build-provider';
import { main as npmRunDrift } from '../../scripts/drift-check';
import { codeBlocks, readPage, section, tableRows } from '../help/support/markdown';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../../scripts/terraform-harness/emulator';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { Workspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';

const root = path.join(__dirname, '..', '..');
const STACKS = ['control-plane', 'deployment-policy', 'security-policy'];
const FILE = 'svc.config.json';

/** The shipped file's AWS part and a small inline policy (no entry files, so it can live anywhere). */
function baseConfig(securityPolicy: Record<string, unknown> = { tenant: 'acme-corp', blacklist: { entries: [{ ip: '203.0.113.9' }] } }): Record<string, any> {
  const shipped = JSON.parse(fs.readFileSync(path.join(root, 'svc.config.json'), 'utf8'));
  return { aws: shipped.aws, controlPlane: shipped.controlPlane, securityPolicy };
}

interface BackendJson {
  terraform?: { backend?: Record<string, Record<string, unknown>> };
}

/** Each stack's terraform.backend as `cdktf synth` writes it (cdktf adds its default backend only then). */
function backends(configFile: string): Record<string, Record<string, Record<string, unknown>> | undefined> {
  const outdir = fs.mkdtempSync(path.join(scratch, 'out-'));
  buildApp(new App({ outdir }), configFile).synth();
  const stackJson = (name: string) => JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8')) as BackendJson;
  return Object.fromEntries(STACKS.map((name) => [name, stackJson(name).terraform?.backend]));
}

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-state-backend-'));
});
afterAll(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

function writeConfig(directory: string, config: unknown): string {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, FILE);
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

describe('synth: one backend block per stack, each with its own state', () => {
  test('s3: bucket, region, locking and encryption on every stack, key <keyPrefix>/<stack>.tfstate', () => {
    const file = writeConfig(path.join(scratch, 's3'), {
      ...baseConfig(),
      stateBackend: { s3: { bucket: 'acme-tf-state', region: 'eu-west-1', keyPrefix: 'svc-prevent/prod', useLockfile: true, encrypt: true } },
    });
    const found = backends(file);
    for (const name of STACKS) {
      expect({ name, backend: found[name] }).toEqual({
        name,
        backend: { s3: { bucket: 'acme-tf-state', region: 'eu-west-1', key: `svc-prevent/prod/${name}.tfstate`, use_lockfile: true, encrypt: true } },
      });
    }
  });

  // use_lockfile is an override (cdktf 0.21 does not know it): terraform itself must accept the
  // block. Endpoints on a closed loopback port: init gets as far as listing the bucket, and fails there.
  test('terraform init accepts the synthesized s3 block (use_lockfile, encrypt, dynamodb_table) and only fails reaching the bucket', async () => {
    const file = writeConfig(path.join(scratch, 's3-init'), {
      ...baseConfig(),
      stateBackend: { s3: { bucket: 'acme-tf-state', region: 'eu-west-1', keyPrefix: 'svc', useLockfile: true, encrypt: true, dynamodbTable: 'locks' } },
    });
    const s3 = backends(file)['security-policy']!.s3!;
    const closed = 'http://127.0.0.1:1';
    const dir = fs.mkdtempSync(path.join(scratch, 's3-init-'));
    const loopbackOnly = { endpoints: { s3: closed, dynamodb: closed, sts: closed }, skip_credentials_validation: true, skip_requesting_account_id: true, skip_metadata_api_check: true, use_path_style: true, max_retries: 0 };
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ terraform: { backend: { s3: { ...s3, ...loopbackOnly } } } }));
    const emptyCliConfig = path.join(dir, 'empty.terraform.rc');
    fs.writeFileSync(emptyCliConfig, '');
    const workspace = new Workspace({
      dir,
      cliConfigFile: emptyCliConfig, trackChild: track,
      env: { AWS_ACCESS_KEY_ID: 'test-only', AWS_SECRET_ACCESS_KEY: 'test-only', AWS_EC2_METADATA_DISABLED: 'true', AWS_PROFILE: undefined, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
    });
    const init = await workspace.terraform(['init', '-input=false', '-no-color']);
    expect(init.code).toBe(1);
    // An argument terraform does not know stops init before any request ("Extraneous JSON object property").
    expect(init.stderr).not.toMatch(/Extraneous JSON object property|Unsupported argument|Invalid (?:Value|Attribute)/);
    expect(init.stderr).toMatch(/Unable to list objects in S3 bucket "acme-tf-state"[\s\S]*127\.0\.0\.1:1: connect: connection refused/);
  }, 30_000);

  test('s3 without keyPrefix: <stack>.tfstate at the bucket root; dynamodbTable becomes dynamodb_table', () => {
    const file = writeConfig(path.join(scratch, 's3-root'), { ...baseConfig(), stateBackend: { s3: { bucket: 'b', region: 'us-east-1', dynamodbTable: 'tf-locks' } } });
    const keys = Object.values(backends(file)).map((backend) => backend?.s3?.key);
    expect(keys).toEqual(STACKS.map((name) => `${name}.tfstate`));
    expect(backends(file)['security-policy']?.s3).toEqual({ bucket: 'b', region: 'us-east-1', key: 'security-policy.tfstate', dynamodb_table: 'tf-locks' });
  });

  test('local: one file per stack in the directory, relative to the config file', () => {
    const directory = path.join(scratch, 'local', 'config');
    const file = writeConfig(directory, { ...baseConfig(), stateBackend: { local: { directory: '../ci-state' } } });
    const found = backends(file);
    for (const name of STACKS) {
      expect({ name, backend: found[name] }).toEqual({ name, backend: { local: { path: path.join(scratch, 'local', 'ci-state', `${name}.tfstate`) } } });
    }
  });

  test('absent: cdktf\'s default local terraform.<stack>.tfstate', () => {
    const file = writeConfig(path.join(scratch, 'absent'), baseConfig());
    const found = backends(file);
    for (const name of STACKS) expect(found[name]?.local?.path).toBe(path.join(process.cwd(), `terraform.${name}.tfstate`));
  });
});

describe('stateBackend errors name the file, the field and the value', () => {
  const cases: Array<[name: string, stateBackend: unknown, message: string]> = [
    ['not an object', 's3', 'stateBackend: expected an object with one of s3, local, e.g. { "s3": { "bucket": "...", "region": "..." } }, got "s3"'],
    ['unknown backend type', { gcs: { bucket: 'b' } }, 'stateBackend.gcs: unknown field; expected one of s3, local'],
    ['no backend type', {}, 'stateBackend: expected exactly one backend type (s3 or local), got none'],
    ['two backend types', { s3: { bucket: 'b', region: 'r' }, local: { directory: 'd' } }, 'stateBackend: expected exactly one backend type (s3 or local), got s3 and local'],
    ['s3 not an object', { s3: true }, 'stateBackend.s3: expected an object with bucket and region, got true'],
    ['s3 without bucket', { s3: { region: 'eu-west-1' } }, 'stateBackend.s3.bucket: expected a non-empty string, got undefined'],
    ['s3 without region', { s3: { bucket: 'b' } }, 'stateBackend.s3.region: expected a non-empty string, got undefined'],
    ['s3 unknown field', { s3: { bucket: 'b', region: 'r', key: 'x.tfstate' } }, 'stateBackend.s3.key: unknown field; expected one of bucket, region, keyPrefix, dynamodbTable, useLockfile, encrypt'],
    ['keyPrefix with a leading slash', { s3: { bucket: 'b', region: 'r', keyPrefix: '/svc' } }, 'stateBackend.s3.keyPrefix: "/svc" must not start or end with "/" nor contain "//"'],
    ['keyPrefix with a trailing slash', { s3: { bucket: 'b', region: 'r', keyPrefix: 'svc/' } }, 'stateBackend.s3.keyPrefix: "svc/" must not start'],
    ['useLockfile as text', { s3: { bucket: 'b', region: 'r', useLockfile: 'true' } }, 'stateBackend.s3.useLockfile: expected true or false, got "true"'],
    ['encrypt as a number', { s3: { bucket: 'b', region: 'r', encrypt: 1 } }, 'stateBackend.s3.encrypt: expected true or false, got 1'],
    ['dynamodbTable empty', { s3: { bucket: 'b', region: 'r', dynamodbTable: '' } }, 'stateBackend.s3.dynamodbTable: expected a non-empty string, got ""'],
    ['local without directory', { local: {} }, 'stateBackend.local.directory: expected a non-empty string, got undefined'],
    ['local with path', { local: { directory: 'd', path: 'x' } }, 'stateBackend.local.path: unknown field; expected one of directory'],
  ];
  test.each(cases)('%s', (_name, stateBackend, message) => {
    const parse = () => parseAppConfig(FILE, { ...baseConfig(), stateBackend });
    expect(parse).toThrow(AppConfigError);
    expect(parse).toThrow(`${FILE}: ${message}`);
  });

  test.each(['accessKey', 'secretKey', 'token', 'sseCustomerKey', 'secret_key'])('the credential %s is refused without its value, pointing at the AWS environment', (key) => {
    let error: unknown;
    try {
      parseAppConfig(FILE, { ...baseConfig(), stateBackend: { s3: { bucket: 'b', region: 'r', [key]: 'canary-credential-value' } } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppConfigError);
    expect((error as AppConfigError).field).toBe(`stateBackend.s3.${key}`);
    expect((error as Error).message).toContain('credentials never go in this file');
    expect((error as Error).message).toContain('AWS_ACCESS_KEY_ID');
    expect((error as Error).message).not.toContain('canary-credential-value');
  });
});

describe('help/configuration.md documents the stateBackend fields the parser accepts', () => {
  const markdown = readPage('configuration.md');
  /** The text right under a heading, without its sub-headings. */
  const documented = (heading: string) => section(markdown, heading).split(/^#/m)[0]!;
  const fields = (heading: string) =>
    tableRows(documented(heading))
      .filter((cells) => /^`[^`]+`$/.test(cells[0] ?? ''))
      .map((cells) => ({ name: cells[0]!.slice(1, -1), required: cells[2] === 'yes' }));
  /** The fields named by the parser's "unknown field; expected one of ..." for a probe at that place. */
  const accepted = (stateBackend: unknown): string[] => {
    try {
      parseAppConfig(FILE, { ...baseConfig(), stateBackend });
    } catch (error) {
      const match = /unknown field; expected one of (.+)$/.exec((error as Error).message);
      if (match !== null) return match[1]!.split(', ');
      throw error;
    }
    throw new Error('the parser accepted the probe field');
  };
  const cases: Array<[heading: string, probe: unknown, required: string[]]> = [
    ['stateBackend', { zzProbe: {} }, []],
    ['stateBackend.s3', { s3: { bucket: 'b', region: 'r', zzProbe: 1 } }, ['bucket', 'region']],
    ['stateBackend.local', { local: { directory: 'd', zzProbe: 1 } }, ['directory']],
  ];
  test('the examples on configuration.md and drift-in-ci.md parse', () => {
    const example = codeBlocks('configuration.md').find((block) => block.section === 'stateBackend' && block.language === 'json');
    expect(parseAppConfig(FILE, JSON.parse(example!.code)).stateBackend).toEqual({
      s3: { bucket: 'acme-terraform-state', region: 'eu-west-1', keyPrefix: 'svc-prevent/prod', useLockfile: true, encrypt: true },
    });
    // drift-in-ci.md shows the field alone, as a line of the file.
    const fragment = codeBlocks('drift-in-ci.md').find((block) => block.language === 'json' && block.code.includes('"stateBackend"'));
    const { stateBackend } = JSON.parse(`{${fragment!.code}}`);
    expect(parseAppConfig(FILE, { ...baseConfig(), stateBackend }).stateBackend).toMatchObject({ s3: { keyPrefix: 'svc-prevent/prod', useLockfile: true } });
  });

  test.each(cases)('the "%s" table names exactly the accepted fields and the required ones', (heading, probe, required) => {
    expect(fields(heading).map((field) => field.name).sort()).toEqual(accepted(probe).sort());
    expect(fields(heading).filter((field) => field.required).map((field) => field.name).sort()).toEqual(required.sort());
  });
});

describe('local backend, for real: applied state is found by the drift check of a fresh copy of the project', () => {
  const TENANT = 'state-corp';
  let build: TestProviderBuild;
  let emulator: AcceptanceEmulator;
  let checkout: (name: string) => { configFile: string; outdir: string; dir: string };

  beforeAll(async () => {
    build = buildTestProvider();
    emulator = await startAcceptanceEmulator({ tenants: [TENANT] });
    // A checkout is the project as CI sees it: the config file (kept in the repository) and a
    // cdktf.out synthesized there; the state lives beside the checkouts, as in a CI workspace that persists.
    checkout = (name) => {
      const dir = path.join(scratch, 'e2e', name);
      const configFile = writeConfig(dir, {
        ...baseConfig({
          baseUrl: emulator.url,
          tenant: TENANT,
          blacklist: { entries: [{ ip: '203.0.113.9', description: 'scanner' }] },
          whitelist: { resources: 'whole-list', entries: [{ ip: '192.0.2.0/28', description: 'office' }] },
        }),
        stateBackend: { local: { directory: '../ci-state' } },
      });
      const outdir = path.join(dir, 'cdktf.out');
      buildApp(new App({ outdir }), configFile).synth();
      prepareSynthesizedStacks(outdir, () => ensureProviderBuilt({ buildDir: path.dirname(build.cliConfigFile) }));
      return { configFile, outdir, dir };
    };
  }, 60_000);

  afterAll(async () => {
    await emulator?.stop();
    build?.remove();
  });

  test('apply in one checkout writes <directory>/security-policy.tfstate; a fresh checkout\'s drift check reads it and reports the change', async () => {
    const first = checkout('checkout-1');
    const emptyCliConfig = path.join(scratch, 'e2e', 'empty.terraform.rc');
    fs.writeFileSync(emptyCliConfig, '');
    const workspace = new Workspace({ dir: path.join(first.outdir, 'stacks', 'security-policy'), cliConfigFile: emptyCliConfig, trackChild: track, env: { TF_VAR_api_key: emulator.apiKey } });
    await workspace.init();
    await workspace.apply();

    const stateFile = path.join(scratch, 'e2e', 'ci-state', 'security-policy.tfstate');
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    expect(state.resources.map((resource: { type: string; name: string }) => `${resource.type}.${resource.name}`).sort()).toEqual([
      'svc_blacklist_entry.blacklist_203_0_113_9',
      'svc_whitelist.whitelist',
    ]);
    expect(fs.readFileSync(stateFile, 'utf8')).not.toContain(emulator.apiKey);

    // Someone changes the policy in the console.
    const client = emulator.client(TENANT);
    await client.deleteEntry('blacklist', '203.0.113.9');
    await client.addEntry('whitelist', { ip: '192.0.2.200', description: 'added in the console' });

    // A fresh checkout: its own config copy and cdktf.out, no state of its own.
    const fresh = checkout('checkout-2');
    const stateFilesIn = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith('.tfstate'));
    expect(stateFilesIn(fresh.dir)).toEqual([]);
    expect(fs.existsSync(path.join(fresh.outdir, 'stacks', 'security-policy', '.terraform'))).toBe(false);

    let stdout = '';
    let stderr = '';
    const exitCode = await npmRunDrift(['--no-synth', '--output', fresh.outdir, '--stack', 'security-policy', '--format', 'json'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: isolatedEnvironment({ TF_VAR_api_key: emulator.apiKey }),
      workingDirectory: fresh.dir,
    }, { buildDir: path.dirname(build.cliConfigFile) });
    expect({ exitCode, stderr }).toEqual({ exitCode: 2, stderr: expect.any(String) });
    // Only state knows an entry was deleted: without it the plan would create both resources and name no drift.
    const [stack] = JSON.parse(stdout).roots;
    expect(stack).toMatchObject({ status: 'drift', driftedAddresses: ['svc_blacklist_entry.blacklist_203_0_113_9', 'svc_whitelist.whitelist'] });
    expect(stack.report.drift.lists.map((list: { list: string; entries: Array<{ kind: string; ip: string }> }) => [list.list, list.entries.map((entry) => `${entry.kind} ${entry.ip}`)])).toEqual([
      ['blacklist', ['removed 203.0.113.9']],
      ['whitelist', ['added 192.0.2.200']],
    ]);
    expect(stateFilesIn(fresh.dir)).toEqual([]);
    expect(`${stdout}${stderr}`).not.toContain(emulator.apiKey);
  }, 60_000);
});
