/**
 * The svc provider: its configuration schema, validation and configure step, the list of
 * resources, data sources and functions, and how domain errors (the client's ManagementApiError, an
 * InvalidAddressError) become diagnostics that say what to do.
 */
import { InvalidAddressError } from '../address';
import { ManagementApiError } from '../api/errors';
import { insecureHttpHost } from '../api/transport';
import { redactUrlCredentials, secretRegistry } from '../api/redaction';
import type { ManagementClientOptions } from '../api/client';
import { EARLIER_LOGIN_FAILURE_SUMMARY } from '../diagnostic-summaries';
import {
  DiagnosticsError,
  UNKNOWN,
  errorDiagnostic,
  isUnknown,
  types,
  type Diagnostic,
  type ObjectValue,
  type ProviderDefinition,
  type Schema,
  type Value,
} from './core';
import { EarlierLoginFailureError, SETTING_SOURCES, SvcContext, isRememberedLoginFailure, type ProviderLog, type Setting, type SvcSettings } from './context';
import { channelSsoResource } from './resources/channel-sso';
import { auditEventsDataSource } from './resources/data-audit-events';
import { channelDataSource } from './resources/data-channel';
import { listDataSource } from './resources/data-list';
import { tenantDataSource } from './resources/data-tenant';
import { canonicalAddressFunction } from './resources/function-canonical-address';
import { containsFunction } from './resources/function-contains';
import { overlapsFunction } from './resources/function-overlaps';
import { listResources } from './resources/list';
import { listEntryResources } from './resources/list-entry';
import { tenantSsoResource } from './resources/tenant-sso';
import { bindingMismatch, serviceBinding } from './service-binding';

export interface SvcProviderOptions {
  /** Where SVC_* settings come from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Progress and client events (stderr in the provider binary). Never given the API key. */
  readonly log?: ProviderLog;
  /** Overrides for every ManagementClient the provider creates (tests: retry, dispatcher). */
  readonly clientOptions?: Partial<ManagementClientOptions>;
}

const MAX_RETRIES_LIMIT = 20;
const MAX_REQUEST_TIMEOUT_SECONDS = 600;

// ---- schema ------------------------------------------------------------------------------------

const schema: Schema = {
  version: 0,
  description: 'The svc runtime threat-protection service: its lists, SSO settings and audit log, through the management API.',
  attributes: {
    base_url: {
      type: types.string,
      optional: true,
      description:
        'Base URL of the management API (requests go to `{base_url}/svc_api/v2/...`). Env `SVC_BASE_URL`. https, or http to a loopback ' +
        'address (127.0.0.0/8, ::1, localhost) such as a local emulator; http to any other host needs allow_insecure_http.',
    },
    api_key: {
      type: types.string,
      optional: true,
      sensitive: true,
      description: 'API key of a management-API user. Prefer env `SVC_API_KEY` (or an ephemeral variable); never written to state.',
    },
    tenant: {
      type: types.string,
      optional: true,
      description: 'Default tenant (`customer_name`) of every resource and data source. Env `SVC_TENANT`.',
    },
    sso_base: {
      type: types.string,
      optional: true,
      description: 'https base of the SAML service-provider URLs of channels (`sp_*`). Env `SVC_SSO_BASE`. Unset: those attributes are null.',
    },
    max_retries: {
      type: types.number,
      optional: true,
      description: `Retries of a failed request (rate limiting, 5xx, network errors), 0 to ${MAX_RETRIES_LIMIT}. Default: the client's policy (5).`,
    },
    request_timeout_seconds: {
      type: types.number,
      optional: true,
      description: `Timeout of one HTTP request in seconds, up to ${MAX_REQUEST_TIMEOUT_SECONDS}. Default 30.`,
    },
    allow_broad_ranges: {
      type: types.bool,
      optional: true,
      description:
        'true: no plan warning for list entries broader than IPv4 /8 or IPv6 /32 (see help/guardrails.md). ' +
        'Catch-all ranges (0.0.0.0/0, ::/0) stay an error. Default false.',
    },
    allow_insecure_http: {
      type: types.bool,
      optional: true,
      description:
        'true: allow base_url with http:// to a host other than loopback, so the API key and session tokens cross the network ' +
        'unencrypted. Env `SVC_ALLOW_INSECURE_HTTP=1`. Default false.',
    },
  },
};

// ---- validate ----------------------------------------------------------------------------------

