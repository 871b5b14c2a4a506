/**
 * Checks of the per-service container contract overrides (the ControlPlane's `containers` prop,
 * the app configuration's `containers`): one pure function both call, so a construct user and a
 * configuration user get the same refusals, naming `containers.<service>.<field>` and the value.
 * Several values land in the boot script unquoted or in a heredoc the shell expands (paths, the
 * env prefix, the health path): the patterns below admit only characters that stay inert there.
 * An unresolved token is left to terraform, like every other prop's.
 */
import { Token } from 'cdktf';
import type { ContainerContract, ServiceName } from './container-contract';
import type { NamesEveryField } from '../../src/field-names';
import { SERVICES } from './services';

/** The services a `containers` object may name. */
export const CONTAINER_SERVICE_NAMES = ['analyzer', 'sts', 'otel'] as const satisfies readonly ServiceName[];
true satisfies NamesEveryField<Record<ServiceName, unknown>, typeof CONTAINER_SERVICE_NAMES>;

/** The fields of one service's overrides, in the order an "unknown field" problem lists them. */
export const CONTAINER_FIELDS = ['port', 'extraPorts', 'protocolVersion', 'healthCheck', 'runAsUid', 'environmentPrefix', 'tlsDirectory', 'apiKeyFile'] as const satisfies readonly (keyof ContainerContract)[];
true satisfies NamesEveryField<ContainerContract, typeof CONTAINER_FIELDS>;

/** The fields of a health check override. */
export const HEALTH_CHECK_FIELDS = ['protocol', 'port', 'path', 'matcher'] as const satisfies readonly (keyof ContainerContract['healthCheck'])[];
true satisfies NamesEveryField<ContainerContract['healthCheck'], typeof HEALTH_CHECK_FIELDS>;

/** One wrong value of a `containers` object. */
export interface ContainerProblem {
  /** Where, from `containers` on: `containers.analyzer.healthCheck.path`. */
  readonly field: string;
  readonly value: unknown;
  /** False for an unknown field: its name says enough (and it may be anything). */
  readonly showValue: boolean;
  readonly problem: string;
  readonly fix: string;
}

/** The highest UID Linux gives (uid_t is 32 bits; 2^32 - 1 means "no user"). */
const MAX_UID = 4_294_967_294;
/** An absolute path of plain components: inert unquoted in the script, in a YAML heredoc and as a `-v` mount target. */
const CONTAINER_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._-]+)+$/;
/** Letters, digits and `_`, not starting with a digit (or nothing): environment variable names start with it. */
const ENVIRONMENT_PREFIX = /^(?:[A-Za-z_][A-Za-z0-9_]{0,63})?$/;
/** A health check path as the load balancer takes it (1024 characters at most), without shell-active characters. */
const HEALTH_CHECK_PATH = /^\/[A-Za-z0-9._~/?=&%:,+@-]{0,1023}$/;
/** Codes, ranges and lists of them: `200`, `200,202`, `200-299`. */
const MATCHER = /^\d{1,3}(?:-\d{1,3})?(?:,\d{1,3}(?:-\d{1,3})?)*$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !Token.isUnresolved(value);
const isPort = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;

/** Every problem of a `containers` value; none for a valid one (or for undefined: nothing overridden). */
export function containerOverrideProblems(containers: unknown): ContainerProblem[] {
  const problems: ContainerProblem[] = [];
  const add = (field: string, value: unknown, problem: string, fix: string, showValue = true) => problems.push({ field, value, showValue, problem, fix });
  if (containers === undefined || Token.isUnresolved(containers)) return problems;
  if (!isPlainObject(containers)) {
    add('containers', containers, 'is not an object', `give an object keyed by service, e.g. {"otel": {"runAsUid": 10001}}`);
    return problems;
  }
  const services: readonly string[] = CONTAINER_SERVICE_NAMES;
  for (const [service, overrides] of Object.entries(containers)) {
    const at = `containers.${service}`;
    if (!services.includes(service)) {
      add(at, overrides, 'unknown field', `expected one of ${services.join(', ')}`, false);
    } else if (overrides !== undefined) {
      serviceProblems(service as ServiceName, overrides, add);
    }
  }
  return problems;
}

type Add = (field: string, value: unknown, problem: string, fix: string, showValue?: boolean) => void;

