// A feed that loses records shows it: /readyz lists each feed's last answer (served, dropped, why),
// fails while a feed's every record is dropped for an implausible value (a unit mistake in its
// mapping; the answer serves the other feeds' plans with a FEED_UNAVAILABLE error naming it), and /metrics counts
// served and dropped records per feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../scripts/harness/gateway.js';
import { freePort } from '../../scripts/harness/redis-server.js';
import { mappingOf, writeConfigDir } from '../support/feed-config.js';

let t: TestGateway;
let dir: string;
let ops: number;
const readyz = async () => {
  const res = await fetch(t.g.urls.certification!.replace('/graphql', '/readyz'));
  return { status: res.status, body: (await res.json()) as { feeds?: Record<string, string> } };
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-feed-ready-'));
  // Gridwise's prices are per MWh; declared per kWh, every one is impossible.
  const meshDir = writeConfigDir(dir, 'gridwise-per-kwh', ['examples/gridwise-feed.yaml'], (c) => {
    mappingOf(c, 'Gridwise').fields.energyBlocks.fields.price.unit = 'usd_per_kwh';
  });
  ops = await freePort();
  t = await startTestGateway({ MESH_DIR: meshDir, OPS_PORT: String(ops) });
}, 120_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('feed readiness', () => {
  it('a feed whose every record is dropped as implausible fails /readyz, naming it; the others show their last answer', async () => {
    expect((await readyz()).status).toBe(200);
    const r = await t.post('certification', '{ residentialPlans(zipCode: "75001") { title supplier { name } } }');
    // The request itself still answers with the other feeds' plans, and says Gridwise's are missing.
    expect(r.json.errors).toEqual([
      expect.objectContaining({
        message: 'Feed Gridwise is unavailable: every one of the 6 offers it sent was dropped; its plans are missing from this answer.',
        path: ['residentialPlans'],
        extensions: expect.objectContaining({ code: 'FEED_UNAVAILABLE', feed: 'Gridwise' }),
      }),
    ]);
    expect(r.json.data.residentialPlans.length).toBeGreaterThan(0);
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body.feeds!.Gridwise).toMatch(/^failing: every record of its last answer was dropped for an implausible value/);
    expect(body.feeds!.Voltify).toBe('ok');
    // Public: states only, no counts or record content.
    expect(JSON.stringify(body)).not.toMatch(/USD|\d{3,}/);

    const metrics = await (await fetch(`http://127.0.0.1:${ops}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_feed_records_total\{feed="Gridwise",outcome="served"\} 0$/m);
    expect(metrics).toMatch(/^gateway_feed_records_total\{feed="Gridwise",outcome="dropped"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^gateway_feed_records_total\{feed="Voltify",outcome="served"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^gateway_feed_records_dropped_total\{feed="Gridwise",field="energyBlocks\.price"\} [1-9]\d*$/m);
  });
});
