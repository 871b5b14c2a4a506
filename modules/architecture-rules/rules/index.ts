/** The rule pack: spec architectural rules 1-6, in order. Ids are stable; never renumber. */
import { ArchitectureRule } from '../findings';
import { checkMultiAzPlacement } from './multi-az';
import { checkAutoScalingGroups } from './auto-scaling';
import { checkPrivatePlacement } from './private-placement';
import { checkTlsListeners } from './tls-listeners';
import { checkSensorConnectivity } from './sensor-connectivity';
import { checkScannerIngressGuidance } from './scanner-ingress';

export { checkMultiAzPlacement } from './multi-az';
export { checkAutoScalingGroups } from './auto-scaling';
export { checkPrivatePlacement } from './private-placement';
export { checkTlsListeners, isTls12OrLaterPolicy } from './tls-listeners';
export { checkSensorConnectivity } from './sensor-connectivity';
export { checkScannerIngressGuidance } from './scanner-ingress';

/** SVC-ARCH-1 (spec rule 1, error): auto scaling groups and load balancers span at least 2 subnets in 2 availability zones. */
export const MULTI_AZ_PLACEMENT: ArchitectureRule = {
  id: 'SVC-ARCH-1',
  specRule: 1,
  title: 'multi-AZ placement',
  severity: 'error',
  evaluate: checkMultiAzPlacement,
};

/** SVC-ARCH-2 (spec rule 2, error): every instance runs from a launch template in an auto scaling group with ELB health checks. */
export const AUTO_SCALING_GROUPS: ArchitectureRule = {
  id: 'SVC-ARCH-2',
  specRule: 2,
  title: 'instances in auto scaling groups',
  severity: 'error',
  evaluate: checkAutoScalingGroups,
};

/** SVC-ARCH-3 (spec rule 3, error): internal load balancers, no public IP addresses, no ingress from anywhere (`/0`). */
export const PRIVATE_PLACEMENT: ArchitectureRule = {
  id: 'SVC-ARCH-3',
  specRule: 3,
  title: 'private placement, no public exposure',
  severity: 'error',
  evaluate: checkPrivatePlacement,
};

/** SVC-ARCH-4 (spec rule 4, error): listeners are HTTPS or TLS, with an ACM certificate and a TLS 1.2+ policy. */
export const TLS_LISTENERS: ArchitectureRule = {
  id: 'SVC-ARCH-4',
  specRule: 4,
  title: 'TLS-only listeners with ACM certificates',
  severity: 'error',
  evaluate: checkTlsListeners,
};

/** SVC-ARCH-5 (spec rule 5, warning): sensor ranges outside the VPC need peering or a transit gateway. */
export const SENSOR_CONNECTIVITY: ArchitectureRule = {
  id: 'SVC-ARCH-5',
  specRule: 5,
  title: 'cross-VPC sensor connectivity',
  severity: 'warning',
  evaluate: checkSensorConnectivity,
};

/** SVC-ARCH-6 (spec rule 6, info): how to admit the Scan Template Service to the endpoints it scans. */
export const SCANNER_INGRESS: ArchitectureRule = {
  id: 'SVC-ARCH-6',
  specRule: 6,
  title: 'scanner ingress guidance',
  severity: 'info',
  evaluate: checkScannerIngressGuidance,
};

/** The whole pack, spec rules 1-6 in order: the default of `ArchitectureRulesProps.rules`. */
export const ARCHITECTURE_RULES: readonly ArchitectureRule[] = [
  MULTI_AZ_PLACEMENT,
  AUTO_SCALING_GROUPS,
  PRIVATE_PLACEMENT,
  TLS_LISTENERS,
  SENSOR_CONNECTIVITY,
  SCANNER_INGRESS,
];
