/**
 * Spec rule 2: instances run in auto scaling groups that keep the desired count of healthy
 * instances. Every launch template (or launch configuration) must be used by an auto scaling
 * group, no standalone instances, and groups must keep at least one instance and replace
 * the ones their load balancer finds unhealthy.
 */
import { IConstruct } from 'constructs';
import {
  COMPLIANT,
  FindingSeverity,
  NOT_APPLICABLE,
  RuleContext,
  RuleResult,
  combineProblems,
  nonCompliant,
} from '../findings';
import { allStrings, isExpression, listEntries, literalNumber, literalString } from '../expressions';
import { TerraformElementView } from '../inventory';

const TEMPLATE_TYPES = ['aws_launch_template', 'aws_launch_configuration'];

export function checkAutoScalingGroups(node: IConstruct, context: RuleContext): RuleResult {
  const view = context.inventory.view(node);
  if (!view || view.kind !== 'resource') return NOT_APPLICABLE;
  if (TEMPLATE_TYPES.includes(view.type)) return checkTemplateIsUsed(view, context);
  if (view.type === 'aws_instance') {
    return nonCompliant(
      `${view.address} is a standalone instance: nothing replaces it when it fails. Put its ` +
        'settings in an aws_launch_template and run it from an aws_autoscaling_group.',
    );
  }
  if (view.type === 'aws_autoscaling_group') return checkGroupKeepsHealthyInstances(view);
  return NOT_APPLICABLE;
}

/** The strings an auto scaling group uses to name its launch template or configuration. */
function launchSpecificationStrings(group: TerraformElementView): string[] {
  return [
    ...allStrings(group.attributes.launch_template),
    ...allStrings(group.attributes.mixed_instances_policy),
    ...allStrings(group.attributes.launch_configuration),
  ];
}

function referencesAddress(text: string, address: string): boolean {
  // `${aws_launch_template.x.id}` and longer expressions alike: the address followed by `.`.
  const pattern = new RegExp(`(^|[^A-Za-z0-9_.-])${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`);
  return isExpression(text) && pattern.test(text);
}

function checkTemplateIsUsed(template: TerraformElementView, context: RuleContext): RuleResult {
  const groups = context.inventory.elements('resource', ['aws_autoscaling_group']);
  const literalName = literalString(template.attributes.name);
  let someGroupUnattributed = false;
  for (const group of groups) {
    const strings = launchSpecificationStrings(group);
    if (strings.some((text) => referencesAddress(text, template.address))) return COMPLIANT;
    if (literalName !== undefined && strings.includes(literalName)) return COMPLIANT;
    const pointsAtKnownTemplate = (text: string) =>
      TEMPLATE_TYPES.some((type) => new RegExp(`(^|[^A-Za-z0-9_.-])${type}\\.`).test(text));
    if (strings.some((text) => isExpression(text) && !pointsAtKnownTemplate(text))) {
      someGroupUnattributed = true;
    }
  }
  const message =
    `${template.address} is not used by any aws_autoscaling_group in this stack, so its ` +
    'instances are not kept at the desired count. Reference it from an auto scaling group ' +
    `(launch_template { id = ${template.address}.id }) or remove it.`;
  // A group naming its template through a variable or local might be the user: warn only.
  return someGroupUnattributed ? nonCompliant(message, 'warning') : nonCompliant(message);
}

function checkGroupKeepsHealthyInstances(group: TerraformElementView): RuleResult {
  const problems: { message: string; severity?: FindingSeverity }[] = [];
  const minimum = literalNumber(group.attributes.min_size);
  if (minimum !== undefined && minimum < 1) {
    problems.push({
      message:
        `${group.address} min_size is ${minimum}: the group may keep no instance at all. ` +
        'Set min_size to at least 1 (2 for multi-AZ placement).',
    });
  }
  const targetGroups = listEntries(group.attributes.target_group_arns);
  const attachedToLoadBalancer = targetGroups !== undefined && targetGroups.length > 0;
  const healthCheckType = group.attributes.health_check_type;
  const healthCheck = literalString(healthCheckType) ?? (healthCheckType === undefined ? 'EC2' : undefined);
  if (attachedToLoadBalancer && healthCheck !== undefined && healthCheck !== 'ELB') {
    problems.push({
      severity: 'warning',
      message:
        `${group.address} serves a load balancer but health_check_type is ${healthCheck}: ` +
        'instances the load balancer finds unhealthy are not replaced. Set health_check_type = "ELB".',
    });
  }
  return combineProblems(problems, 'error');
}
