// Gridwise: the third supplier feed, used by the walkthrough of docs/adding-a-feed.md (it is NOT in
// the default .meshrc.yaml). A handful of deterministic offers for a few TX and PA utilities, in
// a feed-neutral form that feeds/gridwise.ts renders as XML-converted-to-JSON.
//
// Prices are kept as integer hundredths of a dollar per MWh (11240 = $112.40/MWh = 11.24 cents
// per kWh), so the rendered decimal strings are exact and map exactly onto micro-USD per kWh.

import { creditFloorMicro, PRICE_BANDS } from './markets.js';
import { rngFor } from './prng.js';
import { utilityById } from './utilities.js';

export type GridwiseClass = 'res' | 'com';
export type GridwiseKind = 'FixedRate' | 'VariableRate' | 'IndexRate';

export interface GridwiseBlockSpec {
  fromKwh: number;
  /** null: open-ended (the XML omits the attribute). */
  toKwh: number | null;
  /** Hundredths of a dollar per MWh. */
  centsPerMwh: number;
}

export interface GridwiseOfferSpec {
  id: string;
  vendor: string;
  label: string;
  cls: GridwiseClass;
  utilityId: string;
  kind: GridwiseKind;
  /** Contract length in years; 0 = month to month. Always a whole number of months. */
  years: number;
  blocks: GridwiseBlockSpec[];
  /** Cents per month (0 = no base charge). */
  monthlyFeeCents: number;
  credits: { thresholdKwh: number; amountCents: number }[];
  minimumUsage: { belowKwh: number; chargeCents: number } | null;
  /** Share of renewable energy, 0..1, at most 2 decimals. */
  renewableFraction: number;
  earlyExitCents: number;
  signupCents: number;
}

/** Utilities Gridwise sells in (all deregulated). */
const GRIDWISE_UTILITIES: readonly string[] = ['ONCOR', 'CENTERPOINT', 'PECO', 'PPL'];

/** Gridwise is a marketplace: offers come from several (invented) retail vendors. */
const GRIDWISE_VENDORS: readonly { legalName: string; short: string }[] = [
  { legalName: 'Gridwise Energy Services LLC', short: 'Gridwise' },
  { legalName: 'Pecan Hollow Power LLC', short: 'Pecan Hollow' },
  { legalName: 'Ironbridge Electric Supply Inc.', short: 'Ironbridge' },
];

const FIXED_YEARS = [1, 1, 1.5, 2, 3] as const;
const FRACTIONS = [0, 0.06, 0.35, 0.5, 1] as const;
const LABEL_SUFFIXES = ['II', 'III', 'IV', 'V'];

