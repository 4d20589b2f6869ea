// A canonical offer for unit tests: a plain 12-month fixed plan at 12¢/kWh, changed by `over`.
import type { CanonicalOffer } from '../../domain/canonical.js';

export function offer(over: Partial<CanonicalOffer> = {}): CanonicalOffer {
  return {
    feed: 'voltify',
    offerId: 'VOL-TEST',
    supplierName: 'Voltify Energy',
    title: 'Test',
    customerClass: 'RESIDENTIAL',
    utilityId: 'ONCOR',
    rateType: 'FIXED',
    termMonths: 12,
    energyBlocks: [{ fromKwh: 0, toKwh: null, microUsdPerKwh: 120_000 }],
    baseMonthlyMicro: 0,
    credits: [],
    minimumUsageFee: null,
    renewablePercent: 0,
    cancellationFeeMicro: 0,
    enrollmentFeeMicro: 0,
    ...over,
  };
}
