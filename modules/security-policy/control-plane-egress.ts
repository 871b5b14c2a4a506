/**
 * Wiring infrastructure into policy: the control plane's egress addresses (its NAT gateways'
 * public IPs, read through AWS data sources) go on the tenant's whitelist, so risk-based
 * blocking never blocks the platform's own scan template service.
 *
 *   new ControlPlaneEgress(stack, 'control-plane-egress', { policy, natGatewayIds: ['nat-0123456789abcdef0'] });
 *
 * The addresses join the whitelist the way the policy declares it: on a whole-list whitelist
 * they become keys of its `entries` map (a separate svc_whitelist_entry would be removed again
 * by an authoritative whole list, and the two would fight on every apply); on a per-entry
 * whitelist each becomes a svc_whitelist_entry. The stack needs an AWS provider.
 *
 * Terraform names (public contract, see security-policy.ts):
 *   data.aws_nat_gateway.control_plane_egress_nat_0123456789abcdef0        by id
 *   svc_whitelist_entry.whitelist_control_plane_egress_nat_0123456789abcdef0  (per-entry whitelist)
 *   data.aws_nat_gateway.control_plane_egress_gateway_2                     by a token id (natGatewayIds[1])
 *   svc_whitelist_entry.whitelist_control_plane_egress_gateway_2             (per-entry whitelist)
 *   data.aws_nat_gateways.control_plane_egress_vpc, data.aws_nat_gateway.control_plane_egress_vpc_gateways
 *   svc_whitelist_entry.whitelist_control_plane_egress_vpc["<ip>"]           by VPC (per-entry whitelist)
 */
import { Construct } from 'constructs';
import { TerraformIterator, Token, type TerraformProvider } from 'cdktf';
import { DataAwsNatGateway } from '@cdktf/provider-aws/lib/data-aws-nat-gateway';
import { DataAwsNatGateways } from '@cdktf/provider-aws/lib/data-aws-nat-gateways';
import { isAwsProvider } from '../aws-provider';
import { NAT_GATEWAY_ID, VPC_ID } from './aws-ids';
import { SecurityPolicyPropError } from './errors';
import type { SecurityPolicy } from './security-policy';

/** Which NAT gateways' public IPs go on which policy's whitelist. */
export interface ControlPlaneEgressProps {
  /** The policy whose whitelist gets the addresses. */
  readonly policy: SecurityPolicy;
  /**
   * NAT gateways by id (`nat-...`), e.g. the control plane VPC's: literal ids, or tokens (the
   * `id` of an `NatGateway` your stack creates). A token is named by its position
   * (`..._gateway_<n>`), a literal by itself; either is known at plan, so gateways created in the
   * same apply do not stop it. Give such a gateway here only, not also through the vpcId of its VPC.
   */
  readonly natGatewayIds?: readonly string[];
  /**
   * Also every available public NAT gateway of this VPC, found at plan time. The VPC must exist
   * before the plan: a VPC created in the same apply leaves the list of gateways unknown, and the
   * plan stops (`Invalid for_each argument`); give such gateways in natGatewayIds instead.
   */
  readonly vpcId?: string;
  /** @default 'control plane egress' (each entry adds `(NAT gateway <id>)`) */
  readonly description?: string;
  /**
   * The AWS provider of the NAT gateway data sources (an `AwsProvider` with an alias, for the
   * control plane's account or region). Give it when the stack's AWS provider has an alias:
   * without it they use the default `aws` provider, which such a stack does not configure.
   * @default - the stack's default (unaliased) AWS provider
   */
  readonly provider?: TerraformProvider;
  /**
   * The former name of `provider`, still read when `provider` is not given.
   * @deprecated Use `provider`, as every construct of this library names it.
   */
  readonly awsProvider?: TerraformProvider;
}


/** How an entry names a gateway given as a token: its position, which is known at plan (its id is not). */
function tokenGatewayLabel(index: number): string {
  return `natGatewayIds[${index}]`;
}

function snakeCase(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
}

