/**
 * The boot scripts really run: each service's user data, taken from the synthesized launch
 * template, runs as root in an "instance" container under rootful podman (privileged, its own
 * network namespace, the host's /usr read-only, its own podman as the container runtime), and
 * runs the service's image from a registry. Stood in (instance-stand-ins/): the AWS CLI (answers
 * from files the test writes, records every call; `ecr get-login-password` gives a token in
 * one region and is refused in another), the metadata service (IMDSv2), a private registry with
 * a login and Amazon ECR (HTTP basic auth with user AWS and that token) on the instance's loopback, dnf (installs the docker stand-in: the
 * Docker CLI through podman), systemctl, and sleep (records the retry back-off). The stand-in
 * service image runs as UID 10001, reads its env, certificate, key, API key file and config, and
 * answers the health check its target group makes. Outcomes are read back from the instance:
 * the inner podman's inspect and logs, file modes, and what the stand-ins recorded.
 * Missing podman, runc or busybox-static fails every test with what to install (podman-sandbox.ts).
 */
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resourcesOfType, synthControlPlane, userDataOf, type TerraformJson } from './fixtures';
import { PodmanSandbox } from '../sensor/podman-sandbox';
import { BOOT_FAILURE_MARKER, IMAGE_PULL_ATTEMPTS } from '../../modules/control-plane/user-data';
import { SERVICES } from '../../modules/control-plane/services';

// Seven instances, each pulling a 100 MB image into its own storage, on a loaded 2-core machine.
jest.setTimeout(300_000);
/** How long an instance's boot script may take; the set-up that waits for one gets a minute more. */
const BOOT_TIMEOUT_MS = 240_000;

const STAND_INS = path.join(__dirname, 'instance-stand-ins');
const REGISTRY_HOST = 'registry.svc.test:5000';
const IDENTITY = { region: 'eu-west-1', instanceId: 'i-0123456789abcdef0' };
const API_KEY = `svc-boot-run-key-${crypto.randomBytes(12).toString('hex')}`;
const REGISTRY_LOGIN = { username: 'svc-pull', password: `registry-password-${crypto.randomBytes(12).toString('hex')}` };
const REGISTRY_LOGIN_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:svc/registry-AbCdEf';
/** Amazon ECR hosts, mapped to the instance's loopback: the CLI stand-in gives a token for the first region only. */
const ECR_HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const ECR_HOST_REFUSED = '123456789012.dkr.ecr.eu-central-1.amazonaws.com';
const ECR_PASSWORD = `ecr-token-${crypto.randomBytes(24).toString('base64')}`;
const ANALYZER_TAGS = 'env=prod team="a b"';
/** A control plane service's name: analyzer, sts, otel. */
type ServiceName = (typeof SERVICES)[number]['name'];
/** The tag the registry does not have: every pull of it fails. */
const MISSING_TAG = '9.9.9-missing';

/** The cases of where the image comes from, beyond the three services' own boots (from the
 *  registry with a login): each boots one service's script from a control plane synthesized with
 *  these props. */
const IMAGE_SOURCE_CASES = {
  'no-login': { service: 'sts', props: { imageRepository: `${REGISTRY_HOST}/public` } },
  'pull-fails': { service: 'analyzer', props: { imageRepository: `${REGISTRY_HOST}/svc`, registryLoginSecretArn: REGISTRY_LOGIN_ARN, analyzerImageTag: MISSING_TAG } },
  ecr: { service: 'sts', props: { imageRepository: `${ECR_HOST}/svc` } },
  'ecr-refused': { service: 'analyzer', props: { imageRepository: `${ECR_HOST_REFUSED}/svc` } },
} as const satisfies Record<string, { service: ServiceName; props: Parameters<typeof synthControlPlane>[0] }>;
type InstanceLabel = ServiceName | keyof typeof IMAGE_SOURCE_CASES;

