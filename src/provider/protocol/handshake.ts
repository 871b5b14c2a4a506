/**
 * go-plugin's handshake, the provider's side: terraform starts the plugin with a magic cookie
 * and the protocol versions it speaks in the environment, and reads one line from the plugin's
 * stdout saying where and how to connect:
 *
 *   CORE-PROTOCOL-VERSION | APP-PROTOCOL-VERSION | NETWORK | ADDRESS | PROTOCOL | SERVER-CERT
 *   1|6|unix|/tmp/svc-plugin-x/plugin.sock|grpc|MIIB...   (certificate: DER, base64, no padding)
 */
import { handshakeCertificate } from './certificate';

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
/** go-plugin's own protocol version (the first field of the handshake line). */
export const CORE_PROTOCOL_VERSION = 1;
/** Terraform's plugin protocol major version this provider speaks. */
export const PLUGIN_PROTOCOL_VERSION = 6;

export type HandshakeRefusalCode = 'not_started_by_terraform' | 'unsupported_protocol_version';

export class HandshakeRefusedError extends Error {
  constructor(
    readonly code: HandshakeRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'HandshakeRefusedError';
  }
}

export interface PluginEnvironment {
  /** PEM of terraform's client certificate: serve mutual TLS with it as the only CA. */
  readonly clientCertificatePem?: string;
  /** TF_DISABLE_PLUGIN_TLS set, or no client certificate offered: serve plain HTTP/2. */
  readonly plaintext: boolean;
  /** Where to create the socket's directory (go-plugin's PLUGIN_UNIX_SOCKET_DIR), if set. */
  readonly socketParentDirectory?: string;
}

const NOT_STARTED_BY_TERRAFORM = [
  'This binary is a plugin for terraform (the svc provider, svc-prevent/svc), not a program to run',
  'directly: terraform starts it when a configuration uses the provider.',
  'To use it, point terraform at the provider build and run terraform init in your configuration:',
  '  npm run build',
  '  export TF_CLI_CONFIG_FILE=$PWD/dist/terraform.rc',
  '  cd <your configuration> && terraform init',
  'See help/provider.md ("Install") for details.',
].join('\n');

/**
 * Checks that terraform started us and speaks our protocol. PLUGIN_PROTOCOL_VERSIONS is the
 * set of versions the client accepts (`5,6`; order carries no meaning).
 */
export function readPluginEnvironment(env: NodeJS.ProcessEnv): PluginEnvironment {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    throw new HandshakeRefusedError('not_started_by_terraform', NOT_STARTED_BY_TERRAFORM);
  }
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? '')
    .split(',')
    .map((version) => version.trim())
    .filter((version) => version !== '');
  if (!offered.includes(String(PLUGIN_PROTOCOL_VERSION))) {
    const received = env.PLUGIN_PROTOCOL_VERSIONS === undefined ? 'unset' : `"${env.PLUGIN_PROTOCOL_VERSIONS}"`;
    throw new HandshakeRefusedError(
      'unsupported_protocol_version',
      [
        `The svc provider speaks terraform plugin protocol ${PLUGIN_PROTOCOL_VERSION}, but the program that started it`,
        `offers none of that (PLUGIN_PROTOCOL_VERSIONS is ${received}).`,
        'Run it from terraform 1.0 or later, which speaks protocol 6.',
      ].join('\n'),
    );
  }
  const clientCertificatePem = env.PLUGIN_CLIENT_CERT?.trim() ? env.PLUGIN_CLIENT_CERT : undefined;
  const tlsDisabled = (env.TF_DISABLE_PLUGIN_TLS ?? '') !== '';
  const socketParentDirectory = env.PLUGIN_UNIX_SOCKET_DIR?.trim() ? env.PLUGIN_UNIX_SOCKET_DIR : undefined;
  return {
    ...(tlsDisabled || clientCertificatePem === undefined ? {} : { clientCertificatePem }),
    plaintext: tlsDisabled || clientCertificatePem === undefined,
    ...(socketParentDirectory === undefined ? {} : { socketParentDirectory }),
  };
}

/** The one stdout line; the certificate field is empty when serving without TLS. */
export function handshakeLine(socketPath: string, certificateDer: Buffer | undefined): string {
  const certificate = certificateDer === undefined ? '' : handshakeCertificate(certificateDer);
  return `${CORE_PROTOCOL_VERSION}|${PLUGIN_PROTOCOL_VERSION}|unix|${socketPath}|grpc|${certificate}\n`;
}
