/**
 * Spec rule 6: security groups may need to allow ingress from the Scan Template Service to
 * the endpoints that are to be scanned. Nothing to enforce at synth; the rule attaches the
 * guidance to the scanner's security group so it shows up in `cdktf synth` output.
 */
import { IConstruct } from 'constructs';
import { NOT_APPLICABLE, RuleContext, RuleResult, nonCompliant } from '../findings';

export function checkScannerIngressGuidance(node: IConstruct, context: RuleContext): RuleResult {
  if (!context.options.scannerSecurityGroups.includes(node)) return NOT_APPLICABLE;
  const view = context.inventory.view(node);
  if (!view || view.type !== 'aws_security_group') {
    return nonCompliant(
      `${node.node.path} is listed in scannerSecurityGroups but is ${view ? view.address : 'not a Terraform element'}; ` +
        'list the Scan Template Service aws_security_group instead.',
      'error',
    );
  }
  return nonCompliant(
    `${view.address} is the Scan Template Service's security group. For each endpoint to be ` +
      `scanned, allow ingress from this group (${view.address}.id, the scanner security group ` +
      "output of ControlPlane) on the endpoint's own security group, for the ports it serves; " +
      'the scan fails or sees nothing where that ingress is missing.',
  );
}
