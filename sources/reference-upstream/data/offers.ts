// Deterministic retail offers per (supplier feed, utility, customer class), in a feed-neutral
// form that the voltify and brightgrid routes reshape into their own payloads.
// Energy prices are kept as integer micro-dollars per kWh so that both the cents (voltify)
// and dollars (brightgrid) renderings are exact short decimals.

import { rngFor, type Rng } from './prng.js';
import { creditFloorMicro, PRICE_BANDS } from './markets.js';
import { BRANDS, FIXED_NOUNS, STATE_WORDS, type SupplierFeed } from './suppliers.js';
import { greenPowerPriceMicro } from './supply-prices.js';
import { utilityById, type Utility } from './utilities.js';

export type CustomerClass = 'residential' | 'commercial';
export type RateStructure = 'FIXED' | 'VARIABLE' | 'INDEXED';

export interface EnergyTier { fromKwh: number; toKwh: number | null; microUsdPerKwh: number }

export interface OfferSpec {
  feed: SupplierFeed;
  /** 1-based position within (feed, utility, class); part of stable ids. */
  index: number;
  utilityId: string;
  customerClass: CustomerClass;
  supplierName: string;
  productName: string;
  rate: RateStructure;
  termMonths: number;
  tiers: EnergyTier[];
  baseUsdPerMonth: number;
  credits: { minKwh: number; creditUsd: number }[];
  minimumUsage: { belowKwh: number; feeUsd: number } | null;
  renewablePercent: number;
  cancellationFeeUsd: number;
  enrollmentFeeUsd: number;
  /** Maryland residential green power: the PSC-approved price, micro-USD/kWh; null for other offers. */
  approvedPriceMicroPerKwh: number | null;
}

const MICRO_PER_CENT = 10_000;
const NAME_SUFFIXES = ['Plus', 'Select', 'Premier', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];

function pickRate(rng: Rng, index: number): RateStructure {
  if (index === 1) return 'FIXED'; // every supplier leads with a plain 12-ish month fixed plan
  const r = rng.next();
  return r < 0.72 ? 'FIXED' : r < 0.87 ? 'VARIABLE' : 'INDEXED';
}

function pickTerm(rng: Rng, rate: RateStructure, index: number): number {
  if (rate === 'VARIABLE') return rng.pick([0, 0, 1]);
  if (rate === 'INDEXED') return rng.pick([1, 12]);
  if (index === 1) return 12;
  return rng.pick([3, 6, 12, 12, 12, 18, 24, 24, 36]);
}

/** Price quantum in micro-dollars: what decimal precision the supplier quotes in. */
function quantum(feed: SupplierFeed, rate: RateStructure, rng: Rng): number {
  if (rate === 'INDEXED') return 1; // index-linked prices carry full precision
  if (feed === 'voltify') return rng.chance(0.6) ? 1000 : 100; // 12.4 or 9.85 cents
  return 100; // 0.1189 dollars
}

/**
 * Illinois caps early termination fees at $50 residential, $150 small commercial (220 ILCS 5/16-119);
 * Connecticut bars them for residential customers (P.A. 21-117).
 */
const FEE_CAP_USD: Record<string, Partial<Record<CustomerClass, number>>> = { IL: { residential: 50, commercial: 150 }, CT: { residential: 0 } };

function cancellationFee(rng: Rng, term: number, cls: CustomerClass, state: string): number {
  if (term <= 1) return 0;
  const res = term <= 6 ? [0, 50, 75] : term <= 12 ? [100, 150] : term <= 24 ? [150, 200] : [200, 295];
  const com = term <= 6 ? [100, 150] : term <= 12 ? [250, 300] : [400, 500];
  const fee = rng.pick(cls === 'residential' ? res : com);
  const cap = FEE_CAP_USD[state]?.[cls];
  return cap === undefined ? fee : Math.min(fee, cap);
}

/**
 * Products a state does not allow, left out after generation so the other offers stay as they were:
 * Texas bars wholesale indexed products for residential and small commercial customers (PURA
 * §39.110, HB 16, 2021); Connecticut bars variable and indexed prices for residential customers
 * (P.A. 15-90); New York's Reset order (PSC Case 15-M-0127) allows mass-market (residential and
 * small commercial) variable prices only with guaranteed savings, which these offers do not
 * promise, unless the product is renewable.
 */
function allowed(state: string, cls: CustomerClass, o: OfferSpec): boolean {
  if (state === 'TX' && o.rate === 'INDEXED') return false;
  if (state === 'CT' && cls === 'residential' && o.rate !== 'FIXED') return false;
  if (state === 'NY' && o.rate !== 'FIXED' && o.renewablePercent < NY_RENEWABLE_PERCENT) return false;
  return true;
}

