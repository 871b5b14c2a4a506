/** Builders for small stacks of raw provider-aws resources, and a reader of their findings. */
import { Aspects, Testing, TerraformStack } from 'cdktf';
import { IConstruct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { ArchitectureRules, ArchitectureRulesProps } from '../../modules/architecture-rules';

export interface Finding {
  readonly level: 'error' | 'warning' | 'info';
  readonly path: string;
  readonly message: string;
}

const LEVELS: Record<string, Finding['level']> = {
  '@cdktf/error': 'error',
  '@cdktf/warn': 'warning',
  '@cdktf/info': 'info',
};

export function newStack(): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'stack');
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  return stack;
}

/** Every annotation in the tree under `scope`. */
export function findingsOf(scope: IConstruct): Finding[] {
  return scope.node.findAll().flatMap((node) =>
    node.node.metadata
      .filter((entry) => entry.type in LEVELS)
      .map((entry) => ({ level: LEVELS[entry.type], path: node.node.path, message: String(entry.data) })),
  );
}

/** Applies the rules to the whole stack, synthesizes it, and returns the findings. */
export function synthWithRules(
  build: (stack: TerraformStack) => void,
  props: ArchitectureRulesProps | ((stack: TerraformStack) => ArchitectureRulesProps) = {},
): Finding[] {
  const stack = newStack();
  build(stack);
  const resolvedProps = typeof props === 'function' ? props(stack) : props;
  Aspects.of(stack).add(new ArchitectureRules(resolvedProps));
  Testing.synth(stack);
  return findingsOf(stack);
}

/** Findings of one rule only. */
export function findingsOfRule(findings: readonly Finding[], ruleId: string): Finding[] {
  return findings.filter((finding) => finding.message.startsWith(`[${ruleId} `));
}

/** What one case of a rule's table expects: no finding, or exactly one finding like this. */
export type ExpectedFinding = 'none' | { readonly level: Finding['level']; readonly path: string; readonly contains: string };

export function expectOnlyFinding(findings: readonly Finding[], expected: ExpectedFinding): void {
  if (expected === 'none') {
    expect(findings).toEqual([]);
    return;
  }
  expect(findings).toHaveLength(1);
  expect(findings[0]).toMatchObject({ level: expected.level, path: expected.path });
  expect(findings[0].message).toContain(expected.contains);
}
