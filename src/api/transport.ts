/**
 * One HTTP attempt: POST a JSON body to `{base_url}/svc_api/v2/<area>` over a keep-alive undici
 * pool (or an injected dispatcher) and hand back status, X-Request-ID, Retry-After and the body
 * text. Network failures become TransportError with the failure's code and a redacted `cause`;
 * deciding what to do about any of it is the caller's business.
 */
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from '../address';
import { InsecureBaseUrlError, TransportError, ValidationError } from './errors';
import type { ApiArea } from './types';

export interface TransportOptions {
  /** e.g. `https://api.example.com` or `http://127.0.0.1:8080`; may carry a path prefix. */
  readonly baseUrl: string;
  /** Bring your own undici dispatcher (Agent, Pool, MockAgent); it is not closed by close(). */
  readonly dispatcher?: Dispatcher;
  /**
   * Time allowed for one whole request: connection, reply headers and the complete body. A
   * server that trickles its body a byte at a time is cut off here. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** Time allowed to open a connection. @default 10000 */
  readonly connectTimeoutMs?: number;
  /** Connections the pool keeps to the service. @default 8 */
  readonly maxConnections?: number;
  /** How long an idle keep-alive connection stays open. @default 10000 */
  readonly keepAliveTimeoutMs?: number;
  /** Allow http:// to a host other than loopback (the key and tokens then travel unencrypted). @default false */
  readonly allowInsecureHttp?: boolean;
}

/** Per-call options of post(). */
export interface PostOptions {
  /** A shorter time for this request than requestTimeoutMs (e.g. what is left of a retry deadline). */
  readonly timeoutMs?: number;
}

/** The code of a TransportError for a request that did not complete within its time. */
export const REQUEST_TIMEOUT_CODE = 'SVC_REQUEST_TIMEOUT';

export interface HttpReply {
  readonly status: number;
  readonly requestId?: string;
  readonly retryAfter?: string;
  readonly body: string;
}

export class HttpTransport {
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly dispatcher: Dispatcher;
  /** The dispatcher's request(): undici's own function for the client's pool (see the constructor). */
  private readonly request: (options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  private readonly ownsDispatcher: boolean;
  private readonly requestTimeoutMs: number;

  constructor(options: TransportOptions) {
    const base = parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
    this.origin = base.origin;
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    if (options.dispatcher) {
      const dispatcher = options.dispatcher;
      this.dispatcher = dispatcher;
      this.request = (requestOptions) => dispatcher.request(requestOptions);
      this.ownsDispatcher = false;
    } else {
      // Loaded here, not at the top: the provider binary starts several times per terraform
      // command and most starts never call the API. Only the pool and its request(), not
      // undici's index: the index also loads cookies, websockets, the mock agents and the
      // cache, DNS and decompress interceptors, none of which the client uses; the plan process
      // used about 45 ms less CPU without them (issue 27, help/performance-history.md, "Where the
      // fixed cost goes"). undici is pinned in package.json: these paths are its own files, not
      // its documented API.
      const Pool = require('undici/lib/dispatcher/pool') as typeof import('undici').Pool;
      const poolRequest = require('undici/lib/api/api-request') as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
      const pool = new Pool(this.origin, {
        connections: options.maxConnections ?? 8,
        keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      });
      this.dispatcher = pool;
      this.request = (requestOptions) => poolRequest.call(pool, requestOptions);
      this.ownsDispatcher = true;
    }
  }

  /** The URL path of an area, e.g. `/svc_api/v2/lists`. */
  pathOf(area: ApiArea): string {
    return `${this.pathPrefix}/svc_api/v2/${area}`;
  }

  async post(area: ApiArea, payload: object, options: PostOptions = {}): Promise<HttpReply> {
    const path = this.pathOf(area);
    const timeoutMs = Math.max(1, Math.min(this.requestTimeoutMs, options.timeoutMs ?? this.requestTimeoutMs));
    // undici's headersTimeout and bodyTimeout bound each wait, not the sum: a body that arrives
    // one byte a second never trips them. One timer over the whole request does.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    let response: Dispatcher.ResponseData | undefined;
    let body: string;
    try {
      response = await this.request({
        origin: this.origin,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
        // Backstops only: the deadline above fires first and says which part was missing.
        headersTimeout: timeoutMs + 1000,
        bodyTimeout: timeoutMs + 1000,
        signal: deadline.signal,
      });
      body = await response.body.text();
    } catch (error) {
      // The one deliberate boundary: whatever the network did becomes a TransportError.
      if (deadline.signal.aborted) {
        const stage = response === undefined ? 'no reply headers' : `HTTP ${response.statusCode} headers but no complete body`;
        throw new TransportError(
          `POST ${this.origin}${path} failed: ${REQUEST_TIMEOUT_CODE} (${stage} within ${formatSeconds(timeoutMs)}; ` +
            `a request, headers and body together, may take at most ${formatSeconds(this.requestTimeoutMs)}). ` +
            'Check that the base URL is right and the service is answering normally.',
          REQUEST_TIMEOUT_CODE,
          { cause: error },
        );
      }
      const code = networkErrorCode(error);
      throw new TransportError(
        `POST ${this.origin}${path} failed: ${code ?? 'network error'} (${describe(error)}). ` +
          'Check that the base URL is right and the service is reachable.',
        code,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    return {
      status: response.statusCode,
      body,
      ...optionalHeader('requestId', response.headers['x-request-id']),
      ...optionalHeader('retryAfter', response.headers['retry-after']),
    };
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

// One loopback rule for the client, the provider and the emulator's --host warning.
export { isLoopbackHost };

/** The host of an http:// URL that is not loopback (the key would travel in clear), else undefined. */
export function insecureHttpHost(url: URL): string | undefined {
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname) ? url.hostname : undefined;
}

function parseBaseUrl(baseUrl: string, allowInsecureHttp: boolean): URL {
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) {
    throw new ValidationError('baseUrl', baseUrl, `baseUrl: ${JSON.stringify(baseUrl)} is not a URL; give e.g. https://api.example.com.`);
  }
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ValidationError('baseUrl', baseUrl, `baseUrl: ${JSON.stringify(baseUrl)} must start with https:// (or http:// for a local emulator).`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ValidationError('baseUrl', url.origin, 'baseUrl: leave out query, fragment and credentials; the API key goes in apiKey.');
  }
  const insecureHost = insecureHttpHost(url);
  if (insecureHost !== undefined && !allowInsecureHttp) throw new InsecureBaseUrlError(baseUrl, insecureHost);
  return url;
}

function optionalHeader<K extends string>(key: K, value: string | string[] | undefined): Partial<Record<K, string>> {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? {} : ({ [key]: text } as Record<K, string>);
}

/** The code of a network failure: the error's own, or its cause's, or the first aggregated one. */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const candidate = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof candidate.code === 'string') return candidate.code;
    if (Array.isArray(candidate.errors) && candidate.errors.length > 0) current = candidate.errors[0];
    else current = candidate.cause;
  }
  return undefined;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
