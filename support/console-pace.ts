// The console is served by the process that serves partners, and a page costs that thread a
// millisecond or more (sessions, store reads, HTML). People read pages; a script or a stuck
// browser can ask for hundreds a second and take a core from partners. So console requests start
// at most CONSOLE_PAGES_PER_SECOND a second per process, evenly spaced (no burst at the start of a
// second); the others wait their turn in order. One that would wait more than MAX_WAIT_MS gets 503
// with Retry-After instead. The console's stylesheet and script are not paced (served from memory).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ASSETS } from './console/assets.js';
import type { SupportConsole } from './console/console.js';
import { sendRetryPage } from './retry-page.js';

const MAX_WAIT_MS = 10_000;

export function paceConsole(inner: SupportConsole, pagesPerSecond: number, now: () => number = Date.now): SupportConsole {
  if (pagesPerSecond <= 0) return inner;
  const spacing = 1000 / pagesPerSecond;
  /** When the next request may start. */
  let next = 0;
  return {
    async handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL) {
      if (ASSETS[path]) return inner.handle(req, res, path, url);
      const t = now();
      const at = Math.max(t, next);
      if (at - t > MAX_WAIT_MS) return busy(req, res, Math.ceil((at - t - MAX_WAIT_MS) / 1000) || 1);
      next = at + spacing;
      if (at > t) await new Promise((resolve) => setTimeout(resolve, at - t));
      return inner.handle(req, res, path, url);
    },
  };
}

function busy(req: IncomingMessage, res: ServerResponse, retry: number): void {
  req.resume();
  sendRetryPage(
    res,
    503,
    { title: 'Console busy', heading: 'The console is busy', text: 'Too many console pages are being loaded on this gateway.' },
    retry,
  );
}
