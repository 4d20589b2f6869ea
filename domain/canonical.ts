// The canonical shapes our resolvers compute on, whatever feed they came from.
// Money is integer micro-dollars (1e-6 USD): exact, and safe in a JS number for any bill we price.

export type Micro = number;

export type RateType = 'FIXED' | 'VARIABLE' | 'INDEXED' | 'TIME_OF_USE' | 'PREPAID';
export type CustomerClass = 'RESIDENTIAL' | 'COMMERCIAL';

/** One block of a (possibly tiered) energy charge: kWh in [fromKwh, toKwh) cost microUsdPerKwh each. */
export interface EnergyBlock {
  fromKwh: number;
  toKwh: number | null;
  microUsdPerKwh: Micro;
}

export interface UsageCredit {
  /** Credit applies when monthly usage >= minKwh (and <= maxKwh when there is one). */
  minKwh: number;
  /** Highest monthly usage the credit applies at; null or absent: no upper bound. */
  maxKwh?: number | null;
  micro: Micro;
}

export interface MinimumUsageFee {
  /** Fee applies when monthly usage < belowKwh. */
  belowKwh: number;
  micro: Micro;
}

export interface CanonicalOffer {
  feed: string;
  offerId: string;
  supplierName: string;
  title: string;
  customerClass: CustomerClass;
  utilityId: string;
  rateType: RateType;
  /** 0 = month to month. */
  termMonths: number;
  energyBlocks: EnergyBlock[];
  baseMonthlyMicro: Micro;
  credits: UsageCredit[];
  minimumUsageFee: MinimumUsageFee | null;
  renewablePercent: number;
  cancellationFeeMicro: Micro;
  enrollmentFeeMicro: Micro;
  /**
   * The regulator-approved price of the product, micro-USD per kWh, when the feed carries one
   * (Maryland: the PSC-approved price of a green power product, market-rules.ts); absent: none on record.
   */
  approvedPriceMicroPerKwh?: Micro | null;
}

/** The utility's delivery (TDU) charges passed through on every bill (or a regulated utility's bundled rate). */
export interface DeliveryCharges {
  fixedMonthlyMicro: Micro;
  perKwhMicro: Micro;
  /** YYYY-MM-DD the charges took effect, when the feed says. */
  effective?: string | null;
  /** The feed marks the charges as an estimate of a tariff not yet approved. */
  estimated?: boolean;
}

export type SwitchingKind = 'OFF_CYCLE' | 'ACCELERATED' | 'METER_READ';

export interface SwitchingRules {
  /** OFF_CYCLE (Texas), ACCELERATED (Pennsylvania) or METER_READ (next scheduled meter read). */
  kind: SwitchingKind;
  /** Business days after the request day; for METER_READ the enrollment lead time before the read. */
  leadBusinessDays: number;
  meterReadCycleDays: number;
  /** METER_READ: a scheduled read date; reads repeat every meterReadCycleDays. */
  meterReadAnchorDate: string | null;
  /** METER_READ: published read dates, when the feed lists them. */
  meterReadDates: string[];
  /** Local HH:MM after which today no longer counts as a business day for the request. */
  sameDayCutoff: string;
  /** Calendar days after the request day in which the customer may cancel (Illinois: 10); 0 when none. */
  rescissionDays?: number;
  /** METER_READ: the utility's billing cycles, each with a scheduled read (empty: one utility-wide schedule). */
  meterReadCycles?: { cycle: string; anchorDate: string }[];
}

/** The default service supply price of a choice-market utility outside Texas. */
export interface PriceToCompare {
  microPerKwh: Micro;
  /** First and last day (YYYY-MM-DD) it applies. */
  effective: string;
  expires: string;
  /** Season it is for (SUMMER, NON_SUMMER...), null when it holds all year. */
  season?: string | null;
  /** Customer class it is for; null or absent: residential. */
  customerClass?: CustomerClass | null;
}

export interface HolidayRule {
  name: string;
  /** date-holidays rule text (domain/calendar.ts lists the accepted forms). */
  rule: string;
}

/** A default service supply price averaged over 12 months, from and to inclusive (YYYY-MM-DD). */
export interface TrailingSupplyPrice {
  microPerKwh: Micro;
  from: string;
  to: string;
}

export interface Territory {
  utilityId: string;
  name: string;
  state: string;
  timeZone: string;
  market: 'DEREGULATED' | 'REGULATED';
  /** IOU, MUNICIPAL, COOP, or a value a feed added later (the API answers OTHER). */
  ownership: string;
  /** Residential delivery charges; null for a regulated utility (see bundledRate). */
  delivery: DeliveryCharges | null;
  /** Commercial (small business) delivery charges; null when the feed has none. */
  commercialDelivery: DeliveryCharges | null;
  /** Regulated utilities: the bundled residential rate. */
  bundledRate: DeliveryCharges | null;
  priceToCompare: PriceToCompare | null;
  /** Michigan-style capped retail choice: the share of the utility's load open to suppliers, percent. */
  choiceCapPercent?: number | null;
  /** Residential delivery charges of each tariff period, oldest first (empty: only `delivery` is known). */
  deliveryRates?: DeliveryCharges[];
  /** Commercial delivery charges of each tariff period, oldest first. */
  commercialDeliveryRates?: DeliveryCharges[];
  /** Price to Compare periods: in effect and next, per season or class (empty: only `priceToCompare` is known). */
  pricesToCompare?: PriceToCompare[];
  /**
   * Residential default service supply price averaged over the trailing 12 months (Maryland's SOS,
   * New York's utility supply price): the limit some states put on retail prices (market-rules.ts).
   */
  trailingSupplyPrice?: TrailingSupplyPrice | null;
  /** The same average for small commercial (non-demand) customers: New York's Reset order limits theirs too. */
  commercialTrailingSupplyPrice?: TrailingSupplyPrice | null;
  switching: SwitchingRules;
  /** Business-day calendar switches are processed on; null: weekends and `holidays` only. */
  calendar: { name: string; holidays: HolidayRule[] } | null;
  /** ISO dates (YYYY-MM-DD) on which no switch can happen, on top of the calendar's rules. */
  holidays: string[];
}
