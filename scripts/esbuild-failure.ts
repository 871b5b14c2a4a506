/**
 * esbuild's build failure (what `build()` rejects with and `buildSync()` throws), as the typed
 * error of the tool that bundled: the provider build (build-provider.ts) and the release's
 * bundles (release/bundle.ts, release/svc-bundle.ts) each keep their own error class, and all
 * say the same thing: what was bundled, and each error at its file, line and column.
 */
import type { BuildFailure, Message } from 'esbuild';

function isBuildFailure(error: unknown): error is BuildFailure {
  // Not `instanceof Error`: under jest the error comes from another realm.
  return typeof error === 'object' && error !== null && Array.isArray((error as Partial<BuildFailure>).errors);
}

function formatMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column + 1}: ` : '';
  return `${where}${message.text}`;
}

/**
 * `error` as the caller should throw it: esbuild's failure becomes `toError` of the message
 * `esbuild could not bundle <what>:` with one indented `<file>:<line>:<column>: <text>` line
 * per error; anything else is returned as it is.
 */
export function esbuildFailure(what: string, error: unknown, toError: (message: string) => Error): unknown {
  if (!isBuildFailure(error)) return error;
  return toError(`esbuild could not bundle ${what}:\n${error.errors.map((message) => `  ${formatMessage(message)}`).join('\n')}`);
}
