/**
 * The layers of svc-prevent and the one direction imports may run between them, held by
 * dependency-cruiser: `npm run layers` prints each import against the direction, and
 * __tests__/architecture/layers.test.ts fails `npm test` on any. contributing/architecture.md draws the
 * picture; a rule's comment is what a failure prints, so it says what to do instead.
 *
 * Each layer rule lists what a layer may import among src/ and modules/ (the library); the
 * rules after them keep the app and the tooling out of the library, the tests out of
 * everything else, and cycles out of the tree. Paths are relative to the repository root.
 */

/** Top-level files of src/ and src/rules/: pure rules and wording every part shares. */
const SHARED_RULES = '^src/[^/]+\\.ts$|^src/rules/';
/** The management API's wire shapes, which the client and the emulator both speak. */
const WIRE_CONTRACT = '^src/api/types\\.ts$';
/** The generic tfplugin6 layer: protocol (the wire) and core (the protocol-free contract). */
const TFPLUGIN = '^src/provider/(core|protocol)/';
/** The library: what lib/ is compiled from. */
const LIBRARY = '^(src|modules)/';
/** The library's entry barrels, which re-export the client and the provider mirror beside the constructs. */
const LIBRARY_ENTRIES = '^modules/(index|provider)\\.ts$';

/** A rule: no import matching `from` -> `to`; the comment is what a failure prints. */
const forbid = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });
/** A layer rule: files matching `from` import nothing of the library but what `allowed` matches. */
const layer = (name, from, allowed, comment) => forbid(name, comment, from, { path: LIBRARY, pathNot: allowed });

