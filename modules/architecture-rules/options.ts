/**
 * What the architecture rules need to know that the Terraform tree cannot tell them at synth:
 * the VPC's address range, where sensors run, which subnets sit in which availability zone,
 * and which security group belongs to the Scan Template Service.
 */
import { IConstruct } from 'constructs';
import { Token } from 'cdktf';
import { parseAddress, InvalidAddressError } from '../../src/address';
import { SvcConstructError } from '../construct-error';

/** What the rules need to know about the deployment that the stack cannot tell them. */
export interface ArchitectureRulesOptions {
  /**
   * The control plane VPC's IPv4 range, e.g. `10.0.0.0/16`. Used by rule 5.
   * @default the literal `cidr_block` of the one `aws_vpc` resource or data source in the
   * stack, if there is exactly one; otherwise rule 5 is not applicable.
   */
  readonly vpcCidr?: string;
  /**
   * Addresses or ranges of the hosts where sensors run. A range outside the VPC gets a
   * warning (rule 5): peering or a transit gateway is needed.
   * @default none (rule 5 is not applicable)
   */
  readonly sensorCidrs?: readonly string[];
  /**
   * Availability zone of each literal subnet id, for rule 1 when subnets are given as plain
   * ids rather than `aws_subnet` references, e.g. `{ 'subnet-0abc': 'eu-west-1a' }`.
   * @default none: zones of plain subnet ids are checked at plan time instead
   */
  readonly subnetAvailabilityZones?: Readonly<Record<string, string>>;
  /**
   * The Scan Template Service's security groups. Rule 6 attaches its ingress guidance to them.
   * @default none (rule 6 is not applicable)
   */
  readonly scannerSecurityGroups?: readonly IConstruct[];
}

/** ArchitectureRulesOptions as the rules see them (RuleContext.options): validated, canonical, defaults filled in. */
export interface ResolvedArchitectureRulesOptions {
  /** Canonical range, or undefined when not given or only known at plan time. */
  readonly vpcCidr?: string;
  /** Canonical literal ranges; tokens are dropped (checked nowhere at synth). */
  readonly sensorCidrs: readonly string[];
  /** Availability zone by literal subnet id; empty when none were given. */
  readonly subnetAvailabilityZones: Readonly<Record<string, string>>;
  /** The Scan Template Service's security groups; empty when none were given. */
  readonly scannerSecurityGroups: readonly IConstruct[];
}

/** The `code` of an ArchitectureRulesOptionError. */
export type ArchitectureRulesOptionErrorCode = 'invalid_architecture_rules_option';

/**
 * A bad option given to ArchitectureRules, raised when the aspect is created: the earliest
 * moment, before it is added to any construct, so its construct path is `ArchitectureRules`
 * (the aspect itself). Names the option, the value, what is wrong and how to fix it.
 */
export class ArchitectureRulesOptionError extends SvcConstructError<ArchitectureRulesOptionErrorCode> {
  /** The option (e.g. `sensorCidrs[1]`), the value, what is wrong and how to fix it. */
  constructor(details: { prop: string; value: string; problem: string; fix: string }) {
    super({ code: 'invalid_architecture_rules_option', constructPath: 'ArchitectureRules', ...details });
  }

  /**
   * The option that is wrong.
   * @deprecated read `prop`, as on every construct error.
   */
  get option(): string {
    return this.prop;
  }

  /**
   * What is wrong and how to fix it, in one text.
   * @deprecated read `problem` and `fix`.
   */
  get reason(): string {
    return `${this.problem}; ${this.fix}`;
  }
}

function canonicalRange(option: string, value: string): string {
  try {
    return parseAddress(value).canonical;
  } catch (error) {
    if (error instanceof InvalidAddressError) {
      throw new ArchitectureRulesOptionError({
        prop: option,
        value,
        problem: error.reason,
        fix: 'give an IP address or CIDR range such as 10.0.0.0/16',
      });
    }
    throw error;
  }
}

/** Validates literal values and drops tokens (they are only known at plan time). */
export function resolveArchitectureRulesOptions(
  options: ArchitectureRulesOptions = {},
): ResolvedArchitectureRulesOptions {
  const vpcCidr =
    options.vpcCidr === undefined || Token.isUnresolved(options.vpcCidr)
      ? undefined
      : canonicalRange('vpcCidr', options.vpcCidr);
  // A list from a variable is one token whose element does not look unresolved: drop it whole.
  const sensorCidrs =
    options.sensorCidrs === undefined || Token.isUnresolved(options.sensorCidrs)
      ? []
      : options.sensorCidrs.flatMap((cidr, index) =>
          Token.isUnresolved(cidr) ? [] : [canonicalRange(`sensorCidrs[${index}]`, cidr)],
        );
  const subnetAvailabilityZones = { ...(options.subnetAvailabilityZones ?? {}) };
  for (const [subnet, zone] of Object.entries(subnetAvailabilityZones)) {
    if (typeof zone !== 'string' || zone.trim() === '') {
      throw new ArchitectureRulesOptionError({
        prop: `subnetAvailabilityZones[${subnet}]`,
        value: String(zone),
        problem: 'not an availability zone name',
        fix: 'give the availability zone name, e.g. eu-west-1a',
      });
    }
  }
  return {
    vpcCidr,
    sensorCidrs,
    subnetAvailabilityZones,
    scannerSecurityGroups: [...(options.scannerSecurityGroups ?? [])],
  };
}
