/**
 * The svc control plane as a CDKTF construct: what the vendor ships as a stack template.
 *
 * Construct IDs below are a public contract: in cdktf an ID is part of the Terraform resource
 * address, so renaming one destroys and re-creates that resource. Add, never rename.
 */
import { Construct } from 'constructs';
import { Aspects, DataResource, Fn, Op, TerraformIterator, TerraformOutput, TerraformVariable, Token } from 'cdktf';
import { AcmCertificate } from '@cdktf/provider-aws/lib/acm-certificate';
import { AcmCertificateValidation } from '@cdktf/provider-aws/lib/acm-certificate-validation';
import { DataAwsCallerIdentity } from '@cdktf/provider-aws/lib/data-aws-caller-identity';
import { DataAwsPartition } from '@cdktf/provider-aws/lib/data-aws-partition';
import { DataAwsSsmParameter } from '@cdktf/provider-aws/lib/data-aws-ssm-parameter';
import { Lb } from '@cdktf/provider-aws/lib/lb';
import { Route53Record } from '@cdktf/provider-aws/lib/route53-record';
import { SecretsmanagerSecret } from '@cdktf/provider-aws/lib/secretsmanager-secret';
import { SecretsmanagerSecretVersion } from '@cdktf/provider-aws/lib/secretsmanager-secret-version';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { SsmParameter } from '@cdktf/provider-aws/lib/ssm-parameter';
import { ArchitectureRules } from '../architecture-rules';
import { useAwsProvider } from '../aws-provider';
import { claimStackNames, duplicateElementNames, isDirectlyInStack, pathBelowStack, scopedName, type StackNameClash } from '../output-names';
import { DEFAULT_STACK_NAME, STACK_NAME_TAG_KEY, serviceHostname } from '../stack-naming';
import { ControlPlaneValidationError } from './errors';
import { addPlanChecks, type PlanChecks } from './plan-checks';
import {
  API_KEY_VARIABLE_NAME,
  CONTROL_PLANE_PARAMETERS,
  resolveControlPlaneProps,
  type ControlPlaneProps,
  type ResolvedControlPlaneProps,
} from './props';
import { ControlPlaneService } from './service';
import { resolveServices, type ServiceName } from './services';
import { MAX_CERTIFICATE_DOMAIN_NAME_LENGTH, securityGroupCidrs, validateControlPlaneProps } from './validation';

// Shared with the deployment policy and the sensor script; re-exported for users of this module.
export { STACK_NAME_TAG_KEY, serviceHostname } from '../stack-naming';

/** The part of a sensor command line the user fills in: the application container name. */
export const SENSOR_APP_PLACEHOLDER = '<APP>';

