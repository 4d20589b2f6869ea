// `Plan.pricing`: what a plan's tiers are computed from besides its fees, published so a partner
// can recompute every tier and annual cost (docs/partners.md, "Recomputing a price").
import type { CanonicalOffer, CustomerClass, DeliveryCharges } from '../domain/canonical.js';
import { microToNumber } from '../domain/money.js';
import { charges } from './utility.js';

export function planPricing(o: CanonicalOffer, delivery: DeliveryCharges, customerClass: CustomerClass) {
  const none = delivery.fixedMonthlyMicro === 0 && delivery.perKwhMicro === 0;
  return {
    energyBlocks: o.energyBlocks.map((b) => ({ fromKwh: b.fromKwh, toKwh: b.toKwh, usdPerKwh: microToNumber(b.microUsdPerKwh, 6) })),
    delivery: none ? null : { customerClass, ...charges(delivery)! },
  };
}
