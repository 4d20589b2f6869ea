// Sunpath's upstream for tests: a real HTTP server answering
// GET /sunpath/v3/territories/{utility}/offers?segment=res|biz[&cursor=<utility>-<n>] in the shape of
// sources/sunpath/schema.json, with the residential offers below, in pages. Counts what it is asked
// and can fail per utility.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SunpathTier {
  startKwh: number;
  endKwh?: number;
  millsPerKwh: number;
}
export interface SunpathOffer {
  sku: string;
  brand: { legal: string };
  headline: string;
  structure: 'fixed-rate' | 'variable-rate' | 'indexed-rate';
  termYears: number;
  tiers: SunpathTier[];
  monthlyCents?: number;
  feesCents?: { exit?: number; signup?: number };
  greenPct?: number;
}

export const SUPPLIER = 'Sunpath Power LLC';
const offer = (sku: string, o: Omit<SunpathOffer, 'sku' | 'brand'>): SunpathOffer => ({ sku, brand: { legal: SUPPLIER }, ...o });

/** utility -> residential offers, in pages (the cursor of page n+1 is `<utility>-<n+1>`). */
export const PAGES: Record<string, SunpathOffer[][]> = {
  ONCOR: [
    [
      offer('SP-ONCOR-SAVER-12', {
        headline: 'Sunpath Saver 12',
        structure: 'fixed-rate',
        termYears: 1,
        tiers: [
          { startKwh: 0, endKwh: 1000, millsPerKwh: 112.5 },
          { startKwh: 1000, millsPerKwh: 98.25 },
        ],
        monthlyCents: 495,
        feesCents: { exit: 15000, signup: 0 },
        greenPct: 20,
      }),
      offer('SP-ONCOR-FLEX', {
        headline: 'Sunpath Flex',
        structure: 'variable-rate',
        termYears: 0,
        tiers: [{ startKwh: 0, millsPerKwh: 139.9 }],
      }),
    ],
    [
      offer('SP-ONCOR-SUN-24', {
        headline: 'Sunpath Sun 24',
        structure: 'fixed-rate',
        termYears: 2,
        tiers: [
          { startKwh: 0, endKwh: 500, millsPerKwh: 131.125 },
          { startKwh: 500, endKwh: 1500, millsPerKwh: 104 },
          { startKwh: 1500, millsPerKwh: 121.7 },
        ],
        monthlyCents: 999,
        feesCents: { exit: 19500, signup: 2500 },
        greenPct: 100,
      }),
    ],
  ],
  CENTERPOINT: [
    [
      // Variable, not indexed: Texas bars indexed plans for homes (domain/market-rules.ts).
      offer('SP-CNP-FLEX', {
        headline: 'Sunpath Flex 6',
        structure: 'variable-rate',
        termYears: 0.5,
        tiers: [{ startKwh: 0, millsPerKwh: 89.999 }],
        monthlyCents: 1250,
        feesCents: { exit: 5000 },
        greenPct: 12.5,
      }),
    ],
  ],
};

export interface Upstream {
  url: string;
  /** Requests seen: `<utility> <segment> <cursor|->`. */
  seen: string[];
  /** Utilities that answer 500. */
  failing: Set<string>;
  close(): Promise<void>;
}

export async function startSunpath(): Promise<Upstream> {
  const seen: string[] = [];
  const failing = new Set<string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/sunpath\/v3\/territories\/([A-Z_]+)\/offers$/.exec(url.pathname);
    const segment = url.searchParams.get('segment');
    const cursor = url.searchParams.get('cursor');
    seen.push(`${m?.[1]} ${segment} ${cursor ?? '-'}`);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!m || (segment !== 'res' && segment !== 'biz')) return json(400, { error: 'bad request' });
    const utility = m[1]!;
    if (failing.has(utility)) return json(500, { error: 'down' });
    const pages = segment === 'res' ? (PAGES[utility] ?? [[]]) : [[]];
    const n = cursor === null ? 0 : Number(/^[A-Z_]+-(\d+)$/.exec(cursor)?.[1] ?? NaN);
    if (!Number.isInteger(n) || !pages[n]) return json(400, { error: 'bad cursor' });
    json(200, { territory: utility, segment, offers: pages[n], paging: { next: n + 1 < pages.length ? `${utility}-${n + 1}` : null } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    failing,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
