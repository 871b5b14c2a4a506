/**
 * Core diagnostics and attribute paths as tfplugin6 messages and back. Path steps: an
 * attribute name -> attribute_name, a list index -> element_key_int, a map key ->
 * element_key_string.
 */
import type { AttributePath, Diagnostic, PathStep } from '../core/diagnostics';
import * as messages from './messages';
import { NO_REDACTION, type Redact } from './redaction';

export function toProtocolPath(path: AttributePath): messages.AttributePath {
  return {
    steps: path.map((step): messages.AttributePathStep => {
      if (typeof step === 'string') return { attributeName: step };
      if (typeof step === 'number') return { elementKeyInt: step };
      return { elementKeyString: step.key };
    }),
  };
}

export function fromProtocolPath(path: messages.AttributePath): AttributePath {
  return path.steps.map((step): PathStep => {
    if (step.attributeName !== undefined) return step.attributeName;
    if (step.elementKeyInt !== undefined) return step.elementKeyInt;
    if (step.elementKeyString !== undefined) return { key: step.elementKeyString };
    throw new Error('attribute path step has none of attribute_name, element_key_string, element_key_int set');
  });
}

/**
 * Every diagnostic leaves the provider through here, so this is where secrets are scrubbed with
 * the provider's `redact`: a hook that quotes the API key in its own message cannot put it in
 * terraform's output.
 */
export function toProtocolDiagnostic(diagnostic: Diagnostic, redact: Redact = NO_REDACTION): messages.Diagnostic {
  return {
    severity: diagnostic.severity === 'error' ? messages.DiagnosticSeverity.Error : messages.DiagnosticSeverity.Warning,
    summary: redact(diagnostic.summary),
    detail: redact(diagnostic.detail),
    attribute: diagnostic.path !== undefined && diagnostic.path.length > 0 ? toProtocolPath(diagnostic.path) : undefined,
  };
}

export function fromProtocolDiagnostic(diagnostic: messages.Diagnostic): Diagnostic {
  const severity = diagnostic.severity === messages.DiagnosticSeverity.Warning ? 'warning' : 'error';
  return {
    severity,
    summary: diagnostic.summary,
    detail: diagnostic.detail,
    path: diagnostic.attribute !== undefined ? fromProtocolPath(diagnostic.attribute) : undefined,
  };
}

export function toProtocolDiagnostics(diagnostics: readonly Diagnostic[], redact: Redact = NO_REDACTION): messages.Diagnostic[] {
  return diagnostics.map((diagnostic) => toProtocolDiagnostic(diagnostic, redact));
}
