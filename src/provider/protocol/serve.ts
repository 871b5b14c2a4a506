/**
 * The provider process's life: check that terraform started it, listen for gRPC on a unix
 * socket in a fresh private directory (mutual TLS unless terraform turned TLS off), print the
 * handshake line, serve the Provider service, and exit when go-plugin's GRPCController/Shutdown
 * asks (or on SIGTERM). SIGINT is ignored: terraform forwards Ctrl-C to the whole process
 * group and then stops the provider itself through StopProvider and Shutdown. If terraform
 * dies without a Shutdown, the provider notices it was re-parented and exits too.
 */
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { generateCertificate } from './certificate';
import { GrpcServer, type UnaryRoute } from './grpc-server';
import { HandshakeRefusedError, handshakeLine, readPluginEnvironment } from './handshake';
import { createLogger, logLevelFromEnv, PROCESS_STDERR, type Logger, type TextSink } from './log';
import type { ProviderService } from './messages';
import { NO_REDACTION, type Redact } from './redaction';
import { callProviderRpc, providerRpcList } from './tfplugin6';

export interface ServeOptions {
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives the handshake line and nothing else. @default file descriptor 1 (STDOUT_FD) */
  readonly stdout?: TextSink;
  /** Log lines and refusal messages. @default process.stderr, looked up at the first line */
  readonly stderr?: TextSink;
  /** @default process.exit */
  readonly exit?: (code: number) => void;
  /**
   * Ignore SIGINT, shut down on SIGTERM or when the parent process goes away, log unhandled
   * promise rejections instead of dying, and remove the socket directory on any exit.
   * Off for servers run inside another program (tests). @default true
   */
  readonly handleSignals?: boolean;
  /**
   * Scrubs secrets out of every log line and gRPC error message (the service redacts its own
   * diagnostics). @default no redaction
   */
  readonly redact?: Redact;
  /**
   * A reply known before the process started, by RPC name, or undefined (the released
   * executable's GetProviderSchema, which its build encoded from the same service): asked at a
   * call whose request has no fields, and sent as it is without calling the service, so a process
   * that terraform starts only for such calls never loads it. Any other call goes to the service.
   * @default none
   */
  readonly readyReply?: (rpcName: string) => Buffer | undefined;
}

export interface ServeHandle {
  readonly socketPath: string;
  /** The line printed to stdout, newline included. */
  readonly handshakeLine: string;
  readonly logger: Logger;
  /** Closes the server, removes the socket directory, then calls exit(code). */
  shutdown(code?: number): Promise<void>;
  /** Settles when shutdown has finished (before exit is called). */
  readonly closed: Promise<void>;
}

const SOCKET_FILE_NAME = 'plugin.sock';
const SHUTDOWN_PATH = '/plugin.GRPCController/Shutdown';
/** How often to check that terraform is still our parent. */
const PARENT_CHECK_MS = 1000;

/**
 * stdout written directly: the handshake line is all the provider ever prints there, and
 * process.stdout would first build a stream for it (with stderr's, about 1.5 ms of the start).
 * Retries a full pipe (EAGAIN) and short writes until the whole line is out.
 */
export const STDOUT_FD: TextSink = {
  write: (text) => {
    const bytes = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < bytes.length; ) {
      try {
        offset += writeSync(1, bytes, offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      }
    }
  },
};

/**
 * Serves `service` as terraform's plugin. Refusals (not started by terraform, no protocol 6)
 * write a message for a human to stderr, call exit(1), and reject with HandshakeRefusedError.
 */
export async function serveProvider(service: ProviderService, options: ServeOptions = {}): Promise<ServeHandle> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? STDOUT_FD;
  const stderr = options.stderr ?? PROCESS_STDERR;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const handleSignals = options.handleSignals ?? true;
  const redact = options.redact ?? NO_REDACTION;
  const logger = createLogger(stderr, logLevelFromEnv(env), redact);

  let pluginEnvironment;
  try {
    pluginEnvironment = readPluginEnvironment(env);
  } catch (error) {
    if (!(error instanceof HandshakeRefusedError)) throw error;
    stderr.write(`${error.message}\n`);
    exit(1);
    throw error;
  }

  const socketDirectory = mkdtempSync(join(pluginEnvironment.socketParentDirectory ?? tmpdir(), 'svc-plugin-'));
  const socketPath = join(socketDirectory, SOCKET_FILE_NAME);
  const removeSocketDirectory = () => rmSync(socketDirectory, { recursive: true, force: true });

  let shutdownPromise: Promise<void> | undefined;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const shutdown = (code = 0): Promise<void> => {
    shutdownPromise ??= grpcServer.close().then(() => {
      removeSocketDirectory();
      logger.debug(`plugin server stopped, exiting with ${code}`);
      resolveClosed();
      exit(code);
    });
    return shutdownPromise;
  };

  const routes = new Map<string, UnaryRoute>();
  for (const [rpcName, rpc] of providerRpcList) {
    routes.set(`/tfplugin6.Provider/${rpcName}`, {
      handle: (request) => {
        const ready = request.length === 0 ? options.readyReply?.(rpcName) : undefined;
        return ready === undefined ? callProviderRpc(service, rpc, request) : Promise.resolve(ready);
      },
    });
  }
  routes.set(SHUTDOWN_PATH, {
    handle: async () => Buffer.alloc(0), // plugin.Empty
    afterReply: () => {
      logger.debug('terraform asked the plugin to shut down');
      void shutdown(0);
    },
  });

  const certificate = pluginEnvironment.plaintext ? undefined : generateCertificate();
  const grpcServer = new GrpcServer({
    routes,
    logger,
    redact,
    ...(certificate === undefined || pluginEnvironment.clientCertificatePem === undefined
      ? {}
      : {
          tls: {
            certificatePem: certificate.certificatePem,
            privateKeyPem: certificate.privateKeyPem,
            clientCaPem: pluginEnvironment.clientCertificatePem,
          },
        }),
  });

  if (handleSignals) {
    process.on('SIGINT', () => logger.debug('ignoring SIGINT: terraform stops the provider through StopProvider'));
    process.on('SIGTERM', () => void shutdown(0));
    process.on('exit', removeSocketDirectory);
    // A promise some hook left floating rejected. Node's default would kill the provider in the
    // middle of terraform's run (losing track of objects it just created); log it and keep serving.
    process.on('unhandledRejection', (reason: unknown) => {
      const text = reason instanceof Error ? (reason.stack ?? reason.message) : inspect(reason, { breakLength: Infinity });
      logger.error(`a background task failed (the provider keeps serving; please report it): ${text}`);
    });
    // terraform gone without a Shutdown (killed, crashed): we were re-parented, so do not linger.
    const parentPid = process.ppid;
    setInterval(() => {
      if (process.ppid !== parentPid) {
        logger.warn(`terraform (pid ${parentPid}) went away without shutting the plugin down; exiting`);
        void shutdown(0);
      }
    }, PARENT_CHECK_MS).unref();
  }

  await grpcServer.listen(socketPath).catch((error: unknown) => {
    removeSocketDirectory();
    throw error;
  });
  if (pluginEnvironment.plaintext) logger.info('serving without TLS (TF_DISABLE_PLUGIN_TLS or no client certificate)');
  else logger.debug('serving with mutual TLS: only terraform\'s client certificate is accepted');
  const line = handshakeLine(socketPath, certificate?.der);
  stdout.write(line);
  logger.debug(`plugin server listening on ${socketPath}`);

  return { socketPath, handshakeLine: line, logger, shutdown, closed };
}
