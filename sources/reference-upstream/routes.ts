// Feed routes: path pattern, the feed a fault switch applies to, and its cache policy.

import type { FeedName } from './faults.js';
import { listPlans } from './feeds/brightgrid.js';
import { monthlyResidentialSales, stateStatistics } from './feeds/eia.js';
import { eiaV2Data } from './feeds/eia-v2.js';
import { gridwiseFeed } from './feeds/gridwise.js';
import { searchByAddress } from './feeds/premises.js';
import type { Reply } from './feeds/reply.js';
import { territoriesByZip } from './feeds/territories.js';
import { listOffers } from './feeds/voltify.js';

interface Route {
  feed: FeedName;
  pattern: RegExp;
  cacheControl: string;
  /** Async where the answer needs the ZIP database (imported on first use). */
  handle(params: string[], query: URLSearchParams): Reply | Promise<Reply>;
}

// Territories and state statistics change rarely; offers are repriced often;
// premises identify customers and must never sit in a shared cache.
const ROUTES: readonly Route[] = [
  {
    feed: 'territories',
    pattern: /^\/territories\/v1\/zip\/([^/]+)$/,
    cacheControl: 'public, max-age=86400',
    handle: ([zip]) => territoriesByZip(zip!),
  },
  { feed: 'voltify', pattern: /^\/voltify\/api\/v2\/offers$/, cacheControl: 'public, max-age=900', handle: (_, q) => listOffers(q) },
  {
    feed: 'brightgrid',
    pattern: /^\/brightgrid\/v1\/plans\/([^/]+)$/,
    cacheControl: 'public, max-age=900',
    handle: ([zip], q) => listPlans(zip!, q),
  },
  {
    feed: 'eia',
    pattern: /^\/eia\/v1\/states\/([^/]+)$/,
    cacheControl: 'public, max-age=86400',
    handle: ([state]) => stateStatistics(state!),
  },
  {
    feed: 'eia',
    pattern: /^\/eia\/v1\/states\/([^/]+)\/residential-sales\/monthly$/,
    cacheControl: 'public, max-age=86400',
    handle: ([state]) => monthlyResidentialSales(state!),
  },
  // EIA's API v2 shape (the Eia source of .meshrc.yaml); EIA_URL points the same calls at EIA itself.
  {
    feed: 'eia',
    pattern: /^\/v2\/electricity\/(retail-sales|electric-power-operational-data)\/data\/?$/,
    cacheControl: 'public, max-age=86400',
    handle: ([route], q) => eiaV2Data(route!, q),
  },
  { feed: 'premises', pattern: /^\/premises\/v1\/search$/, cacheControl: 'no-store', handle: (_, q) => searchByAddress(q) },
  // Not in the default .meshrc.yaml: the third supplier feed of docs/adding-a-feed.md.
  { feed: 'gridwise', pattern: /^\/gridwise\/feed\/([^/]+)$/, cacheControl: 'public, max-age=900', handle: ([zip]) => gridwiseFeed(zip!) },
];

export function matchRoute(path: string): { route: Route; params: string[] } | null {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return null;
}
