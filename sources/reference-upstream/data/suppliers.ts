// Invented retail supplier brands and product naming. Each supplier feed carries its own brands.

export type SupplierFeed = 'voltify' | 'brightgrid';

export const BRANDS: Record<SupplierFeed, readonly { name: string; short: string }[]> = {
  voltify: [
    { name: 'Voltify Energy', short: 'Voltify' },
    { name: 'Lumen Ridge Power', short: 'Lumen Ridge' },
    { name: 'Kestrel Energy Services', short: 'Kestrel' },
    { name: 'Harborlight Electric', short: 'Harborlight' },
  ],
  brightgrid: [
    { name: 'BrightGrid Power', short: 'Bright' },
    { name: 'Meadowlark Energy', short: 'Meadowlark' },
    { name: 'Copperline Electric', short: 'Copperline' },
    { name: 'Northstar Retail Power', short: 'Northstar' },
    { name: 'Sunbarrow Energy', short: 'Sunbarrow' },
  ],
};

/** Regional flavour words for product names, by state. */
export const STATE_WORDS: Record<string, readonly string[]> = {
  TX: ['Lone Star', 'Bluebonnet', 'Texas'],
  PA: ['Keystone', 'Liberty'],
  OH: ['Buckeye', 'Ohio Valley'],
  IL: ['Prairie', 'Windy City'],
  NY: ['Empire', 'Hudson'],
  NJ: ['Garden State', 'Shore'],
  MD: ['Old Line', 'Chesapeake'],
  MA: ['Bay State', 'Patriot'],
  CT: ['Nutmeg', 'Charter Oak'],
  NH: ['Granite State', 'White Mountain'],
  DC: ['Capitol', 'Potomac'],
  DE: ['First State', 'Brandywine'],
  ME: ['Pine Tree', 'Downeast'],
};

export const FIXED_NOUNS = ['Saver', 'Secure', 'Select', 'Simple', 'Shield', 'Value', 'Price Lock', 'Essentials'] as const;
