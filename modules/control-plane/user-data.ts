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
  /** Where the OTEL collector exports to (only used for the collector). */
  readonly otelExportUrl: string;
}

function otelCollectorConfig(exportUrl: string): string[] {
  // Unquoted heredoc: bash fills in $API_KEY at boot; the file is readable by root only.
  return [
    'cat > /etc/svc/otel-config.yaml <<OTEL_CONFIG',
    'extensions:',
    '  health_check:',
    '    endpoint: 0.0.0.0:13133',
    '    tls:',
    '      cert_file: /etc/svc/tls/tls.crt',
    '      key_file: /etc/svc/tls/tls.key',
    'receivers:',
    '  otlp:',
    '    protocols:',
    '      http:',
    '        endpoint: 0.0.0.0:4318',
    '        tls:',
    '          cert_file: /etc/svc/tls/tls.crt',
    '          key_file: /etc/svc/tls/tls.key',
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
    'chmod 600 /etc/svc/otel-config.yaml',
  ];
}

export function renderUserData(input: UserDataInput): string {
  const { service } = input;
  const ports = [service.port, ...service.extraPorts].map((port) => `-p ${port}:${port}`).join(' ');
  const isCollector = service.name === 'otel';
  const lines = [
    '#!/bin/bash',
    `# ${service.title} of the svc control plane, stack ${input.stackName}. Written by the ControlPlane construct.`,
    'set -euo pipefail',
    `SERVICE=${service.name}`,
    `PARAMETER_PATH=${input.parameterPath}`,
    `IMAGE=${input.image}`,
    `LOG_GROUP=${input.logGroupName}`,
    '',
    'dnf install -y docker openssl',
    'systemctl enable --now docker',
    '',
    "IMDS_TOKEN=$(curl -sS -X PUT http://169.254.169.254/latest/api/token -H 'X-aws-ec2-metadata-token-ttl-seconds: 300')",
    'REGION=$(curl -sS -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" http://169.254.169.254/latest/meta-data/placement/region)',
    'INSTANCE_ID=$(curl -sS -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" http://169.254.169.254/latest/meta-data/instance-id)',
    'export AWS_DEFAULT_REGION=$REGION',
    '',
    'install -d -m 700 /etc/svc /etc/svc/tls',
    'umask 077',
    '# Common parameters and this service\'s own, as SVC_<NAME>=value lines.',
    'for SCOPE in common $SERVICE; do',
    '  aws ssm get-parameters-by-path --path "$PARAMETER_PATH$SCOPE/" --query "Parameters[].[Name,Value]" --output text |',
    '    while read -r NAME VALUE; do',
    '      KEY=$(basename "$NAME" | tr "a-z-" "A-Z_")',
    '      echo "SVC_$KEY=$VALUE"',
    '    done',
    'done > /etc/svc/service.env',
  ];
  if (service.readsApiKey && input.apiKeySecretName !== undefined) {
    lines.push(
      `API_KEY=$(aws secretsmanager get-secret-value --secret-id ${input.apiKeySecretName} --query SecretString --output text)`,
      'echo "SVC_API_KEY=$API_KEY" >> /etc/svc/service.env',
    );
  }
  lines.push(
    '',
    '# The load balancer does not verify target certificates; this keeps its hop to the instance encrypted.',
    'openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=$SERVICE.$INSTANCE_ID" -keyout /etc/svc/tls/tls.key -out /etc/svc/tls/tls.crt',
  );
  if (isCollector) lines.push(...otelCollectorConfig(input.otelExportUrl));
  const mounts = isCollector ? '-v /etc/svc/tls:/etc/svc/tls:ro -v /etc/svc/otel-config.yaml:/etc/otelcol/config.yaml:ro' : '-v /etc/svc/tls:/etc/svc/tls:ro';
  const command = isCollector ? ' --config /etc/otelcol/config.yaml' : '';
  lines.push(
    '',
    'docker pull "$IMAGE"',
    'docker rm -f "svc-$SERVICE" 2>/dev/null || true',
    `docker run -d --name "svc-$SERVICE" --restart always --env-file /etc/svc/service.env ${mounts} ${ports} ` +
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
