/**
 * SvcContext: what every svc resource hook gets. It holds the resolved provider settings
 * (the provider block first, then the SVC_* environment variables), creates one
 * ManagementClient per tenant on first use (each logs in lazily, once per process), and owns
 * the list cache and the tenant and channel names known so far. A setting that is missing, or
 * not known yet during plan, is only an error when a hook actually needs it, and the error
 * names the attribute and the variable.
 */
import { ClientClosedError, ManagementApiError } from '../api/errors';
import type { ManagementClient, ClientLogEvent, CommandReplyWarning, ManagementClientOptions } from '../api/client';
import { registerSecret } from '../api/redaction';
import type { ListName } from '../api/types';
import type { RetryPolicy } from '../api/retry';
import { DiagnosticsError, UNKNOWN, errorDiagnostic, reportWarning, warningDiagnostic, type Diagnostic, type Unknown } from './core';
import { SeenEntries, type SeenEntry, type SeenView } from './guardrails';
import { KnownNames, type NameKind } from './known-names';
import { ApplyRegistry } from './apply-registry';
import { ListCache } from './list-cache';

export type ProviderLog = (level: 'info' | 'debug' | 'warn', message: string) => void;

/** A provider setting as configured: text, not set anywhere, or not known until apply. */
export type Setting<T> = { readonly state: 'set'; readonly value: T } | { readonly state: 'missing' } | { readonly state: 'unknown' };

export interface SvcSettings {
  readonly baseUrl: Setting<string>;
  readonly apiKey: Setting<string>;
  readonly tenant: Setting<string>;
  readonly ssoBase: Setting<string>;
  readonly maxRetries: Setting<number>;
  readonly requestTimeoutSeconds: Setting<number>;
  /** allow_broad_ranges: true turns off the plan warning for very broad ranges. */
  readonly allowBroadRanges: boolean;
  /** allow_insecure_http or SVC_ALLOW_INSECURE_HTTP=1: base_url may be http:// to a host other than loopback. */
  readonly allowInsecureHttp: boolean;
}

/** Where each setting comes from, for messages. */
export const SETTING_SOURCES = {
  baseUrl: { attribute: 'base_url', env: 'SVC_BASE_URL' },
  apiKey: { attribute: 'api_key', env: 'SVC_API_KEY' },
  tenant: { attribute: 'tenant', env: 'SVC_TENANT' },
  ssoBase: { attribute: 'sso_base', env: 'SVC_SSO_BASE' },
  allowInsecureHttp: { attribute: 'allow_insecure_http', env: 'SVC_ALLOW_INSECURE_HTTP' },
} as const;

/** The settings that are text: a URL, the key, a name. */
type TextSetting = 'baseUrl' | 'apiKey' | 'tenant' | 'ssoBase';

const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;

/** Login failures a context remembered: describeError words the first one in full, repeats briefly. */
const rememberedLoginFailures = new WeakSet<object>();

export function isRememberedLoginFailure(error: unknown): error is ManagementApiError {
  return typeof error === 'object' && error !== null && rememberedLoginFailures.has(error);
}

/**
 * A call not sent because the login already failed in this provider process (a wrong key, the
 * service out of reach): every later resource fails at once with a short note, instead of
 * repeating the same error after its own retries.
 */
export class EarlierLoginFailureError extends Error {
  readonly code = 'earlier_login_failure';
  constructor(readonly first: ManagementApiError) {
    super(`not sent: the login failed earlier in this run (${first.code})`);
    this.name = 'EarlierLoginFailureError';
  }
}
/** The tenant label of a client that only makes account-wide calls (shown in its log lines and login errors). */
const NO_TENANT = '(no tenant: account-wide calls only)';

export interface SvcContextOptions {
  readonly log?: ProviderLog;
  readonly clientOptions?: Partial<ManagementClientOptions>;
}

