/**
 * Boot scripts with deploy-time values: props such as an image tag may be Terraform variables.
 * The script then has to be encoded by Terraform, and what Terraform decodes must be exactly
 * the script the same props would give as literals. Real terraform evaluates it (no provider
 * needed). Without terraform or shellcheck on PATH those checks fail under CI and are skipped,
 * saying so, elsewhere (__tests__/support/requirements.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformVariable } from 'cdktf';
import { resourceNamed, synthControlPlane, userDataOf, type TerraformJson } from './fixtures';
import { commandOnPath, requirementMet, testRequiring } from '../support/requirements';

const SERVICES = ['analyzer', 'sts', 'otel'] as const;
const VALUES = { analyzer_image_tag: '1.3.0-rc1', image_repository: 'registry.example.net/svc', otel_url: 'https://otel.vendor.example.net' };

const SHELLCHECK = commandOnPath('shellcheck');
const itWithTerraform = testRequiring([commandOnPath('terraform', ['version'])]);

describe('boot scripts', () => {
  let json: TerraformJson;
  beforeAll(() => {
    json = synthControlPlane({ tenantId: "Acme's Corp", analyzerTags: 'env=prod team="a b"' }).json;
  });

  it.each(SERVICES)('%s: bash parses it, and shellcheck finds nothing', (service) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'control-plane-boot-'));
    const file = path.join(dir, `${service}.sh`);
    try {
      fs.writeFileSync(file, userDataOf(json, service));
      const parsed = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
      expect({ status: parsed.status, stderr: parsed.stderr }).toEqual({ status: 0, stderr: '' });
      if (requirementMet(SHELLCHECK, `shellcheck of the ${service} script (bash -n still ran)`)) {
        const checked = spawnSync('shellcheck', ['--severity=style', file], { encoding: 'utf8' });
        expect({ status: checked.status, output: checked.stdout }).toEqual({ status: 0, output: '' });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the stand-ins the boot-run test puts on the instance (aws, dnf, systemctl, sleep, docker) pass shellcheck', () => {
    const standIns = path.join(__dirname, 'instance-stand-ins');
    const scripts = [...fs.readdirSync(path.join(standIns, 'bin')).map((name) => path.join(standIns, 'bin', name)), path.join(standIns, 'packages', 'docker')];
    expect(scripts.length).toBe(5);
    if (!requirementMet(SHELLCHECK, 'shellcheck of the instance stand-ins')) return;
    const checked = spawnSync('shellcheck', ['--severity=style', ...scripts], { encoding: 'utf8' });
    expect({ status: checked.status, output: checked.stdout }).toEqual({ status: 0, output: '' });
  });

  it.each(SERVICES)('%s: the API key only goes into files of the container UID, never to the output or the environment', (service) => {
    const script = userDataOf(json, service);
    expect(script).not.toMatch(/set -[a-z]*x|xtrace/);
    // Files written after this are readable by their owner only.
    expect(script.indexOf('umask 077')).toBeLessThan(script.indexOf('/etc/svc/service.env'));
    const keyLines = script.split('\n').filter((line) => /API_KEY\b/.test(line) && !line.startsWith('#'));
    for (const line of keyLines) {
      expect([
        /^API_KEY=\$\(aws secretsmanager get-secret-value --secret-id [^ ]+ --query SecretString --output text\)$/,
        /^printf '%s' "\$API_KEY" > \/etc\/svc\/secrets\/api-key$/,
        /^ {6}authorization: Bearer \$API_KEY$/, // inside the collector's heredoc to a mode 400 file of the container UID
        /^unset API_KEY$/,
      ].some((allowed) => allowed.test(line))).toBe(true);
    }
    expect(keyLines.length > 0).toBe(service !== 'sts');
    // The container learns where the key is, never the key.
    expect(script.includes('echo "SVC_API_KEY_FILE=/run/secrets/svc-api-key" >> /etc/svc/service.env')).toBe(service !== 'sts');
    expect(script).not.toMatch(/SVC_API_KEY=/);
  });

  it.each(SERVICES)('%s: the files the container reads belong to its UID, mode 400, in directories of mode 500', (service) => {
    const script = userDataOf(json, service);
    expect(script).toContain('CONTAINER_UID=10001');
    expect(script).toContain('install -d -m 500 -o "$CONTAINER_UID" -g "$CONTAINER_UID" /etc/svc/tls /etc/svc/secrets');
    const owned = ['/etc/svc/tls/tls.crt', '/etc/svc/tls/tls.key', ...(service === 'sts' ? [] : ['/etc/svc/secrets/api-key']), ...(service === 'otel' ? ['/etc/svc/otel-config.yaml'] : [])].join(' ');
    expect(script).toContain(`chown "$CONTAINER_UID:$CONTAINER_UID" ${owned}`);
    expect(script).toContain(`chmod 400 ${owned}`);
    // The chown comes after every file is written, and before the container starts.
    expect(script.indexOf('chown')).toBeGreaterThan(script.lastIndexOf('-keyout /etc/svc/tls/tls.key'));
    expect(script.indexOf('chown')).toBeLessThan(script.indexOf('docker run'));
  });

  it.each(SERVICES)('%s: a port below 1024 may be bound by the non-root container (the sysctl Docker sets by default, podman not)', (service) => {
    const run = userDataOf(json, service).split('\n').find((line) => line.startsWith('docker run '));
    expect(run?.includes(' --sysctl net.ipv4.ip_unprivileged_port_start=0 ')).toBe(service === 'sts');
  });

  it.each(SERVICES)('%s: pulls with a bounded retry and reports a failure with its reason to the log group', (service) => {
    const script = userDataOf(json, service);
    expect(script).toContain('for attempt in $(seq 1 5); do');
    expect(script).toMatch(/report_boot_failure "image pull of \$IMAGE failed 5 times: /);
    expect(script).toMatch(/aws logs put-log-events --log-group-name "\$LOG_GROUP" --log-stream-name "\$INSTANCE_ID\/boot"/);
    expect(script).toContain("trap 'report_boot_failure");
    // The trap is set before the first command that may fail for a reason worth reporting.
    expect(script.indexOf('trap ')).toBeLessThan(script.indexOf('dnf install'));
  });
});

describe('boot scripts whose props are only known at deploy time', () => {
  let withVariables: TerraformJson;
  let withLiterals: TerraformJson;
  beforeAll(() => {
    withVariables = synthControlPlane({}, (stack) => ({
      analyzerImageTag: new TerraformVariable(stack, 'analyzer_image_tag', { type: 'string' }).stringValue,
      imageRepository: new TerraformVariable(stack, 'image_repository', { type: 'string' }).stringValue,
      otelGatewayUrl: new TerraformVariable(stack, 'otel_url', { type: 'string' }).stringValue,
    })).json;
    withLiterals = synthControlPlane({
      analyzerImageTag: VALUES.analyzer_image_tag,
      imageRepository: VALUES.image_repository,
      otelGatewayUrl: VALUES.otel_url,
    }).json;
  });

  it.each(SERVICES)('%s: synthesizes, leaving the encoding to Terraform', (service) => {
    const userData = resourceNamed(withVariables, 'aws_launch_template', `_${service}_`).user_data as string;
    expect(userData).toMatch(/^\$\{base64encode\(join\("", \[/);
    expect(userData).toContain('var.image_repository');
  });

  itWithTerraform('Terraform decodes exactly the script the literal values give', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'control-plane-user-data-'));
    try {
      const outputs = Object.fromEntries(
        SERVICES.map((service) => {
          const userData = resourceNamed(withVariables, 'aws_launch_template', `_${service}_`).user_data as string;
          // ${base64encode(...)} -> ${base64decode(base64encode(...))}
          return [service, { value: `\${base64decode(${userData.slice(2, -1)})}` }];
        }),
      );
      const variables = Object.fromEntries(Object.entries(VALUES).map(([name, value]) => [name, { type: 'string', default: value }]));
      fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ variable: variables, output: outputs }));
      fs.writeFileSync(path.join(dir, 'cli.tfrc'), '');
      const env = { PATH: process.env.PATH, HOME: dir, TF_CLI_CONFIG_FILE: path.join(dir, 'cli.tfrc'), TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
      for (const args of [['init', '-input=false'], ['apply', '-auto-approve', '-input=false']]) {
        const run = spawnSync('terraform', [...args, '-no-color'], { cwd: dir, env, encoding: 'utf8' });
        expect({ args, status: run.status, output: run.status === 0 ? '' : `${run.stdout}${run.stderr}` }).toEqual({ args, status: 0, output: '' });
      }
      const shown = spawnSync('terraform', ['output', '-json', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
      const decoded = JSON.parse(shown.stdout) as Record<string, { value: string }>;
      for (const service of SERVICES) {
        expect({ service, script: decoded[service].value }).toEqual({ service, script: userDataOf(withLiterals, service) });
      }
      expect(decoded.analyzer.value).toContain(`IMAGE=${VALUES.image_repository}/runtime-analyzer:${VALUES.analyzer_image_tag}`);
      expect(decoded.otel.value).toContain(`endpoint: ${VALUES.otel_url}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