/** New York counts a product as renewable from this share on (the gateway's NY_RESET_PRODUCTS rule). */
const NY_RENEWABLE_PERCENT = 50;
/** Maryland's green power from this share on (PUA §7-707(c)(1); the gateway's MD_GREEN_* rules). */
const MD_GREEN_PERCENT = 51;

/** The PSC-approved price of a Maryland residential green power offer; null for every other offer. */
function approvedPriceMicro(utility: Utility, cls: CustomerClass, renewablePercent: number): number | null {
  if (utility.state !== 'MD' || cls !== 'residential' || renewablePercent < MD_GREEN_PERCENT) return null;
  return greenPowerPriceMicro(utility.state, utility.trailingSupplyPrice);
}

/**
 * Highest energy price a state allows, micro-USD/kWh: Maryland's trailing 12-month standard offer
 * average, or a green power product's approved price (SB 1, 2024); New York's trailing utility
 * supply price of the customer's class plus 5% for a fixed product that is not renewable (Reset
 * order); Infinity elsewhere.
 */
function priceLimitMicro(utility: Utility, cls: CustomerClass, renewablePercent: number, approved: number | null): number {
  if (approved !== null) return approved;
  const trailing = cls === 'residential' ? utility.trailingSupplyPrice : utility.commercialTrailingSupplyPrice;
  if (!trailing) return Infinity;
  const micro = Math.round(trailing.usdPerKwh * 1_000_000);
  if (utility.state === 'MD' && cls === 'residential') return micro;
  if (utility.state === 'NY' && renewablePercent < NY_RENEWABLE_PERCENT) return Math.floor((micro * 105) / 100);
  return Infinity;
}

/** Maryland limits residential terms to 12 months (SB 1, 2024). */
const maxTermMonths = (state: string, cls: CustomerClass) => (state === 'MD' && cls === 'residential' ? 12 : Infinity);

function productName(rng: Rng, feed: SupplierFeed, brandShort: string, state: string, cls: CustomerClass,
  rate: RateStructure, term: number, green: boolean): string {
  const lead = feed === 'voltify'
    ? (cls === 'residential' ? rng.pick(STATE_WORDS[state] ?? ['Home']) : 'Business')
    : (cls === 'residential' ? brandShort : `${brandShort} Business`);
  if (rate === 'VARIABLE') return `${lead} ${rng.pick(['Flex', 'Flex Monthly', 'Freedom'])}`;
  if (rate === 'INDEXED') return `${lead} ${rng.pick(['Market Index', 'Wholesale Index'])}${term ? ` ${term}` : ''}`;
  if (green) return `${lead} ${rng.pick(['Green', 'Renewable', 'Wind'])} ${term}`;
  return `${lead} ${feed === 'brightgrid' && rng.chance(0.5) ? 'Fixed' : rng.pick(FIXED_NOUNS)} ${term}`;
}

