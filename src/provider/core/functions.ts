/**
 * Provider functions (terraform 1.8+, `provider::svc::<name>(...)`): pure computations on their
 * arguments, run without configuring the provider and without calling the API. A function
 * reports a problem with an argument by throwing FunctionCallError with the argument's
 * position, so terraform points at that argument; any other thrown error is an internal fault.
 */
import type { ValueType } from './types';
import type { Value } from './values';

export interface FunctionParameter {
  /** Shown by terraform in errors ("Invalid value for "address" parameter"). */
  readonly name: string;
  readonly type: ValueType;
  /** Markdown. */
  readonly description: string;
  /** When false (the default), terraform refuses a null argument before calling. @default false */
  readonly allowNull?: boolean;
  /** When false (the default), terraform skips the call and the result is unknown. @default false */
  readonly allowUnknown?: boolean;
}

export interface FunctionDefinition {
  /** The part after `provider::svc::`, e.g. `canonical_address`. */
  readonly name: string;
  /** One line. */
  readonly summary: string;
  /** Markdown. */
  readonly description: string;
  readonly parameters: readonly FunctionParameter[];
  readonly returnType: ValueType;
  /**
   * Computes the result from one argument per parameter (already of the parameter's type;
   * never null or unknown unless the parameter allows it). Throws FunctionCallError for a
   * user problem.
   */
  call(args: readonly Value[]): Value;
}

/** A problem with the arguments of a call, reported to the user as terraform's function error. */
export class FunctionCallError extends Error {
  readonly code = 'function_call_failed';
  constructor(
    message: string,
    /** 0-based position of the argument at fault; undefined when no single argument is. */
    readonly argument?: number,
  ) {
    super(message);
    this.name = 'FunctionCallError';
  }
}
