// Supply-price levels per retail-choice state, in cents per kWh of energy charge only
// (delivery is passed through separately). TX supply runs 7-16 cents; the Northeast 9-18
// for residential, with commercial (larger-load) supply a little cheaper.

interface PriceBand {
  /** Typical 12-month fixed residential energy charge. */
  residentialCenter: number;
  residential: [min: number, max: number];
  commercial: [min: number, max: number];
}

export const PRICE_BANDS: Record<string, PriceBand> = {
  TX: { residentialCenter: 11.2, residential: [7, 16], commercial: [6.2, 13] },
  PA: { residentialCenter: 11.6, residential: [9, 17.5], commercial: [7.1, 14.5] },
  OH: { residentialCenter: 10.4, residential: [9, 16.5], commercial: [6.8, 13.5] },
  IL: { residentialCenter: 10.8, residential: [9, 16.5], commercial: [6.9, 13.8] },
  NY: { residentialCenter: 13.4, residential: [9.5, 18], commercial: [7.8, 15.5] },
  NJ: { residentialCenter: 12.9, residential: [9.5, 18], commercial: [7.6, 15] },
  MD: { residentialCenter: 12.3, residential: [9, 17.5], commercial: [7.3, 14.5] },
  MA: { residentialCenter: 14.6, residential: [10, 18], commercial: [8.4, 16] },
  CT: { residentialCenter: 14.1, residential: [10, 18], commercial: [8.2, 16] },
  NH: { residentialCenter: 13.1, residential: [9.5, 18], commercial: [8, 15.5] },
  DC: { residentialCenter: 12.1, residential: [9, 17], commercial: [7.3, 14.5] },
  DE: { residentialCenter: 12.2, residential: [9, 17], commercial: [7.3, 14.5] },
  ME: { residentialCenter: 14.2, residential: [10, 18], commercial: [8.2, 16] },
};

/**
 * Least supply cost a plan recovers per kWh, in micro-dollars (4 cents): wholesale energy plus a
 * retailer's margin. A bill credit is funded by a higher energy charge, so a credit plan's all-in
 * rate never drops below delivery per kWh plus this margin at any usage.
 */
export const SUPPLY_MARGIN_MICRO_PER_KWH = 40_000;

/** Lowest energy charge (micro-USD/kWh) of a plan with these credits: margin + credit / least usage it applies at. */
export function creditFloorMicro(credits: readonly { minKwh: number; creditUsd: number }[]): number {
  let floor = 0;
  for (const c of credits) floor = Math.max(floor, SUPPLY_MARGIN_MICRO_PER_KWH + Math.ceil((Math.round(c.creditUsd * 100) * 10_000) / Math.max(1, c.minKwh)));
  return floor;
}