export class SvcContext {
  readonly lists: ListCache;
  /** Tenant and channel names for plan-time checks; a list read that works proves its tenant. */
  readonly names: KnownNames;
  /** What the changes of this process know of each other (replacements, swaps, duplicate addresses). */
  readonly registry = new ApplyRegistry();
  private readonly clients = new Map<string, ManagementClient>();
  /** accountClient()'s client when no tenant is set or known; it never makes tenant-scoped calls. */
  private accountOnly: ManagementClient | undefined;
  private readonly log: ProviderLog;
  /** Set by close() (terraform's StopProvider): from then on no client is created and no call starts. */
  private stopped = false;
  /** List entries of the resources planned so far in this process, by tenant (plan-time guardrails). */
  private readonly declared = new Map<string, SeenEntries>();
  /** Guardrail findings already reported in this process, by tenant and finding key. */
  private readonly reported = new Set<string>();
  /** The first login of this process, settled or not: later logins wait for it. */
  private firstLogin: Promise<void> | undefined;
  /** A login that failed: every later login fails at once with EarlierLoginFailureError. */
  private loginFailure: ManagementApiError | undefined;

  constructor(
    private readonly settings: SvcSettings,
    private readonly options: SvcContextOptions = {},
  ) {
    this.log = options.log ?? (() => undefined);
    if (settings.apiKey.state === 'set') registerSecret(settings.apiKey.value);
    this.names = new KnownNames((kind) => this.listNames(kind));
    this.lists = new ListCache(async (tenant, list) => {
      const entries = await this.client(tenant).listEntries(list);
      this.names.tenantAnswered(tenant);
      return entries;
    });
  }

  /** True when base_url or api_key is not known yet (plan with a provider block fed by other resources). */
  get connectionUnknown(): boolean {
    return this.settings.baseUrl.state === 'unknown' || this.settings.apiKey.state === 'unknown';
  }

  /** base_url and the provider's tenant: what a plan binds to (see service-binding.ts). */
  get boundSettings(): Pick<SvcSettings, 'baseUrl' | 'tenant'> {
    return { baseUrl: this.settings.baseUrl, tenant: this.settings.tenant };
  }

  get allowBroadRanges(): boolean {
    return this.settings.allowBroadRanges;
  }

  /**
   * Records `entries` as declared by a resource being planned; returns the entries declared so
   * far with them, as seen now: a resource planned later is not in the view (it reports the pair).
   */
  declareEntries(tenant: string, entries: readonly SeenEntry[]): SeenView {
    let known = this.declared.get(tenant);
    if (known === undefined) {
      known = new SeenEntries();
      this.declared.set(tenant, known);
    }
    known.add(entries);
    return { entries: known, limit: known.size };
  }

  /** True the first time a finding is reported in this process, so a pair of entries warns once. */
  firstReport(tenant: string, key: string): boolean {
    const id = JSON.stringify([tenant, key]);
    if (this.reported.has(id)) return false;
    this.reported.add(id);
    return true;
  }

  /** The provider's tenant; throws a diagnostic naming `tenant` and SVC_TENANT when unset or not known. */
  defaultTenant(): string {
    return this.required('tenant');
  }

  /** A resource's tenant at plan time: its own, else the provider's (UNKNOWN while that is unknown). */
  tenantForPlan(configured: string | null | Unknown): string | Unknown {
    if (configured !== null) return configured;
    if (this.settings.tenant.state === 'unknown') return UNKNOWN;
    return this.defaultTenant();
  }

  /** True when `tenant` is the provider's own (tenant in the provider block, or SVC_TENANT). */
  isProviderTenant(tenant: string): boolean {
    return this.settings.tenant.state === 'set' && this.settings.tenant.value === tenant;
  }

  /** The https base of the SAML service-provider URLs; null when unset. */
  ssoBase(): string | null | Unknown {
    const setting = this.settings.ssoBase;
    if (setting.state === 'unknown') return UNKNOWN;
    return setting.state === 'set' ? setting.value.replace(/\/+$/, '') : null;
  }

