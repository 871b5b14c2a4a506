/**
 * ManagementClient: every command of the management API for one (base URL, API key, tenant).
 * It logs in lazily, reuses the token, renews it once when the service says it expired, retries
 * what the retry policy allows, and validates requests before sending anything.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import {
  AuthenticationError,
  ClientClosedError,
  ManagementApiError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServiceError,
  TokenRejectedError,
  TransportError,
  UnexpectedReplyError,
  ValidationError,
} from './errors';
import { redact, registerSecret, secretRegistry } from './redaction';
import { ReplyValueError, checkAuditEvents, checkListEntries, checkListEntry, type Checked, type ReplyWarning } from './reply-checks';
import { bodyExcerpt, classifyServiceError, parseReplyBody } from './reply';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter, type AttemptOutcome, type RetryPolicy, type ServiceErrorKind } from './retry';
import { Session } from './session';
import { SharedReads } from './shared-read';
import { HttpTransport } from './transport';
import type {
  ApiArea,
  AuditEvent,
  BulkProgress,
  BulkResult,
  Channel,
  Customer,
  ListEntry,
  ListName,
  NewListEntry,
  SsoSettings,
} from './types';
import {
  assertListName,
  assertName,
  assertPositiveInteger,
  assertSsoSettings,
  canonicalIp,
  normaliseEntry,
  type WireEntry,
} from './validation';

/** The service refuses bulk calls above this many entries. */
export const MAX_BULK_ENTRIES = 1000;
/**
 * A bulk call's items, JSON-encoded, stay under this many bytes: the contract bounds a call by
 * count only, but a service (the emulator: 4 MiB) or a proxy in front of it bounds the body, and
 * 1,000 entries with long descriptions would pass the count and never the size.
 */
export const MAX_BULK_BODY_BYTES = 1024 * 1024;

/**
 * One thing the client did, as the `logger` option receives it: a request, its reply, a network
 * error, a retry and its delay, a re-login, giving up, or a reply it had to change. Events carry
 * commands, attempts, statuses and request IDs; never the API key, a token or a body.
 */
export type ClientLogEvent =
  | { readonly type: 'request'; readonly command: string; readonly attempt: number }
  | {
      readonly type: 'reply';
      readonly command: string;
      readonly attempt: number;
      readonly status: number;
      readonly requestId?: string;
      readonly outcome: 'ok' | 'error' | 'unexpected';
    }
  | { readonly type: 'network-error'; readonly command: string; readonly attempt: number; readonly code?: string }
  | { readonly type: 'retry'; readonly command: string; readonly attempt: number; readonly delayMs: number; readonly reason: string }
  | { readonly type: 'reauthenticate'; readonly command: string; readonly reason: string }
  | { readonly type: 'login'; readonly tenant: string }
  | { readonly type: 'give-up'; readonly command: string; readonly attempt: number; readonly reason: string }
  /** A reply was usable only after a change (see reply-checks.ts); the text goes to onReplyWarning. */
  | { readonly type: 'reply-warning'; readonly command: string; readonly field: string };

/** Receives what the client does; events never carry the API key, tokens or bodies. */
export type ClientLogger = (event: ClientLogEvent) => void;

