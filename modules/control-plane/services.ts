/**
 * The three control plane services and the facts the construct needs about each: where they
 * listen, how the load balancer reaches and health-checks them, which props size them.
 *
 * Known from the vendor's public material: sensors reach the analyzer over TLS gRPC on 50051,
 * the analyzer reaches the scan template service over TLS on 443. Our choice for the OTEL
 * collector: OTLP over HTTPS on 4318 (the OTLP/HTTP port), health on the collector's
 * health-check extension (13133), which the boot script also serves over TLS, because the
 * target group checks over HTTPS like the traffic it forwards.
 */
import type { ParameterScope, ResolvedControlPlaneProps } from './props';
import { DEFAULT_CONTAINER_UID, type ContainerContract, type ContainerOverrides, type ServiceName } from './container-contract';

// The contract's types live apart so that props.ts can name them without importing this module.
export { DEFAULT_CONTAINER_UID, type ContainerContract, type ContainerOverrides, type ServiceName } from './container-contract';


/** The OTEL collector has no desired-count parameter in the template; two keeps it in two zones. */
export const OTEL_COLLECTOR_INSTANCE_COUNT = 2;

/** TLS 1.3 with TLS 1.2 fallback: the newest predefined ALB policy without TLS 1.0/1.1. */
export const LISTENER_TLS_POLICY = 'ELBSecurityPolicy-TLS13-1-2-2021-06';

export interface ServiceDefinition extends ContainerContract {
  /** Construct id, resource-name suffix, DNS label and parameter-store scope. */
  readonly name: ServiceName & ParameterScope;
  readonly title: string;
  /** Image name under the image repository. */
  readonly imageName: string;
  /** Whether the service reads the API key secret at boot. */
  readonly readsApiKey: boolean;
  readonly desiredCount: (props: ResolvedControlPlaneProps) => number;
  readonly instanceType: (props: ResolvedControlPlaneProps) => string;
  readonly imageTag: (props: ResolvedControlPlaneProps) => string;
  /** The per-service image override (without tag), if given. */
  readonly imageOverride: (props: ResolvedControlPlaneProps) => string | undefined;
}

/** The image a service runs: its override, else `<imageRepository>/<imageName>`, with its tag. */
export function serviceImage(service: ServiceDefinition, props: ResolvedControlPlaneProps): string {
  return `${service.imageOverride(props) ?? `${props.imageRepository}/${service.imageName}`}:${service.imageTag(props)}`;
}

/** Where the containers find their files, and whom they run as: the same for every service. */
const FILE_DEFAULTS = {
  runAsUid: DEFAULT_CONTAINER_UID,
  environmentPrefix: 'SVC_',
  tlsDirectory: '/etc/svc/tls',
  apiKeyFile: '/run/secrets/svc-api-key',
} as const;

export const SERVICES: readonly ServiceDefinition[] = [
  {
    name: 'analyzer',
    title: 'Runtime Analyzer',
    imageName: 'runtime-analyzer',
    port: 50051,
    protocolVersion: 'GRPC',
    // The standard gRPC health service; gRPC status 0 is OK.
    healthCheck: { protocol: 'HTTPS', port: 'traffic-port', path: '/grpc.health.v1.Health/Check', matcher: '0' },
    extraPorts: [],
    ...FILE_DEFAULTS,
    readsApiKey: true,
    desiredCount: (props) => props.analyzerDesiredCount,
    instanceType: (props) => props.analyzerInstanceType,
    imageTag: (props) => props.analyzerImageTag,
    imageOverride: (props) => props.analyzerImage,
  },
  {
    name: 'sts',
    title: 'Scan Template Service',
    imageName: 'scan-template-service',
    port: 443,
    protocolVersion: 'HTTP1',
    healthCheck: { protocol: 'HTTPS', port: 'traffic-port', path: '/health', matcher: '200' },
    extraPorts: [],
    ...FILE_DEFAULTS,
    readsApiKey: false,
    desiredCount: (props) => props.scanTemplateServiceDesiredCount,
    instanceType: (props) => props.scanTemplateServiceInstanceType,
    imageTag: (props) => props.scanTemplateServiceImageTag,
    imageOverride: (props) => props.scanTemplateServiceImage,
  },
  {
    name: 'otel',
    title: 'OTEL Collector',
    imageName: 'otel-collector',
    port: 4318,
    protocolVersion: 'HTTP1',
    healthCheck: { protocol: 'HTTPS', port: '13133', path: '/', matcher: '200' },
    extraPorts: [13133],
    // It authenticates its export to the vendor gateway with the API key.
    ...FILE_DEFAULTS,
    readsApiKey: true,
    desiredCount: () => OTEL_COLLECTOR_INSTANCE_COUNT,
    instanceType: (props) => props.otelCollectorInstanceType,
    imageTag: (props) => props.otelCollectorImageTag,
    imageOverride: (props) => props.otelCollectorImage,
  },
];

/** The services with a ControlPlane's container overrides applied. */
export function resolveServices(overrides: Partial<Record<ServiceName, ContainerOverrides>> = {}): ServiceDefinition[] {
  return SERVICES.map((service) => {
    const override = overrides[service.name] ?? {};
    const defined = Object.fromEntries(Object.entries(override).filter(([, value]) => value !== undefined));
    return { ...service, ...defined, healthCheck: { ...service.healthCheck, ...(override.healthCheck ?? {}) } } as ServiceDefinition;
  });
}
