// Turns canonical offers into the public Plan / BusinessPlan records. Fields that cost work per plan
// (rate tiers, enrollment URL, fees) are functions, which their resolvers (resolvers/index.ts) call
// only when the query selects them: a partner listing titles and prices pays for neither.
import type { CanonicalOffer, DeliveryCharges, PriceToCompare, Territory } from '../domain/canonical.js';
import { annualEstimate, basePriceUsdPerKwh, rateTiers, tierUsages, monthlyBillMicro } from '../domain/pricing.js';
import { enrollmentUrl, planUuid } from '../domain/enrollment-url.js';
import { microToNumber } from '../domain/money.js';
import { annualCost, rateSpread } from '../domain/annual-cost.js';
import { monthlySavingsCents } from '../domain/price-to-compare.js';
import type { ResolverSettings } from './context.js';
import { planPricing } from './plan-pricing.js';

interface PlanFees {
  cancellationUsd: number;
  enrollmentUsd: number;
  baseMonthlyUsd: number;
  minimumUsageFeeUsd: number | null;
  minimumUsageKwh: number | null;
  usageCredits: { minKwh: number; maxKwh: number | null; creditUsd: number }[];
}

function fees(o: CanonicalOffer): PlanFees {
  return {
    cancellationUsd: microToNumber(o.cancellationFeeMicro, 2),
    enrollmentUsd: microToNumber(o.enrollmentFeeMicro, 2),
    baseMonthlyUsd: microToNumber(o.baseMonthlyMicro, 2),
    minimumUsageFeeUsd: o.minimumUsageFee ? microToNumber(o.minimumUsageFee.micro, 2) : null,
    minimumUsageKwh: o.minimumUsageFee ? o.minimumUsageFee.belowKwh : null,
    usageCredits: o.credits.map((c) => ({ minKwh: c.minKwh, maxKwh: c.maxKwh ?? null, creditUsd: microToNumber(c.micro, 2) })),
  };
}

function common(o: CanonicalOffer) {
  return {
    id: planUuid(o.feed, o.offerId),
    title: o.title,
    price: basePriceUsdPerKwh(o),
    term: o.termMonths,
    rateType: o.rateType,
    supplier: { name: o.supplierName },
    utilityId: o.utilityId,
    renewablePercent: o.renewablePercent,
    fees: () => fees(o),
  };
}

export function residentialPlan(
  o: CanonicalOffer,
  delivery: DeliveryCharges,
  zipCode: string,
  monthlyUsage: number | undefined,
  settings: ResolverSettings,
  partnerCode: string | null,
  /** The utility's Price to Compare when it is in effect; tiers then carry savings against it. */
  priceToCompare: PriceToCompare | null = null,
  /** Twelve monthly kWh (January first) the household uses; plans are then ranked by their year. */
  profile: readonly number[] | null = null,
) {
  const base = common(o);
  // The year on the same bill function and delivery charges as `rates`, so the two always agree.
  const year = profile ? annualCost(o, delivery, profile) : null;
  // Sort key: the year's cost to the cent with a profile (plans equal to the cent then go by id),
  // else the exact bill at the usage the partner asked about (1000 kWh by default).
  const sortMicro = year ? year.totalCents * 10_000 : monthlyBillMicro(o, delivery, monthlyUsage ?? 1000);
  return {
    ...base,
    annualCost: year && {
      totalUsd: year.totalUsd,
      averageRateUsdPerKwh: year.averageRateUsdPerKwh,
      oneTimeFeesUsd: year.oneTimeFeesUsd,
      priceFixedMonths: year.priceFixedMonths,
      // The year's own month records: the schema's fields (month, usageKwh, billUsd) are all an answer reads.
      months: year.months,
    },
    rateSpread: () => rateSpread(o, delivery),
    pricing: () => planPricing(o, delivery, 'RESIDENTIAL'),
    rates: () =>
      rateTiers(o, delivery, tierUsages(monthlyUsage)).map((t) => ({
        ...publicTier(t),
        estimatedMonthlySavingsUsd: priceToCompare
          ? microToNumber(monthlySavingsCents(priceToCompare, delivery, t.usageKwh, t.exactBillMicro) * 10_000, 2)
          : null,
      })),
    headlessEnrollmentUrl: () =>
      enrollmentUrl({
        baseUrl: settings.enrollmentBaseUrl,
        planId: base.id,
        zipCode,
        partnerCode: settings.fillPartnerRef && partnerCode ? partnerCode : undefined,
        utmSource: settings.utmSource,
      }),
    sortMicro,
  };
}

