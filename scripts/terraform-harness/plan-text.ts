/**
 * The actions a `terraform plan` prints, read from its human-readable output: one line per
 * resource instance, e.g. `  # svc_blacklist_entry.this will be updated in-place`. Drift notes
 * ("has been deleted", "has changed") are not planned actions and are not returned.
 */
export type PlannedAction = 'create' | 'update' | 'replace' | 'delete' | 'read';

const ACTION_PHRASES: ReadonlyArray<[RegExp, PlannedAction]> = [
  [/ will be created$/, 'create'],
  [/ will be updated in-place$/, 'update'],
  [/ must be replaced$/, 'replace'],
  [/ will be destroyed$/, 'delete'],
  [/ will be read during apply$/, 'read'],
];

export function plannedActions(planText: string): Record<string, PlannedAction> {
  const actions: Record<string, PlannedAction> = {};
  for (const line of planText.split('\n')) {
    const match = /^\s*# (\S+) (?:is tainted, so )?(.*)$/.exec(line);
    if (!match) continue;
    for (const [phrase, action] of ACTION_PHRASES) {
      if (phrase.test(` ${match[2]}`)) actions[match[1]] = action;
    }
  }
  return actions;
}

/** `Plan: 1 to add, 0 to change, 0 to destroy.` as numbers; undefined when the plan has no such line. */
export function planSummary(planText: string): { add: number; change: number; destroy: number } | undefined {
  const match = /Plan: (\d+) to add, (\d+) to change, (\d+) to destroy\./.exec(planText);
  return match ? { add: Number(match[1]), change: Number(match[2]), destroy: Number(match[3]) } : undefined;
}
