/**
 * Boot script of a service instance: installs the container runtime, reads the service's
 * parameters (and the API key secret, for services that need it), makes a self-signed
 * certificate so the load balancer's hop to the instance is TLS too, and runs the image.
 *
 * The script never writes `${` or `%{`: Terraform would read those as template sequences in
 * the synthesized JSON. Shell variables are therefore spelled `$NAME`.
 * The image reference is part of the script on purpose: a new tag changes the launch
 * template, which starts a rolling instance refresh.
 */
import { Fn, Token, Tokenization } from 'cdktf';
import type { ServiceDefinition } from './services';

export interface UserDataInput {
  readonly service: ServiceDefinition;
  readonly stackName: string;
  /** `/<stackName>/`: the services read `<path>common/` and `<path><service>/`. */
  readonly parameterPath: string;
  /** Name of the API key secret, for services that read it. */
  readonly apiKeySecretName?: string;
  /** Full image reference, repository/name:tag. */
  readonly image: string;
  readonly logGroupName: string;
  /**
   * ARN of the Secrets Manager secret with the registry login (`{"username","password"}`);
   * absent: no login, except to Amazon ECR, which the instance role reaches by itself.
   */
  readonly registryLoginSecretArn?: string;
  /** Where the OTEL collector exports to (only used for the collector). */
  readonly otelExportUrl: string;
}

function otelCollectorConfig(exportUrl: string, service: ServiceDefinition): string[] {
  const { tlsDirectory } = service;
  const healthPort = service.healthCheck.port === 'traffic-port' ? service.port : service.healthCheck.port;
  // Unquoted heredoc: bash fills in $API_KEY at boot; the file is then given to the container's UID, mode 400.
  return [
    'cat > /etc/svc/otel-config.yaml <<OTEL_CONFIG',
    'extensions:',
    '  health_check:',
    `    endpoint: 0.0.0.0:${healthPort}`,
    `    path: ${service.healthCheck.path}`,
    '    tls:',
    `      cert_file: ${tlsDirectory}/tls.crt`,
    `      key_file: ${tlsDirectory}/tls.key`,
    'receivers:',
    '  otlp:',
    '    protocols:',
    '      http:',
    `        endpoint: 0.0.0.0:${service.port}`,
    '        tls:',
    `          cert_file: ${tlsDirectory}/tls.crt`,
    `          key_file: ${tlsDirectory}/tls.key`,
    'processors:',
    '  batch: {}',
    'exporters:',
    '  otlphttp:',
    `    endpoint: ${exportUrl}`,
    '    headers:',
    '      authorization: Bearer $API_KEY',
    'service:',
    '  extensions: [health_check]',
    '  pipelines:',
    '    logs: {receivers: [otlp], processors: [batch], exporters: [otlphttp]}',
    '    metrics: {receivers: [otlp], processors: [batch], exporters: [otlphttp]}',
    'OTEL_CONFIG',
  ];
}

/** Times the boot script tries `docker pull` (sleeping 10, 20, ... s between tries) before it gives up. */
export const IMAGE_PULL_ATTEMPTS = 5;

/** The word every boot failure line starts with; the BootFailures metric filter matches it. */
export const BOOT_FAILURE_MARKER = 'BOOT_FAILED';

/**
 * Reports a failed boot with its reason to the service's log group (stream `<instance>/boot`)
 * and the console. The reason is reduced to harmless characters: it goes into JSON and a log.
 * Commands are logged as written ($BASH_COMMAND is unexpanded), so no secret value is.
 */
function bootFailureReporting(): string[] {
  return [
    'report_boot_failure() {',
    '  local reason',
    "  reason=$(printf '%s' \"$1\" | tr -c 'A-Za-z0-9 ._:/@=,+-' ' ' | cut -c1-1000)",
    `  echo "${BOOT_FAILURE_MARKER} $SERVICE $reason" >&2`,
    '  aws logs create-log-stream --log-group-name "$LOG_GROUP" --log-stream-name "$INSTANCE_ID/boot" 2>/dev/null || true',
    // No backslash anywhere: a script with deploy-time values goes through Terraform's raw strings, which do not take one.
    `  aws logs put-log-events --log-group-name "$LOG_GROUP" --log-stream-name "$INSTANCE_ID/boot" --log-events '[{"timestamp": '"$(date +%s%3N)"', "message": "${BOOT_FAILURE_MARKER} '"$SERVICE $reason"'"}]' >/dev/null || true`,
    '}',
    'trap \'report_boot_failure "line $LINENO: $BASH_COMMAND exited with status $?"\' ERR',
  ];
}

/**
 * Logs in to the image's registry, if it needs a login: with the username and password of the
 * login secret (the password goes through a pipe to --password-stdin, never an argument), or
 * to Amazon ECR with the instance role. `REGISTRY_LOGGED_IN` says whether to log out after
 * the pull (docker and podman differ on a logout without a login). An ARN known only at deploy
 * time (the HCL module's variable) is tested at boot: empty means no login secret.
 */
