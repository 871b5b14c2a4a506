/**
 * The AWS provider a construct's resources and data sources use. Without one, each uses the
 * stack's default (unaliased) `aws` provider; a stack with only an aliased provider (another
 * account or region) would leave them on an unconfigured default. The constructs take a
 * `provider` prop and hand it to everything of the AWS provider they created.
 */
import { TerraformDataSource, TerraformResource, type TerraformProvider } from 'cdktf';
import type { Construct } from 'constructs';

/** The provider type every AWS resource and data source names (`aws_...`). */
export const AWS_PROVIDER_TYPE = 'aws';

/** True when `provider` is an AWS provider (@cdktf/provider-aws's or @cdktn/provider-aws's AwsProvider). */
export function isAwsProvider(provider: unknown): provider is TerraformProvider {
  return typeof provider === 'object' && provider !== null && (provider as { terraformResourceType?: unknown }).terraformResourceType === AWS_PROVIDER_TYPE;
}

/**
 * Sets `provider` on every AWS resource and data source below `scope` that has none of its own.
 * Built-in ones (terraform_data) are left alone: they belong to terraform itself.
 */
export function useAwsProvider(scope: Construct, provider: TerraformProvider): void {
  for (const node of scope.node.findAll()) {
    if (!(node instanceof TerraformResource) && !(node instanceof TerraformDataSource)) continue;
    if (node.terraformGeneratorMetadata?.providerName !== AWS_PROVIDER_TYPE) continue;
    if (node.provider === undefined) node.provider = provider;
  }
}