/** How a {@link ManagementClient} reaches the service, and how it retries, logs and splits bulk calls. */
export interface ManagementClientOptions {
  /** e.g. `https://api.example.com`; requests go to `{baseUrl}/svc_api/v2/<area>`. */
  readonly baseUrl: string;
  /** The API key, exchanged for a session token at the first call; never logged nor put in an error. */
  readonly apiKey: string;
  /** The tenant (customer) name sent as `customer_name`. */
  readonly tenant: string;
  /** An undici dispatcher to use instead of the client's own keep-alive pool (tests, proxies). */
  readonly dispatcher?: Dispatcher;
  /**
   * Time allowed for one request, reply headers and the whole body together; the retry policy's
   * deadlineMs bounds the whole call. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** Time allowed to open a connection. @default 10000 */
  readonly connectTimeoutMs?: number;
  /** Keep-alive connections of the client's own undici pool. @default 8 */
  readonly maxConnections?: number;
  /**
   * Allow `http://` to a host other than loopback (127.0.0.0/8, ::1, localhost). Off, such a
   * baseUrl throws InsecureBaseUrlError: the API key and session tokens would travel unencrypted.
   * @default false
   */
  readonly allowInsecureHttp?: boolean;
  /** Overrides of DEFAULT_RETRY_POLICY. */
  readonly retry?: Partial<RetryPolicy>;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Wall clock in epoch ms, used for `created` and deadlines. @default Date.now */
  readonly now?: () => number;
  /** Receives every {@link ClientLogEvent}. @default none */
  readonly logger?: ClientLogger;
  /** Entries per bulk call, at most 1000. @default 1000 */
  readonly bulkChunkSize?: number;
  /** Bytes of JSON items per bulk call, at least 1024. @default MAX_BULK_BODY_BYTES (1 MiB) */
  readonly bulkBodyBytes?: number;
  /**
   * Runs every login of this client: given the login, returns its token. Lets an embedder share
   * one outcome between clients (the provider fails every later login at once after one failed).
   * @default the login runs as it is
   */
  readonly loginWrapper?: (login: () => Promise<string>) => Promise<string>;
  /**
   * Told of every reply that was usable only after a change: duplicate addresses merged, control
   * characters escaped, a long text cut (see reply-checks.ts). The provider shows these as warnings.
   * @default ignored (the logger still gets a `reply-warning` event)
   */
  readonly onReplyWarning?: (warning: CommandReplyWarning) => void;
}

/** A ReplyWarning and the command whose reply it is about. */
export interface CommandReplyWarning extends ReplyWarning {
  readonly command: string;
}

/** Options of `bulkAddEntries` and `bulkDeleteEntries`. */
export interface BulkOptions {
  /** Called after each call of the bulk operation, with how far it got. */
  readonly onProgress?: (progress: BulkProgress) => void;
}

/** What a client has sent so far, from {@link ManagementClient.stats}. */
export interface ClientStats {
  /** HTTP attempts sent, logins included. */
  readonly requests: number;
  /** Attempts repeated after a retryable failure (not counting re-login repeats). */
  readonly retries: number;
  /** Tokens obtained (the first login and every re-login). */
  readonly logins: number;
  /** Calls repeated after a token error and a fresh login. */
  readonly reauthentications: number;
}

interface CallSpec {
  readonly area: ApiArea;
  readonly command: string;
  readonly fields: Record<string, unknown>;
  /** Adds `token` (logging in first when needed). */
  readonly authenticated: boolean;
  /** Adds `customer_name`. */
  readonly tenantScoped: boolean;
  /**
   * Turns a service `Error` into a result instead of an error (e.g. "not found" for get).
   * `earlierAttemptMayHaveLanded` is true when an earlier attempt of this call failed in a way
   * that leaves open whether the service acted on it.
   */
  readonly onServiceError?: (
    message: string,
    kind: ServiceErrorKind,
    context: { readonly earlierAttemptMayHaveLanded: boolean },
  ) => { readonly value: unknown } | undefined;
}

interface CallResult {
  readonly value: unknown;
  readonly status: number;
  readonly requestId?: string;
}

interface Failure {
  readonly outcome: AttemptOutcome;
  readonly build: (reason: string, attempts: number) => ManagementApiError;
}

/**
 * The management API of the service for one base URL, API key and tenant: lists and their
 * entries, the audit log, tenants' and channels' SSO. It logs in lazily (one login shared by
 * concurrent callers), renews an expired token once, retries what {@link RetryPolicy} allows
 * (429 with Retry-After, 5xx, resets, timeouts), and checks every request before sending it and
 * every reply before returning it.
 *
 * Every method throws a {@link ManagementApiError} (branch on its `code`): `validation_failed`
 * before anything is sent, `authentication_failed`, `permission_denied`, `not_found`,
 * `rate_limited`, `transport_failed`, `unexpected_reply`, `service_error`, `token_rejected`,
 * `client_closed` after {@link ManagementClient.close}.
 *
 * @example
 * ```ts
 * import { ManagementClient } from 'svc-prevent/client';
 *
 * const client = new ManagementClient({ baseUrl: 'https://svc.example.com', apiKey: process.env.SVC_API_KEY!, tenant: 'acme' });
 * try {
 *   await client.addEntry('blacklist', { ip: '203.0.113.9', description: 'scanner, SEC-123' });
 *   const entries = await client.listEntries('blacklist');
 * } finally {
 *   await client.close();
 * }
 * ```
 */