/** What is wrong with a URL setting, or undefined; never echoes anything but the URL. */
function urlProblem(value: string, protocols: readonly string[]): string | undefined {
  // Quoted without credentials: a URL given as `https://user:KEY@host` must not print the key.
  const shown = JSON.stringify(redactUrlCredentials(value));
  if (!URL.canParse(value)) return `${shown} is not a URL`;
  const url = new URL(value);
  if (!protocols.includes(url.protocol)) return `${shown} uses ${url.protocol.replace(/:$/, '')}; use ${protocols.map((protocol) => protocol.replace(/:$/, '')).join(' or ')}`;
  if (url.hostname === '') return `${shown} has no host name`;
  if (url.username !== '' || url.password !== '') {
    return `${shown} holds a user name or password; leave credentials out of the URL (the API key goes in api_key or SVC_API_KEY)`;
  }
  return undefined;
}

const URL_SETTINGS = {
  base_url: { protocols: ['http:', 'https:'], example: 'https://api.example.com' },
  sso_base: { protocols: ['https:'], example: 'https://sso.example.com' },
} as const;

/** Env variable that allows http:// to a host other than loopback, like allow_insecure_http = true. */
export const ALLOW_INSECURE_HTTP_ENV = SETTING_SOURCES.allowInsecureHttp.env;

function insecureHttpAllowedByEnv(env: NodeJS.ProcessEnv): boolean {
  return env[ALLOW_INSECURE_HTTP_ENV] === '1' || env[ALLOW_INSECURE_HTTP_ENV] === 'true';
}

/**
 * An error when `value` is http:// to a host other than loopback: the API key and every session
 * token would travel unencrypted. `name` is base_url or SVC_BASE_URL, whichever gave it.
 */
function insecureBaseUrlDiagnostic(value: string, name: string): Diagnostic | undefined {
  if (!URL.canParse(value)) return undefined;
  const host = insecureHttpHost(new URL(value));
  if (host === undefined) return undefined;
  const shown = JSON.stringify(redactUrlCredentials(value));
  return errorDiagnostic(
    `Insecure ${name}: http:// to a remote host`,
    `${name} = ${shown} uses http:// to ${host}, which is not a loopback address: the API key and every session token would cross the network unencrypted. ` +
      `Use https:// (e.g. ${shown.replace(/^"http:/, '"https:')}). Only if the network path is protected otherwise, set allow_insecure_http = true in the provider "svc" block ` +
      `or ${ALLOW_INSECURE_HTTP_ENV}=1.`,
    name === 'base_url' ? ['base_url'] : undefined,
  );
}

function validateProvider(config: ObjectValue, env: NodeJS.ProcessEnv): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // Unknown here (a variable not known yet) may still allow it: configure checks again then.
  const insecureAllowed = config.allow_insecure_http === true || isUnknown(config.allow_insecure_http) || insecureHttpAllowedByEnv(env);
  if (typeof config.base_url === 'string' && !insecureAllowed) {
    const insecure = insecureBaseUrlDiagnostic(config.base_url, 'base_url');
    if (insecure !== undefined && urlProblem(config.base_url, URL_SETTINGS.base_url.protocols) === undefined) diagnostics.push(insecure);
  }
  for (const [name, rule] of Object.entries(URL_SETTINGS)) {
    const value = config[name];
    if (typeof value !== 'string') continue;
    const problem = value === '' ? 'it is empty' : urlProblem(value, rule.protocols);
    if (problem !== undefined) {
      diagnostics.push(errorDiagnostic(`Invalid ${name}`, `${name}: ${problem}. Give a URL such as ${rule.example}, or leave ${name} out.`, [name]));
    }
  }
  if (config.api_key === '') {
    diagnostics.push(errorDiagnostic('Empty api_key', 'api_key is an empty string. Leave it out and set SVC_API_KEY, or give the key.', ['api_key']));
  }
  if (config.tenant === '') {
    diagnostics.push(errorDiagnostic('Empty tenant', 'tenant is an empty string. Give the tenant (customer) name, or leave it out and set SVC_TENANT.', ['tenant']));
  }
  const retries = config.max_retries;
  if (typeof retries === 'number' && (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES_LIMIT)) {
    diagnostics.push(errorDiagnostic('Invalid max_retries', `max_retries = ${retries}: give a whole number from 0 to ${MAX_RETRIES_LIMIT}.`, ['max_retries']));
  }
  const timeout = config.request_timeout_seconds;
  if (typeof timeout === 'number' && !(timeout > 0 && timeout <= MAX_REQUEST_TIMEOUT_SECONDS)) {
    diagnostics.push(
      errorDiagnostic(
        'Invalid request_timeout_seconds',
        `request_timeout_seconds = ${timeout}: give a number of seconds above 0 and at most ${MAX_REQUEST_TIMEOUT_SECONDS}.`,
        ['request_timeout_seconds'],
      ),
    );
  }
  return diagnostics;
}

