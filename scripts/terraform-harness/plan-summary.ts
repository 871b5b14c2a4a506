/**
 * What a saved plan would do, read from `terraform show -json <planfile>` (never from the plan
 * text, whose wording terraform may change): the action per resource instance, in the drift
 * check's vocabulary (src/pipeline/plan-changes), and the counts of terraform's
 * `Plan: 1 to add, 0 to change, 0 to destroy.` line.
 */
import { changeAction, type ChangeAction, type JsonPlan } from '../../src/pipeline/plan-changes';

/** create, update, replace, delete, read (a data source read during apply) or forget. */
export type PlannedAction = ChangeAction;

export interface PlanCounts {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
}

/**
 * Resource address (data sources with their `data.` prefix) -> planned action. Unchanged
 * instances, and an import or a move with nothing else to do, are left out; drift
 * (`resource_drift`) is not a planned action.
 */
export function plannedActions(plan: JsonPlan): Record<string, PlannedAction> {
  const actions: Record<string, PlannedAction> = {};
  for (const change of plan.resource_changes ?? []) {
    const action = changeAction(change.change.actions);
    if (action !== null) actions[change.address] = action;
  }
  return actions;
}

/** Counted as terraform counts them: managed resources only, a replacement both adds and destroys. */
export function planCounts(plan: JsonPlan): PlanCounts {
  let add = 0;
  let change = 0;
  let destroy = 0;
  for (const resource of plan.resource_changes ?? []) {
    if (resource.mode === 'data') continue;
    const action = changeAction(resource.change.actions);
    if (action === 'create' || action === 'replace') add += 1;
    if (action === 'delete' || action === 'replace') destroy += 1;
    if (action === 'update') change += 1;
  }
  return { add, change, destroy };
}