export class ManagementClient {
  /** The base URL the client was given. */
  readonly baseUrl: string;
  /** The tenant (customer) the list and audit calls are about. */
  readonly tenant: string;
  private readonly apiKey: string;
  private readonly transport: HttpTransport;
  private readonly session: Session;
  private readonly listReads = new SharedReads<ListName, ListEntry[]>();
  private readonly policy: RetryPolicy;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly logger: ClientLogger | undefined;
  private readonly onReplyWarning: ((warning: CommandReplyWarning) => void) | undefined;
  private readonly bulkChunkSize: number;
  private readonly bulkBodyBytes: number;
  private closed = false;
  /** Aborted by close(), so a call waiting to retry ends at once instead of holding a timer. */
  private readonly closing = new AbortController();
  private counters = { requests: 0, retries: 0, logins: 0, reauthentications: 0 };

  /**
   * Checks the options and opens nothing yet (the first call logs in).
   * @throws ValidationError when `apiKey` or `tenant` is empty, `bulkChunkSize`,
   *   `bulkBodyBytes` or `retry` is out of range, or `baseUrl` is not an http(s) URL
   * @throws InsecureBaseUrlError when `baseUrl` is `http://` to a host other than loopback and
   *   `allowInsecureHttp` is not set
   */
  constructor(options: ManagementClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0) {
      throw new ValidationError('apiKey', '', 'apiKey: the API key is empty; create one in the web user interface.');
    }
    // Registered first, so no error or log line built from here on can carry it.
    registerSecret(options.apiKey);
    this.apiKey = options.apiKey;
    this.tenant = assertName(options.tenant, 'tenant');
    this.transport = new HttpTransport({
      baseUrl: options.baseUrl,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      ...(options.allowInsecureHttp === undefined ? {} : { allowInsecureHttp: options.allowInsecureHttp }),
    });
    this.baseUrl = options.baseUrl;
    this.policy = validatePolicy({ ...DEFAULT_RETRY_POLICY, ...options.retry });
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    this.onReplyWarning = options.onReplyWarning;
    this.bulkChunkSize = options.bulkChunkSize ?? MAX_BULK_ENTRIES;
    if (!Number.isSafeInteger(this.bulkChunkSize) || this.bulkChunkSize < 1 || this.bulkChunkSize > MAX_BULK_ENTRIES) {
      throw new ValidationError('bulkChunkSize', options.bulkChunkSize, `bulkChunkSize: expected 1 to ${MAX_BULK_ENTRIES}, got ${options.bulkChunkSize}.`);
    }
    this.bulkBodyBytes = options.bulkBodyBytes ?? MAX_BULK_BODY_BYTES;
    if (!Number.isSafeInteger(this.bulkBodyBytes) || this.bulkBodyBytes < 1024) {
      throw new ValidationError('bulkBodyBytes', options.bulkBodyBytes, `bulkBodyBytes: expected a whole number of bytes of at least 1024, got ${options.bulkBodyBytes}.`);
    }
    const wrapper = options.loginWrapper;
    this.session = new Session(wrapper === undefined ? () => this.performLogin() : () => wrapper(() => this.performLogin()));
  }

  // ---- session -------------------------------------------------------------------------

  /** Logs in now unless a token is already held (later calls log in by themselves anyway). */
  async login(): Promise<void> {
    this.assertOpen('login');
    await this.session.current();
  }

  /** Requests, retries, logins and re-logins so far. */
  stats(): ClientStats {
    return { ...this.counters };
  }

  /**
   * Releases the connection pool; calls made afterwards, and calls waiting to retry, fail with
   * ClientClosedError.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await this.transport.close();
  }

  // ---- audit log -----------------------------------------------------------------------

  /** The newest `limit` audit events, newest first. */
  async auditEvents(limit: number): Promise<AuditEvent[]> {
    const command = 'audit_events';
    assertPositiveInteger(limit, 'limit', command);
    const result = await this.execute({ area: 'logs', command, fields: { limit }, authenticated: true, tenantScoped: true });
    const events = expectArray(result, command);
    return this.checkReply(result, command, () => checkAuditEvents(events));
  }

  // ---- lists ---------------------------------------------------------------------------

  /** Every entry of a list. Concurrent callers share one request (see SharedReads). */
  async listEntries(list: ListName): Promise<ListEntry[]> {
    const command = `list_${assertListName(list, 'list_<list>')}`;
    this.assertOpen(command);
    return await this.listReads.read(list, async () => {
      const result = await this.execute({ area: 'lists', command, fields: {}, authenticated: true, tenantScoped: true });
      const entries = expectArray(result, command);
      return this.checkReply(result, command, () => checkListEntries(entries));
    });
  }

  /** One entry, or null when the list does not hold the address. */
  async getEntry(list: ListName, ip: string): Promise<ListEntry | null> {
    const command = `get_${assertListName(list, 'get_<list>')}`;
    const canonical = canonicalIp(ip, 'ip', command);
    const result = await this.execute({
      area: 'lists',
      command,
      fields: { ip: canonical },
      authenticated: true,
      tenantScoped: true,
      onServiceError: (_message, kind) => (kind === 'not-found' ? { value: null } : undefined),
    });
    if (result.value === null || result.value === undefined) return null;
    const entry = expectObject(result, command);
    return this.checkReply(result, command, () => checkListEntry(entry));
  }

  /** Adds an entry, or replaces the description of the one already there (upsert). */
  async addEntry(list: ListName, entry: NewListEntry): Promise<string> {
    const command = `new_${assertListName(list, 'new_<list>')}`;
    const wire = normaliseEntry(entry, 'entry', this.nowSeconds(), command);
    const result = await this.listReads.write(list, () =>
      this.execute({ area: 'lists', command, fields: { entry: wire }, authenticated: true, tenantScoped: true }),
    );
    return describeValue(result.value);
  }

  /**
   * Removes an entry. Throws NotFoundError when the list does not hold the address, except when
   * an earlier attempt of this same call may have removed it already (then it counts as done).
   */
  async deleteEntry(list: ListName, ip: string): Promise<string> {
    const command = `delete_${assertListName(list, 'delete_<list>')}`;
    const canonical = canonicalIp(ip, 'ip', command);
    const result = await this.listReads.write(list, () =>
      this.execute({
        area: 'lists',
        command,
        fields: { ip: canonical },
        authenticated: true,
        tenantScoped: true,
        onServiceError: (message, kind, context) =>
          kind === 'not-found' && context.earlierAttemptMayHaveLanded ? { value: message } : undefined,
      }),
    );
    return describeValue(result.value);
  }

  /** Adds many entries, in calls of at most 1,000 entries and 1 MiB; every entry is checked before the first call. */
  async bulkAddEntries(list: ListName, entries: readonly NewListEntry[], options: BulkOptions = {}): Promise<BulkResult> {
    const command = `bulk_new_${assertListName(list, 'bulk_new_<list>')}`;
    if (!Array.isArray(entries)) throw new ValidationError('entries', entries, 'entries: expected an array of entries.', { command });
    const now = this.nowSeconds();
    // Later duplicates of the same canonical address win, as they would one by one.
    const byIp = new Map<string, WireEntry>();
    entries.forEach((entry, index) => {
      const wire = normaliseEntry(entry, `entries[${index}]`, now, command);
      byIp.delete(wire.ip);
      byIp.set(wire.ip, wire);
    });
    return this.inChunks(list, command, [...byIp.values()], 'entries', options);
  }

  /** Removes many addresses, in calls of at most 1,000 (and 1 MiB); absent addresses are skipped by the service. */
  async bulkDeleteEntries(list: ListName, ips: readonly string[], options: BulkOptions = {}): Promise<BulkResult> {
    const command = `bulk_delete_${assertListName(list, 'bulk_delete_<list>')}`;
    if (!Array.isArray(ips)) throw new ValidationError('ips', ips, 'ips: expected an array of addresses.', { command });
    const canonical = new Set(ips.map((ip, index) => canonicalIp(ip, `ips[${index}]`, command)));
    return this.inChunks(list, command, [...canonical], 'ips', options);
  }

  private async inChunks<Item>(
    list: ListName,
    command: string,
    items: readonly Item[],
    field: 'entries' | 'ips',
    options: BulkOptions,
  ): Promise<BulkResult> {
    this.assertOpen(command);
    const parts = splitIntoCalls(items, this.bulkChunkSize, this.bulkBodyBytes);
    const messages: string[] = [];
    let done = 0;
    await this.listReads.write(list, async () => {
      for (const [index, part] of parts.entries()) {
        const result = await this.execute({ area: 'lists', command, fields: { [field]: part }, authenticated: true, tenantScoped: true });
        messages.push(describeValue(result.value));
        done += part.length;
        options.onProgress?.({ command, chunk: index + 1, chunks: parts.length, done, total: items.length });
      }
    });
    return { count: items.length, chunks: parts.length, messages };
  }

  // ---- tenants (customers) and channels ---------------------------------------------------

  /** Every tenant (customer) the API key's user may see, as the service returns them. */
  async listCustomers(): Promise<Customer[]> {
    const command = 'list';
    const result = await this.execute({ area: 'customers', command, fields: {}, authenticated: true, tenantScoped: false });
    return expectArray(result, 'customers list') as Customer[];
  }

  /** Sends `customer` as the update of tenant `name`, without its `uuid`. */
  async updateCustomer(name: string, customer: Omit<Customer, 'uuid'> | Customer): Promise<string> {
    const command = 'update';
    assertName(name, 'name', 'customers update');
    const body = withoutUuid(customer, 'customer');
    assertSsoSettings(body.sso, 'customer.sso', 'customers update');
    const result = await this.execute({
      area: 'customers',
      command,
      fields: { name, customer: body },
      authenticated: true,
      tenantScoped: false,
    });
    return describeValue(result.value);
  }

  /** Lists the tenant, copies it exactly, sets `sso` and updates it (the spec's SSO steps). */
  async setTenantSso(name: string, sso: SsoSettings | null): Promise<string> {
    assertName(name, 'name', 'customers update');
    const checked = assertSsoSettings(sso, 'sso', 'customers update');
    const customer = findListed(await this.listCustomers(), name, 'tenant', 'listCustomers()');
    return this.updateCustomer(name, { ...customer, sso: checked });
  }

  /** Every channel the API key's user may see, as the service returns them. */
  async listChannels(): Promise<Channel[]> {
    const result = await this.execute({ area: 'channels', command: 'list', fields: {}, authenticated: true, tenantScoped: false });
    return expectArray(result, 'channels list') as Channel[];
  }

  /** Sends `channel` as its own update, without its `uuid`. */
  async updateChannel(channel: Omit<Channel, 'uuid'> | Channel): Promise<string> {
    const body = withoutUuid(channel, 'channel');
    assertName(body.name, 'channel.name', 'channels update');
    assertSsoSettings(body.sso, 'channel.sso', 'channels update');
    const result = await this.execute({
      area: 'channels',
      command: 'update',
      fields: { channel: body },
      authenticated: true,
      tenantScoped: false,
    });
    return describeValue(result.value);
  }

  /** Lists the channel, copies it exactly, sets `sso` and updates it. */
  async setChannelSso(name: string, sso: SsoSettings | null): Promise<string> {
    assertName(name, 'name', 'channels update');
    const checked = assertSsoSettings(sso, 'sso', 'channels update');
    const channel = findListed(await this.listChannels(), name, 'channel', 'listChannels()');
    return this.updateChannel({ ...channel, sso: checked });
  }

  // ---- the call loop ---------------------------------------------------------------------

  private async performLogin(): Promise<string> {
    const command = 'login';
    const result = await this.execute({
      area: 'login',
      command,
      fields: { api_token: this.apiKey },
      authenticated: false,
      tenantScoped: false,
      onServiceError: (message) => {
        throw new AuthenticationError(
          `login refused for tenant ${JSON.stringify(this.tenant)}: "${message}". Check the API key.`,
          { command },
        );
      },
    });
    const reply = result.value as { status?: unknown; token?: unknown } | null;
    const details = { command, status: result.status, ...(result.requestId === undefined ? {} : { requestId: result.requestId }) };
    if (reply !== null && typeof reply === 'object' && reply.status === false) {
      throw new AuthenticationError(
        `login refused for tenant ${JSON.stringify(this.tenant)}: bad API key or inactive user. ` +
          'Check the key and that its user is active.',
        details,
      );
    }
    if (reply === null || typeof reply !== 'object' || reply.status !== true || typeof reply.token !== 'string' || reply.token.length === 0) {
      // Registered in case the odd reply carries a token after all; the excerpt must not show it.
      if (reply !== null && typeof reply === 'object' && typeof reply.token === 'string') registerSecret(reply.token);
      const excerpt = redact(bodyExcerpt(JSON.stringify(reply) ?? 'undefined'));
      throw new UnexpectedReplyError(`login: expected {"status":true,"token":...} under "Ok", got ${excerpt}.`, excerpt, details);
    }
    registerSecret(reply.token);
    this.counters.logins += 1;
    this.log({ type: 'login', tenant: this.tenant });
    return reply.token;
  }

  private async execute(spec: CallSpec): Promise<CallResult> {
    const started = this.now();
    let attempt = 0;
    let reauthenticated = false;
    let earlierAttemptMayHaveLanded = false;
    for (;;) {
      this.assertOpen(spec.command);
      attempt += 1;
      const token = spec.authenticated ? await this.session.current() : undefined;
      const payload: Record<string, unknown> = { command: spec.command };
      if (token !== undefined) payload.token = token;
      if (spec.tenantScoped) payload.customer_name = this.tenant;
      Object.assign(payload, spec.fields);

      this.counters.requests += 1;
      this.log({ type: 'request', command: spec.command, attempt });
      // The retry deadline bounds the whole call: an attempt gets at most what is left of it.
      const timeoutMs = this.policy.deadlineMs - (this.now() - started);
      const attempted = await this.attempt(spec, payload, attempt, earlierAttemptMayHaveLanded, timeoutMs);
      if (!('outcome' in attempted)) return attempted;
      const failure: Failure = attempted;

      const decision = decideRetry(
        { attempt, elapsedMs: this.now() - started, outcome: failure.outcome, reauthenticated, nowMs: this.now() },
        this.policy,
        this.random,
      );
      if (decision.action === 'give-up') {
        this.log({ type: 'give-up', command: spec.command, attempt, reason: decision.reason });
        throw failure.build(decision.reason, attempt);
      }
      if (decision.action === 'reauthenticate') {
        reauthenticated = true;
        this.counters.reauthentications += 1;
        this.log({ type: 'reauthenticate', command: spec.command, reason: decision.reason });
        await this.session.renew(token ?? '');
        continue;
      }
      if (failure.outcome.kind !== 'service-error') {
        earlierAttemptMayHaveLanded = true;
        // A token refused after this backoff may simply have expired meanwhile (tokens can live
        // shorter than a backoff), so it earns a fresh login; attempts still bound the loop.
        reauthenticated = false;
      }
      this.counters.retries += 1;
      this.log({ type: 'retry', command: spec.command, attempt, delayMs: decision.delayMs, reason: decision.reason });
      await this.waitBeforeRetry(decision.delayMs, spec.command);
      if (this.now() - started >= this.policy.deadlineMs) {
        // The wait used up the deadline: an attempt now would be given no time at all.
        const reason = `${decision.reason}; no time left of the ${this.policy.deadlineMs} ms deadline`;
        this.log({ type: 'give-up', command: spec.command, attempt, reason });
        throw failure.build(reason, attempt);
      }
    }
  }

  /** One HTTP attempt: the result, or what went wrong and how to report it. */
  private async attempt(
    spec: CallSpec,
    payload: Record<string, unknown>,
    attempt: number,
    earlierAttemptMayHaveLanded: boolean,
    timeoutMs: number,
  ): Promise<CallResult | Failure> {
    const { command } = spec;
    let reply;
    try {
      reply = await this.transport.post(spec.area, payload, { timeoutMs });
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      this.log({ type: 'network-error', command, attempt, ...(error.networkCode === undefined ? {} : { code: error.networkCode }) });
      return {
        outcome: { kind: 'network', code: error.networkCode ?? 'UNKNOWN' },
        build: (reason, attempts) =>
          new TransportError(`${command}: ${error.message} Gave up: ${reason}.`, error.networkCode, {
            command,
            attempts,
            cause: error.cause,
          }),
      };
    }

    const parsed = parseReplyBody(reply.body);
    const requestIdDetail = reply.requestId === undefined ? {} : { requestId: reply.requestId };
    this.log({ type: 'reply', command, attempt, status: reply.status, ...requestIdDetail, outcome: parsed.kind });

    if (parsed.kind === 'ok') return { value: parsed.value, status: reply.status, ...requestIdDetail };

    if (parsed.kind === 'error') {
      const kind = classifyServiceError(parsed.message);
      const handled = spec.onServiceError?.(parsed.message, kind, { earlierAttemptMayHaveLanded });
      if (handled !== undefined) return { value: handled.value, status: reply.status, ...requestIdDetail };
      const details = { command, status: reply.status, ...requestIdDetail };
      return {
        outcome: { kind: 'service-error', errorKind: kind },
        build: (_reason, attempts) => {
          const withAttempts = { ...details, attempts };
          if (kind === 'token') return new TokenRejectedError(parsed.message, withAttempts);
          if (kind === 'permission') return new PermissionError(parsed.message, withAttempts);
          if (kind === 'not-found') return new NotFoundError(parsed.message, withAttempts);
          return new ServiceError(parsed.message, withAttempts);
        },
      };
    }

    const excerpt = redact(bodyExcerpt(reply.body));
    return {
      outcome: {
        kind: 'http',
        status: reply.status,
        ...(reply.retryAfter === undefined ? {} : { retryAfter: reply.retryAfter }),
      },
      build: (reason, attempts) => {
        const details = { command, status: reply.status, attempts, ...requestIdDetail };
        const where = `HTTP ${reply.status}, X-Request-ID ${reply.requestId ?? '(none)'}`;
        if (reply.status === 429) {
          return new RateLimitError(
            `${command}: the service kept limiting the rate (${where}). Gave up: ${reason}. Try again later.`,
            parseRetryAfter(reply.retryAfter, this.now()),
            details,
          );
        }
        return new UnexpectedReplyError(
          `${command}: the reply ${parsed.reason} (${where}). Gave up: ${reason}. Body starts: ${JSON.stringify(excerpt)}`,
          excerpt,
          details,
        );
      },
    };
  }

  /**
   * Runs a check of reply-checks.ts on a reply: its warnings go to onReplyWarning and the logger,
   * a value it refuses becomes an UnexpectedReplyError with the status and X-Request-ID.
   */
  private checkReply<Value>(result: CallResult, command: string, check: () => Checked<Value>): Value {
    let checked: Checked<Value>;
    try {
      checked = check();
    } catch (error) {
      if (!(error instanceof ReplyValueError)) throw error;
      const excerpt = redact(bodyExcerpt(JSON.stringify(error.item) ?? 'undefined'));
      throw new UnexpectedReplyError(
        `${command}: the reply's ${error.message} (HTTP ${result.status}, X-Request-ID ${result.requestId ?? '(none)'}); the service answered ${excerpt}.`,
        excerpt,
        { command, status: result.status, ...(result.requestId === undefined ? {} : { requestId: result.requestId }) },
      );
    }
    for (const warning of checked.warnings) {
      this.log({ type: 'reply-warning', command, field: warning.field });
      this.onReplyWarning?.({ ...warning, command, message: redact(warning.message) });
    }
    return checked.value;
  }

  private async waitBeforeRetry(delayMs: number, command: string): Promise<void> {
    try {
      await delay(delayMs, undefined, { signal: this.closing.signal });
    } catch (error) {
      if (this.closing.signal.aborted) throw new ClientClosedError(command);
      throw error;
    }
  }

  private nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private assertOpen(command: string): void {
    if (this.closed) throw new ClientClosedError(command);
  }

  private log(event: ClientLogEvent): void {
    if (this.logger === undefined) return;
    this.logger(secretRegistry.redactValue(event) as ClientLogEvent);
  }
}

