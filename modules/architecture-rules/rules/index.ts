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

export const MULTI_AZ_PLACEMENT: ArchitectureRule = {
  id: 'SVC-ARCH-1',
  specRule: 1,
  title: 'multi-AZ placement',
  severity: 'error',
  evaluate: checkMultiAzPlacement,
};

export const AUTO_SCALING_GROUPS: ArchitectureRule = {
  id: 'SVC-ARCH-2',
  specRule: 2,
  title: 'instances in auto scaling groups',
  severity: 'error',
  evaluate: checkAutoScalingGroups,
};

export const PRIVATE_PLACEMENT: ArchitectureRule = {
  id: 'SVC-ARCH-3',
  specRule: 3,
  title: 'private placement, no public exposure',
  severity: 'error',
  evaluate: checkPrivatePlacement,
};

export const TLS_LISTENERS: ArchitectureRule = {
  id: 'SVC-ARCH-4',
  specRule: 4,
  title: 'TLS-only listeners with ACM certificates',
  severity: 'error',
  evaluate: checkTlsListeners,
};

export const SENSOR_CONNECTIVITY: ArchitectureRule = {
  id: 'SVC-ARCH-5',
  specRule: 5,
  title: 'cross-VPC sensor connectivity',
  severity: 'warning',
  evaluate: checkSensorConnectivity,
};

export const SCANNER_INGRESS: ArchitectureRule = {
  id: 'SVC-ARCH-6',
  specRule: 6,
  title: 'scanner ingress guidance',
  severity: 'info',
  evaluate: checkScannerIngressGuidance,
};

export const ARCHITECTURE_RULES: readonly ArchitectureRule[] = [
  MULTI_AZ_PLACEMENT,
  AUTO_SCALING_GROUPS,
  PRIVATE_PLACEMENT,
  TLS_LISTENERS,
  SENSOR_CONNECTIVITY,
  SCANNER_INGRESS,
];