// ---- configure ---------------------------------------------------------------------------------

function stringSetting(value: Value, env: string | undefined): Setting<string> {
  if (isUnknown(value)) return { state: 'unknown' };
  if (typeof value === 'string') return { state: 'set', value };
  if (env !== undefined && env !== '') return { state: 'set', value: env };
  return { state: 'missing' };
}

function numberSetting(value: Value): Setting<number> {
  if (value === UNKNOWN) return { state: 'unknown' };
  return typeof value === 'number' ? { state: 'set', value } : { state: 'missing' };
}

/** Settings from the provider block, then the environment; an env URL is checked here, naming the variable. */
export function resolveSettings(config: ObjectValue, env: NodeJS.ProcessEnv): SvcSettings {
  const settings: SvcSettings = {
    baseUrl: stringSetting(config.base_url, env[SETTING_SOURCES.baseUrl.env]),
    apiKey: stringSetting(config.api_key, env[SETTING_SOURCES.apiKey.env]),
    tenant: stringSetting(config.tenant, env[SETTING_SOURCES.tenant.env]),
    ssoBase: stringSetting(config.sso_base, env[SETTING_SOURCES.ssoBase.env]),
    maxRetries: numberSetting(config.max_retries),
    requestTimeoutSeconds: numberSetting(config.request_timeout_seconds),
    allowBroadRanges: config.allow_broad_ranges === true,
    allowInsecureHttp: config.allow_insecure_http === true || insecureHttpAllowedByEnv(env),
  };
  const fromEnv: Array<[keyof typeof URL_SETTINGS, 'baseUrl' | 'ssoBase']> = [
    ['base_url', 'baseUrl'],
    ['sso_base', 'ssoBase'],
  ];
  const diagnostics: Diagnostic[] = [];
  for (const [attribute, key] of fromEnv) {
    const setting = settings[key];
    if (setting.state !== 'set' || typeof config[attribute] === 'string') continue;
    const problem = urlProblem(setting.value, URL_SETTINGS[attribute].protocols);
    if (problem !== undefined) {
      const variable = SETTING_SOURCES[key].env;
      diagnostics.push(
        errorDiagnostic(`Invalid ${variable}`, `The environment variable ${variable} (the provider's ${attribute}): ${problem}. Fix or unset it.`),
      );
    }
  }
  const baseUrl = settings.baseUrl;
  if (diagnostics.length === 0 && baseUrl.state === 'set' && !settings.allowInsecureHttp) {
    const insecure = insecureBaseUrlDiagnostic(baseUrl.value, typeof config.base_url === 'string' ? 'base_url' : SETTING_SOURCES.baseUrl.env);
    if (insecure !== undefined) diagnostics.push(insecure);
  }
  if (diagnostics.length > 0) throw new DiagnosticsError(diagnostics);
  return settings;
}

// ---- errors ------------------------------------------------------------------------------------

const API_ERROR_ADVICE: Record<string, { summary: string; advice: string }> = {
  authentication_failed: {
    summary: 'Login to the svc management API failed',
    advice: 'The provider takes the key from api_key in the provider block, else from SVC_API_KEY.',
  },
  permission_denied: {
    summary: 'The svc management API refused a change',
    advice: 'The provider takes the key from api_key in the provider block, else from SVC_API_KEY.',
  },
  not_found: {
    summary: 'Not found in the svc management API',
    advice: 'Check the name or address in the configuration.',
  },
  rate_limited: {
    summary: 'The svc management API kept limiting the request rate',
    advice: 'Try again later, run terraform with a lower -parallelism, or raise max_retries.',
  },
  validation_failed: {
    summary: 'Invalid value for the svc management API',
    advice: 'Fix the value named above in the configuration.',
  },
  transport_failed: {
    summary: 'Could not reach the svc management API',
    advice: 'Check base_url (or SVC_BASE_URL), the network path to it, and request_timeout_seconds.',
  },
  unexpected_reply: {
    summary: 'Unexpected reply from the svc management API',
    advice: 'Check that base_url (or SVC_BASE_URL) points at the management API; if it does, retry and report the X-Request-ID above.',
  },
  // Not a client code: an unexpected_reply with a 5xx status, once the retries ran out.
  service_failing: {
    summary: 'The svc management API is failing',
    advice: 'It answered with a server error to every attempt: try again later, or raise max_retries. If it persists, report the X-Request-ID above to the service operator.',
  },
  service_error: {
    summary: 'The svc management API refused the request',
    advice: 'Fix what the service names above (e.g. an unknown tenant: check tenant or SVC_TENANT).',
  },
  token_rejected: {
    summary: 'The svc management API rejected a fresh session token',
    advice: 'Log in works but the token is refused right away; check the clocks and the service, then retry.',
  },
  client_closed: {
    summary: 'The svc provider was stopping',
    advice: 'What was sent before that stays applied and the next plan shows what is left; run the command again.',
  },
};

