/**
 * Names of the Terraform outputs and variables our constructs create, and the check that they
 * are unique in their stack.
 *
 * cdktf would name an output inside a construct `<path>_<id>_<hash>`; users read outputs by
 * name (`terraform output`), so each is named after the construct's path below its stack
 * instead: `control-plane` + `sensor-command` gives `control_plane_sensor_command`, and the same
 * construct under a parent `team-a` gives `team_a_control_plane_sensor_command`. A name given
 * with overrideLogicalId silently replaces an earlier one of the same name in the JSON, so each
 * construct claims its names (claimStackNames) and a clash fails synth.
 */
import { TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';

function snakeCase(id: string): string {
  return id.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
}

/** The output name for output `name` of the construct with ID `constructId` (a construct directly in its stack). */
export function outputName(constructId: string, name: string): string {
  return `${snakeCase(constructId)}_${snakeCase(name)}`;
}

/** The construct's path below its stack, e.g. `team-a/control-plane`. */
export function pathBelowStack(construct: Construct): string {
  const stack = TerraformStack.of(construct);
  return construct.node.scopes
    .slice(construct.node.scopes.indexOf(stack) + 1)
    .map((scope) => scope.node.id)
    .join('/');
}

/** True when the construct is a direct child of its stack (the names then stay as they were before scoping). */
export function isDirectlyInStack(construct: Construct): boolean {
  return construct.node.scope === TerraformStack.of(construct);
}

/** The name of output or variable `name` of `construct`, scoped to its path below the stack. */
export function scopedName(construct: Construct, name: string): string {
  return outputName(pathBelowStack(construct), name);
}

/** Which kind of stack-wide name a construct claims. */
export type StackNameKind = 'output' | 'variable' | 'resource name';

/** Who holds a name already: the path of the construct that declared it. */
export interface StackNameClash {
  readonly kind: StackNameKind;
  readonly name: string;
  readonly owner: string;
}

const claimedByStack = new WeakMap<TerraformStack, Map<string, string>>();

function existingElementNames(stack: TerraformStack, kind: StackNameKind): Map<string, string> {
  const found = new Map<string, string>();
  if (kind === 'resource name') return found;
  const type = kind === 'output' ? TerraformOutput : TerraformVariable;
  for (const node of stack.node.findAll()) {
    if (node instanceof type) found.set(node.friendlyUniqueId, node.node.path);
  }
  return found;
}

/**
 * Claims `names` of one kind for `construct` in its stack. Returns the first clash (a name
 * another construct claimed, or an output or variable of that name already in the stack),
 * claiming nothing then; undefined when every name was free and is now claimed.
 * Resource names (an IAM role's, a load balancer's) compare case-insensitively, as AWS does.
 */
export function claimStackNames(construct: Construct, kind: StackNameKind, names: readonly string[]): StackNameClash | undefined {
  const stack = TerraformStack.of(construct);
  let claimed = claimedByStack.get(stack);
  if (claimed === undefined) {
    claimed = new Map();
    claimedByStack.set(stack, claimed);
  }
  const existing = existingElementNames(stack, kind);
  const key = (name: string) => `${kind}:${kind === 'resource name' ? name.toLowerCase() : name}`;
  for (const name of names) {
    const owner = claimed.get(key(name)) ?? existing.get(name);
    if (owner !== undefined && owner !== construct.node.path) return { kind, name, owner };
  }
  for (const name of names) claimed.set(key(name), construct.node.path);
  return undefined;
}

/**
 * The outputs and variables of the stack whose names another element of the stack also has:
 * for a validation at synth, which sees what was declared after a construct claimed its names.
 */
export function duplicateElementNames(construct: Construct, names: ReadonlySet<string>): string[] {
  const stack = TerraformStack.of(construct);
  const seen = new Map<string, number>();
  for (const node of stack.node.findAll()) {
    if (!(node instanceof TerraformOutput) && !(node instanceof TerraformVariable)) continue;
    const name = `${node instanceof TerraformOutput ? 'output' : 'variable'} ${node.friendlyUniqueId}`;
    if (names.has(name)) seen.set(name, (seen.get(name) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1).map(([name]) => name);
}
