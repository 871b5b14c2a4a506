/**
 * A read-only view of the Terraform elements of one stack, with each element's attributes
 * resolved the way synth writes them (escape-hatch overrides included, references turned into
 * `${type.name.attribute}` strings). Rules read attributes by their Terraform (snake_case)
 * names, so they see exactly what Terraform will see.
 */
import { IConstruct } from 'constructs';
import {
  DefaultTokenResolver,
  StringConcat,
  TerraformDataSource,
  TerraformResource,
  TerraformStack,
  Tokenization,
} from 'cdktf';
import { isRecord } from './expressions';

/** One resource or data source of the stack, with its attributes as synth writes them. */
export interface TerraformElementView {
  /** The cdktf construct of the element. */
  readonly construct: TerraformResource | TerraformDataSource;
  /** A resource or a data source. */
  readonly kind: 'resource' | 'data';
  /** e.g. `aws_autoscaling_group` */
  readonly type: string;
  /** e.g. `aws_autoscaling_group.service_asg_1A2B3C4D` or `data.aws_subnet.a` */
  readonly address: string;
  /** The Terraform (snake_case) attributes, overrides applied, references as `${type.name.attribute}` strings. */
  readonly attributes: Readonly<Record<string, unknown>>;
}

const RESOLVER = new DefaultTokenResolver(new StringConcat());

/**
 * The Terraform elements of one stack, as a rule reads them (RuleContext.inventory). Built by
 * the aspect, once per stack; a rule only reads it.
 */
export class TerraformInventory {
  private readonly views = new WeakMap<IConstruct, TerraformElementView>();
  private byAddressCache?: Map<string, TerraformElementView>;

  /** @param stack the stack whose elements are read (lazily, on first use). */
  constructor(readonly stack: TerraformStack) {}

  /** The view of a resource or data source construct; undefined for any other construct. */
  view(node: IConstruct): TerraformElementView | undefined {
    const cached = this.views.get(node);
    if (cached) return cached;
    let view: TerraformElementView | undefined;
    if (TerraformResource.isTerraformResource(node)) {
      view = this.describe(node, 'resource');
    } else if (TerraformDataSource.isTerraformDataSource(node)) {
      view = this.describe(node, 'data');
    }
    if (view) this.views.set(node, view);
    return view;
  }

  /** Every element of the stack of the given kind and types, in tree order. */
  elements(kind: 'resource' | 'data', types: readonly string[]): TerraformElementView[] {
    return [...this.addressIndex().values()].filter(
      (view) => view.kind === kind && types.includes(view.type),
    );
  }

  /** The element at a Terraform address such as `aws_subnet.a` or `data.aws_vpc.main`; undefined when there is none. */
  byAddress(address: string): TerraformElementView | undefined {
    return this.addressIndex().get(address);
  }

  private addressIndex(): Map<string, TerraformElementView> {
    if (!this.byAddressCache) {
      this.byAddressCache = new Map();
      for (const node of this.stack.node.findAll()) {
        const view = this.view(node);
        if (view) this.byAddressCache.set(view.address, view);
      }
    }
    return this.byAddressCache;
  }

  private describe(
    element: TerraformResource | TerraformDataSource,
    kind: 'resource' | 'data',
  ): TerraformElementView {
    const type = element.terraformResourceType;
    const name = element.friendlyUniqueId;
    // Non-preparing resolution has no side effects (cross-stack wiring happens when preparing).
    const resolved: unknown = Tokenization.resolve(element.toTerraform(), {
      scope: this.stack,
      preparing: false,
      resolver: RESOLVER,
    });
    const section = isRecord(resolved) ? resolved[kind] : undefined;
    const byType = isRecord(section) ? section[type] : undefined;
    const block = isRecord(byType) ? byType[name] : undefined;
    const attributes: Record<string, unknown> = isRecord(block) ? { ...block } : {};
    delete attributes['//'];
    return {
      construct: element,
      kind,
      type,
      address: kind === 'data' ? `data.${type}.${name}` : `${type}.${name}`,
      attributes,
    };
  }
}
