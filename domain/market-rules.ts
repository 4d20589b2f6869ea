// Market compliance rules: what a retail offer must satisfy, by the state of the utility whose
// territory it is offered in, to be shown at all. A feed's offer that breaks one is dropped after
// mapping (resolvers/compliance.ts), logged and counted per feed and rule, and listed by
// `npm run feeds:check`. Each rule names the statute or order it comes from; docs/partners.md
// ("Market rules") lists the same table for partners.
import type { CanonicalOffer, CustomerClass } from './canonical.js';

export interface MarketRule {
  /** Stable id, the `rule` label of gateway_offers_noncompliant_total. */
  id: string;
  /** Two-letter state code of the territories the rule applies in. */
  state: string;
  /** Customer classes it protects (our COMMERCIAL class is small business secondary service). */
  classes: readonly CustomerClass[];
  /** Statute or order, as it is cited. */
  source: string;
  /** What the rule requires, in one sentence. */
  summary: string;
  /** Why this offer breaks the rule, or null when it complies. */
  check(offer: CanonicalOffer): string | null;
}

const USD = 1_000_000;

function feeCap(residentialUsd: number, commercialUsd: number) {
  return (o: CanonicalOffer): string | null => {
    const capUsd = o.customerClass === 'RESIDENTIAL' ? residentialUsd : commercialUsd;
    return o.cancellationFeeMicro > capUsd * USD
      ? `cancellation fee ${o.cancellationFeeMicro / USD} USD is above the ${capUsd} USD cap for ${o.customerClass.toLowerCase()} customers`
      : null;
  };
}

export const MARKET_RULES: readonly MarketRule[] = Object.freeze([
  {
    id: 'TX_WHOLESALE_INDEXED',
    state: 'TX',
    classes: ['RESIDENTIAL', 'COMMERCIAL'],
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
    source: '220 ILCS 5/16-119, as amended by P.A. 99-103 (2015)',
    summary: 'An early termination fee may not exceed $50 for residential and $150 for small commercial customers, whatever the term.',
    check: feeCap(50, 150),
  },
  {
    id: 'CT_RESIDENTIAL_VARIABLE',
    state: 'CT',
    classes: ['RESIDENTIAL'],
    source: 'Connecticut Public Act 14-75 (Conn. Gen. Stat. §16-245o), in force since 2014-10-01',
    summary: 'Electric suppliers may not offer variable-rate contracts to residential customers.',
    check: (o) => (o.rateType === 'VARIABLE' ? 'a variable-rate product' : null),
  },
]);

export interface Violation {
  rule: MarketRule;
  reason: string;
}

const NO_VIOLATIONS: readonly Violation[] = Object.freeze([]);

/** The rules an offer breaks in a territory of `state` (empty: it may be shown). Every offer of every miss is checked: nothing is made for a compliant one. */
export function violations(offer: CanonicalOffer, state: string): readonly Violation[] {
  let out: Violation[] | null = null;
  for (let i = 0; i < MARKET_RULES.length; i++) {
    const rule = MARKET_RULES[i]!;
    if (rule.state !== state || !rule.classes.includes(offer.customerClass)) continue;
    const reason = rule.check(offer);
    if (reason) (out ??= []).push({ rule, reason });
  }
  return out ?? NO_VIOLATIONS;
}
