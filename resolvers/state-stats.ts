// State statistics (energyInfoByState) from the first declared stateStats source. A source may map
// them in several blocks, one per operation (EIA's API v2: retail prices and net generation are two
// routes): every block is called in parallel and their records merge by state, each field from
// the first block that has it.
import type { StateStats } from '../transforms/mapping/types.js';
import type { CallableFeed } from '../mesh/feed-call.js';
import type { ResolverContext } from './context.js';
import { fetchFeed, soleFeed } from './feed-client.js';
import { upstreamUnavailable } from './errors.js';

type CompleteStateStats = Required<Omit<StateStats, 'estimated'>> & {
  /** Where the figures came from, as the answer names it. */
  source: string;
  /** Some figure of the merged record is marked estimated by its feed. */
  estimated: boolean;
};

/** EIA's own API host: figures from it are labelled as EIA's. */
const EIA_HOST = 'api.eia.gov';

function sourceLabel(ctx: ResolverContext, source: string): string {
  const url = (ctx.feedUrls as Record<string, string> | undefined)?.[source];
  let host = '';
  try {
    host = url ? new URL(url).hostname : '';
  } catch {
    host = '';
  }
  return host === EIA_HOST ? 'EIA API v2' : 'reference data';
}

const FIELDS = ['name', 'year', 'residentialMicroPerKwh', 'commercialMicroPerKwh', 'generationMwh'] as const;

/** The blocks of the first stateStats source, in the order declared. */
function blocks(ctx: ResolverContext): CallableFeed<'stateStats'>[] {
  const first = soleFeed(ctx, 'stateStats');
  return ctx.feeds.byKind('stateStats').filter((b) => b.source === first.source);
}

/** The merged record of `state`; null when the feed has none; an upstream error when it is incomplete. */
export async function stateStats(ctx: ResolverContext, state: string): Promise<CompleteStateStats | null> {
  const parts = blocks(ctx);
  const answers = await Promise.all(parts.map((b) => fetchFeed(ctx, b, { state })));
  const records = answers.map((records) => records.find((r) => r.state === state) ?? records[0]).filter((r) => r !== undefined);
  if (records.length === 0) return null;
  const merged: StateStats = { state };
  for (const r of records)
    for (const f of FIELDS) if (merged[f] === undefined && r[f] !== undefined) (merged as unknown as Record<string, unknown>)[f] = r[f];
  const missing = FIELDS.filter((f) => merged[f] === undefined);
  if (missing.length) throw upstreamUnavailable(parts[0]!.source, `answered without ${missing.join(', ')} for ${state}`);
  const estimated = records.some((r) => r.estimated === true);
  return { ...(merged as Required<Omit<StateStats, 'estimated'>>), source: sourceLabel(ctx, parts[0]!.source), estimated };
}
