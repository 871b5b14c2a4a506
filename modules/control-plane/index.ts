/** The svc control plane construct: props, construct, errors and the helpers users call. */
export * from './errors';
export { SvcConstructError, type SvcConstructErrorDetails } from '../construct-error';
export * from './props';
export * from './services';
export {
  ControlPlane,
  STACK_NAME_TAG_KEY,
  SENSOR_APP_PLACEHOLDER,
  sensorCommandLine,
  serviceHostname,
} from './control-plane';
export { ControlPlaneService } from './service';
export type { PlanChecks } from './plan-checks';
