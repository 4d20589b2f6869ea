// One feed call as the mapping declares it: a single page, or pages followed (cursor or page
// number) until the feed says there are no more, `maxPages` is reached or the feed's timeout (for
// all pages together) runs out. Used by the resolvers and by feeds:check, so both see the same.
import { performance } from 'node:perf_hooks';
import type { CanonicalByKind, Carrier, Doubt, FeedBinding, FeedInput, FeedKind, MappedPayload, Rejection } from './mapping/types.js';
import { dropSystematic } from './mapping/plausibility.js';
import { frozen } from './mapping/shared-mapping.js';

/** Calls the feed's operation once with these arguments, within `timeoutMs`. */
type PageCall = (args: Record<string, unknown>, timeoutMs: number) => Promise<unknown>;

export interface PagedResult<K extends FeedKind> {
  records: CanonicalByKind[K][];
  rejected: Rejection[];
  doubts: Doubt[];
  pages: number;
  /** Why pages were left out (cap or time), null when the feed was followed to its end. */
  truncated: string | null;
}

/** The feed's arguments for page `n` (0-based); `cursor` from the page before. */
function pageArgs(b: FeedBinding, base: Record<string, unknown>, n: number, cursor: string | null): Record<string, unknown> {
  const pg = b.pagination;
  if (!pg) return base;
  if (pg.style === 'cursor') return n === 0 ? base : { ...base, [pg.arg]: cursor };
  return { ...base, [pg.arg]: pg.first + n, ...(pg.sizeArg ? { [pg.sizeArg]: pg.size } : {}) };
}

/**
 * A call's records, rejections and doubts when it took one page: the page's own after the check for
 * a unit mistake, made once per mapped page. A mapped page is read-only and shared by every caller of
 * its exchange (mapping/shared-mapping.ts), and so is this.
 */
const singlePages = new WeakMap<object, Pick<PagedResult<FeedKind>, 'records' | 'rejected' | 'doubts'>>();

function singlePage<K extends FeedKind>(
  mapped: MappedPayload<CanonicalByKind[K]>,
): Pick<PagedResult<K>, 'records' | 'rejected' | 'doubts'> {
  let result = singlePages.get(mapped) as Pick<PagedResult<K>, 'records' | 'rejected' | 'doubts'> | undefined;
  if (!result) {
    const whole = { records: mapped.records, rejected: mapped.rejected, carriers: mapped.carriers ?? [] };
    dropSystematic(whole);
    // Shared like the page: lists made new by the check (records dropped) are frozen as its are.
    frozen(whole.records);
    frozen(whole.rejected);
    result = { records: whole.records, rejected: whole.rejected, doubts: mapped.doubts };
    singlePages.set(mapped, result);
  }
  return result;
}

export async function callPaged<K extends FeedKind>(
  b: FeedBinding<K>,
  input: FeedInput,
  call: PageCall,
  now: () => number = () => performance.now(),
): Promise<PagedResult<K>> {
  const base = b.args(input);
  const deadline = now() + b.timeoutMs;
  const pages: MappedPayload<CanonicalByKind[K]>[] = [];
  let truncated: string | null = null;
  let cursor: string | null = null;
  for (;;) {
    const n = pages.length;
    const left = deadline - now();
    if (n > 0 && left <= 0) {
      truncated = `stopped after ${n} pages: its timeout (${b.timeoutMs} ms, for all pages) ran out`;
      break;
    }
    let payload: unknown;
    try {
      payload = await call(pageArgs(b, base, n, cursor), n === 0 ? b.timeoutMs : Math.ceil(left));
    } catch (err) {
      // A later page that runs past the feed's timeout leaves the pages before it standing.
      if (n === 0 || deadline - now() > 0) throw err;
      truncated = `stopped after ${n} pages: its timeout (${b.timeoutMs} ms, for all pages) ran out`;
      break;
    }
    const mapped = b.map(payload, input);
    pages.push(mapped);
    const next = mapped.next;
    const more = next ? ('cursor' in next ? next.cursor !== null : next.more) : false;
    if (!more || !b.pagination) break;
    if (next && 'cursor' in next) cursor = next.cursor;
    if (pages.length >= b.pagination.maxPages) {
      truncated = `stopped after ${pages.length} pages (maxPages ${b.pagination.maxPages}); the feed has more`;
      break;
    }
  }
  if (pages.length === 1) return { ...singlePage(pages[0]!), pages: 1, truncated };
  const out: PagedResult<K> = { records: [], rejected: [], doubts: [], pages: pages.length, truncated };
  const carriers: Carrier[] = [];
  pages.forEach((mapped, n) => {
    // The page's carriers at their place in the whole list (copies: a mapped page is read-only).
    const offset = out.records.length;
    for (const c of mapped.carriers ?? []) carriers.push(offset ? { ...c, position: c.position + offset } : c);
    out.records.push(...mapped.records);
    out.rejected.push(...mapped.rejected.map((r) => (n ? { ...r, reason: `page ${n + 1}: ${r.reason}` } : r)));
    out.doubts.push(...mapped.doubts.map((d) => (n ? { ...d, message: `page ${n + 1}: ${d.message}` } : d)));
  });
  // A unit mistake shows across the records of every page together.
  const whole = { records: out.records, rejected: out.rejected, carriers };
  dropSystematic(whole);
  out.records = whole.records;
  out.rejected = whole.rejected;
  return out;
}
