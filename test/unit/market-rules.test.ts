// Market compliance rules: which offers each state bars, how the gateway drops and counts them, and
// that the reference upstream's own offers comply.
import { describe, expect, it } from 'vitest';
import type { CanonicalOffer, Territory } from '../../domain/canonical.js';
import { MARKET_RULES, violations } from '../../domain/market-rules.js';
import { compliantOffers } from '../../resolvers/compliance.js';
import { createFeedEvents, feedEventCounts } from '../../transforms/feed-events.js';
import { createGatewayMetrics } from '../../server/observability/metrics.js';
import { DEREGULATED_UTILITIES } from '../../sources/reference-upstream/data/utilities.js';
import { offersFor } from '../../sources/reference-upstream/data/offers.js';
import { gridwiseOffers } from '../../sources/reference-upstream/data/gridwise.js';
import { offer as baseOffer } from '../support/offer.js';

const USD = 1_000_000;

const offer = (over: Partial<CanonicalOffer> = {}): CanonicalOffer =>
  baseOffer({ feed: 'RulesFeed', offerId: 'o-1', supplierName: 'Acme Power', title: 'Acme 12', cancellationFeeMicro: 150 * USD, ...over });

const territory = (utilityId: string, state: string) => ({ utilityId, state }) as Territory;

describe('market rules', () => {
  it('every rule names its source', () => {
    for (const r of MARKET_RULES) expect(r.source, r.id).toMatch(/§|ILCS|Act/);
  });

  it('Texas: no indexed plans for homes or small businesses (PURA §39.110, HB 16)', () => {
    expect(violations(offer({ rateType: 'INDEXED' }), 'TX').map((v) => v.rule.id)).toEqual(['TX_WHOLESALE_INDEXED']);
    expect(violations(offer({ rateType: 'INDEXED', customerClass: 'COMMERCIAL' }), 'TX').map((v) => v.rule.id)).toEqual([
      'TX_WHOLESALE_INDEXED',
    ]);
    expect(violations(offer({ rateType: 'FIXED' }), 'TX')).toEqual([]);
    expect(violations(offer({ rateType: 'INDEXED' }), 'PA')).toEqual([]);
  });

  it('Illinois: cancellation fee at most $50 residential, $150 small commercial (220 ILCS 5/16-119)', () => {
    expect(violations(offer({ cancellationFeeMicro: 50 * USD }), 'IL')).toEqual([]);
    const [v] = violations(offer({ cancellationFeeMicro: 50 * USD + 1 }), 'IL');
    expect(v!.rule.id).toBe('IL_CANCELLATION_FEE_CAP');
    expect(v!.reason).toMatch(/above the 50 USD cap for residential/);
    expect(violations(offer({ customerClass: 'COMMERCIAL', cancellationFeeMicro: 150 * USD }), 'IL')).toEqual([]);
    expect(violations(offer({ customerClass: 'COMMERCIAL', cancellationFeeMicro: 250 * USD }), 'IL')).toHaveLength(1);
    expect(violations(offer({ cancellationFeeMicro: 200 * USD }), 'OH')).toEqual([]);
  });

  it('Connecticut: no variable rates for residential customers', () => {
    expect(violations(offer({ rateType: 'VARIABLE' }), 'CT')).toHaveLength(1);
    expect(violations(offer({ rateType: 'VARIABLE', customerClass: 'COMMERCIAL' }), 'CT')).toEqual([]);
  });
});

describe('dropping noncompliant offers', () => {
  it('drops them per territory state, logs and counts them per feed and rule, and exposes the metric', async () => {
    const warned: string[] = [];
    const events = createFeedEvents({ warn: (_o, msg) => warned.push(msg) });
    const before = feedEventCounts().RulesFeed?.noncompliant.TX_WHOLESALE_INDEXED ?? 0;
    const offers = [
      offer({ offerId: 'tx-fixed' }),
      offer({ offerId: 'tx-index', rateType: 'INDEXED' }),
      offer({ offerId: 'il-fee', utilityId: 'COMED', cancellationFeeMicro: 100 * USD }),
      offer({ offerId: 'il-ok', utilityId: 'COMED', cancellationFeeMicro: 50 * USD }),
      offer({ offerId: 'pa-index', utilityId: 'PECO', rateType: 'INDEXED' }),
    ];
    const kept = compliantOffers({ feeds: { byKind: () => [], events } }, offers, [
      territory('ONCOR', 'TX'),
      territory('COMED', 'IL'),
      territory('PECO', 'PA'),
    ]);
    expect(kept.map((o) => o.offerId)).toEqual(['tx-fixed', 'il-ok', 'pa-index']);
    expect(feedEventCounts().RulesFeed!.noncompliant.TX_WHOLESALE_INDEXED).toBe(before + 1);
    expect(warned.join('\n')).toMatch(/offer tx-index: .*\(PURA\) §39\.110/);
    expect(warned.join('\n')).toMatch(/IL_CANCELLATION_FEE_CAP: offer il-fee: cancellation fee 100 USD/);
    const metrics = await createGatewayMetrics({ redisUp: null, defaultMetrics: false }).render();
    expect(metrics).toMatch(/gateway_offers_noncompliant_total\{feed="RulesFeed",rule="IL_CANCELLATION_FEE_CAP"\} [1-9]/);
  });
});

describe('reference upstream offers comply', () => {
  it('no Texas indexed plans, Illinois fees within the caps, no Connecticut residential variable plans', () => {
    let checked = 0;
    for (const u of DEREGULATED_UTILITIES) {
      for (const cls of ['residential', 'commercial'] as const) {
        for (const feed of ['voltify', 'brightgrid'] as const) {
          for (const o of offersFor(feed, u.utilityId, cls)) {
            const c = offer({
              utilityId: u.utilityId,
              customerClass: cls === 'residential' ? 'RESIDENTIAL' : 'COMMERCIAL',
              rateType: o.rate,
              cancellationFeeMicro: Math.round(o.cancellationFeeUsd * USD),
            });
            expect(violations(c, u.state), `${feed} ${o.productName} at ${u.utilityId}`).toEqual([]);
            checked++;
          }
        }
        for (const o of gridwiseOffers(u.utilityId, cls === 'residential' ? 'res' : 'com')) {
          const rateType = o.kind === 'IndexRate' ? 'INDEXED' : o.kind === 'VariableRate' ? 'VARIABLE' : 'FIXED';
          expect(violations(offer({ rateType, cancellationFeeMicro: o.earlyExitCents * 10_000 }), u.state), o.id).toEqual([]);
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    // ComEd still has offers with a cancellation fee, at the cap.
    expect(offersFor('voltify', 'COMED', 'residential').some((o) => o.cancellationFeeUsd === 50)).toBe(true);
  });
});