function generate(feed: SupplierFeed, utility: Utility, cls: CustomerClass): OfferSpec[] {
  const band = PRICE_BANDS[utility.state];
  if (!band || utility.market !== 'DEREGULATED') return [];
  const rng = rngFor(`${feed}:${utility.utilityId}:${cls}`);
  const texas = utility.state === 'TX';
  const residential = cls === 'residential';
  const [minCents, maxCents] = residential ? band.residential : band.commercial;
  // Each utility sees three of the feed's brands, chosen per utility.
  const allBrands = BRANDS[feed];
  const first = rng.int(0, allBrands.length - 1);
  const brands = [0, 1, 2].map((k) => allBrands[(first + k) % allBrands.length]!);

  const count = residential ? rng.int(11, 14) : rng.int(5, 8);
  const names = new Set<string>();
  const offers: OfferSpec[] = [];
  for (let index = 1; index <= count; index++) {
    const brand = brands[(index - 1) % brands.length]!;
    const rate = pickRate(rng, index);
    const termMonths = Math.min(pickTerm(rng, rate, index), maxTermMonths(utility.state, cls));
    const renewablePercent = rng.pick(texas ? [0, 6, 12, 25, 50, 100, 100] : [0, 0, 10, 20, 50, 100]);
    const green = renewablePercent === 100;

    const credits: OfferSpec['credits'] = [];
    if (residential && texas && rng.chance(0.25)) credits.push(rng.pick([
      { minKwh: 1000, creditUsd: 100 }, { minKwh: 1000, creditUsd: 50 }, { minKwh: 800, creditUsd: 35 }, { minKwh: 1000, creditUsd: 125 },
    ]));
    else if (residential && rng.chance(0.05)) credits.push({ minKwh: 500, creditUsd: 25 });
    else if (!residential && rng.chance(0.12)) credits.push({ minKwh: 2000, creditUsd: 50 });

    // Center of the plan's price in cents: longer locks, green energy, bill credits and
    // variable pricing all cost a little more; indexed and commercial plans a little less.
    let cents = band.residentialCenter + (rng.next() * 5.6 - 2.8) + 0.04 * (termMonths - 12);
    if (green) cents += 0.6;
    if (credits.length && residential) cents += 1.1;
    if (rate === 'VARIABLE') cents += 1.5;
    if (rate === 'INDEXED') cents -= 0.8;
    if (!residential) cents -= 1.6;
    const q = quantum(feed, rate, rng);
    const price = (c: number) => Math.round(Math.min(maxCents, Math.max(minCents, c)) * MICRO_PER_CENT / q) * q;

    let tiers: EnergyTier[];
    const tierRoll = rng.next();
    if (residential && tierRoll < (texas ? 0.1 : 0.03)) {
      tiers = [
        { fromKwh: 0, toKwh: 500, microUsdPerKwh: price(cents + 1.2) },
        { fromKwh: 500, toKwh: 1000, microUsdPerKwh: price(cents) },
        { fromKwh: 1000, toKwh: null, microUsdPerKwh: price(cents - 1.1) },
      ];
    } else if (tierRoll < (texas ? 0.3 : 0.12)) {
      const breakKwh = residential ? 1000 : 5000;
      tiers = [
        { fromKwh: 0, toKwh: breakKwh, microUsdPerKwh: price(cents) },
        { fromKwh: breakKwh, toKwh: null, microUsdPerKwh: price(cents - (0.6 + rng.next() * 1.2)) },
      ];
    } else {
      tiers = [{ fromKwh: 0, toKwh: null, microUsdPerKwh: price(cents) }];
    }

    // Credits are funded by the energy charge: every block at least the credit plan's floor.
    const floor = creditFloorMicro(credits);
    if (floor) tiers = tiers.map((t) => ({ ...t, microUsdPerKwh: Math.max(t.microUsdPerKwh, Math.ceil(floor / q) * q) }));
    // A state's price limit, on a quantum the supplier quotes in.
    const approvedPriceMicroPerKwh = approvedPriceMicro(utility, cls, renewablePercent);
    const limit = priceLimitMicro(utility, cls, renewablePercent, approvedPriceMicroPerKwh);
    if (limit !== Infinity) tiers = tiers.map((t) => ({ ...t, microUsdPerKwh: Math.min(t.microUsdPerKwh, Math.floor(limit / q) * q) }));

    const baseUsdPerMonth = residential
      ? rng.pick(texas ? [0, 0, 4.95, 9.95, 9.95] : [0, 0, 0, 4.95])
      : rng.pick([9.95, 14.95, 19.95, 29.95, 49.95]);

    let minimumUsage: OfferSpec['minimumUsage'] = null;
    if (residential && rng.chance(texas ? 0.15 : 0.05)) {
      minimumUsage = { belowKwh: rng.pick(texas ? [500, 750, 1000] : [500]), feeUsd: rng.pick([4.95, 9.95, 14.95]) };
    } else if (!residential && rng.chance(0.1)) {
      minimumUsage = { belowKwh: 1000, feeUsd: 25 };
    }

    // A supplier never lists two products under one name.
    const baseName = productName(rng, feed, brand.short, utility.state, cls, rate, termMonths, green);
    let name = baseName;
    for (let n = 0; names.has(`${brand.name}|${name}`); n++) name = `${baseName} ${NAME_SUFFIXES[n]}`;
    names.add(`${brand.name}|${name}`);

    offers.push({
      feed, index, utilityId: utility.utilityId, customerClass: cls,
      supplierName: brand.name, productName: name, rate, termMonths, tiers,
      baseUsdPerMonth, credits, minimumUsage, renewablePercent,
      cancellationFeeUsd: cancellationFee(rng, termMonths, cls, utility.state),
      enrollmentFeeUsd: rng.chance(0.85) ? 0 : rng.pick([9.95, 14.95, 25]),
      approvedPriceMicroPerKwh,
    });
  }
  return offers.filter((o) => allowed(utility.state, cls, o));
}

const cache = new Map<string, OfferSpec[]>();

/** Offers one supplier feed has for a utility and class; empty for regulated or unknown utilities. */
export function offersFor(feed: SupplierFeed, utilityId: string, cls: CustomerClass): OfferSpec[] {
  const key = `${feed}:${utilityId}:${cls}`;
  let offers = cache.get(key);
  if (!offers) {
    const utility = utilityById(utilityId);
    offers = utility ? generate(feed, utility, cls) : [];
    cache.set(key, offers);
  }
  return offers;
}

/** Exact short decimals: integer / 10^k prints as the decimal it stands for. */
export const centsPerKwh = (micro: number) => micro / MICRO_PER_CENT;
export const usdPerKwh = (micro: number) => micro / 1_000_000;
