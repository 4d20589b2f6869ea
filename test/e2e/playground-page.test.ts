// The playground page is small, compressed, cacheable and under a CSP, and shows
// the calls left. HTTP checks, then headless Chromium (Debian's /usr/bin/chromium via
// playwright-core) loading the page, running a query and seeing the count drop by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { chooseEncoding } from '../../server/http/playground-page.js';

let redis: TestRedis;
let gw: TestGateway;
let pageUrl: string;
let browser: Browser | null = null;

beforeAll(async () => {
  redis = await startTestRedis();
  gw = await startTestGateway({ REDIS_URL: redis.url });
  pageUrl = gw.g.urls.playground!;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await redis?.stop();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { accept: 'text/html', ...headers } });
  // fetch decodes; the raw size is the content-length header.
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

/** The asset URLs the page names. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/playground\/assets\/[^"]+)"/g)].map((m) => new URL(m[1]!, pageUrl).href);
}

describe('the page over HTTP', () => {
  it('is a few KB, compressed as accepted, with an ETag, a CSP and no-cache; 304 when unchanged', async () => {
    const br = await get(pageUrl, { 'accept-encoding': 'gzip, br' });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(Number(br.headers.get('content-length'))).toBeLessThan(2048);
    expect(br.headers.get('cache-control')).toBe('no-cache');
    const csp = br.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    const html = br.body.toString('utf8');
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script
    expect(html).toContain('epg-calls-left');
    const etag = br.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    // The allowance headers are still there (page loads are free).
    expect(br.headers.get('x-ratelimit-remaining')).toBe('10');

    const gz = await get(pageUrl, { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.body.toString('utf8')).toBe(html);
    const plain = await get(pageUrl, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.body.toString('utf8')).toBe(html);

    const again = await get(pageUrl, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await get(pageUrl, { 'if-none-match': '"0000000000000000"' })).status).toBe(200);
  });

  it('assets are hashed, immutable and compressed; unknown or hostile names are 404', async () => {
    const html = (await get(pageUrl)).body.toString('utf8');
    const urls = assetUrls(html);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    let total = 0;
    for (const url of urls) {
      expect(url).toMatch(/\.[0-9a-f]{16}\.(js|css|ico)$/);
      const res = await get(url, { 'accept-encoding': 'br, gzip' });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      if (!url.endsWith('.ico')) expect(res.headers.get('content-encoding')).toBe('br');
      total += Number(res.headers.get('content-length'));
    }
    // The GraphiQL bundle is ~9 MB raw: brotli brings the whole page well under a quarter of it.
    expect(total).toBeLessThan(2_500_000);
    for (const bad of [
      '/playground/assets/nope.js',
      '/playground/assets/../../etc/passwd',
      '/playground/assets/%2e%2e%2fpackage.json',
      '/playground/assets/__proto__',
      '/playground/assets/page.html',
      `/playground/assets/${'a'.repeat(5000)}`,
      '/playground/assets/%E0%A4%A',
    ]) {
      const res = await fetch(new URL(bad, pageUrl));
      expect(res.status, bad).toBe(404);
      expect(await res.text()).not.toMatch(/\n\s+at /);
    }
  });

  it('Accept-Encoding is parsed safely', () => {
    expect(chooseEncoding(undefined)).toBe('identity');
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('gzip;q=0, br;q=0')).toBe('identity');
    expect(chooseEncoding(',,;;q=,' + 'x'.repeat(10_000))).toBe('identity');
  });
});

describe('the page in headless Chromium', () => {
  it('loads without CSP violations, runs a query, and the calls left drop by one; a return visit costs a few KB', async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    // Generous timeouts: parsing GraphiQL's 8 MB script on a loaded 2-core machine takes a while.
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(pageUrl, { waitUntil: 'commit', timeout: 120_000 });
    const shown = page.locator('#epg-calls-left');
    // GraphiQL's schema fetch on load is free; its answer carries the count.
    await expect.poll(() => shown.getAttribute('data-remaining'), { timeout: 120_000 }).not.toBeNull();
    const before = Number(await shown.getAttribute('data-remaining'));
    expect(await shown.textContent()).toContain(`Free calls left: ${before}`);

    await page.locator('.graphiql-execute-button').first().click({ timeout: 120_000 });
    await expect.poll(async () => Number(await shown.getAttribute('data-remaining')), { timeout: 30_000 }).toBe(before - 1);
    // The first tab is the first query of the partner collection (examples/partners/queries).
    await expect.poll(() => page.locator('.graphiql-response').textContent(), { timeout: 30_000 }).toContain('"data"');
    expect(await shown.textContent()).toContain(`Free calls left: ${before - 1} of 10`);
    expect(problems).toEqual([]);

    // A returning browser: bytes over the network for the page and its files (API calls aside).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const methods = new Map<string, string>();
    let bytes = 0;
    cdp.on('Network.requestWillBeSent', (e) => methods.set(e.requestId, e.request.method));
    cdp.on('Network.loadingFinished', (e) => {
      if (methods.get(e.requestId) === 'GET') bytes += e.encodedDataLength;
    });
    await page.goto(pageUrl, { waitUntil: 'commit', timeout: 120_000 });
    await expect.poll(() => shown.getAttribute('data-remaining'), { timeout: 120_000 }).toBe(String(before - 1));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(8 * 1024);
  }, 400_000);
});
