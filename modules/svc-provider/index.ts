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
export * from './provider';
export * from './blacklist';
export * from './blacklist-entry';
export * from './blocklist';
export * from './blocklist-entry';
export * from './whitelist';
export * from './whitelist-entry';
export * from './channel-sso';
export * from './tenant-sso';
export * from './data-svc-audit-events';
export * from './data-svc-channel';
export * from './data-svc-list';
export * from './data-svc-tenant';
export {
  ProviderMirrorError,
  filesystemMirror,
  packagedMirrorDir,
  prepareStacksForSvcProvider,
  type PrepareStacksOptions,
  type ProviderMirror,
} from '../../src/pipeline/provider-mirror';
export { PROVIDER_SOURCE } from '../../scripts/build-provider';
