/**
 * The command line of an `svc` sub-command: positional arguments and `--name value`,
 * `--name=value` or `--flag` options. Every problem is an SvcCommandError that names the
 * argument; an option's value is never quoted back (someone may have typed a key there).
 */
import { SvcCommandError } from './command';

export interface OptionSpec {
  /** True for `--name value`; false for a flag. */
  readonly takesValue: boolean;
  /** Shown in "needs a value, e.g. ..." */
  readonly example?: string;
  /** May be given more than once (read with optionValues). */
  readonly repeatable?: boolean;
}

export interface ParsedArguments {
  readonly positionals: readonly string[];
  readonly options: ReadonlyMap<string, string | true>;
  /** Every value of a repeatable option, in order. */
  readonly repeated: ReadonlyMap<string, readonly string[]>;
}

/** Options that would put a credential on the command line, where process lists and shell history keep it. */
const CREDENTIAL_OPTIONS = /^--(api[-_]?key|key|token|password|secret)$/i;

export function parseArguments(argv: readonly string[], spec: Readonly<Record<string, OptionSpec>>, command: string): ParsedArguments {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  const repeated = new Map<string, string[]>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (!argument.startsWith('-') || argument === '-') {
      positionals.push(argument);
      continue;
    }
    const equals = argument.indexOf('=');
    const name = equals === -1 ? argument : argument.slice(0, equals);
    if (CREDENTIAL_OPTIONS.test(name)) {
      throw new SvcCommandError(`${name}: svc takes the API key from SVC_API_KEY only, never from the command line (process lists and shell history keep it); export SVC_API_KEY from your secret store`);
    }
    const option = spec[name];
    if (option === undefined) throw new SvcCommandError(`unknown option ${JSON.stringify(name)}; run svc ${command} --help for its options`);
    if (options.has(name) && option.repeatable !== true) throw new SvcCommandError(`${name} is given twice; give it once`);
    if (!option.takesValue) {
      if (equals !== -1) throw new SvcCommandError(`${name} is a flag and takes no value`);
      options.set(name, true);
      continue;
    }
    let value: string | undefined;
    if (equals !== -1) value = argument.slice(equals + 1);
    else {
      value = argv[index + 1];
      index += 1;
    }
    if (value === undefined || value === '' || (equals === -1 && value.startsWith('--'))) {
      throw new SvcCommandError(`${name} needs a value${option.example === undefined ? '' : `, e.g. ${name} ${option.example}`}`);
    }
    options.set(name, value);
    repeated.set(name, [...(repeated.get(name) ?? []), value]);
  }
  return { positionals, options, repeated };
}

/** The option's value, or undefined when not given. */
export function optionValue(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a repeatable option. */
export function optionValues(parsed: ParsedArguments, name: string): readonly string[] {
  return parsed.repeated.get(name) ?? [];
}

export function hasFlag(parsed: ParsedArguments, name: string): boolean {
  return parsed.options.get(name) === true;
}

/** One of `allowed`, or an error naming the option and the choices. */
export function choice<Allowed extends string>(parsed: ParsedArguments, name: string, allowed: readonly Allowed[], fallback: Allowed): Allowed {
  const value = optionValue(parsed, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new SvcCommandError(`${name} ${JSON.stringify(value)}: expected ${allowed.join(', ')}`);
  return value as Allowed;
}

/** A whole number in [min, max], or an error naming the option. */
export function wholeNumber(parsed: ParsedArguments, name: string, min: number, max: number, fallback: number): number {
  const value = optionValue(parsed, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new SvcCommandError(`${name} ${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`);
  return Number(value);
}

/** Exactly the positional arguments named, or an error saying which is missing or extra. */
export function positionals(parsed: ParsedArguments, names: readonly string[], command: string, optional: readonly string[] = []): string[] {
  const given = parsed.positionals;
  if (given.length < names.length) throw new SvcCommandError(`${names[given.length]} is missing; usage: svc ${command} ${[...names, ...optional.map((name) => `[${name}]`)].join(' ')}`);
  if (given.length > names.length + optional.length) {
    throw new SvcCommandError(`unexpected argument ${JSON.stringify(given[names.length + optional.length])}; usage: svc ${command} ${[...names, ...optional.map((name) => `[${name}]`)].join(' ')}`);
  }
  return [...given];
}