let sandbox: PodmanSandbox;
let json: TerraformJson;
let workDir: string;
const instanceNames: string[] = [];
/** Every instance's boot, started together by the file's set-up; each describe awaits its own. */
const boots = new Map<InstanceLabel, Promise<Instance>>();

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** A service's image tag, as the synthesized parameters hold it. */
function imageTag(service: ServiceName): string {
  const parameter = resourcesOfType(json, 'aws_ssm_parameter').find((candidate) => candidate.name === `/SvcPrevent/${service}/image-tag`);
  if (parameter === undefined) throw new Error(`no image-tag parameter for ${service}`);
  return parameter.value as string;
}

/** The stand-in service image: node and its libraries, service.js, user 10001; one per service, sharing the layer. */
function writeRegistry(registryDir: string, rootfsDir: string): void {
  for (const dir of ['usr/bin', 'usr/lib', 'usr/lib64', 'tmp', 'etc', 'proc', 'sys', 'dev']) fs.mkdirSync(path.join(rootfsDir, dir), { recursive: true });
  for (const [link, target] of [['bin', 'usr/bin'], ['lib', 'usr/lib'], ['lib64', 'usr/lib64']]) fs.symlinkSync(target, path.join(rootfsDir, link));
  const node = fs.realpathSync(process.execPath);
  const libraries = spawnSync('ldd', [node], { encoding: 'utf8' }).stdout.match(/\/\S+/g) ?? [];
  if (libraries.length === 0) throw new Error(`ldd found no libraries of ${node}`);
  for (const file of [node, ...libraries]) {
    const target = path.join(rootfsDir, file === node ? '/usr/bin/node' : file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(fs.realpathSync(file), target);
    fs.chmodSync(target, 0o755);
  }
  fs.copyFileSync(path.join(STAND_INS, 'service.js'), path.join(rootfsDir, 'stand-in-service.js'));
  fs.chmodSync(path.join(rootfsDir, 'tmp'), 0o1777);
  const layerFile = path.join(registryDir, 'layer.tar');
  const tar = spawnSync('tar', ['-C', rootfsDir, '--owner=0', '--group=0', '--numeric-owner', '-cf', layerFile, '.'], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`tar of the service image failed: ${tar.stderr}`);
  const blobs = path.join(registryDir, 'blobs', 'sha256');
  fs.mkdirSync(blobs, { recursive: true });
  const putBlob = (content: Buffer) => {
    const digest = crypto.createHash('sha256').update(content).digest('hex');
    fs.writeFileSync(path.join(blobs, digest), content);
    return { digest: `sha256:${digest}`, size: content.length };
  };
  const layer = putBlob(fs.readFileSync(layerFile));
  fs.rmSync(layerFile);
  const tags: Record<string, string> = {};
  for (const service of SERVICES) {
    const config = putBlob(
      Buffer.from(
        JSON.stringify({
          architecture: 'amd64',
          os: 'linux',
          config: { User: '10001', Env: ['PATH=/usr/bin', `STAND_IN_SERVICE=${service.name}`], Entrypoint: ['/usr/bin/node', '/stand-in-service.js'] },
          rootfs: { type: 'layers', diff_ids: [layer.digest] },
        }),
      ),
    );
    const manifest = putBlob(
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
          layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
        }),
      ),
    );
    const tag = imageTag(service.name);
    tags[`svc/${service.imageName}:${tag}`] = manifest.digest;
    tags[`public/${service.imageName}:${tag}`] = manifest.digest;
  }
  fs.writeFileSync(path.join(registryDir, 'tags.json'), JSON.stringify(tags));
  fs.writeFileSync(path.join(registryDir, 'login.json'), JSON.stringify(REGISTRY_LOGIN));
  fs.writeFileSync(path.join(registryDir, 'ecr-password'), ECR_PASSWORD);
}

/** What the AWS CLI stand-in answers: the synthesized parameters, the API key and the registry login secrets. */
function writeAwsData(awsDir: string): void {
  const secrets = path.join(awsDir, 'secrets');
  fs.mkdirSync(secrets, { recursive: true });
  const parameters = resourcesOfType(json, 'aws_ssm_parameter').map((parameter) => `${parameter.name}\t${parameter.value}`);
  fs.writeFileSync(path.join(awsDir, 'parameters.tsv'), `${parameters.join('\n')}\n`);
  const [apiKeySecret] = resourcesOfType(json, 'aws_secretsmanager_secret');
  const secretFile = (id: string) => path.join(secrets, id.replace(/[/:]/g, '_'));
  fs.writeFileSync(secretFile(apiKeySecret.name as string), API_KEY);
  fs.writeFileSync(secretFile(REGISTRY_LOGIN_ARN), JSON.stringify(REGISTRY_LOGIN));
  fs.writeFileSync(path.join(awsDir, 'identity.json'), JSON.stringify(IDENTITY));
  fs.writeFileSync(path.join(awsDir, `ecr-password-${ECR_HOST.split('.')[3]}`), ECR_PASSWORD);
}

