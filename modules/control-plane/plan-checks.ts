/**
 * Plan-time checks: what synth cannot know (where a subnet lives, whether a zone id and name
 * belong together) is read through data sources whose lifecycle conditions fail the plan
 * with a message that says what to fix, before anything is created.
 */
import { TerraformIterator, Token } from 'cdktf';
import type { Construct } from 'constructs';
import { DataAwsRoute53Zone } from '@cdktf/provider-aws/lib/data-aws-route53-zone';
import { DataAwsSubnet } from '@cdktf/provider-aws/lib/data-aws-subnet';
import { DataAwsVpc } from '@cdktf/provider-aws/lib/data-aws-vpc';

export interface PlanChecks {
  readonly vpc: DataAwsVpc;
  readonly subnets: DataAwsSubnet;
  readonly hostedZone: DataAwsRoute53Zone;
}

export interface PlanCheckInput {
  readonly vpcId: string;
  readonly subnetIds: string[];
  readonly hostedZoneId: string;
  /** Lower case, no trailing dot. */
  readonly hostedZoneName: string;
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

export function addPlanChecks(scope: Construct, input: PlanCheckInput): PlanChecks {
  const subnetIterator = TerraformIterator.fromList(input.subnetIds);
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

  return { vpc, subnets, hostedZone };
}
