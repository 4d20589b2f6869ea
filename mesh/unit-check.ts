// The unit check across feeds (mapping/unit-consensus.ts) as feeds:check and a production start run
// it: each offers feed called once with its sample ZIP (a utility-scoped feed once per choice
// territory of that ZIP), its offers compared with the other feeds' per territory and field.
// A feed that does not answer is left out: that is a failing feed, not a unit mistake.
import fs from 'node:fs';
import type { CanonicalOffer } from '../domain/canonical.js';
import type { FeedInput } from '../transforms/mapping/types.js';
import type { CallableFeed } from './feed-call.js';
import { distinctMistakes, offerValues, unitMistakes, type UnitMistake } from '../transforms/mapping/unit-consensus.js';
import { callPaged } from '../transforms/paged-call.js';
import { withFeedScope } from '../sources/upstream/feed-scope.js';

export interface FeedUnitMistake extends UnitMistake {
  /** 1-based line of the field in .meshrc.yaml, when found. */
  line: number | null;
  /** The feed's block says `unitCheck: serve-anyway`. */
  serveAnyway: boolean;
}

interface Feeds {
  all: readonly CallableFeed[];
  byKind<K extends 'offers' | 'territories'>(kind: K): CallableFeed<K>[];
}

/** The calls of one feed's sample: its own, or one per deregulated utility of the sample ZIP. */
export async function sampleInputs(b: CallableFeed, zipCode: string, feeds: Feeds, ctx: object): Promise<FeedInput[]> {
  if (b.scope !== 'utility') return [{ zipCode, customerClass: 'RESIDENTIAL' }];
  const [territories] = feeds.byKind('territories');
  if (!territories?.execute) return [];
  const payload = await territories.execute(territories.args({ zipCode }), ctx);
  const served = territories.map(payload).records.filter((t) => t.market === 'DEREGULATED');
  return [...new Set(served.map((t) => t.utilityId))].map((utilityId) => ({ utilityId, customerClass: 'RESIDENTIAL' }));
}

/** Each offers feed's sample offers (feeds without a sample ZIP, or not answering, are left out). */
export async function sampleOffers(feeds: Feeds, ctx: object): Promise<Map<string, CanonicalOffer[]>> {
  const out = new Map<string, CanonicalOffer[]>();
  await Promise.all(
    feeds.byKind('offers').map(async (b) => {
      const execute = b.execute;
      if (!execute || !b.sampleZip) return;
      try {
        const offers: CanonicalOffer[] = [];
        for (const input of await sampleInputs(b, b.sampleZip, feeds, ctx)) {
          const r = await callPaged(b, input, (args, timeoutMs) =>
            execute(args, withFeedScope(ctx, { feed: b.source, timeoutMs, calls: [], stale: [] })),
          );
          offers.push(...(input.utilityId ? r.records.filter((o) => o.utilityId === input.utilityId) : r.records));
        }
        out.set(b.source, offers);
      } catch {
        // not answering: reported as failing elsewhere
      }
    }),
  );
  return out;
}

/** Unit mistakes among the feeds' sample offers, one per feed and field, with the field's line in `meshrcPath`. */
export function feedUnitMistakes(
  feeds: Feeds,
  sampled: ReadonlyMap<string, readonly CanonicalOffer[]>,
  meshrcPath?: string,
): FeedUnitMistake[] {
  const values = feeds
    .byKind('offers')
    .flatMap((b) => (b.units && sampled.has(b.source) ? offerValues(b.source, sampled.get(b.source)!, b.units) : []));
  let text = '';
  try {
    text = meshrcPath ? fs.readFileSync(meshrcPath, 'utf8') : '';
  } catch {
    // lines are a help, not a need
  }
  return distinctMistakes(unitMistakes(values)).map((m) => ({
    ...m,
    line: text ? fieldLine(text, m.feed, m.field) : null,
    serveAnyway: feeds.all.some((b) => b.source === m.feed && b.unitCheck === 'serve-anyway'),
  }));
}

/** "feed Voltify: energyBlocks.price: …; .meshrc.yaml line 156" */
export function describeMistake(m: FeedUnitMistake): string {
  return `feed ${m.feed}: a unit mistake: ${m.message}${m.line ? `; .meshrc.yaml line ${m.line}` : ''}`;
}

/**
 * The line of a canonical field (`energyBlocks.price`: `price:` after `energyBlocks:`) in the
 * source block `- name: <feed>` of a .meshrc.yaml text; null when not found.
 */
export function fieldLine(text: string, feed: string, field: string): number | null {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*-\\s*name:\\s*['"]?${escape(feed)}['"]?\\s*(#.*)?$`).test(l));
  if (start < 0) return null;
  const indent = lines[start]!.search(/\S/);
  let i = start + 1;
  for (const key of field.split('.')) {
    const re = new RegExp(`^\\s*${escape(key)}\\s*:`);
    for (; i < lines.length; i++) {
      const l = lines[i]!;
      // The next source block ends the search.
      if (/^\s*-\s*name:/.test(l) && l.search(/\S/) <= indent) return null;
      if (re.test(l)) break;
    }
    if (i >= lines.length) return null;
  }
  return i + 1;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