/** An instance's root: merged-/usr links to the host's /usr (mounted read-only), its own /etc, /var and /run. */
function instanceRoot(dir: string): void {
  for (const sub of ['etc/containers', 'etc/ssl', 'var/lib/containers', 'var/tmp', 'run', 'tmp', 'root', 'proc', 'sys', 'dev', 'usr', 'opt/installed/bin']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  for (const link of ['bin', 'sbin', 'lib', 'lib64']) fs.symlinkSync(`usr/${link}`, path.join(dir, link));
  for (const file of ['passwd', 'group', 'containers/policy.json', 'ssl/openssl.cnf']) fs.copyFileSync(path.join('/etc', file), path.join(dir, 'etc', file));
  // Debian's iptables (which netavark runs for published ports) is reached through /etc/alternatives.
  spawnSync('cp', ['-a', '/etc/alternatives', path.join(dir, 'etc')]);
  fs.writeFileSync(
    path.join(dir, 'etc/containers/containers.conf'),
    ['[containers]', 'default_ulimits = []', '', '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', ''].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'etc/containers/storage.conf'), ['[storage]', 'driver = "vfs"', 'graphroot = "/var/lib/containers/storage"', 'runroot = "/run/containers/storage"', ''].join('\n'));
  // The stand-in registries speak plain HTTP on the instance's loopback.
  const insecure = [REGISTRY_HOST, ECR_HOST, ECR_HOST_REFUSED].flatMap((host) => ['', '[[registry]]', `location = "${host}"`, 'insecure = true']);
  fs.writeFileSync(path.join(dir, 'etc/containers/registries.conf'), ['unqualified-search-registries = []', ...insecure, ''].join('\n'));
  fs.chmodSync(path.join(dir, 'tmp'), 0o1777);
}

/** What runs as the instance's PID 1: the loopback endpoints, then the user data as cloud-init would (root, a plain environment). */
const INSTANCE_BOOT = [
  'set -e',
  'ip link set lo up',
  'ip addr add 169.254.169.254/32 dev lo',
  'node /opt/stand-ins/endpoints.js 2>> /var/log/stand-ins/endpoints-errors &',
  'for attempt in $(seq 100); do [ -e /var/log/stand-ins/endpoints-ready ] && break; /usr/bin/sleep 0.1; done',
  'set +e',
  'env -i HOME=/root LANG=C PATH=/opt/stand-ins/bin:/opt/installed/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin bash /var/lib/cloud/user-data.sh > /var/log/stand-ins/console 2>&1',
  'echo $? > /var/log/stand-ins/boot-status',
  'exec /usr/bin/sleep infinity',
].join('\n');

interface Instance {
  readonly name: string;
  readonly records: string;
  /** A command inside the instance, as root. */
  exec(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }>;
  record(file: string): string;
}

