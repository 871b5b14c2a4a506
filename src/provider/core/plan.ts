/**
 * The generic parts of planning and applying a resource change, independent of the wire:
 * the default plan (computed attributes unknown on create), replacement triggers from the
 * schema, and the check that applied state keeps the plan's promises.
 */
import type { AttributePath, PathStep } from './diagnostics';
import type { AttributeSchema, Schema } from './schema';
import type { ValueType } from './types';
import { canonicalKey, valuesEqual } from './value-equality';
import { attributeType, findUnknownPath, isPlainObject, type ShapeProblem } from './value-shape';
import { UNKNOWN, type ObjectValue, type Value } from './values';

type Attributes = Readonly<Record<string, AttributeSchema>>;

/**
 * Terraform's proposed new state turned into the core's default plan. On create (no prior
 * state) every computed attribute the configuration leaves null becomes UNKNOWN, inside
 * nested attributes too; on update the proposal already carries the prior computed values,
 * except in nested elements that are new.
 */
export function defaultPlan(schema: Schema, proposed: ObjectValue, prior: ObjectValue | null): ObjectValue {
  if (prior === null) return markComputedNullsUnknown(schema.attributes, proposed);
  return markNewNestedElements(schema.attributes, proposed, prior);
}

/**
 * On update, terraform's proposal fills a nested element's computed members from its prior
 * counterpart (same list index, same map key, an equal set element, a single object that
 * existed). An element without one (a list grown, a new map key or set element) comes from the
 * config as it is, computed members null: like on create, those become UNKNOWN, or the value
 * the API fills in at apply would contradict a planned null.
 */
function markNewNestedElements(attributes: Attributes, object: ObjectValue, prior: ObjectValue): ObjectValue {
  let result: Record<string, Value> | undefined;
  for (const [name, attribute] of Object.entries(attributes)) {
    const value = object[name] ?? null;
    if (attribute.nested === undefined || value === null || value === UNKNOWN) continue;
    const nestedAttributes = attribute.nested.attributes;
    const priorValue = prior[name] ?? null;
    const planElement = (element: Value, priorElement: Value | undefined): Value => {
      if (!isPlainObject(element)) return element;
      if (priorElement === undefined || !isPlainObject(priorElement)) return markComputedNullsUnknown(nestedAttributes, element);
      return markNewNestedElements(nestedAttributes, element, priorElement);
    };
    let planned: Value;
    switch (attribute.nested.nesting) {
      case 'single':
        planned = planElement(value, isPlainObject(priorValue) ? priorValue : undefined);
        break;
      case 'list': {
        const priorList = Array.isArray(priorValue) ? (priorValue as readonly Value[]) : [];
        planned = (value as readonly Value[]).map((element, index) => planElement(element, priorList[index]));
        break;
      }
      case 'map': {
        const priorMap = isPlainObject(priorValue) ? priorValue : {};
        const plannedMap: Record<string, Value> = {};
        for (const [key, element] of Object.entries(value as ObjectValue)) {
          plannedMap[key] = planElement(element, Object.prototype.hasOwnProperty.call(priorMap, key) ? priorMap[key] : undefined);
        }
        planned = plannedMap;
        break;
      }
      case 'set': {
        const elementType = (attributeType(attribute) as { readonly element: ValueType }).element;
        const priorElements = new Map<string, Value>();
        if (Array.isArray(priorValue)) {
          for (const element of priorValue as readonly Value[]) priorElements.set(canonicalKey(elementType, element), element);
        }
        planned = (value as readonly Value[]).map((element) => planElement(element, priorElements.get(canonicalKey(elementType, element))));
        break;
      }
    }
    (result ??= { ...object })[name] = planned;
  }
  return result ?? object;
}

