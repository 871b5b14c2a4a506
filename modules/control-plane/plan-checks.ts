/**
 * Plan-time checks: what synth cannot know (where a subnet lives, whether a zone id and name
 * belong together) is read through data sources whose lifecycle conditions fail the plan
 * with a message that says what to fix, before anything is created.
 */
import { TerraformIterator, Token } from 'cdktf';
import type { Construct } from 'constructs';
import { scopedName } from '../output-names';
import { DataAwsEbsDefaultKmsKey } from '@cdktf/provider-aws/lib/data-aws-ebs-default-kms-key';
import { DataAwsKeyPair } from '@cdktf/provider-aws/lib/data-aws-key-pair';
import { DataAwsRoute53Zone } from '@cdktf/provider-aws/lib/data-aws-route53-zone';
import { DataAwsRouteTable } from '@cdktf/provider-aws/lib/data-aws-route-table';
import { DataAwsRouteTables } from '@cdktf/provider-aws/lib/data-aws-route-tables';
import { DataAwsSubnet } from '@cdktf/provider-aws/lib/data-aws-subnet';
import { DataAwsVpc } from '@cdktf/provider-aws/lib/data-aws-vpc';

/** The data sources of the plan-time checks; each fails the plan with a message naming the parameter, the value and the fix. */
export interface PlanChecks {
  /** The VPC (VPC): its CIDR range, and the check that the subnets span two availability zones. */
  readonly vpc: DataAwsVpc;
  /** Each subnet (Subnets), keyed `subnet-1`, `subnet-2`, ...: in the VPC, not public. */
  readonly subnets: DataAwsSubnet;
  /** The hosted zone (HostedZoneId): its name matches HostedZoneName, and it is public. */
  readonly hostedZone: DataAwsRoute53Zone;
  /**
   * The key pair of KeyName. Its read fails the plan when the key pair does not exist in the
   * region, with the provider's error (which quotes the name) at the address
   * `data.aws_key_pair.<path>_key_pair_KeyName_must_name_a_key_pair_of_this_region_create_or_import_it`.
   */
  readonly keyPair: DataAwsKeyPair;
  /** The route table each subnet uses (its own, else the VPC's main one), checked for a NAT route. */
  readonly subnetRouteTables: DataAwsRouteTable;
  /** The account's default EBS key in the region, checked to be usable by auto scaling. */
  readonly ebsDefaultKey: DataAwsEbsDefaultKmsKey;
}

/** What the plan-time checks compare the account with. */
export interface PlanCheckInput {
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
  readonly hostedZoneId: string;
  /** Lower case, no trailing dot. */
  readonly hostedZoneName: string;
  readonly keyName: string;
  /** True when the user has granted auto scaling use of a customer-managed default EBS key. */
  readonly customerManagedEbsKeyGranted: boolean;
}

/**
 * The subnets keyed by position (`subnet-1`, ...), not by id: the keys are known at plan even
 * when the ids are not (subnets created in the same apply), which `for_each` needs.
 */
function subnetsByPosition(subnetIds: readonly string[]): ReturnType<typeof TerraformIterator.fromMap> {
  if (Token.isUnresolved(subnetIds)) {
    return TerraformIterator.fromMap(Token.asAnyMap(`\${{ for index, id in ${Token.asString(subnetIds)} : "subnet-\${index + 1}" => id }}`));
  }
  return TerraformIterator.fromMap(Object.fromEntries(subnetIds.map((id, index) => [`subnet-${index + 1}`, id])));
}

/**
 * A value inside an expression: a literal as a Terraform string, a reference (a token, e.g. a
 * TerraformVariable's value) as the reference itself; quoting a token compared against its own
 * text, so the condition was always false.
 */
function hclValue(value: string): string {
  return Token.isUnresolved(value) ? value : JSON.stringify(value);
}

/** The zone name as the condition compares it: literals arrive lower case without the dot, a reference is normalised in Terraform. */
function hclZoneName(value: string): string {
  return Token.isUnresolved(value) ? `trimsuffix(lower(${value}), ".")` : JSON.stringify(value);
}

/**
 * The name of the key pair lookup: terraform prints `with data.aws_key_pair.<name>` under the
 * provider's "key pair does not exist" error, so the name carries the parameter and the fix.
 */
export function keyPairAddressName(scope: Construct): string {
  return `${scopedName(scope, 'key-pair')}_KeyName_must_name_a_key_pair_of_this_region_create_or_import_it`;
}

