/**
 * Schemas of the provider configuration, resources and data sources. Every field of the
 * user-facing HCL is an attribute (no nested blocks); a set of objects whose members may be
 * omitted in HCL is a nested attribute (`nested`).
 */
import type { ValueType } from './types';

interface AttributeCommon {
  /** Shown by `terraform providers schema` and in generated docs/bindings. Markdown. */
  readonly description: string;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  /** Terraform hides the value in plan output; it is still stored in state. */
  readonly sensitive?: boolean;
  /**
   * A change of this attribute (planned value differs from prior state) replaces the
   * resource. The core adds the attribute's path to `requires_replace`.
   */
  readonly requiresReplace?: boolean;
}

export interface PrimitiveAttributeSchema extends AttributeCommon {
  readonly type: ValueType;
  readonly nested?: undefined;
}

/**
 * A nested attribute: HCL `name = [{ ip = "...", description = "..." }]`, where members not
 * required may be left out (they arrive as null). Its value type is
 * set/list(object(...)) or, for 'single', the object itself.
 */
export interface NestedAttributeSchema extends AttributeCommon {
  readonly type?: undefined;
  readonly nested: {
    readonly nesting: 'single' | 'list' | 'set' | 'map';
    readonly attributes: Readonly<Record<string, AttributeSchema>>;
  };
}

export type AttributeSchema = PrimitiveAttributeSchema | NestedAttributeSchema;

export interface Schema {
  /** State schema version; bump it with an upgrade step when stored state changes shape. */
  readonly version: number;
  readonly description: string;
  readonly attributes: Readonly<Record<string, AttributeSchema>>;
}