export function businessPlan(o: CanonicalOffer, delivery: DeliveryCharges, annualUsage: number) {
  const estimate = annualEstimate(o, delivery, annualUsage);
  return {
    ...common(o),
    annualUsageKwh: annualUsage,
    estimatedAnnualCostUsd: microToNumber(estimate.annualMicro, 2),
    rates: estimate.tiers.map(publicTier),
    sortMicro: estimate.annualMicro,
  };
}

function publicTier(t: { usageKwh: number; allInRateUsdPerKwh: number; avgMonthlyBillUsd: number }) {
  return { usageKwh: t.usageKwh, allInRateUsdPerKwh: t.allInRateUsdPerKwh, avgMonthlyBillUsd: t.avgMonthlyBillUsd };
}

/**
 * Offers of the deregulated territories asked for, each with the delivery charges of its customer
 * class, exact duplicates dropped, in feed order. A territory without delivery charges for the
 * class offers nothing for it (pricing it with another class's charges would be wrong).
 */
export function offersFor(
  offers: CanonicalOffer[],
  territories: Territory[],
  customerClass: CanonicalOffer['customerClass'],
): { offer: CanonicalOffer; delivery: DeliveryCharges; territory: Territory }[] {
  const byUtility = new Map<string, { delivery: DeliveryCharges; territory: Territory }>();
  for (const territory of territories) {
    const delivery = customerClass === 'COMMERCIAL' ? territory.commercialDelivery : territory.delivery;
    if (delivery) byUtility.set(territory.utilityId, { delivery, territory });
  }
  const seenIds = new Set<string>();
  // The same offer twice (a feed repeating itself, or two feeds carrying one supplier's offer) is
  // identical apart from where it came from. Comparing whole offers is costly, so offers are grouped
  // by a few fields first and compared whole only within a group.
  const groups = new Map<string, { offers: CanonicalOffer[]; contents?: Set<string> }>();
  const out: { offer: CanonicalOffer; delivery: DeliveryCharges; territory: Territory }[] = [];
  for (const offer of offers) {
    const served = byUtility.get(offer.utilityId);
    if (!served || offer.customerClass !== customerClass) continue;
    const idKey = `${offer.feed}\u0000${offer.offerId}\u0000${offer.utilityId}`;
    if (seenIds.has(idKey)) continue;
    const signature = `${offer.utilityId}\u0000${offer.supplierName}\u0000${offer.title}\u0000${offer.termMonths}\u0000${offer.rateType}`;
    const group = groups.get(signature);
    if (group) {
      group.contents ??= new Set(group.offers.map(contentKey));
      const content = contentKey(offer);
      if (group.contents.has(content)) continue;
      group.contents.add(content);
      group.offers.push(offer);
    } else {
      groups.set(signature, { offers: [offer] });
    }
    seenIds.add(idKey);
    out.push({ offer, ...served });
  }
  return out;
}

function contentKey(offer: CanonicalOffer): string {
  const { feed: _feed, offerId: _id, ...content } = offer;
  return JSON.stringify(content);
}

export function bySortKey<T extends { sortMicro: number; id: string }>(a: T, b: T): number {
  return a.sortMicro - b.sortMicro || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