module.exports = {
  forbidden: [
    layer(
      'shared-rules-import-nothing-of-svc',
      { path: SHARED_RULES },
      [SHARED_RULES],
      'The shared rules (top-level src/*.ts, src/rules/) are pure and used by every layer, so they import no other part of svc: ' +
        'move what they need into src/ or src/rules/ too, or pass it in as an argument.',
    ),
    layer(
      'wire-contract-on-shared-rules-only',
      { path: WIRE_CONTRACT },
      [WIRE_CONTRACT, SHARED_RULES],
      'The wire contract (src/api/types.ts) is what the client and the emulator both speak, so it may use only the shared rules: ' +
        'a type it needs from the client or the emulator belongs in the contract itself.',
    ),
    layer(
      'client-on-wire-contract-and-shared-rules-only',
      { path: '^src/api/', pathNot: WIRE_CONTRACT },
      ['^src/api/', SHARED_RULES],
      'The management-API client (src/api) stands on the wire contract and the shared rules only; it never imports the emulator ' +
        '(they are independent sides of the same contract, tests join them), the provider, the pipeline or the constructs.',
    ),
    layer(
      'emulator-on-wire-contract-and-shared-rules-only',
      { path: '^src/emulator/' },
      ['^src/emulator/', WIRE_CONTRACT, SHARED_RULES],
      'The emulator (src/emulator) stands on the wire contract and the shared rules only; it never imports the client ' +
        '(the tests check the client against it, which means nothing if one is built from the other), nor the provider, pipeline or constructs.',
    ),
    layer(
      'tfplugin-layer-imports-nothing-of-svc',
      { path: TFPLUGIN },
      [TFPLUGIN],
      'The generic tfplugin6 layer (src/provider/core, src/provider/protocol) knows nothing of svc: what it needs from svc ' +
        '(e.g. redaction of secrets) is injected by src/provider/main.ts, the svc side, when it starts the server.',
    ),
    forbid(
      'tfplugin-core-free-of-protocol',
      'src/provider/core is the protocol-free contract (values, schemas, diagnostics, plan rules); the wire (src/provider/protocol) ' +
        'converts to and from it and never leaks into it: move the wire-facing code into protocol.',
      { path: '^src/provider/core/' },
      { path: '^src/provider/protocol/' },
    ),
    layer(
      'svc-provider-on-client-tfplugin-and-shared-rules-only',
      { path: '^src/provider/', pathNot: TFPLUGIN },
      ['^src/provider/', '^src/api/', SHARED_RULES],
      'The svc provider (src/provider outside core/ and protocol/) stands on the client, the tfplugin6 layer and the shared rules; ' +
        'it never imports the emulator, the pipeline or the constructs.',
    ),
    layer(
      'pipeline-on-client-and-shared-rules-only',
      { path: '^src/(pipeline|migration)/' },
      ['^src/(pipeline|migration)/', '^src/api/', SHARED_RULES],
      'The pipeline tools (src/pipeline, src/migration: drift check, provider mirror, moved blocks) ship in lib/ and stand on the ' +
        'client and the shared rules; they never import the provider server (that pulls it into lib/), the emulator or the constructs. ' +
        'Wording they share with the provider lives in a shared module (e.g. src/diagnostic-summaries.ts).',
    ),
    layer(
      'constructs-on-shared-rules-and-wire-contract-only',
      { path: '^modules/', pathNot: LIBRARY_ENTRIES },
      ['^modules/', SHARED_RULES, WIRE_CONTRACT],
      'The constructs (modules/) stand on the shared rules and the wire contract only: a rule a construct needs from the client or the ' +
        'provider belongs in src/ or src/rules/, where both can use it. Only the entry barrels modules/index.ts and modules/provider.ts re-export more.',
    ),
    layer(
      'library-entries-re-export-the-library-only',
      { path: LIBRARY_ENTRIES },
      ['^modules/', '^src/api/', '^src/pipeline/', SHARED_RULES],
      "The library's entry barrels (modules/index.ts, modules/provider.ts) re-export the constructs, the client and the provider mirror; " +
        'the provider server, the emulator and the tfplugin6 layer are not part of the library API.',
    ),
    forbid(
      'client-index-is-the-public-entry-only',
      "src/api/index.ts is the curated public entry point svc-prevent/client: only the library's entry barrel (modules/index.ts) " +
        'and package.json import it. Code inside the repository imports the client module it needs (src/api/client, src/api/errors, ' +
        'src/api/types, ...), so a name can leave the public list without breaking it.',
      { pathNot: LIBRARY_ENTRIES },
      { path: '^src/api/index\\.ts$' },
    ),
    forbid(
      'app-on-the-library-only',
      "This repository's app (main.ts, app/) is an example of using the library: it may import the constructs, the pipeline, the client " +
        'and the shared rules, never the provider server, the emulator, the tfplugin6 layer, or the tooling (scripts/, bin/): ' +
        'move what it needs from scripts/ into the library.',
      { path: '^(main\\.ts$|app/)' },
      {
        path: '^(src/|modules/|scripts/|bin/|bench/)',
        pathNot: ['^modules/', '^src/(pipeline|migration|api)/', SHARED_RULES],
      },
    ),
    forbid(
      'library-never-imports-app-or-tooling',
      'The library (src/, modules/) never imports the app (main.ts, app/) or the tooling (scripts/, bin/, bench/): those are not in lib/, ' +
        'so the import breaks the installed package. Move what both need into the library and let the tooling import it from there.',
      { path: LIBRARY },
      { path: '^(main\\.ts$|app/|scripts/|bin/|bench/)' },
    ),
    forbid(
      'only-tests-import-tests',
      'Nothing outside __tests__/ imports __tests__/: tooling (e.g. the bench) that needs the same helpers keeps them under scripts/ ' +
        'and the tests import them from there.',
      { pathNot: '^__tests__/' },
      { path: '^__tests__/' },
    ),
    forbid(
      'no-circular',
      'Circular imports: modules that import each other cannot be understood, tested or loaded one without the other. ' +
        'Move what both need into a third module, or pass it in.',
      {},
      { circular: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build output, generated provider bindings of cdktf get, and the CDK Terrain fixture (its own project).
    exclude: { path: '(^|/)(node_modules|lib|build|dist|cdktf\\.out|\\.gen)/|^__tests__/cdktn/fixture/' },
    // Type-only imports count: a type from another layer is a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