/** Boots an instance with a boot script and waits until the script has ended. */
async function bootInstance(label: string, userData: string): Promise<Instance> {
  const dir = path.join(workDir, label);
  const root = path.join(dir, 'root');
  const records = path.join(dir, 'records');
  fs.mkdirSync(records, { recursive: true });
  instanceRoot(root);
  const userDataFile = path.join(dir, 'user-data.sh');
  fs.writeFileSync(userDataFile, userData, { mode: 0o700 });
  const name = `svc-boot-${label}-${sandbox.suffix}`;
  instanceNames.push(name);
  await sandbox.podmanOk([
    'run', '--detach', '--name', name, '--privileged', '--network', 'none',
    '--add-host', `${REGISTRY_HOST.split(':')[0]}:127.0.0.1`,
    '--add-host', `${ECR_HOST}:127.0.0.1`,
    '--add-host', `${ECR_HOST_REFUSED}:127.0.0.1`,
    '-v', '/usr:/usr:ro',
    '-v', `${STAND_INS}:/opt/stand-ins:ro`,
    '-v', `${path.join(workDir, 'registry')}:/srv/registry:ro`,
    '-v', `${path.join(workDir, 'aws')}:/srv/aws:ro`,
    '-v', `${records}:/var/log/stand-ins`,
    '-v', `${userDataFile}:/var/lib/cloud/user-data.sh:ro`,
    '--rootfs', root, '/usr/bin/bash', '-c', INSTANCE_BOOT,
  ]);
  const instance: Instance = {
    name,
    records,
    exec: (args) => sandbox.podman(['exec', name, ...args]),
    record: (file) => (fs.existsSync(path.join(records, file)) ? fs.readFileSync(path.join(records, file), 'utf8') : ''),
  };
  await sandbox.waitFor(`the boot script of ${label} to end`, async () => fs.existsSync(path.join(records, 'boot-status')), BOOT_TIMEOUT_MS);
  return instance;
}

/** The instance of a label once its boot script has ended. */
function booted(label: InstanceLabel): Promise<Instance> {
  const boot = boots.get(label);
  if (boot === undefined) throw new Error(`no instance ${label} was booted`);
  return boot;
}

/** What the instance's docker (the stand-in) was asked to do with registries: login, pull, logout. */
function registryCalls(instance: Instance): string[] {
  return instance.record('docker-calls').split('\n').filter((line) => /^(login|pull|logout)\b/.test(line));
}

/** The CloudWatch Logs calls the AWS CLI stand-in recorded, as [call, its arguments]. */
function cloudwatchCalls(instance: Instance): Array<[string, { group: string; stream: string; events?: Array<{ message: string }> }]> {
  return instance
    .record('cloudwatch')
    .split('\n')
    .filter(Boolean)
    .map((line) => Object.entries(JSON.parse(line) as Record<string, { group: string; stream: string; events?: Array<{ message: string }> }>)[0]);
}

/** Polls the stand-in target group's check of the instance's svc-sts until one passes. */
async function expectStsAnswersHealthCheck(instance: Instance): Promise<void> {
  await sandbox.waitFor('svc-sts to pass a health check', async () => (await instance.exec(['node', '/opt/stand-ins/target-health-check.js', 'HTTP1', '443', '/health', '200'])).status === 0, 120_000);
}

async function containerNames(instance: Instance): Promise<string> {
  return (await instance.exec(['podman', 'ps', '--all', '--format', '{{.Names}}'])).stdout.trim();
}

/** The stand-in service's report lines, `name: value`. */
function reportOf(log: string): { values: Map<string, string>; env: Record<string, string> } {
  const values = new Map<string, string>();
  const env: Record<string, string> = {};
  for (const line of log.split('\n')) {
    const separator = line.indexOf(': ');
    if (separator < 0) continue;
    const [name, value] = [line.slice(0, separator), line.slice(separator + 2)];
    if (name === 'env') env[value.slice(0, value.indexOf('='))] = value.slice(value.indexOf('=') + 1);
    else values.set(name, value);
  }
  return { values, env };
}

beforeAll(async () => {
  sandbox = await PodmanSandbox.create();
  workDir = path.join(sandbox.root, 'boot-run');
  json = synthControlPlane({ imageRepository: `${REGISTRY_HOST}/svc`, registryLoginSecretArn: REGISTRY_LOGIN_ARN, analyzerTags: ANALYZER_TAGS }).json;
  fs.mkdirSync(path.join(workDir, 'registry'), { recursive: true });
  writeRegistry(path.join(workDir, 'registry'), path.join(workDir, 'service-rootfs'));
  writeAwsData(path.join(workDir, 'aws'));
  // All at once: a boot spends most of its time waiting on its own podman (starts, the pull into
  // its storage), so the instances overlap; a failed boot fails its describe's tests.
  const start = (label: InstanceLabel, userData: string): void => {
    const boot = bootInstance(label, userData);
    boot.catch(() => undefined);
    boots.set(label, boot);
  };
  for (const service of SERVICES) start(service.name, userDataOf(json, service.name));
  for (const label of Object.keys(IMAGE_SOURCE_CASES) as Array<keyof typeof IMAGE_SOURCE_CASES>) {
    const { service, props } = IMAGE_SOURCE_CASES[label];
    start(label, userDataOf(synthControlPlane(props).json, service));
  }
}, 120_000);

