// Plausible values of canonical fields: THE table (docs/feeds.md shows it to feed authors).
//
// A value outside the soft range is possible but more likely a unit mistake (a price per MWh
// declared per kWh, a fee in cents declared in dollars): feeds:check warns and names the likely unit.
// A value outside the hard range is never served: the record is dropped at run time.
//
// Keys are canonical field paths as a feed mapping names them (`energyBlocks.price` is the price of
// every energy block). Bounds are in canonical units: micro-USD, micro-USD per kWh, months, percent.

export type PlausibleQuantity = 'micro' | 'microPerKwh' | 'months' | 'percent';

export interface PlausibleRange {
  quantity: PlausibleQuantity;
  soft: readonly [min: number, max: number];
  hard: readonly [min: number, max: number];
  /** A usual value: of two readings that both fall in the soft range, the nearer one is the likelier. */
  typical: number;
}

const USD = 1_000_000;
const usd = (min: number, max: number) => [min * USD, max * USD] as const;

const price: PlausibleRange = { quantity: 'microPerKwh', soft: usd(0.005, 1), hard: usd(0, 5), typical: 0.12 * USD };
const monthly: PlausibleRange = { quantity: 'micro', soft: usd(0, 100), hard: usd(0, 1000), typical: 10 * USD };
const fee: PlausibleRange = { quantity: 'micro', soft: usd(0, 1000), hard: usd(0, 10_000), typical: 150 * USD };
const deliveryRate: PlausibleRange = { quantity: 'microPerKwh', soft: usd(0, 0.5), hard: usd(0, 5), typical: 0.04 * USD };
const averageRate: PlausibleRange = { quantity: 'microPerKwh', soft: usd(0.01, 1), hard: usd(0, 5), typical: 0.13 * USD };

/** Feed kind -> canonical field path -> range. */
export const PLAUSIBLE_RANGES: Readonly<Record<string, Readonly<Record<string, PlausibleRange>>>> = Object.freeze({
  offers: {
    'energyBlocks.price': price,
    baseMonthly: monthly,
    'credits.amount': fee,
    'minimumUsageFee.amount': fee,
    cancellationFee: fee,
    enrollmentFee: fee,
    termMonths: { quantity: 'months', soft: [0, 60], hard: [0, 120], typical: 12 },
    renewablePercent: { quantity: 'percent', soft: [0, 100], hard: [0, 100], typical: 30 },
    approvedPrice: price,
  },
  territories: {
    'delivery.fixedMonthly': monthly,
    'delivery.perKwh': deliveryRate,
    'commercialDelivery.fixedMonthly': monthly,
    'commercialDelivery.perKwh': deliveryRate,
    'bundledRate.fixedMonthly': monthly,
    'bundledRate.perKwh': averageRate,
    'priceToCompare.perKwh': price,
    'deliveryRates.fixedMonthly': monthly,
    'deliveryRates.perKwh': deliveryRate,
    'commercialDeliveryRates.fixedMonthly': monthly,
    'commercialDeliveryRates.perKwh': deliveryRate,
    'pricesToCompare.perKwh': price,
    'trailingSupplyPrice.perKwh': price,
    'commercialTrailingSupplyPrice.perKwh': price,
  },
  stateStats: {
    residentialPerKwh: averageRate,
    commercialPerKwh: averageRate,
  },
});

/**
 * Where most offers' non-zero values lie in US retail markets: narrower than the plausible range, and
 * used only for a feed's median where no other feed of its territory gives one to compare with
 * (transforms/mapping/unit-consensus.ts). Offers feeds only.
 */
const MARKET_RANGES: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>> = Object.freeze({
  offers: {
    'energyBlocks.price': usd(0.03, 0.4),
    baseMonthly: usd(1, 40),
    'credits.amount': usd(5, 200),
    'minimumUsageFee.amount': usd(2, 50),
    cancellationFee: usd(10, 500),
    enrollmentFee: usd(5, 200),
  },
});

export function marketRange(kind: string, field: string): readonly [number, number] | undefined {
  const table = Object.prototype.hasOwnProperty.call(MARKET_RANGES, kind) ? MARKET_RANGES[kind]! : undefined;
  return table && Object.prototype.hasOwnProperty.call(table, field) ? table[field] : undefined;
}

export function plausibleRange(kind: string, field: string): PlausibleRange | undefined {
  const table = Object.prototype.hasOwnProperty.call(PLAUSIBLE_RANGES, kind) ? PLAUSIBLE_RANGES[kind]! : undefined;
  return table && Object.prototype.hasOwnProperty.call(table, field) ? table[field] : undefined;
}

// Indexed, not destructured: a destructured parameter goes through the array's iterator, whose result
// objects were a share of every miss's garbage (each mapped number is checked).
export const within = (v: number, range: readonly [number, number]): boolean => v >= range[0] && v <= range[1];

/** A canonical value as people read it: `69.9 USD/kWh`, `15 USD`, `36 months`. */
export function describeQuantity(v: number, q: PlausibleQuantity): string {
  switch (q) {
    case 'micro':
      return `${v / USD} USD`;
    case 'microPerKwh':
      return `${v / USD} USD/kWh`;
    case 'months':
      return `${v} months`;
    case 'percent':
      return `${v} percent`;
  }
}

export function describeRange(r: readonly [number, number], q: PlausibleQuantity): string {
  return `${describeQuantity(r[0], q)} to ${describeQuantity(r[1], q)}`;
}