export function addPlanChecks(scope: Construct, input: PlanCheckInput): PlanChecks {
  const subnetIterator = subnetsByPosition(input.subnetIds);
  const subnets = new DataAwsSubnet(scope, 'subnet', {
    forEach: subnetIterator,
    id: subnetIterator.value,
    lifecycle: {
      postcondition: [
        {
          condition: `\${self.vpc_id == ${hclValue(input.vpcId)}}`,
          errorMessage: `Subnets: subnet \${self.id} is in VPC \${self.vpc_id}, not in VPC ${input.vpcId}. Choose subnets of the VPC given in VPC (vpcId).`,
        },
        {
          condition: '${self.map_public_ip_on_launch != true}',
          errorMessage: 'Subnets: subnet ${self.id} assigns public IP addresses on launch, so it is a public subnet. The control plane must run in private subnets (architectural rule 3); choose private subnets.',
        },
      ],
    },
  });

  // The zone count needs every subnet at once, so it sits on the VPC lookup, which runs after them.
  const vpc = new DataAwsVpc(scope, 'vpc', {
    id: input.vpcId,
    lifecycle: {
      precondition: [
        {
          condition: `\${length(distinct([for subnet in ${subnets.fqn} : subnet.availability_zone])) >= 2}`,
          errorMessage: `Subnets: all given subnets are in the availability zone(s) \${join(", ", distinct([for subnet in ${subnets.fqn} : subnet.availability_zone]))}; at least 2 distinct availability zones are needed. Add a private subnet in another zone.`,
        },
      ],
    },
  });

  const hostedZone = new DataAwsRoute53Zone(scope, 'hosted-zone', {
    zoneId: input.hostedZoneId,
    lifecycle: {
      postcondition: [
        {
          condition: `\${self.zone_id == ${hclValue(input.hostedZoneId)} && trimsuffix(lower(self.name), ".") == ${hclZoneName(input.hostedZoneName)}}`,
          errorMessage: `HostedZoneId and HostedZoneName do not match: zone ${input.hostedZoneId} is named \${self.name}, not ${input.hostedZoneName}. Give the id and the name of the same hosted zone.`,
        },
        {
          condition: '${self.private_zone != true}',
          errorMessage: `HostedZoneId: zone ${input.hostedZoneId} is private; the certificate manager validates certificates through public DNS only. Use a public hosted zone.`,
        },
      ],
    },
  });

  // The key pair must exist in the region. A missing one fails the read with the provider's
  // own error (InvalidKeyPair.NotFound, quoting the name), before any condition of ours could
  // run, and AWS provider 5.x has no data source that lists key pairs without failing. So the
  // address terraform prints with that error says which parameter it is and what to do.
  const keyPair = new DataAwsKeyPair(scope, 'key-pair', { keyName: input.keyName });
  keyPair.overrideLogicalId(keyPairAddressName(scope));

  // The route table of each subnet: its explicit association, else the VPC's main table.
  const explicitRouteTables = new DataAwsRouteTables(scope, 'subnet-route-table-ids', {
    forEach: subnetIterator,
    vpcId: input.vpcId,
    filter: [{ name: 'association.subnet-id', values: [subnetIterator.value] }],
  });
  const mainRouteTable = new DataAwsRouteTable(scope, 'main-route-table', {
    vpcId: input.vpcId,
    filter: [{ name: 'association.main', values: ['true'] }],
  });
  const explicitIds = `${explicitRouteTables.fqn}[each.key].ids`;
  const subnetRouteTables = new DataAwsRouteTable(scope, 'subnet-route-table', {
    forEach: subnetIterator,
    routeTableId: `\${length(${explicitIds}) > 0 ? tolist(${explicitIds})[0] : ${mainRouteTable.fqn}.id}`,
    lifecycle: {
      postcondition: [
        {
          // A route's unset targets read as "" from AWS and as null from a mock: try() takes both.
          condition: '${anytrue([for route in self.routes : route.cidr_block == "0.0.0.0/0" && try(length(route.nat_gateway_id) > 0, false)])}',
          errorMessage: `Subnets: subnet \${each.value} uses route table \${self.id}, which has no route from 0.0.0.0/0 to a NAT gateway. The instances need one to install docker and pull the images. Add the route (a NAT gateway in a public subnet of VPC ${input.vpcId}), or choose private subnets that have it.`,
        },
      ],
    },
  });

  // Launch templates ask for encrypted volumes with the account's default EBS key. AWS names
  // its own key by the alias ARN (.../alias/aws/ebs) unless the account chose another key.
  const ebsDefaultKey = new DataAwsEbsDefaultKmsKey(scope, 'ebs-default-key-id', {
    lifecycle: {
      postcondition: [
        {
          condition: `\${endswith(self.key_arn, ":alias/aws/ebs") || ${input.customerManagedEbsKeyGranted}}`,
          errorMessage:
            'EBS: the default EBS encryption key of the account in this region is ${self.key_arn}, not aws/ebs; auto scaling cannot start instances with a customer-managed key unless its key policy lets the role AWSServiceRoleForAutoScaling use it. Grant that (kms:CreateGrant, Decrypt, GenerateDataKeyWithoutPlaintext, ReEncrypt*, DescribeKey) and set customerManagedEbsKeyGranted: true, or reset the default EBS key to aws/ebs (EC2 > Settings > EBS encryption).',
        },
      ],
    },
  });

  return { vpc, subnets, hostedZone, keyPair, subnetRouteTables, ebsDefaultKey };
}