afterAll(async () => {
  if (sandbox === undefined) return;
  // Boots still going (a test failed early) end first: their instances are then all created.
  await Promise.allSettled(boots.values());
  // The instances and their roots first: a killed instance's processes may still be going away
  // while their files are removed (one cleanup in four met ENOTEMPTY), so that removal retries.
  if (instanceNames.length > 0) await sandbox.podman(['rm', '--force', '--time', '0', ...instanceNames]);
  if (workDir !== undefined) fs.rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  await sandbox.cleanup();
}, BOOT_TIMEOUT_MS + 120_000);

describe.each(SERVICES.map((service) => [service.name, service] as const))('the %s boot script, really run', (name: ServiceName, service) => {
  let instance: Instance;
  beforeAll(async () => {
    instance = await booted(name);
  }, BOOT_TIMEOUT_MS + 60_000);

  test('ends with status 0 and a container of the image that becomes healthy as its target group checks it', async () => {
    expect({ status: instance.record('boot-status').trim(), console: instance.record('console') }).toEqual({ status: '0', console: expect.any(String) });
    const container = `svc-${name}`;
    // The ELB verdict: three checks in a row pass (healthy_threshold = 3).
    let passed = 0;
    let last = '';
    await sandbox.waitFor(`${container} to pass 3 health checks in a row`, async () => {
      const check = await instance.exec(['node', '/opt/stand-ins/target-health-check.js', service.protocolVersion, service.healthCheck.port === 'traffic-port' ? String(service.port) : service.healthCheck.port, service.healthCheck.path, service.healthCheck.matcher]);
      last = check.stdout + check.stderr;
      passed = check.status === 0 ? passed + 1 : 0;
      return passed >= 3;
    }, 120_000).catch(async (error: Error) => {
      const log = await instance.exec(['podman', 'logs', container]);
      throw new Error(`${error.message}; the last check said: ${last}; the container's log: ${log.stdout}${log.stderr}`);
    });
    const inspection = JSON.parse((await instance.exec(['podman', 'container', 'inspect', container])).stdout)[0];
    expect(inspection.ImageName).toBe(`${REGISTRY_HOST}/svc/${service.imageName}:${imageTag(name)}`);
    expect(inspection.State.Running).toBe(true);
    expect(inspection.RestartCount).toBe(0);
    expect(inspection.HostConfig.RestartPolicy.Name).toBe('always');
    // The awslogs options the script gave (the docker stand-in records them; podman has no awslogs driver).
    expect(instance.record('docker-log-options').split('\n').filter(Boolean).sort()).toEqual(
      ['driver=awslogs', `awslogs-region=${IDENTITY.region}`, `awslogs-group=/SvcPrevent/${name}`, `awslogs-stream=${IDENTITY.instanceId}`].sort(),
    );
  });

  test('the service reads its env, certificate and key (and API key file and config) as UID 10001', async () => {
    const log = (await instance.exec(['podman', 'logs', `svc-${name}`])).stdout;
    const { values, env } = reportOf(log);
    expect({ failed: values.get('failed'), ready: values.get('ready'), uid: values.get('uid') }).toEqual({ failed: undefined, ready: 'yes', uid: '10001' });
    expect(env).toEqual(
      expect.objectContaining({ SVC_TENANT_ID: 'acme-corp', SVC_VPC_ID: 'vpc-0123456789abcdef0', SVC_SUBNET_IDS: 'subnet-0aaaaaaaaaaaaaaa1,subnet-0bbbbbbbbbbbbbbb2', SVC_LOG_LEVEL: 'info' }),
    );
    if (name === 'analyzer') expect(env.SVC_TAGS).toBe(ANALYZER_TAGS);
    // Common parameters and its own only.
    expect(Object.keys(env).filter((key) => key === 'SVC_TAGS')).toEqual(name === 'analyzer' ? ['SVC_TAGS'] : []);
    expect(values.get('tls-directory-writable')).toBe('no');
    const certificate = await instance.exec(['cat', '/etc/svc/tls/tls.crt']);
    expect(values.get('tls-certificate-sha256')).toBe(sha256(certificate.stdout));
    if (name === 'sts') {
      expect(values.has('api-key-sha256')).toBe(false);
      expect(env.SVC_API_KEY_FILE).toBeUndefined();
    } else {
      expect(env.SVC_API_KEY_FILE).toBe('/run/secrets/svc-api-key');
      expect(values.get('api-key-sha256')).toBe(sha256(API_KEY));
    }
    if (name === 'otel') expect({ config: values.get('config'), carriesKey: values.get('config-carries-api-key') }).toEqual({ config: '/etc/otelcol/config.yaml', carriesKey: 'yes' });
    expect(log).not.toContain(API_KEY);
  });

  test('files have the documented modes and owners; the API key file is readable by UID 10001 and no other user', async () => {
    const files = ['/etc/svc', '/etc/svc/tls', '/etc/svc/secrets', '/etc/svc/service.env', '/etc/svc/tls/tls.crt', '/etc/svc/tls/tls.key', ...(name === 'sts' ? [] : ['/etc/svc/secrets/api-key']), ...(name === 'otel' ? ['/etc/svc/otel-config.yaml'] : [])];
    const stat = await instance.exec(['stat', '-c', '%n %a %u:%g', ...files]);
    const modes = Object.fromEntries(stat.stdout.trim().split('\n').map((line) => [line.split(' ')[0], line.split(' ').slice(1).join(' ')]));
    expect(modes).toEqual({
      '/etc/svc': '755 0:0',
      '/etc/svc/tls': '500 10001:10001',
      '/etc/svc/secrets': '500 10001:10001',
      '/etc/svc/service.env': '600 0:0',
      '/etc/svc/tls/tls.crt': '400 10001:10001',
      '/etc/svc/tls/tls.key': '400 10001:10001',
      ...(name === 'sts' ? {} : { '/etc/svc/secrets/api-key': '400 10001:10001' }),
      ...(name === 'otel' ? { '/etc/svc/otel-config.yaml': '400 10001:10001' } : {}),
    });
    const secretFiles = ['/etc/svc/tls/tls.key', ...(name === 'sts' ? [] : ['/etc/svc/secrets/api-key']), ...(name === 'otel' ? ['/etc/svc/otel-config.yaml'] : [])];
    // Each read is a podman exec of its own, which mostly waits on runc: all at once.
    const readAs = (uid: string, file: string) => instance.exec(['setpriv', '--reuid', uid, '--regid', uid, '--clear-groups', 'cat', file]).then(({ status, stderr }) => ({ file, uid, status, stderr }));
    const reads = await Promise.all(secretFiles.flatMap((file) => ['10001', '1000', '65534'].map((uid) => readAs(uid, file))));
    for (const read of reads) {
      if (read.uid === '10001') expect({ file: read.file, status: read.status }).toEqual({ file: read.file, status: 0 });
      else expect(read).toEqual({ file: read.file, uid: read.uid, status: 1, stderr: expect.stringContaining('Permission denied') });
    }
    if (name !== 'sts') expect((await instance.exec(['cat', '/etc/svc/secrets/api-key'])).stdout).toBe(API_KEY);
  });

  test('no secret in podman inspect, the env file, the console, the AWS CLI arguments; the registry login is gone', async () => {
    const inspect = (await instance.exec(['podman', 'container', 'inspect', `svc-${name}`])).stdout;
    if (name !== 'sts') expect(inspect).toContain('/run/secrets/svc-api-key');
    const environment = JSON.parse(inspect)[0].Config.Env as string[];
    expect(environment.filter((entry) => /KEY=/.test(entry) && !entry.startsWith('SVC_API_KEY_FILE='))).toEqual([]);
    const envFile = (await instance.exec(['cat', '/etc/svc/service.env'])).stdout;
    const places = { inspect, envFile, console: instance.record('console'), awsCalls: instance.record('aws-calls'), dockerCalls: instance.record('docker-calls'), endpoints: instance.record('endpoints') };
    for (const [place, text] of Object.entries(places)) {
      expect({ place, hasApiKey: text.includes(API_KEY), hasRegistryPassword: text.includes(REGISTRY_LOGIN.password) }).toEqual({ place, hasApiKey: false, hasRegistryPassword: false });
    }
    // It logged in with the secret's login (the registry refuses a pull without), and out after the pull.
    expect(instance.record('aws-calls')).toContain(`secretsmanager get-secret-value --secret-id ${REGISTRY_LOGIN_ARN} --query SecretString --output text`);
    expect(registryCalls(instance)).toEqual([
      `login --username ${REGISTRY_LOGIN.username} --password-stdin ${REGISTRY_HOST}`,
      `pull ${REGISTRY_HOST}/svc/${service.imageName}:${imageTag(name)}`,
      `logout ${REGISTRY_HOST}`,
    ]);
    const credentials = await instance.exec(['sh', '-c', 'cat /run/containers/0/auth.json 2>/dev/null; cat /root/.docker/config.json 2>/dev/null; true']);
    expect(credentials.stdout).not.toContain(REGISTRY_HOST);
    // IMDSv2: every metadata read carried a token.
    expect(instance.record('endpoints').split('\n').filter((line) => line.startsWith('imds ') && !line.endsWith(' 200'))).toEqual([]);
  });
});

