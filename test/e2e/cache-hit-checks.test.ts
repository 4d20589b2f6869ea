// A cache hit is answered without the GraphQL pipeline, but never without the request's checks:
// the key (revoked since the entry was stored), the environment, the partner's quota, the body's
// exact bytes and its content type are checked on every request, the hundredth repeat as the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import { issueKey, revokeKeys } from '../../stores/key-store.js';
import { savePartner } from '../../stores/partners.js';
import { runPartnersCli } from '../../cli/partners.js';
import { eventually } from '../../scripts/harness/eventually.js';

const QUERY = 'query Plans($zipCode: String!) { residentialPlans(zipCode: $zipCode) { title price term } }';
const body = (zipCode: string) => JSON.stringify({ query: QUERY, variables: { zipCode }, operationName: 'Plans' });

async function post(url: string, key: string | null, text: string, contentType = 'application/json') {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (key !== null) headers['x-api-key'] = key;
  const res = await fetch(url, { method: 'POST', headers, body: text });
  const raw = await res.text();
  let json: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null = null;
  try {
    json = JSON.parse(raw);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, raw, json };
}

/** Requests the same body until it is answered from the cache. */
async function hit(url: string, key: string, text: string) {
  await eventually(async () => (await post(url, key, text)).headers.get('x-cache') === 'HIT', 10_000, 50);
  return post(url, key, text);
}

describe('checks on cache hits', () => {
  let dir: string;
  let keysFile: string;
  let gw: GatewayHandle;
  let prod: string;
  let cert: string;
  let acme: string;
  let gone: { key: string; id: string };
  let slow: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-hit-checks-'));
    keysFile = path.join(dir, 'keys.json');
    const partnersFile = path.join(dir, 'partners.json');
    acme = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
    const issued = await issueKey(keysFile, { environment: 'production', partnerCode: 'GONE' });
    gone = { key: issued.key, id: issued.record.id };
    slow = (await issueKey(keysFile, { environment: 'production', partnerCode: 'SLOW' })).key;
    await savePartner(partnersFile, { code: 'SLOW', name: 'Slow', contact: 'ops@slow.example' }, { actor: 'test' });
    const quota = await runPartnersCli(
      ['quota', '--partner', 'slow', '--env', 'production', '--rate', '1', '--burst', '3'],
      { KEYS_FILE: keysFile, PARTNERS_FILE: partnersFile },
      { out: () => {}, err: () => {} },
    );
    expect(quota).toBe(0);
    gw = await launchGateway({
      env: {
        PRODUCTION_PORT: '0',
        CERTIFICATION_PORT: '0',
        PLAYGROUND_PORT: '0',
        UPSTREAM_PORT: '0',
        OPS_PORT: '0',
        LOG_LEVEL: 'silent',
        KEYS_FILE: keysFile,
        PARTNERS_FILE: partnersFile,
        DATA_DIR: path.join(dir, 'data'),
      },
    });
    prod = gw.urls.production!;
    cert = gw.urls.certification!;
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a key revoked after its requests were served from the cache', async () => {
    const served = await hit(prod, gone.key, body('75001'));
    expect(served.status).toBe(200);
    await revokeKeys(keysFile, { id: gone.id });
    await eventually(async () => (await post(prod, gone.key, body('75001'))).status === 403, 10_000, 100);
    const refused = await post(prod, gone.key, body('75001'));
    expect(refused.status).toBe(403);
    expect(refused.raw).not.toContain('residentialPlans');
    expect(refused.json?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // The entry itself is still served to a valid key.
    const other = await post(prod, acme, body('75001'));
    expect(other.status).toBe(200);
    expect(other.headers.get('x-cache')).toBe('HIT');
  });

  it('serves the same bytes to no key, a wrong key or another environment only as a 403', async () => {
    const served = await hit(prod, acme, body('75001'));
    expect(served.status).toBe(200);
    for (const key of [null, 'epk_live_not-a-key', acme.slice(0, -1)]) {
      const r = await post(prod, key, body('75001'));
      expect(r.status).toBe(403);
      expect(r.raw).not.toContain('residentialPlans');
    }
    const otherEnvironment = await post(cert, acme, body('75001'));
    expect(otherEnvironment.status).toBe(403);
  });

  it("never answers a body that differs by one byte with another body's entry", async () => {
    const first = await hit(prod, acme, body('75001'));
    const changed = body('75001').replace('75001', '77001');
    expect(changed.length).toBe(body('75001').length);
    const second = await post(prod, acme, changed);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache')).not.toBe('HIT');
    expect(second.raw).not.toBe(first.raw);
    // A repeat of the changed body is its own entry, not the first one.
    const again = await hit(prod, acme, changed);
    expect(again.raw).toBe(second.raw);
  });

  it('answers a garbled, cut-off, oversized or mistyped copy of a cached body with a clean error', async () => {
    await hit(prod, acme, body('75001'));
    const text = body('75001');
    const garbled = text.slice(0, 20) + '\u0000' + text.slice(21);
    const cases: [string, string, number, string][] = [
      [garbled, 'application/json', 400, 'Request body is not valid JSON.'],
      [text.slice(0, -1), 'application/json', 400, 'Request body is not valid JSON.'],
      [text, 'text/plain', 400, 'Send the request with header Content-Type: application/json.'],
      [text + ' '.repeat(2 * 1024 * 1024), 'application/json', 413, ''],
    ];
    for (const [sent, type, status, message] of cases) {
      const r = await post(prod, acme, sent, type);
      expect(r.status, `${type} ${sent.slice(0, 40)}`).toBe(status);
      expect(r.raw).not.toContain('residentialPlans');
      if (message) expect(r.json?.errors?.[0]?.message).toBe(message);
    }
    // The entry is untouched by them.
    expect((await post(prod, acme, text)).headers.get('x-cache')).toBe('HIT');
  });

  it("counts cache hits against the partner's quota, and refuses them past it", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await post(prod, slow, body('75001'))).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(statuses).toContain(429);
    const refused = await post(prod, slow, body('75001'));
    expect(refused.status).toBe(429);
    expect(refused.json?.errors?.[0]?.extensions?.reason).toBe('PARTNER_QUOTA');
    expect(refused.raw).not.toContain('residentialPlans');
  });
});
