/**
 * The container contract of a control plane service: what the spec does not show about how a
 * service's image is run and reached. Imports nothing, so props and services can both use it.
 */

export type ServiceName = 'analyzer' | 'sts' | 'otel';

/**
 * UID the stand-in images are assumed to run as: the upstream OpenTelemetry Collector images'
 * user. The spec does not show the vendor images' users; set `runAsUid` per service to theirs.
 */
export const DEFAULT_CONTAINER_UID = 10001;

/**
 * How a service's container is run and reached: ports, health check, the UID it runs as and
 * where it finds its files. The spec shows none of it; the defaults in SERVICES are our
 * assumptions (help/control-plane.md lists them), each overridable per service through the
 * ControlPlane's `containers` prop.
 */
export interface ContainerContract {
  /** Port the container serves on over TLS; also the load balancer's listener port. */
  readonly port: number;
  /** Further container ports published on the host (health endpoints). */
  readonly extraPorts: readonly number[];
  /** Target group protocol version: GRPC for a gRPC service, HTTP1 otherwise. */
  readonly protocolVersion: 'GRPC' | 'HTTP1';
  /** How the load balancer checks a target: protocol, port (`traffic-port` or a number), path, success codes. */
  readonly healthCheck: {
    readonly protocol: 'HTTPS' | 'HTTP';
    readonly port: string;
    readonly path: string;
    readonly matcher: string;
  };
  /**
   * UID the image runs as. The files the container reads (certificate, key, API key file,
   * configuration) are owned by it and readable by nobody else but root.
   */
  readonly runAsUid: number;
  /** Prefix of the variable names of the env file (`<prefix><PARAMETER_NAME>=value`). */
  readonly environmentPrefix: string;
  /** Directory in the container holding `tls.crt` and `tls.key` (mounted read-only). */
  readonly tlsDirectory: string;
  /** Path in the container of the API key file (services that read the key); its path is in `<prefix>API_KEY_FILE`. */
  readonly apiKeyFile: string;
}

/** Per-service overrides of the container contract; what is left out keeps its default. */
export type ContainerOverrides = {
  readonly [Key in keyof ContainerContract]?: Key extends 'healthCheck' ? Partial<ContainerContract['healthCheck']> : ContainerContract[Key];
};

