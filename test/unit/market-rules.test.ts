// Market compliance rules: which offers each state bars, how the gateway drops and counts them, and
// that the reference upstream's own offers comply.
import { readFileSync } from 'node:fs';
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
import type { TrailingPrice } from '../../sources/reference-upstream/data/supply-prices.js';
import { offer as baseOffer } from '../support/offer.js';

const USD = 1_000_000;

const offer = (over: Partial<CanonicalOffer> = {}): CanonicalOffer =>
  baseOffer({ feed: 'RulesFeed', offerId: 'o-1', supplierName: 'Acme Power', title: 'Acme 12', cancellationFeeMicro: 150 * USD, ...over });

const territory = (utilityId: string, state: string) => ({ utilityId, state }) as Territory;

describe('market rules', () => {
  it('every rule names its source and says what of it is unverified', () => {
    for (const r of MARKET_RULES) {
      expect(r.source, r.id).toMatch(/§|ILCS|Act|Bill|Case/);
      expect(r.unverified === null || r.unverified.length > 10, r.id).toBe(true);
    }
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
    // Below green power's 51% a renewable product is held to the SOS average.
    expect(ids({ renewablePercent: 50, energyBlocks: block(120_000), approvedPriceMicroPerKwh: 130_000 })).toEqual([
      'MD_RESIDENTIAL_PRICE_CAP',
    ]);
    // Without the trailing average the price cannot be checked: the offer is not shown.
    const [unknown] = violations(offer({ energyBlocks: block(90_000) }), { state: 'MD' }, '2026-11-28');
    expect(unknown!.reason).toMatch(/no trailing 12-month/);
    // Contracts before 2025 were not held to SB 1; commercial customers are not.
    expect(ids({ termMonths: 36 }, md).length).toBeGreaterThan(0);
    expect(violations(offer({ termMonths: 36, energyBlocks: block(200_000) }), md, '2024-12-31')).toEqual([]);
    expect(violations(offer({ termMonths: 36, customerClass: 'COMMERCIAL', energyBlocks: block(200_000) }), md, '2026-11-28')).toEqual([]);
  });

  it('Maryland SB 1: green power at most its PSC-approved price, and none shown without one (PUA §7-707)', () => {
    const green = (o: Partial<CanonicalOffer>, date = '2026-11-28') =>
      violations(offer({ renewablePercent: 100, approvedPriceMicroPerKwh: 126_233, ...o }), md, date);
    const ids = (o: Partial<CanonicalOffer>, date?: string) => green(o, date).map((v) => v.rule.id);
    // Equal to the approved price passes, though above the SOS average; a cent (or a micro-dollar) above drops.
    expect(ids({ energyBlocks: block(126_233) })).toEqual([]);
    expect(ids({ energyBlocks: block(136_233) })).toEqual(['MD_GREEN_PRICE_CAP']);
    expect(ids({ energyBlocks: block(126_234) })).toEqual(['MD_GREEN_PRICE_CAP']);
    expect(green({ energyBlocks: block(136_233) })[0]!.reason).toMatch(/above the PSC-approved green power price 0\.126233 USD\/kWh/);
    // Every block counts.
    expect(
      ids({
        energyBlocks: [
          { fromKwh: 0, toKwh: 1000, microUsdPerKwh: 110_000 },
          { fromKwh: 1000, toKwh: null, microUsdPerKwh: 130_000 },
        ],
      }),
    ).toEqual(['MD_GREEN_PRICE_CAP']);
    // No approved price on record: dropped whatever the price, under its own rule and reason.
    const missing = green({ approvedPriceMicroPerKwh: null, energyBlocks: block(90_000) });
    expect(missing.map((v) => v.rule.id)).toEqual(['MD_GREEN_NO_APPROVED_PRICE']);
    expect(missing[0]!.reason).toMatch(/no PSC-approved price/);
    expect(ids({ approvedPriceMicroPerKwh: undefined, energyBlocks: block(90_000) })).toEqual(['MD_GREEN_NO_APPROVED_PRICE']);
    // Green from 51% renewable on.
    expect(ids({ renewablePercent: 51, approvedPriceMicroPerKwh: null })).toEqual(['MD_GREEN_NO_APPROVED_PRICE']);
    // Contracts before 2025 were not held to SB 1; small commercial customers are not.
    expect(ids({ approvedPriceMicroPerKwh: null }, '2024-12-31')).toEqual([]);
    expect(ids({ energyBlocks: block(200_000) }, '2024-12-31')).toEqual([]);
    expect(ids({ approvedPriceMicroPerKwh: null }, '2025-01-01')).toEqual(['MD_GREEN_NO_APPROVED_PRICE']);
    expect(ids({ customerClass: 'COMMERCIAL', approvedPriceMicroPerKwh: null, energyBlocks: block(200_000) })).toEqual([]);
    // Other states ignore the field.
    expect(violations(offer({ renewablePercent: 100, energyBlocks: block(200_000) }), 'PA', '2026-11-28')).toEqual([]);
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

  it("New York Reset order: small commercial offers too, against their own class's trailing supply price", () => {
    const ny = {
      state: 'NY',
      trailingSupplyPrice: { microPerKwh: 124_408, from: '2025-11-01', to: '2026-10-31' },
      commercialTrailingSupplyPrice: { microPerKwh: 100_000, from: '2025-11-01', to: '2026-10-31' },
    };
    const rule = MARKET_RULES.find((r) => r.id === 'NY_RESET_PRODUCTS')!;
    expect(rule.classes).toEqual(['RESIDENTIAL', 'COMMERCIAL']);
    const check = (customerClass: CanonicalOffer['customerClass'], o: Partial<CanonicalOffer>, where: object = ny) =>
      violations(offer({ cancellationFeeMicro: 0, customerClass, ...o }), where as typeof ny, '2026-11-28');
    const ids = (cls: CanonicalOffer['customerClass'], o: Partial<CanonicalOffer>) => check(cls, o).map((v) => v.rule.id);
    // 12 cents: within 5% of the residential average, above the commercial one.
    expect(ids('RESIDENTIAL', { energyBlocks: block(120_000) })).toEqual([]);
    expect(ids('COMMERCIAL', { energyBlocks: block(120_000) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(check('COMMERCIAL', { energyBlocks: block(120_000) })[0]!.reason).toMatch(
      /utility supply price for small commercial customers 0\.1 USD/,
    );
    expect(ids('COMMERCIAL', { energyBlocks: block(105_000) })).toEqual([]);
    expect(ids('COMMERCIAL', { energyBlocks: block(105_001) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids('COMMERCIAL', { rateType: 'VARIABLE', energyBlocks: block(90_000) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids('COMMERCIAL', { rateType: 'INDEXED', energyBlocks: block(90_000) })).toEqual(['NY_RESET_PRODUCTS']);
    expect(ids('COMMERCIAL', { rateType: 'VARIABLE', renewablePercent: 50, energyBlocks: block(190_000) })).toEqual([]);
    // Without the commercial average a small commercial fixed offer is not shown; residential ones are unaffected.
    const noCommercial = { state: 'NY', trailingSupplyPrice: ny.trailingSupplyPrice };
    expect(check('COMMERCIAL', { energyBlocks: block(90_000) }, noCommercial)[0]!.reason).toMatch(
      /no trailing 12-month utility supply price for small commercial customers/,
    );
    expect(check('RESIDENTIAL', { energyBlocks: block(90_000) }, noCommercial)).toEqual([]);
    // Before the product limits applied.
    expect(violations(offer({ customerClass: 'COMMERCIAL', rateType: 'VARIABLE' }), ny, '2020-02-09')).toEqual([]);
  });

  it('docs/partners.md lists every rule with its classes and dates, and marks the unverified ones', () => {
    const doc = readFileSync(new URL('../../docs/partners.md', import.meta.url), 'utf8');
    const customers = { RESIDENTIAL: 'residential', COMMERCIAL: 'small commercial' } as const;
    for (const r of MARKET_RULES) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${r.id}\` | ${r.state} |`));
      expect(row, r.id).toBeDefined();
      expect(row, r.id).toContain(`| ${r.classes.map((c) => customers[c]).join(', ')} | ${r.effectiveFrom} – ${r.effectiveTo ?? ''}|`);
      expect(row!.includes('**unverified**'), r.id).toBe(r.unverified !== null);
    }
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
    let mdGreen = 0;
    let nyCommercial = 0;
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
              approvedPriceMicroPerKwh: o.approvedPriceMicroPerKwh,
            });
            const micro = (t: TrailingPrice | null) => t && { microPerKwh: Math.round(t.usdPerKwh * USD), from: t.from, to: t.to };
            const where = {
              state: u.state,
              trailingSupplyPrice: micro(u.trailingSupplyPrice),
              commercialTrailingSupplyPrice: micro(u.commercialTrailingSupplyPrice),
            };
            expect(violations(c, where), `${feed} ${o.productName} at ${u.utilityId}`).toEqual([]);
            checked++;
            if (u.state === 'MD' && o.approvedPriceMicroPerKwh !== null) mdGreen++;
            if (u.state === 'NY' && cls === 'commercial') nyCommercial++;
          }
        }
        for (const o of gridwiseOffers(u.utilityId, cls === 'residential' ? 'res' : 'com')) {
          const rateType = o.kind === 'IndexRate' ? 'INDEXED' : o.kind === 'VariableRate' ? 'VARIABLE' : 'FIXED';
          expect(violations(offer({ rateType, cancellationFeeMicro: o.earlyExitCents * 10_000 }), u.state), o.id).toEqual([]);
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    // Maryland's answers still hold green power plans (at their approved price at most), and New York small businesses still have plans.
    expect(mdGreen).toBeGreaterThan(3);
    expect(nyCommercial).toBeGreaterThan(10);
    // ComEd still has offers with a cancellation fee, at the cap.
    expect(offersFor('voltify', 'COMED', 'residential').some((o) => o.cancellationFeeUsd === 50)).toBe(true);
  });
});
