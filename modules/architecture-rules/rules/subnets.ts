/** Subnet and availability-zone facts shared by the placement rules. */
import { RuleContext } from '../findings';
import { literalString, singleReference } from '../expressions';

/**
 * A comparable zone key for one subnet entry: `name:eu-west-1a` or `id:euw1-az1`, or
 * undefined when the zone is only known at plan time.
 */
export function zoneOfSubnet(entry: unknown, context: RuleContext): string | undefined {
  const literal = literalString(entry);
  if (literal !== undefined) {
    const zone = context.options.subnetAvailabilityZones[literal];
    return zone === undefined ? undefined : `name:${zone}`;
  }
  const reference = singleReference(entry);
  if (!reference || reference.attribute !== 'id') return undefined;
  const subnet = context.inventory.byAddress(reference.address);
  if (!subnet || subnet.type !== 'aws_subnet') return undefined;
  const name = literalString(subnet.attributes.availability_zone);
  if (name !== undefined) return `name:${name}`;
  const id = literalString(subnet.attributes.availability_zone_id);
  if (id !== undefined) return `id:${id}`;
  const subnetId = literalString(subnet.attributes.id);
  const given = subnetId === undefined ? undefined : context.options.subnetAvailabilityZones[subnetId];
  return given === undefined ? undefined : `name:${given}`;
}

/**
 * Problems with a list of subnets that should span two zones, or [] when it does or when it
 * cannot be told at synth (then the plan-time conditions check it).
 */
export function subnetSpreadProblems(
  resourceLabel: string,
  attributeName: string,
  entries: readonly unknown[],
  context: RuleContext,
): string[] {
  const distinct = [...new Set(entries.map((entry) => JSON.stringify(entry)))].map(
    (text) => JSON.parse(text) as unknown,
  );
  if (distinct.length < 2) {
    const shown = distinct.map((entry) => String(entry)).join(', ') || 'none';
    return [
      `${resourceLabel} ${attributeName} lists ${distinct.length} subnet(s) (${shown}); ` +
        'give at least 2 private subnets in different availability zones.',
    ];
  }
  const zones = distinct.map((entry) => zoneOfSubnet(entry, context));
  if (zones.some((zone) => zone === undefined)) return [];
  const families = new Set(zones.map((zone) => (zone as string).split(':')[0]));
  if (families.size > 1) return []; // names and ids cannot be compared without the provider
  const distinctZones = new Set(zones);
  if (distinctZones.size >= 2) return [];
  const zone = (zones[0] as string).split(':')[1];
  return [
    `${resourceLabel} ${attributeName} has ${distinct.length} subnets, all in availability ` +
      `zone ${zone}; use subnets in at least 2 different availability zones.`,
  ];
}
