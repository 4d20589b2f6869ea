// Console requests start at most CONSOLE_PAGES_PER_SECOND a second per process, evenly spaced; the
// rest wait their turn in order, one that would wait past 10 s gets 503 with Retry-After, and the
// console's own stylesheet and script are not paced.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { paceConsole } from '../../support/console-pace.js';
import { ASSETS } from '../../support/console/assets.js';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

function fakeResponse() {
  const res = { status: 0, headers: {} as Record<string, string>, body: '' };
  return Object.assign(res, {
    writeHead(status: number, headers: Record<string, string>) {
      res.status = status;
      res.headers = headers;
    },
    end(body: string) {
      res.body = body;
    },
  });
}

function paced(rate: number) {
  const started: { path: string; at: number }[] = [];
  const console = paceConsole({ handle: async (_req, _res, path) => void started.push({ path, at: Date.now() - 1_000_000 }) }, rate);
  const req = { resume() {} } as unknown as IncomingMessage;
  const get = (path: string) => {
    const res = fakeResponse();
    return { res, done: console.handle(req, res as unknown as ServerResponse, path, new URL(`http://x${path}`)) };
  };
  return { started, get };
}

describe('console pacing', () => {
  it('starts requests evenly spaced, in order, and lets the assets through at once', async () => {
    const { started, get } = paced(10);
    const pages = ['/console/search', '/console/audit', '/console/partners', '/console/records/a'].map((p) => get(p).done);
    const asset = Object.keys(ASSETS)[0]!;
    await get(asset).done;
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(pages);
    expect(started).toEqual([
      { path: '/console/search', at: 0 },
      { path: asset, at: 0 },
      { path: '/console/audit', at: 100 },
      { path: '/console/partners', at: 200 },
      { path: '/console/records/a', at: 300 },
    ]);
  });

  it('a request that would wait more than 10 s gets 503 with Retry-After; later ones are served again', async () => {
    const { started, get } = paced(1);
    const waiting = Array.from({ length: 11 }, () => get('/console/search'));
    const refused = get('/console/search');
    await refused.done;
    expect(refused.res.status).toBe(503);
    expect(Number(refused.res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.res.body).toMatch(/console is busy/);
    await vi.advanceTimersByTimeAsync(11_000);
    await Promise.all(waiting.map((w) => w.done));
    expect(started).toHaveLength(11);
    const later = get('/console/audit');
    await vi.advanceTimersByTimeAsync(1000);
    await later.done;
    expect(started.at(-1)!.path).toBe('/console/audit');
  });

  it('0 leaves the console unpaced', async () => {
    const { started, get } = paced(0);
    await Promise.all(Array.from({ length: 20 }, () => get('/console/search').done));
    expect(started.every((s) => s.at === 0)).toBe(true);
  });
});
