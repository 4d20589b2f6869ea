// The page the console's limits answer with (sign-ins from one address, pages past the pace): a
// status, Retry-After, and a minimal page that says when to try again. Outside the console's
// routes, so it carries its own headers and a CSP that allows nothing.
import type { ServerResponse } from 'node:http';

export function sendRetryPage(
  res: ServerResponse,
  status: 429 | 503,
  page: { title: string; heading: string; text: string },
  retrySeconds: number,
): void {
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head>` +
    `<body><main><h1>${page.heading}</h1><p role="alert">${page.text} Try again in ${retrySeconds} seconds.</p></main></body></html>`;
  res.writeHead(status, {
    'retry-after': String(retrySeconds),
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}
