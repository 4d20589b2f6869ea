// The feed mapping: configuration (the `feed-mapping` blocks of .meshrc.yaml) -> FeedBindings the
// resolvers call. Contract: types.ts. Syntax: compile.ts (fields), paths.ts (paths), units.ts (units),
// kinds.ts (the canonical keys of each kind).
import { compileFeedMapping, type CompiledFeedBinding } from './compile.js';
import { isObjectLike } from './paths.js';
import { FeedConfigError, type FeedBinding } from './types.js';
import { Problems } from './compile.js';
import { requireArg } from './validate.js';

export { compileFeedMapping, FEED_INPUT_KEYS } from './compile.js';
export type { CompiledFeedBinding } from './compile.js';
export { validateAgainstSchema } from './validate.js';
export { UNIT_NAMES } from './units.js';
export { KIND_NAMES } from './kinds.js';
export * from './types.js';

/** Compiled blocks by their config object: the transform (which validates) and the resolvers' bindings share one compile. */
const compiled = new WeakMap<object, CompiledFeedBinding>();

/** compileFeedMapping, once per config object (and source name). */
export function compiledMapping(source: string, rawConfig: unknown): CompiledFeedBinding {
  if (!isObjectLike(rawConfig)) return compileFeedMapping(source, rawConfig);
  const hit = compiled.get(rawConfig);
  if (hit && hit.source === source) return hit;
  const binding = compileFeedMapping(source, rawConfig);
  compiled.set(rawConfig, binding);
  return binding;
}

/** A transform key that is this mapping: `feed-mapping`, or any path ending in `feed-mapping.ts`. */
export function isFeedMappingKey(key: string): boolean {
  return key === 'feed-mapping' || key.endsWith('feed-mapping.ts');
}

/**
 * Every source of a (parsed) Mesh config that carries the feed-mapping transform, compiled, in the
 * order declared. Throws FeedConfigError on a bad mapping, a source without a name, two
 * feed-mapping transforms on one source, or two mapped sources of the same name.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed .meshrc.yaml, checked key by key below
export function bindingsFromConfig(rawMeshConfig: { sources?: any[] } | null | undefined): CompiledFeedBinding[] {
  const sources: unknown = rawMeshConfig?.sources;
  if (sources === undefined || sources === null) return [];
  if (!Array.isArray(sources)) throw new FeedConfigError('(config)', 'sources', 'expected a list of sources');
  const out: CompiledFeedBinding[] = [];
  const names = new Set<string>();
  sources.forEach((src: unknown, i) => {
    if (!isObjectLike(src) || !Array.isArray(src.transforms)) return;
    const configs: unknown[] = [];
    for (const t of src.transforms as unknown[]) {
      if (!isObjectLike(t)) continue;
      for (const k of Object.keys(t)) if (isFeedMappingKey(k)) configs.push(t[k]);
    }
    if (configs.length === 0) return;
    const name = src.name;
    if (typeof name !== 'string' || name === '') {
      throw new FeedConfigError(`sources[${i}]`, 'name', 'a source with the feed-mapping transform needs a name');
    }
    if (configs.length > 1) throw new FeedConfigError(name, 'transforms', 'more than one feed-mapping transform on this source');
    if (names.has(name)) throw new FeedConfigError(name, 'name', 'two mapped sources have this name');
    names.add(name);
    const blocks = mappingBlocks(configs[0]);
    const bindings = blocks.map((block) => compiledMapping(name, block));
    checkBlocks(name, blocks, bindings);
    for (const binding of bindings) {
      checkPathArgs(binding, src.handler);
      out.push(binding);
    }
  });
  return out;
}

/** The mapping blocks of a feed-mapping transform: one block, or a list of them (one per operation). */
export function mappingBlocks(config: unknown): unknown[] {
  return Array.isArray(config) ? config : [config];
}

/**
 * Several blocks on one source are for a kind whose records merge by key across them: state
 * statistics (EIA's API v2 serves prices and generation on two routes). Together they must name
 * every field one block would have to.
 */
function checkBlocks(source: string, blocks: unknown[], bindings: CompiledFeedBinding[]): void {
  if (blocks.length === 0) throw new FeedConfigError(source, 'transforms', 'the feed-mapping transform has an empty list of blocks');
  if (bindings[0]!.kind !== 'stateStats') {
    if (blocks.length > 1)
      throw new FeedConfigError(source, 'transforms', 'several mapping blocks on one source are for stateStats feeds only');
    return;
  }
  if (bindings.some((b) => b.kind !== 'stateStats'))
    throw new FeedConfigError(source, 'kind', 'the blocks of one source must all be stateStats');
  const named = new Set(blocks.flatMap((b) => (isObjectLike(b) && isObjectLike(b.fields) ? Object.keys(b.fields) : [])));
  const missing = STATE_STATS_FIELDS.filter((f) => !named.has(f));
  if (missing.length) {
    const where = blocks.length > 1 ? 'none of its mapping blocks names' : 'the mapping does not name';
    throw new FeedConfigError(source, 'fields', `required: ${where} ${missing.join(', ')}`);
  }
}

/** What a stateStats source must map (in one block or across several). */
const STATE_STATS_FIELDS = ['state', 'name', 'year', 'residentialPerKwh', 'commercialPerKwh', 'generation'];

/**
 * Arguments a JSON Schema operation puts in its request path (`/x/{args.utility}`) are needed on
 * every call, whatever type the handler gives them: an optional input there fails every call
 * made without it, before the feed is even asked.
 */
function checkPathArgs(binding: CompiledFeedBinding, handler: unknown): void {
  const ops = isObjectLike(handler) && isObjectLike(handler.jsonSchema) ? handler.jsonSchema.operations : undefined;
  if (!Array.isArray(ops)) return;
  const op = ops.find((o) => isObjectLike(o) && o.field === binding.operation);
  if (!isObjectLike(op) || typeof op.path !== 'string') return;
  const p = new Problems();
  for (const [, name] of op.path.matchAll(/\{args\.([_A-Za-z][_0-9A-Za-z]*)\}/g)) {
    requireArg(p, binding.plan, name!, `the request path ${op.path} needs argument "${name}"`);
  }
  p.throwIfAny(binding.source);
}

export type { FeedBinding };
