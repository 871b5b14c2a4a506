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

export type ServiceName = 'analyzer' | 'sts' | 'otel';

/** The OTEL collector has no desired-count parameter in the template; two keeps it in two zones. */
export const OTEL_COLLECTOR_INSTANCE_COUNT = 2;

/** TLS 1.3 with TLS 1.2 fallback: the newest predefined ALB policy without TLS 1.0/1.1. */
export const LISTENER_TLS_POLICY = 'ELBSecurityPolicy-TLS13-1-2-2021-06';

export interface ServiceDefinition {
  /** Construct id, resource-name suffix, DNS label and parameter-store scope. */
  readonly name: ServiceName & ParameterScope;
  readonly title: string;
  /** Image name under the image repository. */
  readonly imageName: string;
  /** Port the container listens on (TLS), and the listener port on the load balancer. */
  readonly port: number;
  /** Target group protocol version: GRPC for the analyzer, HTTP1 for the others. */
  readonly protocolVersion: 'GRPC' | 'HTTP1';
  readonly healthCheck: { readonly port: string; readonly path: string; readonly matcher: string };
  /** Extra container ports besides `port` (health endpoints). */
  readonly extraPorts: readonly number[];
  /** Whether the service reads the API key secret at boot. */
  readonly readsApiKey: boolean;
  readonly desiredCount: (props: ResolvedControlPlaneProps) => number;
  readonly instanceType: (props: ResolvedControlPlaneProps) => string;
  readonly imageTag: (props: ResolvedControlPlaneProps) => string;
}

export const SERVICES: readonly ServiceDefinition[] = [
  {
    name: 'analyzer',
    title: 'Runtime Analyzer',
    imageName: 'runtime-analyzer',
    port: 50051,
    protocolVersion: 'GRPC',
    // The standard gRPC health service; gRPC status 0 is OK.
    healthCheck: { port: 'traffic-port', path: '/grpc.health.v1.Health/Check', matcher: '0' },
    extraPorts: [],
    readsApiKey: true,
    desiredCount: (props) => props.analyzerDesiredCount,
    instanceType: (props) => props.analyzerInstanceType,
    imageTag: (props) => props.analyzerImageTag,
  },
  {
    name: 'sts',
    title: 'Scan Template Service',
    imageName: 'scan-template-service',
    port: 443,
    protocolVersion: 'HTTP1',
    healthCheck: { port: 'traffic-port', path: '/health', matcher: '200' },
    extraPorts: [],
    readsApiKey: false,
    desiredCount: (props) => props.scanTemplateServiceDesiredCount,
    instanceType: (props) => props.scanTemplateServiceInstanceType,
    imageTag: (props) => props.scanTemplateServiceImageTag,
  },
  {
    name: 'otel',
    title: 'OTEL Collector',
    imageName: 'otel-collector',
    port: 4318,
    protocolVersion: 'HTTP1',
    healthCheck: { port: '13133', path: '/', matcher: '200' },
    extraPorts: [13133],
    // It authenticates its export to the vendor gateway with the API key.
    readsApiKey: true,
    desiredCount: () => OTEL_COLLECTOR_INSTANCE_COUNT,
    instanceType: (props) => props.otelCollectorInstanceType,
    imageTag: (props) => props.otelCollectorImageTag,
  },
];
