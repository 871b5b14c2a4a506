/** Shared inputs and a synth helper for the ControlPlane tests. */
import { TerraformStack, Testing } from 'cdktf';
import type { App } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { ControlPlane, type ControlPlaneProps } from '../../modules/control-plane';

/** The eight required parameters (the API key comes through a variable, not a prop). */
export const REQUIRED_PROPS: ControlPlaneProps = {
  tenantId: 'acme-corp',
  vpcId: 'vpc-0123456789abcdef0',
  subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
  keyName: 'ops-key',
  analyzerTags: 'env=prod',
};

export interface TerraformJson {
  terraform?: Record<string, any>;
  variable?: Record<string, any>;
  output?: Record<string, any>;
  data: Record<string, Record<string, any>>;
  resource: Record<string, Record<string, any>>;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: TerraformStack;
  readonly controlPlane: ControlPlane;
  /** Testing.synth output, for cdktf's matchers. */
  readonly synthesized: string;
  readonly json: TerraformJson;
}

export function synthControlPlane(props: Partial<ControlPlaneProps> = {}, build?: (stack: TerraformStack) => Partial<ControlPlaneProps>): Synthesized {
  const app = Testing.app();
  const stack = new TerraformStack(app, 'test');
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  const extra = build ? build(stack) : {};
  const controlPlane = new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, ...props, ...extra });
  const synthesized = Testing.synth(stack);
  return { app, stack, controlPlane, synthesized, json: JSON.parse(synthesized) as TerraformJson };
}

/** Every block of one resource type, by logical id. */
export function resourcesOfType(json: TerraformJson, type: string): Record<string, any>[] {
  return Object.values(json.resource[type] ?? {});
}

/** The single block of a resource type whose logical id contains `part`. */
export function resourceNamed(json: TerraformJson, type: string, part: string): Record<string, any> {
  const matches = Object.entries(json.resource[type] ?? {}).filter(([id]) => id.includes(part));
  if (matches.length !== 1) throw new Error(`expected one ${type} with "${part}" in its id, found ${matches.length}`);
  return matches[0][1];
}

export function dataOfType(json: TerraformJson, type: string): Record<string, any>[] {
  return Object.values(json.data[type] ?? {});
}

/** The decoded boot script of a service's launch template. */
export function userDataOf(json: TerraformJson, service: string): string {
  const template = resourceNamed(json, 'aws_launch_template', `_${service}_`);
  return Buffer.from(template.user_data, 'base64').toString('utf8');
}

/** Annotations (errors, warnings, info) reported on a construct tree, stack traces left out. */
export function annotationsOf(stack: TerraformStack): { type: string; path: string; message: string }[] {
  return stack.node
    .findAll()
    .flatMap((node) => node.node.metadata.map((entry) => ({ type: entry.type, path: node.node.path, message: String(entry.data) })))
    .filter((entry) => entry.type.startsWith('@cdktf/'));
}
