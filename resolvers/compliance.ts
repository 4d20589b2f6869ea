// Applies the market rules (domain/market-rules.ts) to every feed's offers after mapping: an offer
// that breaks a rule of its territory's state is never served; each drop is counted per feed and
// rule (gateway_offers_noncompliant_total) and logged, throttled, by the feed events.
import type { CanonicalOffer, Territory } from '../domain/canonical.js';
import { violations } from '../domain/market-rules.js';
import type { ResolverContext } from './context.js';

export function compliantOffers(
  ctx: Pick<ResolverContext, 'feeds'> & Partial<Pick<ResolverContext, 'now'>>,
  offers: CanonicalOffer[],
  served: readonly Territory[],
): CanonicalOffer[] {
  const territoryOf = new Map(served.map((t) => [t.utilityId, t]));
  // Rules are dated: an offer shown today is held to the rules in force today.
  const today = (ctx.now?.() ?? new Date()).toISOString().slice(0, 10);
  return offers.filter((offer) => {
    const territory = territoryOf.get(offer.utilityId);
    // Offers for a territory not served here are left out later anyway (plans.ts: offersFor).
    if (territory === undefined) return true;
    const broken = violations(offer, territory, today);
    if (broken.length === 0) return true;
    for (const v of broken) ctx.feeds.events?.noncompliant(offer.feed, v.rule.id, `offer ${offer.offerId}: ${v.reason} (${v.rule.source})`);
    return false;
  });
}
