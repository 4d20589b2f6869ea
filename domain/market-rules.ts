// Market compliance rules: what a retail offer must satisfy, by the state of the utility whose
// territory it is offered in, to be shown at all. A feed's offer that breaks one is dropped after
// mapping (resolvers/compliance.ts), logged and counted per feed and rule, and listed by
// `npm run feeds:check`. Each rule is dated (in force from / to) and names the statute or order it
// comes from; docs/partners.md ("Market rules") lists the same table for partners, and
// state-reviews.ts says, for every choice state, which rules were found and where none were.
import type { CanonicalOffer, CustomerClass, Micro, Territory } from './canonical.js';

/** What a rule may read of the territory an offer is made in. */
type RuleTerritory = Pick<Territory, 'state'> & Partial<Pick<Territory, 'trailingSupplyPrice'>>;

interface MarketRule {
  /** Stable id, the `rule` label of gateway_offers_noncompliant_total. */
  id: string;
  /** Two-letter state code of the territories the rule applies in. */
  state: string;
  /** Customer classes it protects (our COMMERCIAL class is small business secondary service). */
  classes: readonly CustomerClass[];
  /** First day (YYYY-MM-DD) offers are held to it. */
  effectiveFrom: string;
  /** Last day it applies; null while in force. */
  effectiveTo: string | null;
  /** Statute or order, as it is cited. */
  source: string;
  /** What the rule requires, in one sentence. */
  summary: string;
  /** Why this offer breaks the rule, or null when it complies. */
  check(offer: CanonicalOffer, where: RuleTerritory): string | null;
}

const USD = 1_000_000;
const usd = (micro: Micro) => micro / USD;

function feeCap(residentialUsd: number, commercialUsd: number) {
  return (o: CanonicalOffer): string | null => {
    const capUsd = o.customerClass === 'RESIDENTIAL' ? residentialUsd : commercialUsd;
    return o.cancellationFeeMicro > capUsd * USD
      ? `cancellation fee ${usd(o.cancellationFeeMicro)} USD is above the ${capUsd} USD cap for ${o.customerClass.toLowerCase()} customers`
      : null;
  };
}

/** The highest energy price of the offer's blocks, micro-USD per kWh. */
const highestBlockMicro = (o: CanonicalOffer) => o.energyBlocks.reduce((max, b) => Math.max(max, b.microUsdPerKwh), 0);

/** A renewable product for New York's Reset order: at least half renewable energy. */
const NY_RENEWABLE_MIN_PERCENT = 50;

/** The price-limit check of a rule that compares energy prices with the trailing 12-month default service price. */
function abovePriceLimit(o: CanonicalOffer, where: RuleTerritory, percentOver: number, what: string): string | null {
  const trailing = where.trailingSupplyPrice;
  if (!trailing) return `no trailing 12-month ${what} is known for the territory, so the price limit cannot be checked`;
  // limit = trailing × (100 + percentOver) / 100, compared as integers (no rounding of the limit)
  const highest = highestBlockMicro(o);
  if (highest * 100 <= trailing.microPerKwh * (100 + percentOver)) return null;
  const over = percentOver ? ` plus ${percentOver}%` : '';
  const limit = `${usd(trailing.microPerKwh)} USD/kWh${over} (${trailing.from} to ${trailing.to})`;
  return `energy price ${usd(highest)} USD/kWh is above the trailing 12-month ${what} ${limit}`;
}

