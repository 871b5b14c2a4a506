/**
 * Warnings raised anywhere below a hook (e.g. the API client finding duplicate entries in a
 * list it read) reach the terraform response of the hook that caused them, without every read,
 * plan and import hook threading a list of warnings through its calls: the server runs each hook
 * in its own collector (AsyncLocalStorage), and reportWarning adds to the collector of the call
 * that is running. Outside any hook (tests, the library) a warning has nowhere to go and is dropped.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Diagnostic } from './diagnostics';

const collectors = new AsyncLocalStorage<Diagnostic[]>();

/** Adds a warning to the response of the hook running now; false when no hook is running. */
export function reportWarning(diagnostic: Diagnostic): boolean {
  const collector = collectors.getStore();
  if (collector === undefined) return false;
  collector.push({ ...diagnostic, severity: 'warning' });
  return true;
}

/** Runs `hook` with a collector of its own; the warnings reported meanwhile are in `warnings`, also after a failure. */
export async function collectWarnings<T>(hook: () => Promise<T> | T, warnings: Diagnostic[]): Promise<T> {
  return await collectors.run(warnings, async () => await hook());
}
