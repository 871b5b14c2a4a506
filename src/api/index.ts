/**
 * `svc-prevent/client` (and `svc-prevent/cdktn/client`): the management-API client, its
 * options, its errors and the shapes of what it sends and returns. A curated list: the
 * transport, the retry rules, the reply checks, sessions and redaction stay inside the package,
 * and code in this repository imports the module it needs (src/api/client, src/api/errors, ...),
 * never this file (.dependency-cruiser.cjs holds that). help/client.md is the user's guide.
 *
 *   const client = new ManagementClient({ baseUrl, apiKey, tenant });
 *   await client.addEntry('blacklist', { ip: '203.0.113.9', description: 'scanner' });
 *   const entries = await client.listEntries('blacklist');   // concurrent reads share one call
 *   await client.setTenantSso(tenant, { enabled: true, required: false, saml_metadata_url });
 *   await client.close();
 *
 * Every failure is a ManagementApiError; branch on its `code`. Login is lazy and shared.
 * The emulator is public as the `svc-emulator` command (help/emulator.md), not as an export:
 * the client never imports it.
 */
export {
  ManagementClient,
  MAX_BULK_BODY_BYTES,
  MAX_BULK_ENTRIES,
  type BulkOptions,
  type ClientLogEvent,
  type ClientLogger,
  type ClientStats,
  type CommandReplyWarning,
  type ManagementClientOptions,
} from './client';
export {
  AuthenticationError,
  ClientClosedError,
  InsecureBaseUrlError,
  ManagementApiError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServiceError,
  TokenRejectedError,
  TransportError,
  UnexpectedReplyError,
  ValidationError,
  type ErrorDetails,
  type ManagementErrorCode,
} from './errors';
export type { ReplyWarning } from './reply-checks';
export { DEFAULT_RETRY_POLICY, type JitterMode, type RetryPolicy } from './retry';
export { REQUEST_TIMEOUT_CODE } from './transport';
export {
  LIST_NAMES,
  isListName,
  type AuditEvent,
  type AuditEventFields,
  type BulkProgress,
  type BulkResult,
  type Channel,
  type ChannelFields,
  type Customer,
  type CustomerFields,
  type ListEntry,
  type ListEntryFields,
  type ListName,
  type NewListEntry,
  type SsoSettings,
} from './types';
