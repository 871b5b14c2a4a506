/**
 * Spec rule 1: for every control plane service, instances are created in multiple
 * availability zones. Checks auto scaling groups and load balancers.
 */
import { IConstruct } from 'constructs';
import {
  FindingSeverity,
  NOT_APPLICABLE,
  RuleContext,
  RuleResult,
  combineProblems,
} from '../findings';
import { blocks, listEntries, literalNumber, literalString } from '../expressions';
import { TerraformElementView } from '../inventory';
import { subnetSpreadProblems } from './subnets';

const LOAD_BALANCER_TYPES = ['aws_lb', 'aws_alb'];

export function checkMultiAzPlacement(node: IConstruct, context: RuleContext): RuleResult {
  const view = context.inventory.view(node);
  if (!view || view.kind !== 'resource') return NOT_APPLICABLE;
  if (view.type === 'aws_autoscaling_group') return checkGroup(view, context);
  if (LOAD_BALANCER_TYPES.includes(view.type)) return checkLoadBalancer(view, context);
  return NOT_APPLICABLE;
}

function checkGroup(view: TerraformElementView, context: RuleContext): RuleResult {
  const problems: { message: string; severity?: FindingSeverity }[] = [];
  const subnets = view.attributes.vpc_zone_identifier;
  if (subnets === undefined) {
    const zones = listEntries(view.attributes.availability_zones);
    if (zones && zones.length === 0) {
      problems.push({
        message:
          `${view.address} sets neither vpc_zone_identifier nor availability_zones; set ` +
          'vpc_zone_identifier to at least 2 private subnets in different availability zones.',
      });
    } else if (zones && zones.every((zone) => literalString(zone) !== undefined)) {
      if (new Set(zones).size < 2) {
        problems.push({
          message:
            `${view.address} availability_zones lists ${new Set(zones).size} zone(s); ` +
            'set vpc_zone_identifier to at least 2 private subnets in different availability zones.',
        });
      }
    }
  } else {
    const entries = listEntries(subnets);
    // A whole-list expression (a variable, a split) is checked by plan-time conditions.
    if (entries) {
      for (const message of subnetSpreadProblems(view.address, 'vpc_zone_identifier', entries, context)) {
        problems.push({ message });
      }
    }
  }
  const desired = literalNumber(view.attributes.desired_capacity);
  const minimum = literalNumber(view.attributes.min_size);
  const startingCount = desired ?? minimum;
  if (startingCount !== undefined && startingCount < 2) {
    const attribute = desired !== undefined ? 'desired_capacity' : 'min_size';
    problems.push({
      severity: 'warning',
      message:
        `${view.address} ${attribute} is ${startingCount}: fewer than 2 instances cannot span 2 ` +
        `availability zones; set ${attribute === 'min_size' ? 'min_size' : 'desired_capacity and min_size'} to 2 or more.`,
    });
  }
  return combineProblems(problems, 'error');
}

function checkLoadBalancer(view: TerraformElementView, context: RuleContext): RuleResult {
  const subnetList = listEntries(view.attributes.subnets);
  const mappings = blocks(view.attributes.subnet_mapping);
  if (subnetList === undefined || mappings === undefined) return NOT_APPLICABLE;
  const entries = [...subnetList, ...mappings.map((mapping) => mapping.subnet_id)];
  if (entries.length === 0) return NOT_APPLICABLE; // the provider rejects it at plan
  return combineProblems(
    subnetSpreadProblems(view.address, 'subnets', entries, context).map((message) => ({ message })),
    'error',
  );
}