function registryLogin(registryLoginSecretArn: string | undefined): string[] {
  const secretLogin = (secretId: string) => [
    `REGISTRY_LOGIN=$(aws secretsmanager get-secret-value --secret-id ${secretId} --query SecretString --output text)`,
    "printf '%s' \"$REGISTRY_LOGIN\" | jq -er .password | docker login --username \"$(printf '%s' \"$REGISTRY_LOGIN\" | jq -er .username)\" --password-stdin \"$REGISTRY\"",
    'unset REGISTRY_LOGIN',
    'REGISTRY_LOGGED_IN=1',
  ];
  const ecrTest = "printf '%s' \"$REGISTRY\" | grep -Eq '^[0-9]{12}[.]dkr[.]ecr[.][a-z0-9-]+[.]amazonaws[.]com([.]cn)?$'";
  // The token goes from the CLI through a pipe to --password-stdin; only their error output is
  // kept, so that a refused login (no ecr:GetAuthorizationToken, another account's registry)
  // is reported with ECR's own words and the boot ends there instead of at the pull.
  const ecrLogin = [
    "if ! REGISTRY_LOGIN_OUTPUT=$( { aws ecr get-login-password --region \"$(printf '%s' \"$REGISTRY\" | cut -d. -f4)\" | docker login --username AWS --password-stdin \"$REGISTRY\" >/dev/null; } 2>&1 ); then",
    '  report_boot_failure "registry login to Amazon ECR $REGISTRY failed: $(printf \'%s\' "$REGISTRY_LOGIN_OUTPUT" | tail -n 3)"',
    '  exit 1',
    'fi',
    'REGISTRY_LOGGED_IN=1',
  ];
  const indent = (lines: string[]) => lines.map((line) => `  ${line}`);
  const lines = [
    "REGISTRY=$(printf '%s' \"$IMAGE\" | cut -d/ -f1)",
    '# A first component without a dot, a colon or "localhost" is a Docker Hub path, not a host.',
    'case "$REGISTRY" in *.*|*:*|localhost) ;; *) REGISTRY=docker.io ;; esac',
    'REGISTRY_LOGGED_IN=',
  ];
  if (registryLoginSecretArn === undefined) {
    lines.push(`if ${ecrTest}; then`, ...indent(ecrLogin), 'fi');
  } else if (Token.isUnresolved(registryLoginSecretArn)) {
    lines.push(
      `REGISTRY_LOGIN_ARN=${registryLoginSecretArn}`,
      'if [ -n "$REGISTRY_LOGIN_ARN" ]; then',
      ...indent(secretLogin('"$REGISTRY_LOGIN_ARN"')),
      `elif ${ecrTest}; then`,
      ...indent(ecrLogin),
      'fi',
    );
  } else {
    lines.push(...secretLogin(registryLoginSecretArn));
  }
  lines.push('logout_registry() {', '  if [ -n "$REGISTRY_LOGGED_IN" ]; then docker logout "$REGISTRY" >/dev/null; fi', '}');
  return lines;
}

/** `docker pull` with a bounded retry; the last failure is reported with docker's own words. */
function imagePull(): string[] {
  return [
    'pull_image() {',
    '  local attempt output',
    `  for attempt in $(seq 1 ${IMAGE_PULL_ATTEMPTS}); do`,
    '    if output=$(docker pull "$IMAGE" 2>&1); then return 0; fi',
    `    echo "docker pull $IMAGE, attempt $attempt of ${IMAGE_PULL_ATTEMPTS}: $output" >&2`,
    `    if [ "$attempt" -lt ${IMAGE_PULL_ATTEMPTS} ]; then sleep $((attempt * 10)); fi`,
    '  done',
    `  report_boot_failure "image pull of $IMAGE failed ${IMAGE_PULL_ATTEMPTS} times: $(printf '%s' "$output" | tail -n 3)"`,
    '  logout_registry',
    '  exit 1',
    '}',
  ];
}