export const MARKET_RULES: readonly MarketRule[] = Object.freeze([
  {
    id: 'TX_WHOLESALE_INDEXED',
    state: 'TX',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
    effectiveFrom: '2021-09-01',
    effectiveTo: null,
    source: 'Texas Utilities Code (PURA) §39.110, added by HB 16 (87th Legislature, 2021), effective 2021-09-01',
    summary:
      'No wholesale indexed product (a price passing through ERCOT real-time settlement point prices) for residential or small commercial customers. ' +
      'Feeds do not say what an INDEXED plan is indexed to, so every INDEXED plan in Texas is treated as one.',
    check: (o) => (o.rateType === 'INDEXED' ? 'an indexed (wholesale-indexed) product' : null),
  },
  {
    id: 'IL_CANCELLATION_FEE_CAP',
    state: 'IL',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
    effectiveFrom: '2016-01-01',
    effectiveTo: null,
    source: '220 ILCS 5/16-119, as amended by P.A. 99-103 (2015)',
    summary: 'An early termination fee may not exceed $50 for residential and $150 for small commercial customers, whatever the term.',
    check: feeCap(50, 150),
  },
  {
    id: 'CT_RESIDENTIAL_VARIABLE',
    state: 'CT',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2015-10-01',
    effectiveTo: null,
    source: 'Connecticut Public Act 15-90, Conn. Gen. Stat. §16-245o(g)(4), in force since 2015-10-01',
    summary:
      'Electric suppliers may not offer residential customers a variable price; a price that tracks an index is variable, so INDEXED plans are barred too.',
    check: (o) => (o.rateType === 'VARIABLE' || o.rateType === 'INDEXED' ? `a ${o.rateType.toLowerCase()} price` : null),
  },
  {
    id: 'CT_RESIDENTIAL_CANCELLATION_FEE',
    state: 'CT',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2021-10-01',
    effectiveTo: null,
    source: 'Connecticut Public Act 21-117',
    summary: 'Electric suppliers may not charge residential customers a cancellation (early termination) fee.',
    check: (o) => (o.cancellationFeeMicro > 0 ? `cancellation fee ${usd(o.cancellationFeeMicro)} USD` : null),
  },
  {
    id: 'MD_RESIDENTIAL_TERM',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source: 'Maryland Senate Bill 1 (2024 session), for residential contracts entered into from 2025-01-01',
    summary: 'A residential supply contract may run at most 12 months.',
    check: (o) => (o.termMonths > 12 ? `a ${o.termMonths}-month term` : null),
  },
  {
    id: 'MD_RESIDENTIAL_PRICE_CAP',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source: 'Maryland Senate Bill 1 (2024 session), for residential contracts entered into from 2025-01-01',
    summary:
      "A residential product that is not green may not be priced above the utility's trailing 12-month average standard offer service (SOS) price; " +
      'a green product (all energy renewable) at most the PSC-approved price, which no feed carries yet, so green products are held to the same limit. ' +
      'Every energy block is compared.',
    check: (o, where) => abovePriceLimit(o, where, 0, 'average standard offer service price'),
  },
  {
    id: 'NY_RESET_PRODUCTS',
    state: 'NY',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2019-12-12',
    effectiveTo: null,
    source:
      'New York PSC Case 15-M-0127, Order Adopting Changes to the Retail Access Energy Market and Establishing Further Process ' +
      '(the Reset order, December 2019)',
    summary:
      'Only three products for mass-market customers: a variable price with guaranteed savings against the utility ' +
      '(feeds do not say so, so variable and indexed plans are dropped), a fixed price at most 5% above the trailing ' +
      `12-month utility supply price, or a renewable product (here: at least ${NY_RENEWABLE_MIN_PERCENT}% renewable).`,
    check: (o, where) => {
      if (o.renewablePercent >= NY_RENEWABLE_MIN_PERCENT) return null;
      if (o.rateType !== 'FIXED') return `a ${o.rateType.toLowerCase()} product without guaranteed savings that is not renewable`;
      return abovePriceLimit(o, where, 5, 'utility supply price');
    },
  },
]);

interface Violation {
  rule: MarketRule;
  reason: string;
}

const NO_VIOLATIONS: readonly Violation[] = Object.freeze([]);

/** Whether a rule is in force on a date (YYYY-MM-DD). */
export const inForce = (rule: MarketRule, date: string): boolean =>
  rule.effectiveFrom <= date && (rule.effectiveTo === null || date <= rule.effectiveTo);

/**
 * The rules an offer breaks in a territory (or a state code) on `date` (empty: it may be shown).
 * Every offer of every miss is checked: nothing is made for a compliant one.
 */
export function violations(
  offer: CanonicalOffer,
  where: RuleTerritory | string,
  date: string = new Date().toISOString().slice(0, 10),
): readonly Violation[] {
  const territory = typeof where === 'string' ? { state: where } : where;
  let out: Violation[] | null = null;
  for (let i = 0; i < MARKET_RULES.length; i++) {
    const rule = MARKET_RULES[i]!;
    if (rule.state !== territory.state || !rule.classes.includes(offer.customerClass)) continue;
    if (!inForce(rule, date)) continue;
    const reason = rule.check(offer, territory);
    if (reason) (out ??= []).push({ rule, reason });
  }
  return out ?? NO_VIOLATIONS;
}
