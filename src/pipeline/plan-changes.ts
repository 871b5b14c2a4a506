/**
 * What a saved plan says, from `terraform show -json <planfile>`: the resources that changed
 * outside terraform (`resource_drift`) and what the plan would do (`resource_changes`,
 * `output_changes`), each with the attributes that differ. Values marked sensitive in the plan
 * are never shown, only "(sensitive)".
 */
import { escapeForDisplay } from '../display-text';

/** forget: leaves state, the object stays (a removed block); import and move: no other change (terraform's plan still counts them, exit 2). */
export type ChangeAction = 'create' | 'update' | 'delete' | 'replace' | 'read' | 'forget' | 'import' | 'move';

export interface AttributeChange {
  /** e.g. `enabled`, `entries["198.51.100.23"]`, `tags.env`. */
  readonly path: string;
  /** Rendered for people: JSON, "(absent)", "(sensitive)" or "(known after apply)"; at most 80 characters. */
  readonly before: string;
  readonly after: string;
}

export interface ResourceChange {
  readonly address: string;
  readonly action: ChangeAction;
  readonly attributes: readonly AttributeChange[];
}

export interface PlanChanges {
  /** Changed or deleted outside terraform since the last apply (refresh found it). */
  readonly drift: readonly ResourceChange[];
  /** Resources the plan would create, update, replace or delete. */
  readonly changes: readonly ResourceChange[];
  /** Root outputs the plan would change (`output.<name>`). */
  readonly outputs: readonly ResourceChange[];
}

/** The parts of terraform's JSON plan representation read here. */
interface JsonChange {
  readonly actions: readonly string[];
  readonly before?: unknown;
  readonly after?: unknown;
  readonly after_unknown?: unknown;
  readonly before_sensitive?: unknown;
  readonly after_sensitive?: unknown;
  /** Set when an import block brings the object in. */
  readonly importing?: unknown;
}
interface JsonResourceChange {
  readonly address: string;
  /** Set when a moved block (cdktf's moveTo) gives the object a new address. */
  readonly previous_address?: string;
  readonly mode?: string;
  readonly change: JsonChange;
}
export interface JsonPlan {
  readonly resource_drift?: readonly JsonResourceChange[];
  readonly resource_changes?: readonly JsonResourceChange[];
  readonly output_changes?: Readonly<Record<string, JsonChange>>;
}

const MAX_VALUE_LENGTH = 80;
const ABSENT = Symbol('absent');
type Value = unknown | typeof ABSENT;

