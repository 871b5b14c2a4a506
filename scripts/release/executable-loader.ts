/**
 * The released executable's SEA main script, all of it: runs the provider's main script
 * (executable-entry.ts, an asset) with the code cache the build made by running it to the
 * handshake line (executable-assets.ts says why an asset).
 */
import { MAIN_ASSET, MAIN_CACHE_ASSET, runScriptAsset } from './executable-assets';

runScriptAsset(MAIN_ASSET, MAIN_CACHE_ASSET, require);
