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
  /** Credit applies when monthly usage >= minKwh. */
  minKwh: number;
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
}

/** The utility's delivery (TDU) charges passed through on every bill. */
export interface DeliveryCharges {
  fixedMonthlyMicro: Micro;
  perKwhMicro: Micro;
}

export interface SwitchingRules {
  leadBusinessDays: number;
  meterReadCycleDays: number;
  /** Local HH:MM after which today no longer counts as a business day for the request. */
  sameDayCutoff: string;
}

export interface Territory {
  utilityId: string;
  name: string;
  state: string;
  timeZone: string;
  market: 'DEREGULATED' | 'REGULATED';
  /** IOU, MUNICIPAL, COOP, or a value a feed added later (the API answers OTHER). */
  ownership: string;
  delivery: DeliveryCharges;
  switching: SwitchingRules;
  /** ISO dates (YYYY-MM-DD) on which no switch can happen. */
  holidays: string[];
}
