/**
 * `svc-prevent/provider`: the typed CDKTF bindings of the svc provider (generated, one file per
 * terraform object) and how a synthesized app finds the provider itself.
 *
 *   const provider = new SvcProvider(stack, 'svc', { baseUrl, tenant });
 *   app.synth();
 *   prepareStacksForSvcProvider(app.outdir);   // the provider packaged with svc-prevent
 *
 * See help/own-cdktf-project.md. Every generated file is re-exported here (a test checks it).
 */
export * from './svc-provider/provider';
export * from './svc-provider/blacklist';
export * from './svc-provider/blacklist-entry';
export * from './svc-provider/blocklist';
export * from './svc-provider/blocklist-entry';
export * from './svc-provider/whitelist';
export * from './svc-provider/whitelist-entry';
export * from './svc-provider/channel-sso';
export * from './svc-provider/tenant-sso';
export * from './svc-provider/data-svc-audit-events';
export * from './svc-provider/data-svc-channel';
export * from './svc-provider/data-svc-list';
export * from './svc-provider/data-svc-tenant';
export {
  ProviderMirrorError,
  filesystemMirror,
  packagedMirrorDir,
  prepareStacksForSvcProvider,
  type PrepareStacksOptions,
  type ProviderMirror,
} from '../src/pipeline/provider-mirror';
export { PROVIDER_SOURCE } from '../src/provider-identity';