/** ["no-op"] -> null; ["delete","create"] and ["create","delete"] -> replace. */
export function changeAction(actions: readonly string[]): ChangeAction | null {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  const [action] = actions;
  if (action === 'create' || action === 'update' || action === 'delete' || action === 'read' || action === 'forget') return action;
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A child of terraform's sensitivity/unknown mask: `true` covers everything under it. */
function childMask(mask: unknown, key: string | number): unknown {
  if (mask === true) return true;
  if (Array.isArray(mask) && typeof key === 'number') return mask[key];
  if (isPlainObject(mask)) return mask[String(key)];
  return undefined;
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (parent === '') return key;
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${parent}.${key}` : `${parent}[${escapeForDisplay(JSON.stringify(key))}]`;
}

function render(value: Value, sensitive: unknown, unknown: unknown = false): string {
  if (unknown === true) return '(known after apply)';
  if (value === ABSENT) return '(absent)';
  if (sensitive === true) return '(sensitive)';
  // JSON escapes C0 controls; escapeForDisplay also C1 controls (U+009B) and bidi overrides (U+202E).
  const text = escapeForDisplay(JSON.stringify(value) ?? 'null');
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 3)}...` : text;
}

/** Holds sensitive data somewhere below: its value may not be shown even as a whole. */
function containsSensitive(mask: unknown): boolean {
  if (mask === true) return true;
  if (Array.isArray(mask)) return mask.some(containsSensitive);
  if (isPlainObject(mask)) return Object.values(mask).some(containsSensitive);
  return false;
}

/** The leaves that differ between before and after, in a stable order. */
export function attributeChanges(change: JsonChange): AttributeChange[] {
  const found: AttributeChange[] = [];
  const visit = (path: string, before: Value, after: Value, masks: { beforeSensitive: unknown; afterSensitive: unknown; afterUnknown: unknown }) => {
    const { beforeSensitive, afterSensitive, afterUnknown } = masks;
    if (afterUnknown === true) {
      // The before value is shown whole here, so a sensitive part anywhere in it masks it.
      found.push({ path, before: render(before, containsSensitive(beforeSensitive)), after: render(after, afterSensitive, true) });
      return;
    }
    const bothObjects = isPlainObject(before) && isPlainObject(after);
    const bothLists = Array.isArray(before) && Array.isArray(after) && before.length === after.length;
    if ((bothObjects || bothLists) && beforeSensitive !== true && afterSensitive !== true) {
      const keys: Array<string | number> = bothLists
        ? (before as unknown[]).map((_, index) => index)
        : [...new Set([...Object.keys(before as object), ...Object.keys(after as object)])].sort();
      for (const key of keys) {
        const read = (value: Value): Value => {
          const container = value as Record<string | number, unknown>;
          return Object.prototype.hasOwnProperty.call(container, key) ? container[key] : ABSENT;
        };
        visit(childPath(path, key), read(before), read(after), {
          beforeSensitive: childMask(beforeSensitive, key),
          afterSensitive: childMask(afterSensitive, key),
          afterUnknown: childMask(afterUnknown, key),
        });
      }
      return;
    }
    if (JSON.stringify(before) === JSON.stringify(after) && containsSensitive(beforeSensitive) === containsSensitive(afterSensitive)) return;
    found.push({
      path: path === '' ? '(value)' : path,
      before: render(before, containsSensitive(beforeSensitive)),
      after: render(after, containsSensitive(afterSensitive)),
    });
  };
  visit('', change.before ?? ABSENT, change.after ?? ABSENT, {
    beforeSensitive: change.before_sensitive,
    afterSensitive: change.after_sensitive,
    afterUnknown: change.after_unknown,
  });
  return found;
}

function summarize(change: JsonResourceChange): ResourceChange | null {
  // An import or a move with nothing else to do is still a change to terraform (-detailed-exitcode 2).
  const bookkeeping = change.change.importing != null ? 'import' : change.previous_address !== undefined && change.previous_address !== change.address ? 'move' : null;
  const action = changeAction(change.change.actions) ?? bookkeeping;
  if (action === null) return null;
  // Created or deleted objects are named only: every attribute would be listed otherwise.
  const attributes = action === 'update' || action === 'replace' ? attributeChanges(change.change) : [];
  const address = action === 'move' ? `${change.address} (from ${change.previous_address})` : change.address;
  return { address, action, attributes };
}

export function planChanges(plan: JsonPlan): PlanChanges {
  const managed = (change: JsonResourceChange) => change.mode === undefined || change.mode === 'managed';
  const summaries = (changes: readonly JsonResourceChange[] | undefined, keep: (change: JsonResourceChange) => boolean) =>
    (changes ?? []).filter(keep).flatMap((change) => summarize(change) ?? []);
  return {
    drift: summaries(plan.resource_drift, managed),
    changes: summaries(plan.resource_changes, managed),
    outputs: Object.entries(plan.output_changes ?? {}).flatMap(([name, change]) => summarize({ address: `output.${name}`, change }) ?? []),
  };
}

const DRIFT_WORDS: Record<ChangeAction, string> = {
  create: 'appeared outside terraform',
  update: 'changed outside terraform',
  delete: 'deleted outside terraform',
  replace: 'replaced outside terraform',
  read: 'read',
  forget: 'forgotten',
  import: 'imported',
  move: 'moved',
};
const PLAN_WORDS: Record<ChangeAction, string> = {
  create: 'create',
  update: 'update in place',
  delete: 'destroy',
  replace: 'replace',
  read: 'read during apply',
  forget: 'forget (keep it)',
  import: 'import',
  move: 'move',
};

function attributeLines(change: ResourceChange, indent: string): string[] {
  return change.attributes.map((attribute) => `${indent}${attribute.path}: ${attribute.before} -> ${attribute.after}`);
}

/** Each resource changed outside terraform, how, and the attributes that differ. */
export function formatDrift(drift: readonly ResourceChange[], indent = '  '): string[] {
  return drift.flatMap((change) => [`${indent}${change.address}  ${DRIFT_WORDS[change.action]}`, ...attributeLines(change, `${indent}    `)]);
}

/** Lines for people (no secret: sensitive values are masked in the summary already). */
export function formatPlanChanges(changes: PlanChanges, indent = '  '): string[] {
  const lines: string[] = [];
  if (changes.drift.length > 0) {
    lines.push(`${indent}changed outside terraform (${changes.drift.length}):`);
    lines.push(...formatDrift(changes.drift, `${indent}  `));
  }
  const planned = [...changes.changes, ...changes.outputs];
  if (planned.length > 0) {
    lines.push(`${indent}the plan would (${planned.length}):`);
    for (const change of planned) {
      lines.push(`${indent}  ${PLAN_WORDS[change.action].padEnd(15)} ${change.address}`);
      lines.push(...attributeLines(change, `${indent}      `));
    }
  }
  return lines;
}