export function describeSvcError(error: unknown, operation: string): Diagnostic | undefined {
  if (error instanceof InvalidAddressError) {
    return errorDiagnostic(
      'Invalid IP address or CIDR',
      `${operation}: ${error.message}. Give an IPv4 or IPv6 address, or a CIDR range without host bits.`,
    );
  }
  if (error instanceof ManagementApiError) {
    // A 5xx is the service failing, not a base_url that points elsewhere (that answers 404, HTML, ...).
    const failing = error.code === 'unexpected_reply' && error.status !== undefined && error.status >= 500;
    const { summary, advice } = API_ERROR_ADVICE[failing ? 'service_failing' : error.code] ?? API_ERROR_ADVICE.service_error;
    // A closed client means terraform stopped us (Ctrl-C); the client's own text ("create a new
    // ManagementClient") is advice for library users, not for a terraform user.
    const what =
      error.code === 'client_closed'
        ? `terraform stopped the provider (Ctrl-C) before or during ${error.command ?? 'an API call'}; no API call starts after a stop.`
        : error.message;
    // The client scrubs its own messages; scrubbing again costs nothing and guards the boundary.
    return errorDiagnostic(summary, secretRegistry.redact(`${operation}: ${what} ${advice}`));
  }
  return undefined;
}

/** The short note for a resource whose call was not sent because the login failed already. */
export function earlierLoginFailureDiagnostic(first: ManagementApiError, operation: string): Diagnostic {
  const { summary } = describeSvcError(first, operation) ?? { summary: 'The svc management API failed' };
  return errorDiagnostic(
    EARLIER_LOGIN_FAILURE_SUMMARY,
    `${operation}: not sent. The login to the svc management API failed once in this run (see the error "${summary}"), ` +
      'and the provider does not try again for every resource. Fix what that error says, then run terraform again.',
  );
}

// ---- definition --------------------------------------------------------------------------------

export function createSvcProvider(options: SvcProviderOptions = {}): ProviderDefinition<SvcContext> {
  const env = options.env ?? process.env;
  const contexts = new Set<SvcContext>();
  /** Login failures already shown in full. */
  const described = new WeakSet<object>();
  return {
    schema,
    validate: ({ config }) => validateProvider(config, env),

    async configure({ config }) {
      const context = new SvcContext(resolveSettings(config, env), {
        ...(options.log === undefined ? {} : { log: options.log }),
        ...(options.clientOptions === undefined ? {} : { clientOptions: options.clientOptions }),
      });
      contexts.add(context);
      return context;
    },

    serviceBinding: (context) => serviceBinding(context.boundSettings),
    bindingMismatch: (context, recorded) => bindingMismatch(context.boundSettings, recorded),

    resources: [...listEntryResources, ...listResources, tenantSsoResource, channelSsoResource],
    dataSources: [listDataSource, auditEventsDataSource, tenantDataSource, channelDataSource],
    functions: [canonicalAddressFunction, containsFunction, overlapsFunction],

    describeError(error, operation) {
      // A failed login is shown in full once; every other resource of the run gets a short note.
      if (error instanceof EarlierLoginFailureError) return earlierLoginFailureDiagnostic(error.first, operation);
      if (isRememberedLoginFailure(error)) {
        if (described.has(error)) return earlierLoginFailureDiagnostic(error, operation);
        described.add(error);
      }
      return describeSvcError(error, operation);
    },

    async close(context) {
      const all = new Set(contexts);
      if (context !== undefined) all.add(context);
      contexts.clear();
      await Promise.all([...all].map((each) => each.close()));
    },
  };
}
