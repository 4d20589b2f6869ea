// Operator surfaces: with HOST=0.0.0.0 (as for a load balancer) the unauthenticated metrics and the
// admin API still listen on loopback only; failed admin logins are logged, throttled, with counts;
// a malformed admin path is a 400, never a 500 with a stack trace. Real gateway, real redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle } from '../../start/app.js';
import type { Logger } from '../../lib/logger.js';
import { issueKey } from '../../stores/key-store.js';
import { loadConfig } from '../../start/config.js';
import { freePort, startTestRedis, type TestRedis } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

let tmp: string;
let redis: TestRedis;
let gw: GatewayHandle;
let adminPort: number;
let opsPort: number;
let prodKey: string;
const lines: Record<string, unknown>[] = [];

/** This machine's first address that is not loopback, if any. */
const outside = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

async function reach(url: string, init: RequestInit = {}): Promise<number | 'refused'> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'refused';
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'operator-surfaces-'));
  redis = await startTestRedis();
  const keysFile = path.join(tmp, 'keys.json');
  prodKey = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  adminPort = await freePort();
  opsPort = await freePort();
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) as unknown as Logger;
  gw = await startGateway({
    logger,
    env: {
      HOST: '0.0.0.0',
      PRODUCTION_PORT: '0',
      CERTIFICATION_PORT: '0',
      PLAYGROUND_PORT: '0',
      UPSTREAM_PORT: '0',
      OPS_PORT: String(opsPort),
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN,
      DATA_DIR: path.join(tmp, 'data'),
      REDIS_URL: redis.url,
      KEYS_FILE: keysFile,
    },
  });
});

afterAll(async () => {
  await gw?.close().catch(() => {});
  await redis?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('operator surfaces', () => {
  it('bind to loopback by default whatever HOST is; OPS_HOST and ADMIN_HOST are read', async () => {
    expect(await reach(`http://127.0.0.1:${opsPort}/metrics`)).toBe(200);
    expect(await reach(`http://127.0.0.1:${adminPort}/replay`)).toBe(401);
    if (outside) {
      const prodPort = new URL(gw.urls.production!).port;
      // The partner listener follows HOST...
      expect(await reach(`http://${outside}:${prodPort}/healthz`)).toBe(200);
      // ...the operator surfaces do not.
      expect(await reach(`http://${outside}:${opsPort}/metrics`)).toBe('refused');
      expect(await reach(`http://${outside}:${adminPort}/replay`)).toBe('refused');
    }
    const config = loadConfig({ HOST: '0.0.0.0', OPS_HOST: '0.0.0.0', ADMIN_HOST: '::1' });
    expect(config).toMatchObject({ host: '0.0.0.0', opsHost: '0.0.0.0', admin: { host: '::1' } });
    expect(loadConfig({ HOST: '0.0.0.0' })).toMatchObject({ opsHost: '127.0.0.1', admin: { host: '127.0.0.1' } });
  });

  it('failed admin authentication is logged, throttled, with counts', async () => {
    const before = lines.length;
    for (let i = 0; i < 50; i++)
      expect(await reach(`http://127.0.0.1:${adminPort}/replay`, { headers: { authorization: `Bearer wrong-${i}` } })).toBe(401);
    const warnings = () => lines.slice(before).filter((l) => l.msg === 'admin endpoint: authentication failed');
    await eventually(async () => warnings().length > 0);
    // Throttled: far fewer lines than attempts, and the lines say how many they stand for.
    expect(warnings().length).toBeLessThan(10);
    expect(warnings()[0]).toMatchObject({ level: 40, failedSinceLastWarning: expect.any(Number), remoteAddress: expect.any(String) });
    expect(JSON.stringify(warnings())).not.toContain('wrong-');
  });

  it('malformed admin paths are a 400 with a JSON body, never a 500 or a stack trace', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const before = lines.length;
    for (const bad of [
      '/replay/%E0%A4%A',
      '/replay/%',
      '/replay/%ZZ',
      `/replay/${'a'.repeat(500)}`,
      '/replay/x?env=nowhere',
      '/replay?env=%00',
      '/replay?cursor=not-a-cursor',
      `/replay?cursor=${Buffer.from('{"nowhere":{"key":1,"skip":0}}').toString('base64url')}`,
    ]) {
      const res = await fetch(`http://127.0.0.1:${adminPort}${bad}`, { headers: auth });
      expect(res.status, bad).toBe(400);
      const body = await res.json();
      expect(body.error).toBe('bad request');
    }
    expect(lines.slice(before).filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toMatch(/\\n\s+at /);
    // The partner key is no admin credential.
    expect(await reach(`http://127.0.0.1:${adminPort}/replay`, { headers: { authorization: `Bearer ${prodKey}` } })).toBe(401);
  });
});
