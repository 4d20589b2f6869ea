// Market compliance rules: what a retail offer must satisfy, by the state of the utility whose
// territory it is offered in, to be shown at all. A feed's offer that breaks one is dropped after
// mapping (resolvers/compliance.ts), logged and counted per feed and rule, and listed by
// `npm run feeds:check`. Each rule is dated (in force from / to) and names the statute or order it
// comes from; docs/partners.md ("Market rules") lists the same table for partners, and
// state-reviews.ts says, for every choice state, which rules were found and where none were.
import type { CanonicalOffer, CustomerClass, Micro, Territory } from './canonical.js';

/** What a rule may read of the territory an offer is made in. */
type RuleTerritory = Pick<Territory, 'state'> & Partial<Pick<Territory, 'trailingSupplyPrice' | 'commercialTrailingSupplyPrice'>>;

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
  /**
   * What of the citation, dates or thresholds could not be confirmed against a published text
   * (docs/partners.md shows it); null when all of it was.
   */
  unverified: string | null;
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
/**
 * Maryland's green power (PUA §7-707(c)(1)): at least 51% RPS-eligible energy, or 1% above the year's
 * portfolio standard when that is higher. Feeds carry only the renewable share, so an offer from 51%
 * on is taken as marketed green (a smaller share may not be).
 */
const MD_GREEN_MIN_PERCENT = 51;
const mdGreen = (o: CanonicalOffer) => o.renewablePercent >= MD_GREEN_MIN_PERCENT;

/**
 * The price-limit check of a rule that compares energy prices with the trailing 12-month default
 * service price of the offer's customer class.
 */
function abovePriceLimit(o: CanonicalOffer, where: RuleTerritory, percentOver: number, what: string): string | null {
  const commercial = o.customerClass === 'COMMERCIAL';
  const trailing = commercial ? where.commercialTrailingSupplyPrice : where.trailingSupplyPrice;
  const forClass = commercial ? ' for small commercial customers' : '';
  if (!trailing) return `no trailing 12-month ${what}${forClass} is known for the territory, so the price limit cannot be checked`;
  // limit = trailing × (100 + percentOver) / 100, compared as integers (no rounding of the limit)
  const highest = highestBlockMicro(o);
  if (highest * 100 <= trailing.microPerKwh * (100 + percentOver)) return null;
  const over = percentOver ? ` plus ${percentOver}%` : '';
  const limit = `${usd(trailing.microPerKwh)} USD/kWh${over} (${trailing.from} to ${trailing.to})`;
  return `energy price ${usd(highest)} USD/kWh is above the trailing 12-month ${what}${forClass} ${limit}`;
}

const MD_SB1 = 'Maryland Senate Bill 1 (2024 session, Electricity and Gas – Retail Supply – Regulation and Consumer Protection)';
const MD_SB1_SECTION = 'the subsection (§7-510(d)) comes from a summary of the Act, whose text was not read';

