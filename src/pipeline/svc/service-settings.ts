/**
 * The service an `svc` command talks to, from the environment as the provider reads it:
 * SVC_BASE_URL, SVC_TENANT, SVC_API_KEY (and SVC_ALLOW_INSECURE_HTTP=1 for http:// to a host
 * other than loopback). The key is never taken from the command line and never printed: it is
 * registered with the client's redaction before anything else runs.
 */
import { ManagementApiError } from '../../api/errors';
import { ManagementClient, type CommandReplyWarning } from '../../api/client';
import { insecureHttpHost } from '../../api/transport';
import { registerSecret } from '../../api/redaction';
import type { RetryPolicy } from '../../api/retry';
import { forTerminal } from '../untrusted-text';
import { SvcCommandError, type SvcContext } from './command';

export const SERVICE_ENVIRONMENT = {
  baseUrl: 'SVC_BASE_URL',
  tenant: 'SVC_TENANT',
  apiKey: 'SVC_API_KEY',
  allowInsecureHttp: 'SVC_ALLOW_INSECURE_HTTP',
  maxRetries: 'SVC_MAX_RETRIES',
} as const;

/** Attempts after the first; a CLI gives up sooner than terraform's provider, a person is waiting. */
const DEFAULT_MAX_RETRIES = 3;

export interface ServiceSettings {
  readonly baseUrl: string;
  readonly tenant: string;
  readonly apiKey: string;
  readonly allowInsecureHttp: boolean;
  readonly retry: Partial<RetryPolicy>;
}

function required(env: NodeJS.ProcessEnv, name: string, what: string, example: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') throw new SvcCommandError(`${name} is not set; export ${what}, e.g. ${example}`);
  return value.trim();
}

/** Reads and checks the settings; every problem names the variable (never the key's value). */
export function serviceSettings(env: NodeJS.ProcessEnv): ServiceSettings {
  registerSecret(env[SERVICE_ENVIRONMENT.apiKey]);
  const baseUrl = required(env, SERVICE_ENVIRONMENT.baseUrl, 'the management API', 'export SVC_BASE_URL=https://svc.example.com');
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new SvcCommandError(`${SERVICE_ENVIRONMENT.baseUrl} is not an http(s) URL; give e.g. https://svc.example.com`);
  }
  const url = new URL(baseUrl);
  if (url.username !== '' || url.password !== '') {
    throw new SvcCommandError(`${SERVICE_ENVIRONMENT.baseUrl} holds a user name or password; leave credentials out of the URL (the key goes in SVC_API_KEY)`);
  }
  const allowInsecureHttp = env[SERVICE_ENVIRONMENT.allowInsecureHttp] === '1' || env[SERVICE_ENVIRONMENT.allowInsecureHttp] === 'true';
  const insecureHost = insecureHttpHost(url);
  if (insecureHost !== undefined && !allowInsecureHttp) {
    throw new SvcCommandError(
      `${SERVICE_ENVIRONMENT.baseUrl} is http:// to ${insecureHost}, which would send the API key unencrypted; use https:// ` +
        `(http:// is for a local emulator on loopback), or set ${SERVICE_ENVIRONMENT.allowInsecureHttp}=1 if the network path is protected otherwise`,
    );
  }
  const tenant = required(env, SERVICE_ENVIRONMENT.tenant, 'the tenant (customer name)', 'export SVC_TENANT=acme');
  const apiKey = env[SERVICE_ENVIRONMENT.apiKey];
  if (apiKey === undefined || apiKey === '') {
    throw new SvcCommandError(`${SERVICE_ENVIRONMENT.apiKey} is not set; export the API key from your secret store (never on the command line)`);
  }
  const retriesText = env[SERVICE_ENVIRONMENT.maxRetries];
  let maxRetries = DEFAULT_MAX_RETRIES;
  if (retriesText !== undefined && retriesText !== '') {
    if (!/^\d+$/.test(retriesText) || Number(retriesText) > 10) throw new SvcCommandError(`${SERVICE_ENVIRONMENT.maxRetries} ${JSON.stringify(retriesText)}: expected a whole number from 0 to 10`);
    maxRetries = Number(retriesText);
  }
  return { baseUrl, tenant, apiKey, allowInsecureHttp, retry: { maxAttempts: maxRetries + 1, deadlineMs: 30_000 } };
}

/**
 * One stderr line for a reply the client could use only after a change (duplicate addresses
 * merged, control characters escaped, a long text cut): what was shown is not what the service holds.
 */
export function replyWarningLine(tenant: string, warning: CommandReplyWarning): string {
  return `svc: warning: ${forTerminal(warning.command, 80)} for tenant ${forTerminal(JSON.stringify(tenant), 120)}: ${forTerminal(warning.message, 600)}; what is printed is the changed value, fix the entry on the service to make this go away`;
}

/**
 * Runs `work` with a client for the environment's service, closing it afterwards; client errors
 * become one line, and the client's reply warnings go to stderr as they come.
 */
export async function withClient<Result>(context: Pick<SvcContext, 'env' | 'stderr'>, work: (client: ManagementClient, settings: ServiceSettings) => Promise<Result>): Promise<Result> {
  const settings = serviceSettings(context.env);
  let client: ManagementClient | undefined;
  try {
    client = new ManagementClient({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      tenant: settings.tenant,
      allowInsecureHttp: settings.allowInsecureHttp,
      retry: settings.retry,
      onReplyWarning: (warning) => context.stderr(`${replyWarningLine(settings.tenant, warning)}\n`),
    });
    return await work(client, settings);
  } catch (error) {
    if (error instanceof ManagementApiError) throw new SvcCommandError(describeClientError(error, settings));
    throw error;
  } finally {
    await client?.close();
  }
}

/** The client's message, with what to check for the failures a shell user meets first. */
export function describeClientError(error: ManagementApiError, settings: ServiceSettings): string {
  switch (error.code) {
    case 'authentication_failed':
      return `${error.message} (check ${SERVICE_ENVIRONMENT.apiKey} and ${SERVICE_ENVIRONMENT.tenant}=${JSON.stringify(settings.tenant)})`;
    case 'transport_failed':
      return `${error.message} (check ${SERVICE_ENVIRONMENT.baseUrl}=${settings.baseUrl} and the network path to it)`;
    case 'permission_denied':
      return `${error.message} (the key's user may only read; use a key of a user who may write)`;
    default:
      return error.message;
  }
}
