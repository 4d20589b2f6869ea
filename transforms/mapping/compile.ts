// Compiles one source's `feed-mapping` YAML block into a FeedBinding (types.ts). The block's shape,
// and what each key means, is the JSON Schema of block-schema.ts, checked first. Then what a shape
// cannot say: path syntax (paths.ts), context paths ($request.<input> must be an input the scope
// always gives, $page.<path> reads the page outside the record list), units that suit the field
// (units.ts), arguments from inputs the scope never gives, pagination arguments also under args,
// and const/default values, which go through map and unit like a value the feed sent. What the
// feed's schema must hold (operation, arguments, paths, leaf types) is validate.ts's.
//
// Per record: a configured field that is absent/null with no default rejects the record as
// "missing", unless the canonical field is nullable (-> null), a list (-> []) or an optional key
// without a neutral value (e.g. stateStats generation.WIND: left out). A value of the
// wrong type, a negative amount, money with more decimals than its unit allows, an unknown enum
// value... rejects the record with { index, reason }; map() never throws for a record.
//
// The steps live beside this file: plan.ts (the plan and its problems), arguments.ts (arguments and
// pagination), values.ts (values and units), payload-map.ts (mapping a payload).
import { FEED_INPUT_KEYS, FeedConfigError, type CallScope, type FeedBinding, type FeedInput, type FeedKind } from './types.js';
import { isObjectLike } from './paths.js';
import type { UnitName } from './units.js';
import { mappedOnce } from './shared-mapping.js';
import { kindDef } from './kinds.js';
import {
  blockShapeProblems,
  DEFAULT_MAX_ITEMS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_UTILITY_CACHE_SECONDS,
  type MappingBlock,
} from './block-schema.js';
import { Problems, pathOf, type PlannedRead, type MappingPlan } from './plan.js';
import { compileArgs, compilePagination, buildArgs } from './arguments.js';
import { compileTable, type Ctx } from './values.js';
import { mapPayload, type PayloadShape } from './payload-map.js';

export { FEED_INPUT_KEYS };
export { Problems, type Expect, type MappingPlan, type PlannedArg, type PlannedRead } from './plan.js';

/** What compileFeedMapping returns: a FeedBinding plus the plan validateAgainstSchema checks. */
export interface CompiledFeedBinding<K extends FeedKind = FeedKind> extends FeedBinding<K> {
  readonly plan: MappingPlan;
}

export function isCompiledBinding(b: unknown): b is CompiledFeedBinding {
  return isObjectLike(b) && isObjectLike((b as { plan?: unknown }).plan);
}

/**
 * Compiles a source's feed-mapping config. Throws FeedConfigError (naming source and key) on any
 * problem: first the block's shape (block-schema.ts), then what the shape cannot say.
 */
export function compileFeedMapping(source: string, rawConfig: unknown): CompiledFeedBinding {
  if (typeof source !== 'string' || source === '') {
    throw new FeedConfigError(String(source || '(unnamed)'), 'source', 'the feed-mapping transform must be set on a named source');
  }
  const p = new Problems();
  for (const s of blockShapeProblems(rawConfig)) p.add(s.key, s.detail);
  p.throwIfAny(source);
  const cfg = rawConfig as MappingBlock;
  const kind = kindDef(cfg.kind)!;
  const scope = cfg.scope ?? (Object.keys(kind.scopes)[0] as CallScope);
  const inputs = kind.scopes[scope]!;
  const args = compileArgs(p, cfg.args ?? {}, scope, inputs, kind.kind);
  const resultType = cfg.resultType ?? null;
  const items = cfg.items !== undefined ? pathOf(p, 'items', cfg.items) : null;

  const reads: PlannedRead[] = [];
  const itemsRead: PlannedRead | undefined = items ? { key: 'items', prefix: [], path: items, expect: { kind: 'list' } } : undefined;
  if (itemsRead) reads.push(itemsRead);
  const pages = compilePagination(p, cfg.pagination, args, reads);
  const units = new Map<string, UnitName>();
  const c: Ctx = { p, reads, kind: kind.kind, scope, inputs, units, field: '', prefix: items ? items.segments : [], parent: itemsRead };
  const table = compileTable(c, kind.fields, cfg.fields, 'fields');
  p.throwIfAny(source);

  const maxItems = cfg.maxItems ?? DEFAULT_MAX_ITEMS;
  const plan: MappingPlan = { resultType, items, reads, args, maxItems, scope, inputs, pagination: pages?.pagination ?? null };
  const shape: PayloadShape = { source, kind, resultType, items, maxItems, table, units, next: pages?.next ?? null };
  const mapOnce = mappedOnce((payload, request) => mapPayload(shape, payload, request));
  const binding: CompiledFeedBinding = {
    source,
    kind: kind.kind,
    operation: cfg.operation,
    selectionSet: buildSelectionSet(reads, resultType),
    timeoutMs: cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    scope,
    pagination: plan.pagination,
    cacheSeconds: scope === 'utility' ? (cfg.cacheSeconds ?? DEFAULT_UTILITY_CACHE_SECONDS) : 0,
    ...(cfg.sampleZip !== undefined ? { sampleZip: cfg.sampleZip } : {}),
    ...(cfg.sampleState !== undefined ? { sampleState: cfg.sampleState } : {}),
    ...(cfg.unitCheck !== undefined ? { unitCheck: cfg.unitCheck } : {}),
    units,
    plan,
    args: (input: FeedInput) => buildArgs(args, input),
    map: (payload: unknown, request?: FeedInput) => mapOnce(payload, request ?? {}),
  };
  return Object.freeze(binding);
}

interface SelNode {
  children: Map<string, SelNode>;
  context: boolean;
}

/**
 * The selection set (with braces) covering every read, filter keys included; with `resultType`,
 * `{ __typename ... on <resultType> { ... } }`.
 */
function buildSelectionSet(reads: readonly PlannedRead[], resultType: string | null = null): string {
  const root: SelNode = { children: new Map(), context: true };
  const child = (n: SelNode, name: string): SelNode => {
    let c = n.children.get(name);
    if (!c) n.children.set(name, (c = { children: new Map(), context: false }));
    return c;
  };
  for (const r of reads) {
    let node = root;
    for (const seg of [...r.prefix, ...r.path.segments]) {
      node = child(node, seg.name);
      for (const sel of seg.selectors) if (sel.type === 'filter') child(node, sel.key);
    }
    if (r.expect.kind !== 'leaf') node.context = true;
  }
  const render = (n: SelNode): string => {
    if (n.children.size === 0) return n.context ? '{ __typename }' : '';
    return `{ ${[...n.children].map(([name, c]) => (c.children.size || c.context ? `${name} ${render(c)}` : name)).join(' ')} }`;
  };
  const body = render(root);
  return resultType ? `{ __typename ... on ${resultType} ${body} }` : body;
}
