/** HCL text for the configurations the acceptance tests and the bench write: quoted strings and the provider block every config starts with. */

/** An HCL quoted string: JSON escapes are HCL escapes, and `${`/`%{` must not start a template. */
export function hclString(text: string): string {
  return JSON.stringify(text).replace(/[$%]\{/g, (opener) => `${opener[0]}${opener}`);
}

export interface ProviderBlockOptions {
  /** Left out of the block when undefined (the provider then reads SVC_BASE_URL, or starts the embedded emulator). */
  readonly baseUrl?: string;
  /** Left out of the block when undefined (the provider then needs SVC_TENANT). */
  readonly tenant?: string;
  readonly ssoBase?: string;
  /** More provider attributes as HCL expressions, e.g. `{ max_retries: '2' }`. */
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * `terraform { required_providers }` and `provider "svc"`; the API key travels as SVC_API_KEY.
 * With no options the block is empty (`provider "svc" {}`): every setting from the environment.
 */
export function providerBlock(options: ProviderBlockOptions = {}): string {
  const attributes: Array<[string, string]> = [];
  if (options.baseUrl !== undefined) attributes.push(['base_url', hclString(options.baseUrl)]);
  if (options.tenant !== undefined) attributes.push(['tenant', hclString(options.tenant)]);
  if (options.ssoBase !== undefined) attributes.push(['sso_base', hclString(options.ssoBase)]);
  for (const [name, expression] of Object.entries(options.extra ?? {})) attributes.push([name, expression]);
  return [
    'terraform {',
    '  required_providers {',
    '    svc = { source = "svc-prevent/svc" }',
    '  }',
    '}',
    '',
    ...(attributes.length === 0
      ? ['provider "svc" {}']
      : ['provider "svc" {', ...attributes.map(([name, expression]) => `  ${name} = ${expression}`), '}']),
    '',
  ].join('\n');
}

/** A resource block from attribute name -> HCL expression (use hclString for literals). */
export function resourceBlock(type: string, name: string, attributes: Readonly<Record<string, string>>): string {
  const body = Object.entries(attributes).map(([attribute, expression]) => `  ${attribute} = ${expression}`);
  return [`resource "${type}" "${name}" {`, ...body, '}', ''].join('\n');
}
