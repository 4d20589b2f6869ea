// Market compliance rules: which offers each state bars, how the gateway drops and counts them, and
// that the reference upstream's own offers comply.
import { describe, expect, it } from 'vitest';
import type { CanonicalOffer, Territory } from '../../domain/canonical.js';
import { MARKET_RULES, inForce, violations } from '../../domain/market-rules.js';
import { STATE_REVIEWS } from '../../domain/state-reviews.js';
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
    for (const r of MARKET_RULES) expect(r.source, r.id).toMatch(/§|ILCS|Act|Bill|Case/);
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

  it('Connecticut: no variable or indexed prices for residential customers (P.A. 15-90, §16-245o(g)(4))', () => {
    const ct = (o: Partial<CanonicalOffer>) => violations(offer({ cancellationFeeMicro: 0, ...o }), 'CT').map((v) => v.rule.id);
    expect(ct({ rateType: 'VARIABLE' })).toEqual(['CT_RESIDENTIAL_VARIABLE']);
    expect(ct({ rateType: 'INDEXED' })).toEqual(['CT_RESIDENTIAL_VARIABLE']);
    expect(ct({ rateType: 'FIXED' })).toEqual([]);
    expect(ct({ rateType: 'VARIABLE', customerClass: 'COMMERCIAL' })).toEqual([]);
    expect(MARKET_RULES.find((r) => r.id === 'CT_RESIDENTIAL_VARIABLE')!.source).toMatch(/Public Act 15-90.*§16-245o\(g\)\(4\)/);
  });

  it('Connecticut: no cancellation fee for residential customers (P.A. 21-117)', () => {
    expect(violations(offer({ cancellationFeeMicro: 1 }), 'CT').map((v) => v.rule.id)).toEqual(['CT_RESIDENTIAL_CANCELLATION_FEE']);
    expect(violations(offer({ cancellationFeeMicro: 0 }), 'CT')).toEqual([]);
    expect(violations(offer({ cancellationFeeMicro: 295 * USD, customerClass: 'COMMERCIAL' }), 'CT')).toEqual([]);
  });

  const md = { state: 'MD', trailingSupplyPrice: { microPerKwh: 114_233, from: '2025-11-01', to: '2026-10-31' } };
  const block = (micro: number) => [{ fromKwh: 0, toKwh: null, microUsdPerKwh: micro }];

  it('Maryland SB 1: residential terms at most 12 months, prices at most the trailing 12-month SOS average', () => {
    const ids = (o: Partial<CanonicalOffer>, where: typeof md | { state: string } = md) =>
      violations(offer({ cancellationFeeMicro: 0, ...o }), where, '2026-11-28').map((v) => v.rule.id);
    expect(ids({ termMonths: 12, energyBlocks: block(114_233) })).toEqual([]);
    expect(ids({ termMonths: 24, energyBlocks: block(114_233) })).toEqual(['MD_RESIDENTIAL_TERM']);
    expect(ids({ energyBlocks: block(114_234) })).toEqual(['MD_RESIDENTIAL_PRICE_CAP']);
    // Every block counts, not only the first.
    expect(
      ids({
        energyBlocks: [
          { fromKwh: 0, toKwh: 500, microUsdPerKwh: 100_000 },
          { fromKwh: 500, toKwh: null, microUsdPerKwh: 130_000 },
        ],
      }),
    ).toEqual(['MD_RESIDENTIAL_PRICE_CAP']);
    // Green products are held to the same limit until a feed carries the PSC-approved price.
    expect(ids({ renewablePercent: 100, energyBlocks: block(120_000) })).toEqual(['MD_RESIDENTIAL_PRICE_CAP']);
    // Without the trailing average the price cannot be checked: the offer is not shown.
    const [unknown] = violations(offer({ energyBlocks: block(90_000) }), { state: 'MD' }, '2026-11-28');
    expect(unknown!.reason).toMatch(/no trailing 12-month/);
    // Contracts before 2025 were not held to SB 1; commercial customers are not.
    expect(ids({ termMonths: 36 }, md).length).toBeGreaterThan(0);
    expect(violations(offer({ termMonths: 36, energyBlocks: block(200_000) }), md, '2024-12-31')).toEqual([]);
    expect(violations(offer({ termMonths: 36, customerClass: 'COMMERCIAL', energyBlocks: block(200_000) }), md, '2026-11-28')).toEqual([]);
  });

  it('New York Reset order: only fixed within 5% of the trailing supply price, or renewable', () => {
    const ny = { state: 'NY', trailingSupplyPrice: { microPerKwh: 100_000, from: '2025-11-01', to: '2026-10-31' } };
    const ids = (o: Partial<CanonicalOffer>) =>
      violations(offer({ cancellationFeeMicro: 0, ...o }), ny, '2026-11-28').map((v) => v.rule.id);
    expect(ids({ energyBlocks: block(105_000) })).toEqual([]);
    expect(ids({ energyBlocks: block(105_001) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids({ rateType: 'VARIABLE', energyBlocks: block(90_000) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids({ rateType: 'INDEXED', energyBlocks: block(90_000) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids({ rateType: 'VARIABLE', renewablePercent: 50, energyBlocks: block(190_000) })).toEqual([]);
    expect(ids({ renewablePercent: 49, energyBlocks: block(190_000) })).toEqual(['NY_RESET_PRODUCTS']);
  });

  it('every rule is dated and in force from its effective date on', () => {
    for (const r of MARKET_RULES) {
      expect(r.effectiveFrom, r.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(inForce(r, r.effectiveFrom)).toBe(true);
      expect(inForce(r, '2000-01-01')).toBe(false);
    }
  });

  it('every choice state has a reviewed row: its rules, or "none found"', () => {
    const states = STATE_REVIEWS.map((r) => r.state);
    for (const s of ['NJ', 'DE', 'DC', 'ME', 'NH', 'MA', 'RI', 'PA', 'OH', 'IL', 'TX', 'MI', 'CT', 'MD', 'NY']) expect(states).toContain(s);
    for (const r of STATE_REVIEWS)
      expect(r.offerRules.length > 0 || r.enrolment !== null || r.finding === 'none found', r.state).toBe(true);
    expect(STATE_REVIEWS.find((r) => r.state === 'OH')!.enrolment).toMatch(/7 calendar days.*4901:1-21-06/);
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
  it("every offer of every choice utility complies with its state's rules today", () => {
    let checked = 0;
    for (const u of DEREGULATED_UTILITIES) {
      for (const cls of ['residential', 'commercial'] as const) {
        for (const feed of ['voltify', 'brightgrid'] as const) {
          for (const o of offersFor(feed, u.utilityId, cls)) {
            const c = offer({
              utilityId: u.utilityId,
              customerClass: cls === 'residential' ? 'RESIDENTIAL' : 'COMMERCIAL',
              rateType: o.rate,
              termMonths: o.termMonths,
              renewablePercent: o.renewablePercent,
              energyBlocks: o.tiers.map((t) => ({ ...t })),
              cancellationFeeMicro: Math.round(o.cancellationFeeUsd * USD),
            });
            const trailing = u.trailingSupplyPrice;
            const where = {
              state: u.state,
              trailingSupplyPrice: trailing && { microPerKwh: Math.round(trailing.usdPerKwh * USD), from: trailing.from, to: trailing.to },
            };
            expect(violations(c, where), `${feed} ${o.productName} at ${u.utilityId}`).toEqual([]);
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
