/**
 * Core schemas as tfplugin6 schema messages: attributes sorted by name, nested attributes as
 * nested types with their nesting mode, descriptions marked as markdown; core function
 * definitions as tfplugin6 Function messages. The value type a
 * schema implies (what the msgpack codec decodes against) lives in the core; it is re-exported
 * here for the wire's users.
 */
import type { FunctionDefinition, FunctionParameter } from '../core/functions';
import type { AttributeSchema, Schema } from '../core/schema';
import { attributeType, impliedType } from '../core/value-shape';
import * as messages from './messages';
import { encodeType } from './type-json';

export { attributeType, impliedType };

const NESTING_MODES: Record<'single' | 'list' | 'set' | 'map', messages.ObjectNestingMode> = {
  single: messages.ObjectNestingMode.Single,
  list: messages.ObjectNestingMode.List,
  set: messages.ObjectNestingMode.Set,
  map: messages.ObjectNestingMode.Map,
};

const EMPTY = Buffer.alloc(0);

export function toProtocolSchema(schema: Schema): messages.Schema {
  return {
    version: schema.version,
    block: {
      version: schema.version,
      attributes: toProtocolAttributes(schema.attributes),
      blockTypes: [],
      description: schema.description,
      descriptionKind: messages.StringKind.Markdown,
      deprecated: false,
    },
  };
}

function toProtocolAttributes(attributes: Readonly<Record<string, AttributeSchema>>): messages.SchemaAttribute[] {
  return Object.keys(attributes)
    .sort()
    .map((name) => toProtocolAttribute(name, attributes[name]));
}

function toProtocolAttribute(name: string, attribute: AttributeSchema): messages.SchemaAttribute {
  const common = {
    name,
    description: attribute.description,
    required: attribute.required === true,
    optional: attribute.optional === true,
    computed: attribute.computed === true,
    sensitive: attribute.sensitive === true,
    descriptionKind: messages.StringKind.Markdown,
    deprecated: false,
    writeOnly: false,
  };
  if (attribute.nested === undefined) return { ...common, type: encodeType(attribute.type) };
  return {
    ...common,
    type: EMPTY,
    nestedType: {
      attributes: toProtocolAttributes(attribute.nested.attributes),
      nesting: NESTING_MODES[attribute.nested.nesting],
    },
  };
}

export function toProtocolFunction(definition: FunctionDefinition): messages.ProviderFunction {
  return {
    parameters: definition.parameters.map(toProtocolParameter),
    return: { type: encodeType(definition.returnType) },
    summary: definition.summary,
    description: definition.description,
    descriptionKind: messages.StringKind.Markdown,
    deprecationMessage: '',
  };
}

function toProtocolParameter(parameter: FunctionParameter): messages.FunctionParameter {
  return {
    name: parameter.name,
    type: encodeType(parameter.type),
    allowNullValue: parameter.allowNull === true,
    allowUnknownValues: parameter.allowUnknown === true,
    description: parameter.description,
    descriptionKind: messages.StringKind.Markdown,
  };
}
