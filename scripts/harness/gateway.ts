// Starts a whole gateway (reference upstream included) on free ports with keys issued, for e2e tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchGateway as startGateway } from '../../start/launch.js';
import type { GatewayHandle, StartOptions } from '../../start/app.js';
import { issueKey } from '../../stores/key-store.js';
import { zipDatabase } from '../../lib/zip-database.js';

export interface TestGateway {
  g: GatewayHandle;
  keys: { production: string; certification: string };
  dataDir: string;
  /** POST a GraphQL request; production/certification carry their key unless `key` is given. */
  post(
    environment: 'production' | 'certification' | 'playground',
    query: string,
    variables?: Record<string, unknown>,
    opts?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; json: any; text: string }>;
  close(): Promise<void>;
}

/** `opts.now`: the gateway's clock (injected in tests of dates); `opts.logger`: capture its log. */
export async function startTestGateway(
  env: Record<string, string> = {},
  opts: { now?: () => Date; logger?: StartOptions['logger'] } = {},
): Promise<TestGateway> {
  // A test that serves the reference upstream itself (UPSTREAM_URL) mostly does so from this process:
  // load its ZIP database now, as npm start does, not in the gateway's first feed call.
  if (env.UPSTREAM_URL) await zipDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-e2e-'));
  // Instances given one KEYS_FILE share it (each still gets keys of its own in it).
  const keysFile = env.KEYS_FILE ?? path.join(dataDir, 'keys.json');
  const production = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
  const certification = (await issueKey(keysFile, { environment: 'certification', partnerCode: 'ACME' })).key;
  const g = await startGateway({
    env: {
      PATH: process.env.PATH,
      PRODUCTION_PORT: '0',
      CERTIFICATION_PORT: '0',
      PLAYGROUND_PORT: '0',
      UPSTREAM_PORT: '0',
      OPS_PORT: '0',
      DATA_DIR: dataDir,
      KEYS_FILE: keysFile,
      LOG_LEVEL: 'silent',
      // Every test client is 127.0.0.1: the free-request rate and the per-IP connection cap are
      // tested on their own (request-defences.test.ts).
      PLAYGROUND_FREE_REQUESTS: '1000000',
      PLAYGROUND_MAX_CONNECTIONS_PER_IP: '0',
      ...env,
    },
    now: opts.now,
    logger: opts.logger,
  });
  const keys = { production, certification };
  return {
    g,
    keys,
    dataDir,
    async post(environment, query, variables, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      const key = opts.key === undefined ? (environment === 'playground' ? undefined : keys[environment]) : opts.key;
      if (key) headers['x-api-key'] = key;
      const res = await fetch(g.urls[environment]!, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      const text = await res.text();
      let json: any = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: res.status, headers: res.headers, json, text };
    },
    async close() {
      await g.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