describe('an image from a registry without a login', () => {
  let instance: Instance;
  beforeAll(async () => {
    instance = await booted('no-login');
  }, BOOT_TIMEOUT_MS + 60_000);

  test('boots without a login or a logout, and the container answers its health check', async () => {
    expect({ status: instance.record('boot-status').trim(), console: instance.record('console') }).toEqual({ status: '0', console: expect.any(String) });
    expect(registryCalls(instance)).toEqual([`pull ${REGISTRY_HOST}/public/scan-template-service:${imageTag('sts')}`]);
    expect(instance.record('aws-calls')).not.toContain('secretsmanager');
    await expectStsAnswersHealthCheck(instance);
  });
});

describe('an image pull that keeps failing', () => {
  let instance: Instance;
  beforeAll(async () => {
    instance = await booted('pull-fails');
  }, BOOT_TIMEOUT_MS + 60_000);

  test(`ends after ${IMAGE_PULL_ATTEMPTS} attempts with the ${BOOT_FAILURE_MARKER} line, in the console and the log group, and starts nothing`, async () => {
    const image = `${REGISTRY_HOST}/svc/runtime-analyzer:${MISSING_TAG}`;
    expect(instance.record('boot-status').trim()).toBe('1');
    const pulls = registryCalls(instance).filter((line) => line.startsWith('pull '));
    expect(pulls).toEqual(Array(IMAGE_PULL_ATTEMPTS).fill(`pull ${image}`));
    // The back-off between attempts: 10, 20, 30, 40 s.
    expect(instance.record('sleeps').split('\n').filter(Boolean)).toEqual(['10', '20', '30', '40']);
    const console = instance.record('console');
    const failure = console.split('\n').filter((line) => line.startsWith(`${BOOT_FAILURE_MARKER} `));
    expect(failure).toEqual([expect.stringContaining(`${BOOT_FAILURE_MARKER} analyzer image pull of ${image} failed ${IMAGE_PULL_ATTEMPTS} times: `)]);
    // The reason names what the registry said.
    expect(failure[0]).toMatch(/manifest unknown|not found|MANIFEST_UNKNOWN/i);
    const calls = cloudwatchCalls(instance);
    expect(calls.map(([call]) => call)).toEqual(['create-log-stream', 'put-log-events']);
    const put = calls[1][1];
    expect({ group: put.group, stream: put.stream }).toEqual({ group: '/SvcPrevent/analyzer', stream: `${IDENTITY.instanceId}/boot` });
    expect(put.events?.map((event) => event.message)).toEqual([failure[0]]);
    expect(await containerNames(instance)).toBe('');
    expect(instance.record('docker-calls')).toContain(`logout ${REGISTRY_HOST}`);
    expect(console).not.toContain(REGISTRY_LOGIN.password);
  });
});