function markComputedNullsUnknown(attributes: Attributes, object: ObjectValue): ObjectValue {
  const result: Record<string, Value> = { ...object };
  for (const [name, attribute] of Object.entries(attributes)) {
    const value = object[name] ?? null;
    if (value === null) {
      if (attribute.computed) result[name] = UNKNOWN;
      continue;
    }
    if (attribute.nested === undefined || value === UNKNOWN) continue;
    const nestedAttributes = attribute.nested.attributes;
    const markElement = (element: Value): Value =>
      isPlainObject(element) ? markComputedNullsUnknown(nestedAttributes, element) : element;
    switch (attribute.nested.nesting) {
      case 'single':
        result[name] = markElement(value);
        break;
      case 'list':
      case 'set':
        result[name] = (value as readonly Value[]).map(markElement);
        break;
      case 'map':
        result[name] = mapValues(value as ObjectValue, markElement);
        break;
    }
  }
  return result;
}

function mapValues(map: ObjectValue, transform: (value: Value) => Value): ObjectValue {
  const result: Record<string, Value> = {};
  for (const [key, value] of Object.entries(map)) result[key] = transform(value);
  return result;
}

/** Unknown counts as different: terraform cannot know it will stay the same. */
function differs(type: ValueType, prior: Value, planned: Value): boolean {
  return findUnknownPath(type, planned) !== undefined || !valuesEqual(type, prior, planned);
}

/**
 * Paths of attributes marked `requiresReplace` whose planned value differs from the prior
 * state. Nothing on create. Inside nested attributes, list members are named by index; a set
 * or map whose replacing members changed is named whole (terraform compares the values at
 * each path itself, so a path naming an unchanged value is harmless).
 */
export function replacementPaths(schema: Schema, prior: ObjectValue | null, planned: ObjectValue): AttributePath[] {
  if (prior === null) return [];
  const paths: AttributePath[] = [];
  collectReplacementPaths(schema.attributes, prior, planned, [], paths);
  return paths;
}

function collectReplacementPaths(
  attributes: Attributes,
  prior: ObjectValue | null,
  planned: Value,
  path: PathStep[],
  paths: AttributePath[],
): void {
  for (const [name, attribute] of Object.entries(attributes)) {
    const priorValue = prior?.[name] ?? null;
    const plannedValue = planned === UNKNOWN ? UNKNOWN : isPlainObject(planned) ? planned[name] ?? null : null;
    const type = attributeType(attribute);
    if (attribute.requiresReplace) {
      if (differs(type, priorValue, plannedValue)) paths.push([...path, name]);
      continue;
    }
    if (attribute.nested === undefined || !hasReplacingMember(attribute.nested.attributes)) continue;
    const nested = attribute.nested.attributes;
    const attributePath = [...path, name];
    switch (attribute.nested.nesting) {
      case 'single':
        collectReplacementPaths(nested, isPlainObject(priorValue) ? priorValue : null, plannedValue, attributePath, paths);
        break;
      case 'list': {
        const priorList = Array.isArray(priorValue) ? (priorValue as readonly Value[]) : [];
        if (!Array.isArray(plannedValue) || plannedValue.length !== priorList.length) {
          if (differs(type, priorValue, plannedValue)) paths.push(attributePath);
          break;
        }
        priorList.forEach((priorElement, index) =>
          collectReplacementPaths(
            nested,
            isPlainObject(priorElement) ? priorElement : null,
            (plannedValue as readonly Value[])[index],
            [...attributePath, index],
            paths,
          ),
        );
        break;
      }
      case 'set':
      case 'map': {
        const projectedType = replacingProjectionType(nested);
        const project = (collection: Value): Value => projectReplacingMembers(nested, collection);
        const collectionType: ValueType = { kind: attribute.nested.nesting, element: projectedType };
        if (differs(collectionType, project(priorValue), project(plannedValue))) paths.push(attributePath);
        break;
      }
    }
  }
}

function hasReplacingMember(attributes: Attributes): boolean {
  return Object.values(attributes).some(
    (attribute) => attribute.requiresReplace || (attribute.nested !== undefined && hasReplacingMember(attribute.nested.attributes)),
  );
}