  /** ssoBase() where the value must be known now (a data source read): a diagnostic naming sso_base while it is not. */
  knownSsoBase(): string | null {
    const base = this.ssoBase();
    if (base === UNKNOWN) throw notKnownYet('ssoBase');
    return base;
  }

  /** The client for `tenant`, created on first use; it logs in on its first call. */
  client(tenant: string): ManagementClient {
    this.assertNotStopped(`the calls for tenant ${JSON.stringify(tenant)}`);
    const existing = this.clients.get(tenant);
    if (existing !== undefined) return existing;
    const client = this.createClient(tenant);
    this.clients.set(tenant, client);
    return client;
  }

  /**
   * A client for calls that are not tenant-scoped (login, customers, channels): one already
   * made, else the provider tenant's, else `fallbackTenant`'s, else one bound to no tenant, so
   * a configuration of channels alone needs no provider tenant (nor one known at plan time).
   */
  accountClient(fallbackTenant?: string): ManagementClient {
    this.assertNotStopped('the account-wide calls');
    const first = this.clients.values().next();
    if (!first.done) return first.value;
    if (this.accountOnly !== undefined) return this.accountOnly;
    if (this.settings.tenant.state === 'set') return this.client(this.settings.tenant.value);
    if (fallbackTenant !== undefined) return this.client(fallbackTenant);
    this.accountOnly = this.createClient(NO_TENANT);
    return this.accountOnly;
  }

  /** Progress of long operations (bulk list writes), shown on stderr. */
  progress(message: string): void {
    this.log('info', message);
  }

  warn(message: string): void {
    this.log('warn', message);
  }

  /** Invalidates the cached (tenant, list) around `run`. */
  writeList<Result>(tenant: string, list: ListName, run: (client: ManagementClient) => Promise<Result>): Promise<Result> {
    const client = this.client(tenant);
    return this.lists.write(tenant, list, () => run(client));
  }

  /**
   * Stops all API work for good: calls under way end at their next step (a bulk write between
   * chunks, a retry while it waits), and any later hook fails before sending anything. Terraform
   * can send StopProvider (Ctrl-C) before it asks for the next change, so closing the clients
   * made so far is not enough: a hook arriving afterwards would make a new one.
   */
  async close(): Promise<void> {
    this.stopped = true;
    const clients = [...this.clients.values(), ...(this.accountOnly === undefined ? [] : [this.accountOnly])];
    this.clients.clear();
    this.accountOnly = undefined;
    await Promise.all(clients.map((client) => client.close()));
  }

  private assertNotStopped(what: string): void {
    if (this.stopped) throw new ClientClosedError(what);
  }

  private async listNames(kind: NameKind): Promise<readonly string[]> {
    const client = this.accountClient();
    const listed = kind === 'tenant' ? await client.listCustomers() : await client.listChannels();
    return listed.map((item) => item.name);
  }

  private createClient(tenant: string): ManagementClient {
    const baseUrl = this.required('baseUrl');
    const apiKey = this.required('apiKey');
    const overrides = this.options.clientOptions ?? {};
    // Required here, not imported: the client and undici load at the first API call, so the
    // provider processes terraform starts only for the schema or validation never load them
    // (issue 27, help/performance-history.md, "Where the fixed cost goes").
    const { ManagementClient: Client } = require('../api/client') as typeof import('../api/client');
    return new Client({
      logger: (event) => this.log('debug', describeClientEvent(tenant, event)),
      ...overrides,
      baseUrl,
      apiKey,
      tenant,
      // The provider block's settings win over the embedder's defaults.
      requestTimeoutMs: this.requestTimeoutSeconds() * 1000,
      retry: { ...overrides.retry, ...this.retryOverride() },
      allowInsecureHttp: this.settings.allowInsecureHttp,
      loginWrapper: (login) => this.gatedLogin(login),
      // Shown by terraform with the result of the resource or data source whose read met it.
      onReplyWarning: (warning) => reportWarning(replyWarningDiagnostic(tenant, warning)),
    });
  }