export const MARKET_RULES: readonly MarketRule[] = Object.freeze([
  {
    id: 'TX_WHOLESALE_INDEXED',
    state: 'TX',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
    effectiveFrom: '2021-09-01',
    effectiveTo: null,
    source: 'Texas Utilities Code (PURA) §39.110(b), added by HB 16 (87th Legislature, 2021), effective 2021-09-01',
    summary:
      'No wholesale indexed product (a price passing through ERCOT real-time settlement point prices) for residential or small commercial customers. ' +
      'Feeds do not say what an INDEXED plan is indexed to, so every INDEXED plan in Texas is treated as one.',
    unverified: null,
    check: (o) => (o.rateType === 'INDEXED' ? 'an indexed (wholesale-indexed) product' : null),
  },
  {
    id: 'IL_CANCELLATION_FEE_CAP',
    state: 'IL',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
    effectiveFrom: '2015-07-22',
    effectiveTo: null,
    source:
      '220 ILCS 5/16-119, as amended by P.A. 99-103 and 99-107 (effective 2015-07-22), for contracts entered into or renewed from then on',
    summary: 'An early termination fee may not exceed $50 for residential and $150 for small commercial customers, whatever the term.',
    unverified: null,
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
    unverified: null,
    check: (o) => (o.rateType === 'VARIABLE' || o.rateType === 'INDEXED' ? `a ${o.rateType.toLowerCase()} price` : null),
  },
  {
    id: 'CT_RESIDENTIAL_CANCELLATION_FEE',
    state: 'CT',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2021-07-01',
    effectiveTo: null,
    source: 'Connecticut Public Act 21-117 §1, Conn. Gen. Stat. §16-245o(h)(7)(A), effective 2021-07-01',
    summary: 'Electric suppliers may not charge residential customers a cancellation (early termination) fee.',
    unverified: null,
    check: (o) => (o.cancellationFeeMicro > 0 ? `cancellation fee ${usd(o.cancellationFeeMicro)} USD` : null),
  },
  {
    id: 'MD_RESIDENTIAL_TERM',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source: `${MD_SB1}, Public Utilities Article §7-510(d), for residential contracts entered into or renewed from 2025-01-01`,
    summary: 'A residential supply contract may run at most 12 months.',
    unverified: MD_SB1_SECTION,
    check: (o) => (o.termMonths > 12 ? `a ${o.termMonths}-month term` : null),
  },
  {
    id: 'MD_RESIDENTIAL_PRICE_CAP',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source: `${MD_SB1}, Public Utilities Article §7-510(d), for residential contracts entered into or renewed from 2025-01-01`,
    summary:
      "A residential product that is not green power may not be priced above the utility's trailing 12-month average standard offer service (SOS) price. " +
      'Every energy block is compared. Green power has its own limit (MD_GREEN_PRICE_CAP).',
    unverified: MD_SB1_SECTION,
    check: (o, where) => (mdGreen(o) ? null : abovePriceLimit(o, where, 0, 'average standard offer service price')),
  },
  {
    id: 'MD_GREEN_PRICE_CAP',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source:
      `${MD_SB1}, Public Utilities Article §7-707(c)(2) and (d); generic price set yearly by the PSC (Order No. 91464, Case No. 9757, 2024-12-30), ` +
      "or a supplier's own price approved on its petition",
    summary:
      `Green power (at least ${MD_GREEN_MIN_PERCENT}% renewable) may not be priced above its PSC-approved price, which the offers feed carries per offer. ` +
      'Every energy block is compared.',
    unverified: "the start date is the Act's date for residential contracts; §7-707's own start was not confirmed",
    check: (o) => {
      const approved = o.approvedPriceMicroPerKwh;
      if (!mdGreen(o) || approved == null) return null;
      const highest = highestBlockMicro(o);
      return highest <= approved
        ? null
        : `energy price ${usd(highest)} USD/kWh is above the PSC-approved green power price ${usd(approved)} USD/kWh`;
    },
  },
  {
    id: 'MD_GREEN_NO_APPROVED_PRICE',
    state: 'MD',
    classes: ['RESIDENTIAL'],
    effectiveFrom: '2025-01-01',
    effectiveTo: null,
    source: `${MD_SB1}, Public Utilities Article §7-707(c)(2): green power may be marketed only at a price the PSC approved`,
    summary:
      'A green power offer whose feed carries no PSC-approved price cannot be shown to comply, so it is not shown ' +
      '(counted apart from offers above their price).',
    unverified: "the start date is the Act's date for residential contracts; §7-707's own start was not confirmed",
    check: (o) =>
      mdGreen(o) && o.approvedPriceMicroPerKwh == null ? 'no PSC-approved price on record for this green power product' : null,
  },
  {
    id: 'NY_RESET_PRODUCTS',
    state: 'NY',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
    effectiveFrom: '2020-02-10',
    effectiveTo: null,
    source:
      'New York PSC Case 15-M-0127, Order Adopting Changes to the Retail Access Energy Market and Establishing Further Process ' +
      '(the Reset order, issued 2019-12-12; its product limits apply from 2020-02-10, for residential and small non-residential customers)',
    summary:
      'Only three products for mass-market customers (residential, and small non-residential: not demand-metered): ' +
      'a variable price with guaranteed savings against the utility ' +
      '(feeds do not say so, so variable and indexed plans are dropped), a fixed price at most 5% above the trailing ' +
      `12-month utility supply price of the customer's class, or a renewable product (here: at least ${NY_RENEWABLE_MIN_PERCENT}% renewable).`,
    unverified:
      'the 2020-02-10 start and the 50% renewable share come from law-firm and trade-press summaries, not the order; ' +
      'whether the 50% counts on top of the renewable energy standard obligation was not confirmed',
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