describe('an image from Amazon ECR, logged in to with the instance role', () => {
  let instance: Instance;
  beforeAll(async () => {
    instance = await booted('ecr');
  }, BOOT_TIMEOUT_MS + 60_000);

  test('logs in with the token of aws ecr get-login-password, pulls, logs out, and the container answers its health check', async () => {
    expect({ status: instance.record('boot-status').trim(), console: instance.record('console') }).toEqual({ status: '0', console: expect.any(String) });
    expect(instance.record('aws-calls').split('\n').filter((line) => line.startsWith('ecr '))).toEqual([`ecr get-login-password --region ${ECR_HOST.split('.')[3]}`]);
    expect(instance.record('aws-calls')).not.toContain('secretsmanager get-secret-value --secret-id arn:');
    const image = `${ECR_HOST}/svc/scan-template-service:${imageTag('sts')}`;
    expect(registryCalls(instance)).toEqual([`login --username AWS --password-stdin ${ECR_HOST}`, `pull ${image}`, `logout ${ECR_HOST}`]);
    // The stand-in ECR refuses a pull without the token: the manifest came with it.
    expect(instance.record('endpoints')).toContain(`ecr GET /v2/svc/scan-template-service/manifests/${imageTag('sts')} 200`);
    await expectStsAnswersHealthCheck(instance);
    const inspect = (await instance.exec(['podman', 'container', 'inspect', 'svc-sts'])).stdout;
    expect(JSON.parse(inspect)[0].ImageName).toBe(image);
    const places = {
      inspect,
      envFile: (await instance.exec(['cat', '/etc/svc/service.env'])).stdout,
      console: instance.record('console'),
      awsCalls: instance.record('aws-calls'),
      dockerCalls: instance.record('docker-calls'),
      endpoints: instance.record('endpoints'),
    };
    for (const [place, text] of Object.entries(places)) expect({ place, hasEcrPassword: text.includes(ECR_PASSWORD) }).toEqual({ place, hasEcrPassword: false });
    const credentials = await instance.exec(['sh', '-c', 'cat /run/containers/0/auth.json 2>/dev/null; cat /root/.docker/config.json 2>/dev/null; true']);
    expect(credentials.stdout).not.toContain(ECR_HOST);
  });
});