function shellWord(value: string): string {
  return /^[A-Za-z0-9._@%+=:,/-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `run-svc-sensor.sh` invocation for a stack; `-s` only when the stack name is not the default. */
export function sensorCommandLine(tenantId: string, hostedZoneName: string, stackName: string): string {
  const parts = ['run-svc-sensor.sh', '-n', shellWord(tenantId), '-d', shellWord(hostedZoneName), '-a', SENSOR_APP_PLACEHOLDER];
  if (stackName !== DEFAULT_STACK_NAME) parts.push('-s', shellWord(stackName));
  return parts.join(' ');
}

function normalizeZoneName(name: string): string {
  return Token.isUnresolved(name) ? name : name.toLowerCase().replace(/\.$/, '');
}

/**
 * The svc control plane (the vendor's stack template as a construct): the Runtime Analyzer, the
 * Scan Template Service and the OTEL Collector, each on its own auto scaling group behind one
 * internal HTTPS load balancer, with the certificate, DNS records, parameters, the API key in
 * Secrets Manager and the plan-time checks of the spec's prerequisites. Wrong props raise one
 * ControlPlaneValidationError listing every one, at construction.
 *
 * Several control planes may share a stack when each has its own `stackName` (every AWS name
 * starts with it) and, below the stack, its own path (outputs and the API key variable are named
 * after it); a clash is refused at construction. See help/control-plane.md.
 */
export class ControlPlane extends Construct {
  /** The stack name every resource name, tag and parameter path starts with (`SvcPrevent` by default). */
  readonly stackName: string;
  /** The hosted zone's name, lower case without the trailing dot (a token stays as given). */
  readonly hostedZoneName: string;
  /**
   * The Terraform variable that carries the API key: the one given as `apiKey`, or the one the
   * construct created (`api_key`, or `<path>_api_key` below another construct); undefined when
   * `apiKey` was a string token.
   */
  readonly apiKeyVariable: TerraformVariable | undefined;
  /** The Secrets Manager secret the services read the API key from (`<stackName>/api-key`). */
  readonly apiKeySecret: SecretsmanagerSecret;
  /** The internal application load balancer in front of the three services. */
  readonly loadBalancer: Lb;
  /** The load balancer's security group: HTTPS from the VPC and the sensor ranges. */
  readonly loadBalancerSecurityGroup: SecurityGroup;
  /** The certificate for the three service names, DNS-validated in the hosted zone. */
  readonly certificate: AcmCertificate;
  /** The data sources whose conditions check the spec's prerequisites at plan. */
  readonly planChecks: PlanChecks;
  /** The three services by name: `analyzer`, `sts`, `otel`. */
  readonly services: Readonly<Record<ServiceName, ControlPlaneService>>;
  /** The parameter-store parameters the services read at boot (`/<stackName>/<scope>/<name>`). */
  readonly parameters: readonly SsmParameter[];
  /** The sensor command line for this stack, with `<APP>` for the application container. */
  readonly sensorCommand: string;
  /** The names of the Terraform outputs this construct declared (empty with `outputs: false`). */
  readonly outputNames: readonly string[];

  /** Throws ControlPlaneValidationError for wrong props (all of them at once) and for names another construct of the stack holds. */
  constructor(scope: Construct, id: string, props: ControlPlaneProps) {
    super(scope, id);
    const resolved = resolveControlPlaneProps(props);
    validateControlPlaneProps(this.node.path, resolved);
    this.stackName = resolved.stackName;
    // IAM roles, instance profiles, the load balancer, parameters and the secret are named after
    // the stack name: a second control plane with it in this stack would fail at apply.
    this.refuseClash(
      claimStackNames(this, 'resource name', [`control plane ${this.stackName}`]),
      'stackName',
      this.stackName,
      'give each control plane of a stack its own stackName (every AWS name of a control plane starts with it)',
    );
    this.hostedZoneName = normalizeZoneName(resolved.hostedZoneName);
    const tags = (name: string): Record<string, string> => ({ Name: name, [STACK_NAME_TAG_KEY]: this.stackName });

    this.planChecks = addPlanChecks(this, {
      vpcId: resolved.vpcId,
      subnetIds: resolved.subnetIds,
      hostedZoneId: resolved.hostedZoneId,
      hostedZoneName: this.hostedZoneName,
      keyName: resolved.keyName,
      customerManagedEbsKeyGranted: resolved.customerManagedEbsKeyGranted,
    });
    const partition = new DataAwsPartition(this, 'partition', {});
    const callerIdentity = new DataAwsCallerIdentity(this, 'caller-identity', {});
    const imageId = this.instanceImageId(resolved);

    // ---- the API key: sensitive, ephemeral variable (or the caller's token) -> write-only secret argument ----
    const apiKey = resolved.apiKey ?? this.createApiKeyVariable();
    this.apiKeyVariable = typeof apiKey === 'string' ? undefined : apiKey;
    if (this.apiKeyVariable !== undefined) this.requireEphemeralSecret(this.apiKeyVariable);
    const secretName = `${this.stackName}/api-key`;
    this.apiKeySecret = new SecretsmanagerSecret(this, 'api-key-secret', {
      name: secretName,
      description: `svc API key of control plane ${this.stackName}`,
      // Deleted at once on destroy: a secret waiting out a recovery window keeps its name, so
      // a control plane re-created under the same stack name would fail for up to 30 days.
      // Nothing is lost: the key lives with the vendor and comes in through TF_VAR_api_key.
      recoveryWindowInDays: 0,
      tags: tags(secretName),
    });
    const apiKeySecretVersion = new SecretsmanagerSecretVersion(this, 'api-key-secret-version', {
      secretId: this.apiKeySecret.id,
      secretStringWo: typeof apiKey === 'string' ? apiKey : apiKey.stringValue,
      secretStringWoVersion: resolved.apiKeyVersion,
    });

    this.parameters = this.createParameters(resolved, tags);

    // ---- load balancer: internal, HTTPS only ----
    // A literal range is written with its prefix length, as security groups need it.
    const vpcCidr = resolved.vpcCidr === undefined ? this.planChecks.vpc.cidrBlock : securityGroupCidrs([resolved.vpcCidr]).ipv4[0];
    // A sensor list from a variable is one token: Terraform appends it to the VPC range at plan.
    const clientCidrs = Token.isUnresolved(resolved.sensorCidrs)
      ? { ipv4: Token.asList(Fn.concat([[vpcCidr], resolved.sensorCidrs as string[]])), ipv6: [] }
      : securityGroupCidrs([vpcCidr, ...resolved.sensorCidrs]);
    // The services with the container contract this control plane was given.
    const serviceDefinitions = resolveServices(resolved.containers);
    const listenerPorts = serviceDefinitions.map((service) => service.port);
    const lbName = `${this.stackName}-lb`;
    this.loadBalancerSecurityGroup = new SecurityGroup(this, 'load-balancer-security-group', {
      name: lbName,
      description: `Load balancer of control plane ${this.stackName}: HTTPS from the VPC and the sensor ranges`,
      vpcId: resolved.vpcId,
      ingress: listenerPorts.map((port) => ({
        description: `HTTPS ${port} from the VPC and sensors`,
        protocol: 'tcp',
        fromPort: port,
        toPort: port,
        cidrBlocks: clientCidrs.ipv4,
        ipv6CidrBlocks: clientCidrs.ipv6,
      })),
      // No inline egress: each service adds a rule to its own security group (service.ts), so
      // instances in any range of the VPC are reached and nothing else is.
      tags: tags(lbName),
    });
    this.loadBalancer = new Lb(this, 'load-balancer', {
      name: lbName,
      internal: true,
      loadBalancerType: 'application',
      subnets: resolved.subnetIds as string[],
      securityGroups: [this.loadBalancerSecurityGroup.id],
      dropInvalidHeaderFields: true,
      tags: tags(lbName),
    });

    // ---- certificate for the three names, DNS-validated in the hosted zone ----
    const hostnames = serviceDefinitions.map((service) => serviceHostname(service.name, this.stackName, this.hostedZoneName));
    this.certificate = new AcmCertificate(this, 'certificate', {
      domainName: hostnames[0],
      subjectAlternativeNames: hostnames.slice(1),
      validationMethod: 'DNS',
      lifecycle: {
        createBeforeDestroy: true,
        // A literal name is checked at synth; a zone name given as a variable here, at plan.
        ...(Token.isUnresolved(hostnames[0])
          ? {
              precondition: [
                {
                  condition: Token.asString(Op.lte(Fn.lengthOf(hostnames[0]), MAX_CERTIFICATE_DOMAIN_NAME_LENGTH)),
                  errorMessage: `HostedZoneName: the certificate name ${hostnames[0]} is longer than ${MAX_CERTIFICATE_DOMAIN_NAME_LENGTH} characters, which ACM refuses. Use a shorter zone (a delegated subzone) or a shorter stack name.`,
                },
              ],
            }
          : {}),
      },
      tags: tags(`${this.stackName}-certificate`),
    });
    // Keyed by the names known at synth, not by the certificate's computed options, so the
    // set of records is known at plan even before the certificate exists.
    const validatedNames = TerraformIterator.fromList(hostnames);
    const optionFor = (attribute: string) =>
      `\${{ for option in ${this.certificate.fqn}.domain_validation_options : option.domain_name => option }[each.value].${attribute}}`;
    const validationRecords = new Route53Record(this, 'certificate-validation-record', {
      forEach: validatedNames,
      zoneId: this.planChecks.hostedZone.zoneId,
      name: optionFor('resource_record_name'),
      type: optionFor('resource_record_type'),
      records: [optionFor('resource_record_value')],
      ttl: 60,
      allowOverwrite: true,
    });
    const certificateValidation = new AcmCertificateValidation(this, 'certificate-validation', {
      certificateArn: this.certificate.arn,
      validationRecordFqdns: Token.asList(TerraformIterator.fromResources(validationRecords).pluckProperty('fqdn')),
    });

    // ---- the three services ----
    const services: Partial<Record<ServiceName, ControlPlaneService>> = {};
    for (const service of serviceDefinitions) {
      services[service.name] = new ControlPlaneService(this, service.name, {
        service,
        props: resolved,
        stackName: this.stackName,
        hostname: serviceHostname(service.name, this.stackName, this.hostedZoneName),
        loadBalancer: this.loadBalancer,
        loadBalancerSecurityGroupId: this.loadBalancerSecurityGroup.id,
        certificateArn: certificateValidation.certificateArn,
        hostedZoneId: this.planChecks.hostedZone.zoneId,
        vpcCidr,
        imageId,
        apiKeySecret: this.apiKeySecret,
        apiKeySecretName: secretName,
        bootDependencies: [apiKeySecretVersion, ...this.parameters],
        partition: partition.partition,
        accountId: callerIdentity.accountId,
        tags,
      });
    }
    this.services = services as Record<ServiceName, ControlPlaneService>;

    // ---- outputs ----
    this.sensorCommand = sensorCommandLine(resolved.tenantId, this.hostedZoneName, this.stackName);
    this.outputNames = resolved.outputs ? this.createOutputs(serviceDefinitions) : [];

    // Architectural rules 1-6 of the spec, checked at synth over this construct's resources.
    if (resolved.checkArchitectureRules) {
      Aspects.of(this).add(
        new ArchitectureRules({
          vpcCidr: resolved.vpcCidr,
          sensorCidrs: resolved.sensorCidrs,
          scannerSecurityGroups: [this.services.sts.securityGroup],
        }),
      );
    }

    // Last, so that it reaches every AWS resource and data source created above.
    if (resolved.provider !== undefined) useAwsProvider(this, resolved.provider);

    // An output or variable of the same name declared after this construct replaced ours in the JSON.
    const declared = new Set([...this.outputNames.map((name) => `output ${name}`), ...(resolved.apiKey === undefined && this.apiKeyVariable ? [`variable ${this.apiKeyVariable.friendlyUniqueId}`] : [])]);
    this.node.addValidation({
      validate: () =>
        duplicateElementNames(this, declared).map(
          (name) => `${this.node.path}: ${name} is declared twice in this stack; give the other one another name, or set outputs: false / pass apiKey on this ControlPlane`,
        ),
    });
  }

  /** The outputs, named after this construct's path below the stack; refused when a name is taken. */
  private createOutputs(serviceDefinitions: readonly { name: ServiceName; port: number; title: string }[]): string[] {
    const outputs: Array<{ id: string; value: string; description: string }> = [
      ...serviceDefinitions.map((service) => ({
        id: `${service.name}-address`,
        value: `${this.services[service.name].hostname}:${service.port}`,
        description: `${service.title} address (host:port, TLS)`,
      })),
      { id: 'load-balancer-dns-name', value: this.loadBalancer.dnsName, description: 'DNS name of the internal load balancer' },
      { id: 'sts-security-group-id', value: this.services.sts.securityGroup.id, description: 'Security group of the Scan Template Service: allow it into the endpoints it scans (architectural rule 6)' },
      { id: 'sensor-command', value: this.sensorCommand, description: 'Sensor command line for this stack; replace <APP> with the application container name, and add -i <vendor sensor image repository> unless the host sets SVC_SENSOR_IMAGE_REPOSITORY' },
    ];
    const names = outputs.map((output) => scopedName(this, output.id));
    this.refuseClash(claimStackNames(this, 'output', names), 'outputs', true, 'give the control planes distinct construct paths (IDs or parents), or set outputs: false on one and declare your own');
    outputs.forEach((output, index) => new TerraformOutput(this, output.id, { value: output.value, description: output.description }).overrideLogicalId(names[index]));
    return names;
  }

  private refuseClash(clash: StackNameClash | undefined, propName: string, value: unknown, fix: string): void {
    if (clash === undefined) return;
    const what = clash.kind === 'resource name' ? clash.name : `the ${clash.kind} ${clash.name}`;
    throw new ControlPlaneValidationError({
      code: 'name_clash',
      constructPath: this.node.path,
      propName,
      value,
      problem: `${what} is already declared by ${clash.owner} in this stack`,
      fix,
    });
  }

  /**
   * The AMI of the instances. A new AMI replaces every instance (a rolling refresh), so it
   * changes only when asked: an explicit instanceImageId; else the parameter's value as it was
   * at the first apply, kept by a terraform_data whose input changes are ignored (a new
   * instanceImageParameter resolves it again); or, opted in, the parameter's value at each plan.
   * An id or tracking known only at deploy time (the HCL module's variables) is chosen by
   * Terraform: an empty or null id falls back to the parameter, tracking picks pinned or latest.
   */
  private instanceImageId(resolved: ResolvedControlPlaneProps): string {
    const explicitId = resolved.instanceImageId;
    if (explicitId !== undefined && !Token.isUnresolved(explicitId)) return explicitId;
    const parameter = new DataAwsSsmParameter(this, 'instance-image', { name: resolved.instanceImageParameter });
    const tracking = resolved.instanceImageTracking;
    let tracked: string;
    if (tracking === 'latest') tracked = parameter.insecureValue;
    else {
      const pinned = new DataResource(this, 'instance-image-pin', {
        input: { id: parameter.insecureValue },
        triggersReplace: { parameter: resolved.instanceImageParameter },
        lifecycle: { ignoreChanges: ['input'] },
      });
      tracked = pinned.getStringAttribute('output.id');
      if (Token.isUnresolved(tracking)) tracked = Token.asString(Fn.conditional(Op.eq(tracking, 'latest'), parameter.insecureValue, tracked));
    }
    return explicitId === undefined ? tracked : Fn.coalesce([explicitId, tracked]);
  }

  /**
   * `api_key` for a control plane directly in its stack (the name TF_VAR_api_key sets);
   * `<path below the stack>_api_key` below another construct, so two control planes under
   * different parents each get their own.
   */
  private createApiKeyVariable(): TerraformVariable {
    const name = isDirectlyInStack(this) ? API_KEY_VARIABLE_NAME : scopedName(this, API_KEY_VARIABLE_NAME);
    this.refuseClash(
      claimStackNames(this, 'variable', [name]),
      'apiKey',
      `(not given: the construct would create the variable ${name})`,
      `pass apiKey (a sensitive TerraformVariable of your own, or a token) to one of them, or put the control planes below different constructs`,
    );
    const variable = new TerraformVariable(this, 'api-key', {
      type: 'string',
      sensitive: true,
      nullable: false,
      description: `svc API key (ApiKey) of control plane ${pathBelowStack(this)}. Ephemeral: set it at plan and apply with TF_VAR_${name}; it is never stored in plan or state.`,
    });
    variable.overrideLogicalId(name);
    return variable;
  }

  /** cdktf 0.21 has no `ephemeral` config on variables; the override writes it into the JSON. */
  private requireEphemeralSecret(variable: TerraformVariable): void {
    if (variable.sensitive !== true) {
      throw new ControlPlaneValidationError({
        code: 'api_key_not_sensitive',
        constructPath: this.node.path,
        propName: 'apiKey',
        value: variable.node.path,
        problem: 'the API key variable is not sensitive',
        fix: 'create it with `sensitive: true` (the construct adds `ephemeral = true`), or leave apiKey unset and the construct creates one',
      });
    }
    variable.addOverride('ephemeral', true);
  }

  private createParameters(resolved: ResolvedControlPlaneProps, tags: (name: string) => Record<string, string>): SsmParameter[] {
    const parameters: SsmParameter[] = [];
    for (const definition of CONTROL_PLANE_PARAMETERS) {
      if (!definition.store) continue;
      const value = resolved[definition.prop as keyof ResolvedControlPlaneProps] as unknown;
      // Optional parameters without a default are written only when given.
      if (value === undefined) continue;
      const name = `/${this.stackName}/${definition.store.scope}/${definition.store.name}`;
      const isList = definition.kind === 'list';
      const list = value as readonly string[];
      // A token (a variable's booleanValue, a list from a resource) is written by Terraform at plan.
      const text = isList ? (Token.isUnresolved(list) ? Fn.join(',', list as string[]) : list.join(',')) : Token.isUnresolved(value) ? Token.asString(value) : String(value);
      parameters.push(
        new SsmParameter(this, `parameter-${definition.store.scope}-${definition.store.name}`, {
          name,
          type: isList ? 'StringList' : 'String',
          value: definition.prop === 'hostedZoneName' ? this.hostedZoneName : text,
          description: `${definition.key} of control plane ${this.stackName}`,
          tags: tags(name),
        }),
      );
    }
    return parameters;
  }
}