/**
 * Consecutive calls of at most `maxItems` items whose JSON stays under `maxBytes` (one item too
 * large for that goes alone: the service, not the client, says whether it takes it).
 */
export function splitIntoCalls<Item>(items: readonly Item[], maxItems: number, maxBytes: number): Item[][] {
  const calls: Item[][] = [];
  let current: Item[] = [];
  let bytes = 2;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && (current.length >= maxItems || bytes + size > maxBytes)) {
      calls.push(current);
      current = [];
      bytes = 2;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

function validatePolicy(policy: RetryPolicy): RetryPolicy {
  const checks: Array<[keyof RetryPolicy, boolean]> = [
    ['maxAttempts', Number.isSafeInteger(policy.maxAttempts) && policy.maxAttempts >= 1],
    ['baseDelayMs', Number.isFinite(policy.baseDelayMs) && policy.baseDelayMs >= 0],
    ['maxDelayMs', Number.isFinite(policy.maxDelayMs) && policy.maxDelayMs >= 0],
    ['deadlineMs', Number.isFinite(policy.deadlineMs) && policy.deadlineMs >= 0],
    ['jitter', policy.jitter === 'full' || policy.jitter === 'equal'],
  ];
  for (const [field, valid] of checks) {
    if (!valid) {
      throw new ValidationError(`retry.${field}`, policy[field], `retry.${field}: ${JSON.stringify(policy[field])} is not allowed; see RetryPolicy.`);
    }
  }
  return policy;
}

/** The listed tenant or channel called `name`, or a NotFoundError saying where to look. */
function findListed<Item extends { readonly name: string }>(
  items: readonly Item[],
  name: string,
  kind: 'tenant' | 'channel',
  lister: string,
): Item {
  const found = items.find((candidate) => candidate.name === name);
  if (found !== undefined) return found;
  const known = items.map((item) => JSON.stringify(item.name)).slice(0, 10).join(', ');
  throw new NotFoundError(
    `no ${kind} named ${JSON.stringify(name)} among the ${items.length} listed (${known || 'none'}); check the name against ${lister}`,
    { command: `${kind === 'tenant' ? 'customers' : 'channels'} list` },
  );
}

function withoutUuid<T extends { readonly uuid?: unknown }>(object: T, field: string): Omit<T, 'uuid'> {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new ValidationError(field, object, `${field}: expected the object as listed by the service.`);
  }
  const { uuid: _uuid, ...rest } = object;
  return rest;
}

function expectArray(result: CallResult, command: string): unknown[] {
  if (Array.isArray(result.value)) return result.value;
  throw unexpectedShape(result, command, 'a list');
}

function expectObject(result: CallResult, command: string): object {
  if (result.value !== null && typeof result.value === 'object' && !Array.isArray(result.value)) return result.value;
  throw unexpectedShape(result, command, 'an object');
}

function unexpectedShape(result: CallResult, command: string, wanted: string): UnexpectedReplyError {
  const excerpt = redact(bodyExcerpt(JSON.stringify(result.value) ?? 'undefined'));
  return new UnexpectedReplyError(
    `${command}: expected ${wanted} under "Ok" (HTTP ${result.status}, X-Request-ID ${result.requestId ?? '(none)'}), got ${excerpt}.`,
    excerpt,
    { command, status: result.status, ...(result.requestId === undefined ? {} : { requestId: result.requestId }) },
  );
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