describe('an Amazon ECR login the instance role is refused', () => {
  let instance: Instance;
  beforeAll(async () => {
    instance = await booted('ecr-refused');
  }, BOOT_TIMEOUT_MS + 60_000);

  test(`ends at once with one ${BOOT_FAILURE_MARKER} line giving ECR's reason, in the console and the log group, and pulls nothing`, async () => {
    expect(instance.record('boot-status').trim()).toBe('1');
    // Asked once, no retry loop, no pull attempted without a login.
    expect(instance.record('aws-calls').split('\n').filter((line) => line.startsWith('ecr '))).toEqual([`ecr get-login-password --region ${ECR_HOST_REFUSED.split('.')[3]}`]);
    expect(registryCalls(instance).filter((line) => /^(pull|logout)\b/.test(line))).toEqual([]);
    expect(instance.record('sleeps')).toBe('');
    const console = instance.record('console');
    const failure = console.split('\n').filter((line) => line.startsWith(`${BOOT_FAILURE_MARKER} `));
    expect(failure).toEqual([expect.stringContaining(`${BOOT_FAILURE_MARKER} analyzer registry login to Amazon ECR ${ECR_HOST_REFUSED} failed: `)]);
    expect(failure[0]).toMatch(/AccessDeniedException.*GetAuthorizationToken.*not authorized to perform: ecr:GetAuthorizationToken/);
    const calls = cloudwatchCalls(instance);
    expect(calls.map(([call]) => call)).toEqual(['create-log-stream', 'put-log-events']);
    expect(calls[1][1].events?.map((event) => event.message)).toEqual([failure[0]]);
    expect(await containerNames(instance)).toBe('');
  });
});
