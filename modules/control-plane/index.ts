/**
 * `svc-prevent/control-plane`: the svc control plane construct, its props and error, the
 * parameter-file helper, and the constants its props, outputs and documentation refer to.
 *
 * A curated list, not `export *`: how props are resolved (`resolveControlPlaneProps`), the
 * service table and the boot script stay inside the package; api/ reports what semver covers
 * (help/releasing.md). See help/control-plane.md.
 */
export {
  ControlPlane,
  SENSOR_APP_PLACEHOLDER,
  STACK_NAME_TAG_KEY,
  sensorCommandLine,
  serviceHostname,
} from './control-plane';
export type { ControlPlaneService } from './service';
export type { PlanChecks } from './plan-checks';
export {
  API_KEY_VARIABLE_NAME,
  CONTROL_PLANE_PARAMETERS,
  DEFAULT_GATEWAY_HOSTNAME,
  DEFAULT_IMAGE_REPOSITORY,
  DEFAULT_INSTANCE_IMAGE_PARAMETER,
  DEFAULT_STACK_NAME,
  MAX_STACK_NAME_LENGTH,
  controlPlanePropsFromParameters,
  type ControlPlaneProps,
  type ParameterDefinition,
  type ParameterFile,
  type ParameterKind,
  type ParameterScope,
} from './props';
export {
  DEFAULT_CONTAINER_UID,
  LISTENER_TLS_POLICY,
  OTEL_COLLECTOR_INSTANCE_COUNT,
  type ContainerContract,
  type ContainerOverrides,
  type ServiceName,
} from './services';
export { ControlPlaneValidationError, type ControlPlaneValidationCode, type ControlPlaneValidationErrorDetails } from './errors';
export type { StackNameProblemCode } from '../stack-naming';
export { SvcConstructError, type SvcConstructErrorDetails } from '../construct-error';