/** An HCL string literal: JSON escapes are HCL escapes; `${` and `%{` must not start a template. */
function hclString(text: string): string {
  return JSON.stringify(text).replace(/[$%]\{/g, (opener) => `${opener[0]}${opener}`);
}

/** The data sources' provider: `provider`, else the deprecated `awsProvider`; refused when not AWS's or when the two differ. */
function egressProvider(props: ControlPlaneEgressProps, fail: (prop: string, value: unknown, message: string) => Error): { provider?: TerraformProvider } {
  const { provider, awsProvider } = props;
  if (provider !== undefined && awsProvider !== undefined && provider !== awsProvider) {
    throw fail('awsProvider', `the provider ${awsProvider.node.path}`, `differs from provider (${provider.node.path}); awsProvider is the deprecated name of provider: give provider only`);
  }
  const chosen = provider ?? awsProvider;
  if (chosen === undefined) return {};
  if (!isAwsProvider(chosen)) {
    const type = String((chosen as { terraformResourceType?: unknown }).terraformResourceType);
    throw fail(provider === undefined ? 'awsProvider' : 'provider', `a provider of type ${type}`, 'is not an AWS provider; pass the AwsProvider (@cdktf/provider-aws/lib/provider) the NAT gateway data sources should use');
  }
  return { provider: chosen };
}

/**
 * Whitelists the control plane's egress: the public IPs of its NAT gateways (by id, or every
 * public one of a VPC), read through AWS data sources at plan. Needs an AWS provider in the stack.
 */
export class ControlPlaneEgress extends Construct {
  /** The NAT gateway data sources given by id, by id. */
  readonly natGateways: ReadonlyMap<string, DataAwsNatGateway>;
  /** The NAT gateways of vpcId (for_each over their ids), when vpcId is given. */
  readonly vpcNatGateways: DataAwsNatGateway | undefined;

  /** Adds the NAT gateway data sources and their addresses to `props.policy`'s whitelist. */
  constructor(scope: Construct, id: string, props: ControlPlaneEgressProps) {
    super(scope, id);
    const fail = (prop: string, value: unknown, message: string) => new SecurityPolicyPropError({ constructPath: this.node.path, prop, value, message });
    const ids = props.natGatewayIds ?? [];
    if (ids.length === 0 && props.vpcId === undefined) {
      throw fail('natGatewayIds', ids, 'names no NAT gateway; give natGatewayIds (["nat-..."]) or vpcId');
    }
    ids.forEach((natGatewayId, index) => {
      if (Token.isUnresolved(natGatewayId)) return;
      if (!NAT_GATEWAY_ID.test(natGatewayId)) throw fail(`natGatewayIds[${index}]`, natGatewayId, 'is not a NAT gateway id; give one such as nat-0123456789abcdef0');
      if (ids.indexOf(natGatewayId) !== index) throw fail(`natGatewayIds[${index}]`, natGatewayId, `is also natGatewayIds[${ids.indexOf(natGatewayId)}]; name each gateway once`);
    });
    if (props.vpcId !== undefined && !Token.isUnresolved(props.vpcId) && !VPC_ID.test(props.vpcId)) {
      throw fail('vpcId', props.vpcId, 'is not a VPC id; give one such as vpc-0123456789abcdef0');
    }

    const baseName = snakeCase(id);
    const description = props.description ?? 'control plane egress';
    const provider = egressProvider(props, fail);
    // A private NAT gateway has no public IP: fail the plan with a clear message rather than whitelist "".
    const publicGatewayCheck = {
      postcondition: [
        {
          // Terraform's JSON syntax reads a condition as a template: the expression goes in ${}.
          condition: '${self.connectivity_type == "public" && self.public_ip != ""}',
          errorMessage: 'This NAT gateway has no public IP (a private NAT gateway): remove it from allowControlPlaneEgress.natGatewayIds.',
        },
      ],
    };

    // A literal id names its data source and entry; a token (a gateway of this stack, its id
    // unknown until apply) its position: names must be known at synth.
    const nameOf = (natGatewayId: string, index: number) => (Token.isUnresolved(natGatewayId) ? `gateway-${index + 1}` : natGatewayId);
    const gateways = new Map<string, DataAwsNatGateway>();
    ids.forEach((natGatewayId, index) => {
      const gateway = new DataAwsNatGateway(this, nameOf(natGatewayId, index), { id: natGatewayId, lifecycle: publicGatewayCheck, ...provider });
      gateway.overrideLogicalId(`${baseName}_${snakeCase(nameOf(natGatewayId, index))}`);
      gateways.set(natGatewayId, gateway);
    });
    this.natGateways = gateways;
    if (ids.length > 0) {
      props.policy.addEntries(
        'whitelist',
        ids.map((natGatewayId, index) => ({
          ip: gateways.get(natGatewayId)!.publicIp,
          description: Token.isUnresolved(natGatewayId) ? `${description} (NAT gateway ${tokenGatewayLabel(index)})` : `${description} (NAT gateway ${natGatewayId})`,
          name: `${baseName}_${snakeCase(nameOf(natGatewayId, index))}`,
        })),
        id,
      );
    }

    if (props.vpcId === undefined) {
      this.vpcNatGateways = undefined;
      return;
    }
    const found = new DataAwsNatGateways(this, 'vpc', {
      vpcId: props.vpcId,
      filter: [{ name: 'state', values: ['available'] }],
      ...provider,
    });
    found.overrideLogicalId(`${baseName}_vpc`);
    // Keyed by position, not by id: the keys are then known at plan whenever the number of
    // gateways is, even if their ids are not (a VPC whose gateways come in the same apply).
    const byPosition = TerraformIterator.fromMap(Token.asAnyMap(`\${{ for index, id in ${Token.asString(found.ids)} : "gateway-\${index + 1}" => id }}`));
    const vpcGateways = new DataAwsNatGateway(this, 'vpc-gateways', { forEach: byPosition, id: Token.asString(byPosition.value), ...provider });
    vpcGateways.overrideLogicalId(`${baseName}_vpc_gateways`);
    this.vpcNatGateways = vpcGateways;
    // Private gateways (no public IP) and the ones already named by id are left out.
    // Literal ids only: a token's gateway is created in this apply, and a VPC looked up at plan cannot hold it yet.
    const known = ids.filter((natGatewayId) => !Token.isUnresolved(natGatewayId)).map((natGatewayId) => hclString(natGatewayId)).join(', ');
    const addresses = TerraformIterator.fromDataSources(vpcGateways).forExpressionForMap(
      'val.public_ip',
      `format("%s (NAT gateway %s)", ${hclString(description)}, val.id) if val.connectivity_type == "public" && !contains([${known}], val.id)`,
    );
    props.policy.addEntryMap('whitelist', addresses, `${baseName}_vpc`);
  }
}
