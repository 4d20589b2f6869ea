// A feed-mapping block's arguments and pagination: which of our inputs (or constants) become the
// feed's arguments, mapped as declared, and how a page says where the next one starts.
import { type CallScope, type FeedInput, type FeedInputKey, type FeedKind, type MappedPayload, type Pagination } from './types.js';
import { isObjectLike, readPath } from './paths.js';
import type { ScopeInputs } from './kinds.js';
import { DEFAULT_MAX_PAGES, type ArgSpec, type PaginationSpec, type ValueMap } from './block-schema.js';
import { type PlannedArg, type PlannedRead, Problems, hasOwn, list, pathOf, ownMap, isScalar } from './plan.js';

export function compileArgs(
  p: Problems,
  raw: Record<string, ArgSpec>,
  scope: CallScope,
  inputs: ScopeInputs,
  kind: FeedKind,
): PlannedArg[] {
  const given = [...inputs.always, ...inputs.sometimes];
  const out: PlannedArg[] = [];
  for (const [name, spec] of Object.entries(raw)) {
    const key = `args.${name}`;
    if (typeof spec === 'object' && hasOwn(spec, 'const')) {
      out.push({ name, key, hasConst: true, const: (spec as { const: unknown }).const });
      continue;
    }
    const { from, map } = typeof spec === 'string' ? { from: spec, map: undefined } : (spec as { from: FeedInputKey; map?: ValueMap });
    if (given.includes(from)) out.push({ name, key, from, map: ownMap(map), hasConst: false });
    else p.add(key, `${from} is never given to a ${scope}-scoped ${kind} feed (it gets ${list(given)})`);
  }
  return out;
}

// ------------------------------------------------------------------------------------------ pagination

/** Where the next page starts, read from a page and the number of records it listed. */
export type NextReader = (page: unknown, listed: number) => NonNullable<MappedPayload<unknown>['next']>;

export function compilePagination(
  p: Problems,
  raw: PaginationSpec | null | undefined,
  args: PlannedArg[],
  reads: PlannedRead[],
): { pagination: Pagination; next: NextReader } | null {
  if (!raw) return null;
  const maxPages = raw.maxPages ?? DEFAULT_MAX_PAGES;
  const at = raw.cursor ? 'pagination.cursor' : 'pagination.page';
  // The block's shape holds exactly one of cursor and page, and the argument names.
  const argName = <T extends string | undefined>(k: string, v: T): T => {
    if (v !== undefined && args.some((a) => a.name === v)) p.add(`${at}.${k}`, `argument "${v}" is under args too; pagination sets it`);
    return v;
  };
  if (raw.cursor) {
    const arg = argName('arg', raw.cursor.arg);
    const next = pathOf(p, `${at}.next`, raw.cursor.next);
    if (!next) return null;
    reads.push({ key: `${at}.next`, prefix: [], path: next, expect: { kind: 'leaf', accepts: 'text', list: false } });
    return {
      pagination: { style: 'cursor', arg, maxPages },
      next: (page) => {
        const v = readPath(page, next, 'one');
        return { cursor: typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null };
      },
    };
  }
  const { arg, first = 1, sizeArg, size } = raw.page!;
  const pagination: Pagination = {
    style: 'page',
    arg: argName('arg', arg),
    first,
    sizeArg: argName('sizeArg', sizeArg) ?? null,
    size,
    maxPages,
  };
  return { pagination, next: (_page, listed) => ({ more: listed >= size }) };
}

export function buildArgs(args: PlannedArg[], input: FeedInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given = (isObjectLike(input) ? input : {}) as Record<string, unknown>;
  for (const a of args) {
    if (a.hasConst) {
      out[a.name] = a.const;
      continue;
    }
    const v = hasOwn(given, a.from!) ? given[a.from!] : undefined;
    if (v === undefined || v === null) continue;
    out[a.name] = a.map && isScalar(v) && hasOwn(a.map, String(v)) ? a.map[String(v)] : v;
  }
  return out;
}
