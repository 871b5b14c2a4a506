/**
 * Code that scripts/generate-bindings.ts copies as it is into the generated bindings
 * (modules/svc-provider/*.ts): each region between `// #region <name>` and `// #endregion` is one
 * fragment, its lines emitted verbatim. Kept as TypeScript so it reads as the code it becomes and
 * the compiler checks it against cdktf; nothing imports this file.
 */
import type { Construct } from 'constructs';
import * as cdktf from 'cdktf';

/** Stands for the provider's default source address; the generator writes the address in its place. */
declare const DEFAULT_PROVIDER_SOURCE: string;

// #region sensitive-guard
/**
 * A sensitive setting given as a literal string (e.g. `process.env.SVC_API_KEY`), or as an expression
 * with literal text in it (`Fn.trimspace(process.env.SVC_API_KEY!)`, `'prefix-' + variable.stringValue`):
 * cdktf would write the literal into cdk.tf.json, which is kept on disk, in CI artifacts and in
 * plan files. Code `sensitive_literal_value`; the message names the setting, never the value.
 */
export class SensitiveLiteralValueError extends Error {
  /** Always `sensitive_literal_value`. */
  readonly code = 'sensitive_literal_value';
  /** Thrown by the constructor or a setter, or at synth for literal text in an expression. */
  constructor(
    readonly owner: string,
    readonly setting: string,
    variableName: string,
    readonly environmentVariable: string | undefined,
    readonly form: 'literal' | 'expression with literal text' = 'literal',
  ) {
    super(
      (form === 'literal'
        ? `${owner}: ${setting} is a literal value, which cdktf would write into cdk.tf.json in plain text. `
        : `${owner}: ${setting} is an expression with literal text in it (a quoted string, or text around a reference), which cdktf would write into cdk.tf.json in plain text. `) +
        `Pass the value of a sensitive TerraformVariable instead (new TerraformVariable(stack, '${variableName}', { type: 'string', sensitive: true }).stringValue, set with TF_VAR_${variableName})` +
        (environmentVariable === undefined ? '.' : `, or leave ${setting} unset and export ${environmentVariable} where terraform runs.`),
    );
    this.name = 'SensitiveLiteralValueError';
  }
}

/**
 * Lets a sensitive setting through only as a token (a reference resolved by terraform), or unset;
 * a string that joins a token with literal text is refused here, functions over literals at synth.
 */
function sensitiveSetting<T>(owner: string, setting: string, variableName: string, environmentVariable: string | undefined, value: T): T {
  if (value === undefined) return value;
  if (!cdktf.Token.isUnresolved(value)) throw new SensitiveLiteralValueError(owner, setting, variableName, environmentVariable);
  if (typeof value === 'string' && cdktf.Tokenization.reverseString(value).literals.some((literal) => String(literal) !== '')) {
    throw new SensitiveLiteralValueError(owner, setting, variableName, environmentVariable, 'expression with literal text');
  }
  return value;
}

/**
 * Whether a resolved expression carries literal text: text outside `${...}`, or a quoted string
 * inside one, other than an index key (`jsondecode(data.x.secret_string)["api_key"]` names a key,
 * it is no secret).
 */
function hasLiteralText(resolved: unknown): boolean {
  if (typeof resolved !== 'string') return resolved !== undefined && resolved !== null;
  const withoutIndexKeys = resolved.replace(/\["[A-Za-z0-9_.-]{0,128}"\]/g, '[]');
  const outside = withoutIndexKeys.replace(/\$\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}/g, '');
  return outside !== '' || withoutIndexKeys.includes('"');
}

/** At synth, once every token resolves: a function over a literal (`Fn.trimspace(key)`) is refused too. */
function guardSensitiveAtSynth(scope: Construct, owner: string, setting: string, variableName: string, environmentVariable: string | undefined, current: () => unknown): void {
  scope.node.addValidation({
    validate: () => {
      const value = current();
      if (value === undefined) return [];
      const resolved = cdktf.Tokenization.resolve(value, { scope, resolver: new cdktf.DefaultTokenResolver(new cdktf.StringConcat()), preparing: false });
      if (!hasLiteralText(resolved)) return [];
      return [new SensitiveLiteralValueError(owner, setting, variableName, environmentVariable, 'expression with literal text').message];
    },
  });
}

// #endregion

// #region provider-source-check
/** `[<hostname>/]<namespace>/<type>`, as terraform reads a provider source address. */
const PROVIDER_SOURCE_ADDRESS = /^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d+)?\/)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\/[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** SvcProviderConfig.source is not a provider source address. */
export class ProviderSourceError extends Error {
  /** Thrown by the SvcProvider constructor with the `source` it refused. */
  constructor(readonly source: string) {
    super(`SvcProvider: source must be a provider source address [<hostname>/]<namespace>/<type>, e.g. registry.example.com/acme/svc; got ${JSON.stringify(source)}.`);
    this.name = 'ProviderSourceError';
  }
}

/** Whether `source` is a provider source address terraform reads (for checks that word their own error). */
export function isProviderSourceAddress(source: string): boolean {
  return PROVIDER_SOURCE_ADDRESS.test(source);
}

function providerSource(source: string | undefined): string {
  if (source === undefined) return DEFAULT_PROVIDER_SOURCE;
  if (!isProviderSourceAddress(source)) throw new ProviderSourceError(source);
  return source;
}

// #endregion

// Used only in the generated files; named here so the compiler does not report them unused.
export const FRAGMENT_FUNCTIONS = [sensitiveSetting, guardSensitiveAtSynth, providerSource];