  /**
   * Every client's login: one at a time until one worked, and none after one failed. All clients
   * share the base URL and the key, so a wrong key or a service out of reach fails them all alike;
   * terraform then shows the full error once (with the retries spent once) and a short note for
   * every other resource.
   */
  private async gatedLogin(login: () => Promise<string>): Promise<string> {
    if (this.firstLogin !== undefined) await this.firstLogin;
    if (this.loginFailure !== undefined) throw new EarlierLoginFailureError(this.loginFailure);
    const attempt = login();
    this.firstLogin ??= attempt.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await attempt;
    } catch (error) {
      // A stop (Ctrl-C) is not a failure of the service; anything else from login is lasting for this run.
      if (error instanceof ManagementApiError && error.code !== 'client_closed') {
        this.loginFailure ??= error;
        rememberedLoginFailures.add(error);
      }
      throw error;
    }
  }

  private requestTimeoutSeconds(): number {
    const setting = this.settings.requestTimeoutSeconds;
    return setting.state === 'set' ? setting.value : DEFAULT_REQUEST_TIMEOUT_SECONDS;
  }

  private retryOverride(): Partial<RetryPolicy> {
    const setting = this.settings.maxRetries;
    return setting.state === 'set' ? { maxAttempts: setting.value + 1 } : {};
  }

  private required(name: TextSetting): string {
    const setting = this.settings[name];
    if (setting.state === 'set') return setting.value;
    if (setting.state === 'unknown') throw notKnownYet(name);
    const { attribute, env } = SETTING_SOURCES[name];
    const how =
      name === 'apiKey'
        ? `Set the environment variable ${env} (recommended: it keeps the key out of the configuration), or api_key in the provider "svc" block from a sensitive or ephemeral variable.`
        : `Set ${attribute} in the provider "svc" block, or the environment variable ${env}.`;
    throw new DiagnosticsError([
      errorDiagnostic(`Missing provider setting ${attribute}`, `The svc provider needs ${attribute} (environment variable ${env}) here, but neither is set. ${how}`),
    ]);
  }
}

function notKnownYet(name: TextSetting): DiagnosticsError {
  const { attribute, env } = SETTING_SOURCES[name];
  return new DiagnosticsError([
    errorDiagnostic(
      `Provider setting ${attribute} is not known yet`,
      `The svc provider's ${attribute} depends on a value terraform only knows after apply, but this step needs it now. ` +
        `Give ${attribute} a value known at plan time (a literal or a variable), or set the environment variable ${env}.`,
    ),
  ]);
}

/** How the summary of a warning about what the service returned starts, by kind (help/troubleshooting.md lists them). */
export const REPLY_WARNING_SUMMARIES: Readonly<Record<CommandReplyWarning['kind'], string>> = {
  duplicate: 'The svc management API listed one address more than once',
  escaped: 'The svc management API returned text with control characters, shown escaped',
  cut: 'The svc management API returned text too long to keep, cut',
};

/**
 * A warning of the client's reply checks, as terraform shows it. The summary names the command
 * and tenant: terraform folds warnings with one summary into the first ("and N more similar
 * warnings"), which keeps a list of a thousand hostile entries to one warning per kind.
 */
function replyWarningDiagnostic(tenant: string, warning: CommandReplyWarning): Diagnostic {
  return warningDiagnostic(
    `${REPLY_WARNING_SUMMARIES[warning.kind]} (${warning.command}, tenant ${JSON.stringify(tenant)})`,
    `${warning.command} for tenant ${JSON.stringify(tenant)}: ${warning.message}. ` +
      'State and plans hold the changed value; fix the entry on the service (or let the configuration set it) to make this go away. ' +
      'See help/troubleshooting.md.',
  );
}

function describeClientEvent(tenant: string, event: ClientLogEvent): string {
  const parts = Object.entries(event)
    .filter(([key]) => key !== 'type')
    .map(([key, value]) => `${key}=${String(value)}`);
  return `svc client [${tenant}] ${event.type} ${parts.join(' ')}`.trim();
}
