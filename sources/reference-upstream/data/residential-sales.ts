// Monthly residential electricity sales by state, the shape a year of household usage typically
// takes there (summer air conditioning in Texas, winter heating and summer cooling in the
// north-east). Source: U.S. Energy Information Administration, Form EIA-861M "Monthly Electric
// Power Industry Report", retail sales to the residential sector by state, calendar year 2023,
// in thousand MWh (GWh), rounded to whole GWh; these are approximations of the published figures,
// kept for their month-to-month proportions, not for the totals. Only the retail choice states
// the reference upstream serves plans in are listed; New Hampshire and the District of Columbia
// are left out on purpose, so the gateway's "no usage shape for this state" answer can be tried.

const SALES_YEAR = 2023;

/** state -> residential sales per month, thousand MWh, January first. */
const GWH: Record<string, readonly number[]> = {
  TX: [16812, 14961, 12034, 11482, 14025, 19806, 24517, 26003, 21472, 15298, 11927, 14513],
  PA: [5312, 4598, 4311, 3502, 3296, 3804, 4987, 5021, 4012, 3398, 3611, 4609],
  OH: [5409, 4702, 4398, 3601, 3402, 3998, 5196, 5204, 4107, 3493, 3805, 4795],
  IL: [4303, 3704, 3497, 2902, 2898, 4011, 5204, 5196, 3901, 2998, 3102, 3897],
  NY: [4604, 4097, 3998, 3402, 3301, 4003, 5398, 5302, 4297, 3502, 3598, 4403],
  NJ: [2603, 2298, 2197, 1802, 1799, 2502, 3601, 3598, 2797, 2003, 1998, 2502],
  MD: [2898, 2503, 2297, 1801, 1702, 2198, 2902, 2897, 2301, 1798, 2003, 2601],
  MA: [1902, 1703, 1698, 1401, 1297, 1502, 2003, 1998, 1602, 1398, 1502, 1801],
  CT: [1203, 1049, 998, 851, 802, 951, 1302, 1297, 1002, 848, 903, 1098],
};

interface MonthlySales {
  state: string;
  year: number;
  sector: 'residential';
  unit: 'thousand MWh';
  source: string;
  data: { period: string; month: number; salesThousandMwh: number }[];
}

export function residentialSales(state: string): MonthlySales | undefined {
  const gwh = GWH[state];
  if (!gwh) return undefined;
  return {
    state,
    year: SALES_YEAR,
    sector: 'residential',
    unit: 'thousand MWh',
    source: 'EIA-861M monthly retail sales, residential sector (approximate)',
    data: gwh.map((salesThousandMwh, i) => ({ period: `${SALES_YEAR}-${String(i + 1).padStart(2, '0')}`, month: i + 1, salesThousandMwh })),
  };
}
