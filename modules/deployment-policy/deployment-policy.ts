/**
 * DeploymentPolicy: the spec's custom deployment policy as customer managed policies
 * (`aws_iam_policy`, tagged with `product`), and optionally the installation role that carries
 * them. The whole document is about twice IAM's 6,144-character limit for one managed policy,
 * so it is split into parts (spec areas, then the Terraform-only statements); attach them all.
 * An administrator deploys this once; whoever deploys the control plane then uses the policies
 * (or the role) instead of administrator rights.
 */
import { Construct } from 'constructs';
import { TerraformOutput, Token, type TerraformProvider } from 'cdktf';
import { IamPolicy } from '@cdktf/provider-aws/lib/iam-policy';
import { IamRole } from '@cdktf/provider-aws/lib/iam-role';
import { IamRolePolicyAttachment } from '@cdktf/provider-aws/lib/iam-role-policy-attachment';
import { DeploymentPolicyPropError } from './errors';
import {
  DeploymentPolicyDocumentInput,
  PolicyDocument,
  namedDeploymentPolicyDocument,
  splitPolicyDocument,
} from './policy-document';
import { CONSTRUCT_PROP_LABELS } from './validation';
import { isAwsProvider, useAwsProvider } from '../aws-provider';
import { claimStackNames, duplicateElementNames, scopedName, type StackNameClash } from '../output-names';
import { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH } from '../stack-naming';

/** The stack service of the spec: a role it may assume is an installation role for templates. */
export const CLOUDFORMATION_SERVICE_PRINCIPAL = 'cloudformation.amazonaws.com';
/** The tag key the policies and the role carry (the spec's product tag). */
export const PRODUCT_TAG_KEY = 'product';
/** The default value of the product tag (`DeploymentPolicyProps.productTagValue`). */
export const DEFAULT_PRODUCT_TAG_VALUE = 'svc-prevent';

/** The optional installation role: an IAM role with the deployment policy attached, for the deployer to assume. */
export interface InstallationRoleProps {
  /** @default `<stackName>-installation` */
  readonly roleName?: string;
  /**
   * Who may assume the role: an IAM ARN (the user or role that runs terraform), a 12-digit
   * account id, or a service principal such as CLOUDFORMATION_SERVICE_PRINCIPAL (the spec's
   * stack service, for template deployments).
   * @default the account root (`arn:<partition>:iam::<accountId>:root`): with Terraform the
   * deployer is whoever runs terraform, which this construct cannot know; trusting the account
   * hands the choice to IAM in that account (only principals whose own policy allows
   * sts:AssumeRole on this role can use it) and lets nobody outside the account in.
   */
  readonly trustedPrincipal?: string;
}

/** The values the deployment policy is built from (the control plane stack it permits) and what to create besides the policies. */
export interface DeploymentPolicyProps extends DeploymentPolicyDocumentInput {
  /** Base name of the managed policies, numbered `-1`, `-2`, ... @default `<stackName>-deployment` */
  readonly policyName?: string;
  /** Value of the `product` tag on the policy and the role. @default 'svc-prevent' */
  readonly productTagValue?: string;
  /** Create an installation role with the policy attached. @default no role */
  readonly installationRole?: InstallationRoleProps;
  /**
   * The AWS provider of the policies, the role and its attachments (an `AwsProvider` with an
   * alias, for another account). Give it when the stack's AWS provider has an alias.
   * @default - the stack's default (unaliased) AWS provider
   */
  readonly provider?: TerraformProvider;
  /**
   * Declare the Terraform outputs `<path>_policy_arns` and `<path>_installation_role_arn`, named
   * after the construct's path below the stack (`deployment_policy_policy_arns` for a
   * DeploymentPolicy `deployment-policy` directly in the stack).
   * @default true
   */
  readonly outputs?: boolean;
}

const ACCOUNT_ID = /^\d{12}$/;
const SERVICE_PRINCIPAL = /^[a-z0-9][a-z0-9.-]*\.amazonaws\.com(\.cn)?$/;