export function renderUserData(input: UserDataInput): string {
  const { service } = input;
  const healthPort = Number(service.healthCheck.port);
  const published = new Set([service.port, ...service.extraPorts, ...(Number.isInteger(healthPort) ? [healthPort] : [])]);
  const ports = [...published].map((port) => `-p ${port}:${port}`).join(' ');
  const isCollector = service.name === 'otel';
  const lines = [
    '#!/bin/bash',
    `# ${service.title} of the svc control plane, stack ${input.stackName}. Written by the ControlPlane construct.`,
    'set -Eeuo pipefail',
    `SERVICE=${service.name}`,
    `PARAMETER_PATH=${input.parameterPath}`,
    `IMAGE=${input.image}`,
    `LOG_GROUP=${input.logGroupName}`,
    '',
    "IMDS_TOKEN=$(curl -sS -X PUT http://169.254.169.254/latest/api/token -H 'X-aws-ec2-metadata-token-ttl-seconds: 300')",
    'REGION=$(curl -sS -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" http://169.254.169.254/latest/meta-data/placement/region)',
    'INSTANCE_ID=$(curl -sS -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" http://169.254.169.254/latest/meta-data/instance-id)',
    'export AWS_DEFAULT_REGION=$REGION',
    ...bootFailureReporting(),
    '',
    'dnf install -y docker openssl jq',
    'systemctl enable --now docker',
    '',
    '# Files the container reads belong to the UID it runs as, readable by it (and root) only.',
    `CONTAINER_UID=${service.runAsUid}`,
    'install -d -m 755 /etc/svc',
    'install -d -m 500 -o "$CONTAINER_UID" -g "$CONTAINER_UID" /etc/svc/tls /etc/svc/secrets',
    'umask 077',
    `# Common parameters and this service's own, as ${service.environmentPrefix}<NAME>=value lines (read by docker, root only).`,
    'for SCOPE in common $SERVICE; do',
    '  aws ssm get-parameters-by-path --path "$PARAMETER_PATH$SCOPE/" --query "Parameters[].[Name,Value]" --output text |',
    '    while read -r NAME VALUE; do',
    '      KEY=$(basename "$NAME" | tr "a-z-" "A-Z_")',
    `      echo "${service.environmentPrefix}$KEY=$VALUE"`,
    '    done',
    'done > /etc/svc/service.env',
  ];
  const readsKey = service.readsApiKey && input.apiKeySecretName !== undefined;
  if (readsKey) {
    lines.push(
      '# The API key reaches the container as a file; the env file only says where it is.',
      `API_KEY=$(aws secretsmanager get-secret-value --secret-id ${input.apiKeySecretName} --query SecretString --output text)`,
      "printf '%s' \"$API_KEY\" > /etc/svc/secrets/api-key",
      `echo "${service.environmentPrefix}API_KEY_FILE=${service.apiKeyFile}" >> /etc/svc/service.env`,
    );
  }
  lines.push(
    '',
    '# The load balancer does not verify target certificates; this keeps its hop to the instance encrypted.',
    'openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=$SERVICE.$INSTANCE_ID" -keyout /etc/svc/tls/tls.key -out /etc/svc/tls/tls.crt',
  );
  if (isCollector) lines.push(...otelCollectorConfig(input.otelExportUrl, service));
  const ownedFiles = ['/etc/svc/tls/tls.crt', '/etc/svc/tls/tls.key', ...(readsKey ? ['/etc/svc/secrets/api-key'] : []), ...(isCollector ? ['/etc/svc/otel-config.yaml'] : [])];
  lines.push(`chown "$CONTAINER_UID:$CONTAINER_UID" ${ownedFiles.join(' ')}`, `chmod 400 ${ownedFiles.join(' ')}`);
  if (readsKey) lines.push('unset API_KEY');
  const mounts = [
    `-v /etc/svc/tls:${service.tlsDirectory}:ro`,
    ...(readsKey ? [`-v /etc/svc/secrets/api-key:${service.apiKeyFile}:ro`] : []),
    ...(isCollector ? ['-v /etc/svc/otel-config.yaml:/etc/otelcol/config.yaml:ro'] : []),
  ].join(' ');
  const command = isCollector ? ' --config /etc/otelcol/config.yaml' : '';
  // An image of a non-root UID binds its ports below 1024 (the scan template service's 443) only
  // where the container's network namespace allows it: Docker's default since 20.10, not podman's.
  const lowPorts = [...published].some((port) => port < 1024) ? ' --sysctl net.ipv4.ip_unprivileged_port_start=0' : '';
  lines.push(
    '',
    ...registryLogin(input.registryLoginSecretArn),
    ...imagePull(),
    'pull_image',
    'logout_registry',
    'docker rm -f "svc-$SERVICE" 2>/dev/null || true',
    `docker run -d --name "svc-$SERVICE" --restart always --env-file /etc/svc/service.env ${mounts} ${ports}${lowPorts} ` +
      '--log-driver awslogs --log-opt awslogs-region="$REGION" --log-opt awslogs-group="$LOG_GROUP" --log-opt awslogs-stream="$INSTANCE_ID" ' +
      `"$IMAGE"${command}`,
    '',
  );
  return lines.join('\n');
}

/** The script's literal text and its deploy-time values (tokens), in order. */
function scriptPieces(script: string): string[] {
  const fragments = Tokenization.reverseString(script);
  if (fragments.length <= 1) return [script];
  // join() folds the fragments left to right; collecting both sides keeps their order.
  const pieces: string[] = [];
  fragments.join({
    join: (left: string, right: string) => {
      if (pieces.length === 0) pieces.push(left);
      pieces.push(right);
      return '';
    },
  });
  return pieces;
}

/**
 * Launch templates take base64. Literal scripts are encoded here, so tests can read them back.
 * A script with deploy-time values (an image tag from a variable, say) is encoded by Terraform:
 * its literal text goes in as raw strings, since the script holds double quotes that a plain
 * string argument of a Terraform function may not.
 */
export function encodeUserData(script: string): string {
  if (!Token.isUnresolved(script)) return Buffer.from(script, 'utf8').toString('base64');
  const pieces = scriptPieces(script).map((piece) => (Token.isUnresolved(piece) ? piece : Fn.rawString(piece)));
  return Fn.base64encode(Fn.join('', pieces));
}
