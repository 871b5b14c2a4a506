import type { ObjectValue } from './values';

/**
 * User-facing problems. Every problem a user can fix travels as a Diagnostic (never as a gRPC
 * error): a one-line summary, a detail that says what was received and how to fix it, and the
 * attribute path when one attribute is at fault.
 */

/** A step into a value: an attribute name, a list index, or a map key. Sets cannot be indexed. */
export type PathStep = string | number | { readonly key: string };
export type AttributePath = readonly PathStep[];

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly summary: string;
  readonly detail: string;
  readonly path?: AttributePath;
}

export function errorDiagnostic(summary: string, detail: string, path?: AttributePath): Diagnostic {
  return { severity: 'error', summary, detail, path };
}

export function warningDiagnostic(summary: string, detail: string, path?: AttributePath): Diagnostic {
  return { severity: 'warning', summary, detail, path };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}

/** Thrown by a resource hook to stop with diagnostics; the core returns them to terraform. */
export class DiagnosticsError extends Error {
  readonly code = 'diagnostics';
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map((diagnostic) => diagnostic.summary).join('; '));
    this.name = 'DiagnosticsError';
  }
}

/**
 * Thrown by an update hook that failed part-way (e.g. a bulk write whose later calls failed):
 * `cause` is reported as any hook failure would be, and terraform records `state` instead of
 * the prior state, so what may have landed is tracked and the next refresh corrects it. Only
 * updates use it: terraform would store a failed create's state as tainted and replace it.
 */
export class PartialApplyError extends Error {
  readonly code = 'partial_apply';
  constructor(
    readonly cause: unknown,
    readonly state: ObjectValue,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'PartialApplyError';
  }
}