function generate(utilityId: string, cls: GridwiseClass): GridwiseOfferSpec[] {
  const utility = utilityById(utilityId);
  const band = utility && PRICE_BANDS[utility.state];
  if (!utility || !band || utility.market !== 'DEREGULATED') return [];
  const rng = rngFor(`gridwise:${utilityId}:${cls}`);
  const residential = cls === 'res';
  const texas = utility.state === 'TX';
  const [minCents, maxCents] = residential ? band.residential : band.commercial;
  // cents/kWh -> hundredths of $/MWh: x 1000, clamped to the state's band.
  const price = (centsPerKwh: number) => Math.round(Math.min(maxCents, Math.max(minCents, centsPerKwh)) * 1000);
  const count = residential ? 4 : 2;
  const offers: GridwiseOfferSpec[] = [];
  for (let index = 1; index <= count; index++) {
    const vendor = GRIDWISE_VENDORS[(index - 1 + rng.int(0, GRIDWISE_VENDORS.length - 1)) % GRIDWISE_VENDORS.length]!;
    // The first offer is always a plain 1-year fixed plan; the last residential one is variable.
    // No index-rate plans in Texas: wholesale indexed products are barred there (PURA §39.110, HB 16, 2021).
    const roll: GridwiseKind = index === 1 ? 'FixedRate' : residential && index === count ? 'VariableRate' : rng.chance(0.8) ? 'FixedRate' : 'IndexRate';
    const kind: GridwiseKind = texas && roll === 'IndexRate' ? 'FixedRate' : roll;
    const years = kind === 'VariableRate' ? 0 : kind === 'IndexRate' ? 1 : index === 1 ? 1 : rng.pick(FIXED_YEARS);
    let cents = band.residentialCenter + (rng.next() * 3 - 1.5) + (kind === 'VariableRate' ? 1.4 : 0) - (residential ? 0 : 1.5);
    const fraction = rng.pick(FRACTIONS);
    if (fraction === 1) cents += 0.5;

    // Residential offer 2 is tiered (cheaper above 1000 kWh); everything else has one open block.
    const blocks: GridwiseBlockSpec[] = residential && index === 2
      ? [{ fromKwh: 0, toKwh: 1000, centsPerMwh: price(cents + 0.6) }, { fromKwh: 1000, toKwh: null, centsPerMwh: price(cents - 0.9) }]
      : [{ fromKwh: 0, toKwh: null, centsPerMwh: price(cents) }];

    const credits: GridwiseOfferSpec['credits'] = residential && index === 3 && texas ? [{ thresholdKwh: 1000, amountCents: 5000 }] : [];
    // Credits are funded by the energy charge (micro-USD/kWh floor -> hundredths of $/MWh).
    const floor = creditFloorMicro(credits.map((c) => ({ minKwh: c.thresholdKwh, creditUsd: c.amountCents / 100 }))) / 10;
    for (const b of blocks) b.centsPerMwh = Math.max(b.centsPerMwh, Math.ceil(floor));
    const minimumUsage = residential && index === 3 ? { belowKwh: 500, chargeCents: 995 } : null;
    const monthlyFeeCents = residential ? rng.pick([0, 495, 995]) : rng.pick([1495, 2995]);
    const months = Math.round(years * 12);
    const earlyExitCents = months === 0 ? 0 : residential ? (months <= 12 ? 15000 : 20000) : 35000;
    const signupCents = rng.chance(0.25) ? 1995 : 0;

    const what = kind === 'VariableRate' ? 'Flex' : kind === 'IndexRate' ? 'Index' : fraction === 1 ? 'Green' : rng.pick(['Fixed', 'Steady', 'Lock']);
    const label = `${vendor.short} ${residential ? '' : 'Business '}${what}${months ? ` ${months}` : ''}`;
    offers.push({
      id: `GW-${utilityId}-${residential ? 'R' : 'C'}-${String(index).padStart(2, '0')}`,
      vendor: vendor.legalName,
      label,
      cls,
      utilityId,
      kind,
      years,
      blocks,
      monthlyFeeCents,
      credits,
      minimumUsage,
      renewableFraction: fraction,
      earlyExitCents,
      signupCents,
    });
  }
  // Labels are unique per vendor within a utility and class.
  const seen = new Set<string>();
  for (const o of offers) {
    let label = o.label;
    for (let n = 0; seen.has(`${o.vendor}|${label}`); n++) label = `${o.label} ${LABEL_SUFFIXES[n] ?? n + 2}`;
    o.label = label;
    seen.add(`${o.vendor}|${label}`);
  }
  return offers;
}

const cache = new Map<string, GridwiseOfferSpec[]>();

/** Gridwise's offers for one utility and class (empty outside GRIDWISE_UTILITIES). */
export function gridwiseOffers(utilityId: string, cls: GridwiseClass): GridwiseOfferSpec[] {
  if (!GRIDWISE_UTILITIES.includes(utilityId)) return [];
  const key = `${utilityId}:${cls}`;
  let offers = cache.get(key);
  if (!offers) cache.set(key, (offers = generate(utilityId, cls)));
  return offers;
}

/** Integer hundredths as decimal text with two places: 11240 -> "112.40". */
export function decimal2(hundredths: number): string {
  const sign = hundredths < 0 ? '-' : '';
  const abs = Math.abs(hundredths);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