function serviceProblems(service: ServiceName, overrides: unknown, add: Add): void {
  const at = `containers.${service}`;
  if (!isPlainObject(overrides)) {
    add(at, overrides, 'is not an object', `give the fields to override, e.g. {"port": 8443}; the rest keep their defaults`);
    return;
  }
  const fields: readonly string[] = CONTAINER_FIELDS;
  for (const [field, value] of Object.entries(overrides)) {
    const path = `${at}.${field}`;
    if (!fields.includes(field)) {
      add(path, value, 'unknown field', `expected one of ${fields.join(', ')}`, false);
      continue;
    }
    if (value === undefined || Token.isUnresolved(value)) continue;
    switch (field as (typeof CONTAINER_FIELDS)[number]) {
      case 'port':
        if (!isPort(value)) add(path, value, 'is not a port', 'give a whole number from 1 to 65535, e.g. 8443');
        break;
      case 'extraPorts':
        if (!Array.isArray(value)) add(path, value, 'is not a list of ports', 'give a list of whole numbers from 1 to 65535, e.g. [13133], or [] for none');
        else value.forEach((port, index) => {
          if (!Token.isUnresolved(port) && !isPort(port)) add(`${path}[${index}]`, port, 'is not a port', 'give a whole number from 1 to 65535');
        });
        break;
      case 'protocolVersion':
        if (value !== 'GRPC' && value !== 'HTTP1') add(path, value, 'is neither GRPC nor HTTP1', 'write GRPC for a gRPC service, HTTP1 otherwise');
        break;
      case 'healthCheck':
        healthCheckProblems(path, value, protocolVersionOf(service, overrides.protocolVersion), add);
        break;
      case 'runAsUid':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_UID) add(path, value, 'is not a UID', "give the image's user as a number, e.g. 10001 (docker image inspect shows it as Config.User)");
        break;
      case 'environmentPrefix':
        if (typeof value !== 'string' || !ENVIRONMENT_PREFIX.test(value)) add(path, value, 'is not a prefix of environment variable names', 'use letters, digits and _, not starting with a digit, e.g. SVC_ (or "" for none)');
        break;
      case 'tlsDirectory':
      case 'apiKeyFile':
        if (typeof value !== 'string' || !CONTAINER_PATH.test(value)) add(path, value, 'is not an absolute path in the container', 'give a path such as /etc/svc/tls: components of letters, digits, . _ -, no . or .. component');
        break;
    }
  }
}

/** The target group's protocol version: the override's when it is a valid one, else the service's default. */
function protocolVersionOf(service: ServiceName, override: unknown): ContainerContract['protocolVersion'] {
  if (override === 'GRPC' || override === 'HTTP1') return override;
  return SERVICES.find((definition) => definition.name === service)!.protocolVersion;
}

function healthCheckProblems(at: string, healthCheck: unknown, protocolVersion: ContainerContract['protocolVersion'], add: Add): void {
  if (!isPlainObject(healthCheck)) {
    add(at, healthCheck, 'is not an object', 'give the fields to override, e.g. {"path": "/ready"}; the rest keep their defaults');
    return;
  }
  const fields: readonly string[] = HEALTH_CHECK_FIELDS;
  for (const [field, value] of Object.entries(healthCheck)) {
    const path = `${at}.${field}`;
    if (!fields.includes(field)) {
      add(path, value, 'unknown field', `expected one of ${fields.join(', ')}`, false);
      continue;
    }
    if (value === undefined || Token.isUnresolved(value)) continue;
    switch (field as (typeof HEALTH_CHECK_FIELDS)[number]) {
      case 'protocol':
        if (value !== 'HTTPS' && value !== 'HTTP') add(path, value, 'is neither HTTPS nor HTTP', 'write HTTPS (the default: the containers serve TLS) or HTTP');
        break;
      case 'port':
        if (value !== 'traffic-port' && !(typeof value === 'string' && /^\d{1,5}$/.test(value) && isPort(Number(value)))) {
          add(path, value, 'is neither traffic-port nor a port', 'write "traffic-port" (the service port) or a port as a string, e.g. "13133"');
        }
        break;
      case 'path':
        if (typeof value !== 'string' || !HEALTH_CHECK_PATH.test(value)) add(path, value, 'is not a health check path', 'give a path starting with /, up to 1024 characters of letters, digits and . _ ~ / ? = & % : , + @ -, e.g. /health');
        break;
      case 'matcher':
        matcherProblems(path, value, protocolVersion, add);
        break;
    }
  }
}

/** The load balancer takes HTTP codes 200-499 and, for a GRPC target group, gRPC codes 0-99. */
function matcherProblems(at: string, matcher: unknown, protocolVersion: ContainerContract['protocolVersion'], add: Add): void {
  const [low, high, kind] = protocolVersion === 'GRPC' ? [0, 99, 'gRPC codes 0-99 (the service is GRPC)'] : [200, 499, 'HTTP codes 200-499'];
  const codes = typeof matcher === 'string' && MATCHER.test(matcher) ? matcher.split(/[,-]/).map(Number) : undefined;
  if (codes === undefined || codes.some((code) => code < low || code > high)) {
    add(at, matcher, 'is not a success code matcher', `give ${kind}: one, a list or a range, e.g. ${protocolVersion === 'GRPC' ? '"0" or "0-2"' : '"200", "200,202" or "200-299"'}`);
  }
}