/** The Principal block of the trust policy for one trusted principal. */
export function trustPrincipal(
  trusted: string,
  partition: string,
  constructPath: string,
): { readonly AWS: string } | { readonly Service: string } {
  if (Token.isUnresolved(trusted) || trusted.startsWith('arn:')) return { AWS: trusted };
  if (ACCOUNT_ID.test(trusted)) return { AWS: `arn:${partition}:iam::${trusted}:root` };
  if (SERVICE_PRINCIPAL.test(trusted)) return { Service: trusted };
  throw new DeploymentPolicyPropError({
    constructPath,
    prop: 'installationRole.trustedPrincipal',
    value: trusted,
    problem: 'neither an IAM ARN, nor a 12-digit account id, nor a service principal',
    fix: `give the ARN of the user or role that runs terraform, an account id, or a service principal such as ${CLOUDFORMATION_SERVICE_PRINCIPAL}`,
  });
}

/**
 * The same input with deploy-time values (tokens) replaced by literals at least as long as any
 * real value, so that splitting by size holds whatever the values turn out to be.
 */
function sizingInput(props: DeploymentPolicyDocumentInput): DeploymentPolicyDocumentInput {
  const orPlaceholder = (value: string | undefined, placeholder: string) =>
    value !== undefined && Token.isUnresolved(value) ? placeholder : value;
  return {
    stackName: orPlaceholder(props.stackName, 'A'.repeat(MAX_STACK_NAME_LENGTH)),
    accountId: orPlaceholder(props.accountId, '0'.repeat(12)) as string,
    hostedZoneId: orPlaceholder(props.hostedZoneId, `Z${'A'.repeat(31)}`) as string,
    region: orPlaceholder(props.region, 'xx-xxxxxxxxx-99'),
    partition: orPlaceholder(props.partition, 'aws-xxxxxxxxx'),
    // Refused as a token by validation; a literal is measured as it is.
    instanceImageParameter: props.instanceImageParameter,
  };
}

/**
 * The spec's custom deployment policy for Terraform deployments of the control plane, as IAM
 * managed policies (split to fit IAM's size limit) and, when asked, an installation role that
 * carries them. Bad props raise DeploymentPolicyPropError at construction. See
 * help/deployment-policy.md.
 */
export class DeploymentPolicy extends Construct {
  /** The whole policy document, as a plain object (what `svc-deployment-policy` prints). */
  readonly document: PolicyDocument;
  /** The document split to fit IAM's size limit: one managed policy per part, in order. */
  readonly policies: readonly IamPolicy[];
  /** The installation role with every policy attached; undefined without `installationRole` in the props. */
  readonly installationRole?: IamRole;
  /** The names of the Terraform outputs this construct declared (empty with `outputs: false`). */
  readonly outputNames: readonly string[];

