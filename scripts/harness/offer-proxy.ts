// A real HTTP proxy in front of the reference upstream that can change an offer: with `bump` on,
// every Voltify offer's monthly base charge rises by $5, which changes plan prices and rates; with
// `delayMs` set, every answer waits that long first (a slow supplier feed).
import http from 'node:http';
import { listen } from '../../server/http/listen.js';

export interface OfferProxy {
  url: string;
  bump: boolean;
  delayMs: number;
  close(): Promise<void>;
}

export async function startOfferProxy(upstream: string): Promise<OfferProxy> {
  const state = { bump: false, delayMs: 0 };
  const server = http.createServer(async (req, res) => {
    try {
      if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      const r = await fetch(`${upstream}${req.url}`, { method: req.method, headers: { accept: 'application/json' } });
      let body = await r.text();
      if (state.bump && req.url?.startsWith('/voltify/') && r.ok) {
        const json = JSON.parse(body) as { offers?: { baseChargeUsdPerMonth: number }[] };
        for (const o of json.offers ?? []) o.baseChargeUsdPerMonth = Number(o.baseChargeUsdPerMonth) + 5;
        body = JSON.stringify(json);
      }
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(502).end();
    }
  });
  const l = await listen(server, 0, '127.0.0.1');
  return {
    url: l.url,
    get bump() {
      return state.bump;
    },
    set bump(v: boolean) {
      state.bump = v;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    close: l.close,
  };
}