/** The object type keeping only the members that force replacement (whole, when nested). */
function replacingProjectionType(attributes: Attributes): ValueType {
  const kept: Record<string, ValueType> = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    if (attribute.requiresReplace || (attribute.nested !== undefined && hasReplacingMember(attribute.nested.attributes))) {
      kept[name] = attributeType(attribute);
    }
  }
  return { kind: 'object', attributes: kept };
}

function projectReplacingMembers(attributes: Attributes, collection: Value): Value {
  if (collection === null || collection === UNKNOWN) return collection;
  const keptNames = Object.keys((replacingProjectionType(attributes) as { attributes: object }).attributes);
  const project = (element: Value): Value => {
    if (!isPlainObject(element)) return element;
    const projected: Record<string, Value> = {};
    for (const name of keptNames) projected[name] = element[name] ?? null;
    return projected;
  };
  return Array.isArray(collection) ? (collection as readonly Value[]).map(project) : mapValues(collection as ObjectValue, project);
}

/**
 * Where the state a create/update returned breaks the plan: a value the plan knew that came
 * back different. Values of sensitive attributes are not shown. Undefined when consistent.
 */
export function findAppliedInconsistency(schema: Schema, planned: ObjectValue, applied: ObjectValue): ShapeProblem | undefined {
  for (const [name, attribute] of Object.entries(schema.attributes)) {
    const render = containsSensitive(attribute) ? () => '(sensitive value)' : renderValue;
    const problem = findInconsistency(attributeType(attribute), planned[name] ?? null, applied[name] ?? null, [name], render);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function containsSensitive(attribute: AttributeSchema): boolean {
  if (attribute.sensitive) return true;
  return attribute.nested !== undefined && Object.values(attribute.nested.attributes).some(containsSensitive);
}

function findInconsistency(
  type: ValueType,
  planned: Value,
  applied: Value,
  path: PathStep[],
  render: (value: Value) => string,
): ShapeProblem | undefined {
  if (planned === UNKNOWN) return undefined;
  const mismatch = (): ShapeProblem => ({
    path: [...path],
    reason: `planned ${render(planned)}, but apply returned ${render(applied)}`,
  });
  if (planned === null || applied === null || applied === UNKNOWN) return planned === applied ? undefined : mismatch();
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return planned === applied ? undefined : mismatch();
    case 'list': {
      const plannedList = planned as readonly Value[];
      const appliedList = applied as readonly Value[];
      if (plannedList.length !== appliedList.length) return mismatch();
      for (let index = 0; index < plannedList.length; index++) {
        const problem = findInconsistency(type.element, plannedList[index], appliedList[index], [...path, index], render);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'set':
      // A set with unknown elements cannot be matched element by element (unknowns may even
      // collapse into fewer elements), so only a wholly known plan is compared.
      if (findUnknownPath(type, planned) !== undefined) return undefined;
      return valuesEqual(type, planned, applied) ? undefined : mismatch();
    case 'map': {
      const plannedMap = planned as ObjectValue;
      const appliedMap = applied as ObjectValue;
      const plannedKeys = Object.keys(plannedMap).sort();
      const appliedKeys = Object.keys(appliedMap).sort();
      if (plannedKeys.join('\u0000') !== appliedKeys.join('\u0000')) return mismatch();
      for (const key of plannedKeys) {
        const problem = findInconsistency(type.element, plannedMap[key], appliedMap[key], [...path, { key }], render);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'object': {
      for (const [name, attributeValueType] of Object.entries(type.attributes)) {
        const plannedObject = planned as ObjectValue;
        const appliedObject = applied as ObjectValue;
        const problem = findInconsistency(
          attributeValueType,
          plannedObject[name] ?? null,
          appliedObject[name] ?? null,
          [...path, name],
          render,
        );
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}

const MAX_RENDERED_LENGTH = 200;

/** A short, readable rendering of a value for a diagnostic. */
export function renderValue(value: Value): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (item === UNKNOWN ? '(known after apply)' : item));
  return text.length > MAX_RENDERED_LENGTH ? `${text.slice(0, MAX_RENDERED_LENGTH)}...` : text;
}