  /** Throws DeploymentPolicyPropError naming the prop and value for a malformed literal. */
  constructor(scope: Construct, id: string, props: DeploymentPolicyProps) {
    super(scope, id);
    if (props.provider !== undefined && !isAwsProvider(props.provider)) {
      throw new DeploymentPolicyPropError({
        constructPath: this.node.path,
        prop: 'provider',
        value: `a provider of type ${String((props.provider as { terraformResourceType?: unknown }).terraformResourceType)}`,
        problem: 'not an AWS provider',
        fix: 'pass the AwsProvider (@cdktf/provider-aws/lib/provider) the policies should use, e.g. one with an alias',
      });
    }
    if (props.outputs !== undefined && typeof props.outputs !== 'boolean') {
      throw new DeploymentPolicyPropError({ constructPath: this.node.path, prop: 'outputs', value: props.outputs, problem: 'not true or false', fix: 'write true or false' });
    }
    const stackName = props.stackName ?? DEFAULT_STACK_NAME;
    const partition = props.partition ?? 'aws';
    const naming = { constructPath: this.node.path, labels: CONSTRUCT_PROP_LABELS };
    this.document = namedDeploymentPolicyDocument(props, naming);
    const tags = { [PRODUCT_TAG_KEY]: props.productTagValue ?? DEFAULT_PRODUCT_TAG_VALUE };

    const parts = splitPolicyDocument(this.document, namedDeploymentPolicyDocument(sizingInput(props), naming));
    const baseName = props.policyName ?? `${stackName}-deployment`;
    const roleName = props.installationRole ? (props.installationRole.roleName ?? `${stackName}-installation`) : undefined;
    // IAM names are unique in the account: the same name twice in one stack fails at apply.
    const literalNames = [...parts.map((_, index) => `${baseName}-${index + 1}`), ...(roleName === undefined ? [] : [roleName])].filter((name) => !Token.isUnresolved(name));
    this.refuseClash(
      claimStackNames(this, 'resource name', literalNames.map((name) => `IAM ${name}`)),
      props.policyName === undefined ? 'stackName' : 'policyName',
      props.policyName ?? stackName,
      'give each DeploymentPolicy of a stack its own stackName or policyName (and installationRole.roleName)',
    );
    this.policies = parts.map(
      (part, index) =>
        new IamPolicy(this, `policy-${index + 1}`, {
          name: `${baseName}-${index + 1}`,
          description: `Deploys control plane ${stackName}: part ${index + 1} of ${parts.length} of the deployment policy`,
          policy: JSON.stringify(part),
          tags,
        }),
    );

    if (props.installationRole) {
      const trusted = props.installationRole.trustedPrincipal ?? `arn:${partition}:iam::${props.accountId}:root`;
      this.installationRole = new IamRole(this, 'installation-role', {
        name: roleName,
        description: `Installation role for control plane ${stackName}`,
        assumeRolePolicy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: trustPrincipal(trusted, partition, this.node.path), Action: 'sts:AssumeRole' }],
        }),
        tags,
      });
      this.policies.forEach(
        (policy, index) =>
          new IamRolePolicyAttachment(this, `installation-role-policy-${index + 1}`, {
            role: this.installationRole!.name,
            policyArn: policy.arn,
          }),
      );
    }

    // What the deployer needs next: the policies to attach, or the role to assume.
    const outputs: Array<{ id: string; value: string | string[]; description: string }> = [
      { id: 'policy-arns', value: this.policies.map((policy) => policy.arn), description: `ARNs of the ${parts.length} deployment policies of control plane ${stackName}; attach all of them` },
      ...(this.installationRole
        ? [{ id: 'installation-role-arn', value: this.installationRole.arn, description: `Installation role of control plane ${stackName}, with every deployment policy attached` }]
        : []),
    ];
    const outputNames = props.outputs === false ? [] : outputs.map((output) => scopedName(this, output.id));
    if (outputNames.length > 0) {
      this.refuseClash(claimStackNames(this, 'output', outputNames), 'outputs', true, 'give the deployment policies distinct construct paths (IDs or parents), or set outputs: false on one');
      outputs.forEach((output, index) => new TerraformOutput(this, output.id, { value: output.value, description: output.description }).overrideLogicalId(outputNames[index]));
    }
    this.outputNames = outputNames;

    if (props.provider !== undefined) useAwsProvider(this, props.provider);
    const declared = new Set(outputNames.map((name) => `output ${name}`));
    this.node.addValidation({
      validate: () => duplicateElementNames(this, declared).map((name) => `${this.node.path}: ${name} is declared twice in this stack; give the other one another name, or set outputs: false on this DeploymentPolicy`),
    });
  }

  private refuseClash(clash: StackNameClash | undefined, prop: string, value: unknown, fix: string): void {
    if (clash === undefined) return;
    throw new DeploymentPolicyPropError({
      code: 'deployment_policy_name_clash',
      constructPath: this.node.path,
      prop,
      value,
      problem: `${clash.kind === 'resource name' ? `the name ${clash.name}` : `the ${clash.kind} ${clash.name}`} is already declared by ${clash.owner} in this stack`,
      fix,
    });
  }
}
