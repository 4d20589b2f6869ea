// A config directory for a gateway with example feed blocks appended to the repo's .meshrc.yaml
// (as docs/adding-a-feed.md does: `cat examples/x-feed.yaml >> .meshrc.yaml`), every `./` path made
// absolute into the repo so the directory can live anywhere. Plus the independent pricing
// arithmetic the added-feed tests compare the gateway's plans against.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import yaml from 'js-yaml';
import type { GatewayHandle } from '../../start/app.js';
import { bundled } from './bundles.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The repo's .meshrc.yaml text with the example blocks (files under the repo) appended. */
export function pastedConfigText(...blocks: string[]): string {
  const cfg = fs.readFileSync(path.join(ROOT, '.meshrc.yaml'), 'utf8');
  return cfg + blocks.map((b) => fs.readFileSync(path.join(ROOT, b), 'utf8')).join('');
}

/** Every `./…` path (values and keys, e.g. the transform's) made absolute into the repo. */
function absolute(v: unknown): unknown {
  const fix = (s: string) => (s.startsWith('./') ? path.join(ROOT, s) : s);
  if (typeof v === 'string') return fix(v);
  if (Array.isArray(v)) return v.map(absolute);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), absolute(x)]));
  return v;
}

export type Mapping = Record<string, any>;

/** The feed-mapping block of a source of a parsed config. */
export function mappingOf(config: { sources: any[] }, source: string): Mapping {
  return config.sources.find((s) => s.name === source).transforms[0]['./transforms/feed-mapping.ts'];
}

/** Writes `<parent>/<name>/.meshrc.yaml`: the repo's config + `blocks`; `mutate` may edit the parsed config. */
export function writeConfigDir(parent: string, name: string, blocks: string[], mutate?: (config: { sources: any[] }) => void): string {
  const config = yaml.load(pastedConfigText(...blocks)) as { sources: any[] };
  mutate?.(config);
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.meshrc.yaml'), yaml.dump(absolute(config), { lineWidth: -1 }));
  return dir;
}

/** A production key issued with the keys CLI, as an operator would. */
export function issueKeyWithCli(keysFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundled('keys'), 'issue', '--env', 'production', '--partner', 'ACME'], {
      cwd: ROOT,
      env: { ...process.env, KEYS_FILE: keysFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const key = stdout.trim().split('\n').at(-1)?.trim();
      if (code !== 0 || !key) reject(new Error(`keys issue failed (${code}): ${stderr}`));
      else resolve(key);
    });
  });
}

/** Decimal text -> integer count of 10^-scale units, exactly (no float arithmetic). */
export function scaled(text: string, scale: number): number {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a plain decimal: ${text}`);
  const frac = m[2] ?? '';
  if (/[^0]/.test(frac.slice(scale))) throw new Error(`${text} has more than ${scale} decimals`);
  return Number(m[1]) * 10 ** scale + Number(frac.slice(0, scale).padEnd(scale, '0') || '0');
}

/** The published tier: rate = bill / usage (micro, half-up), kept off the x.x5 tie; bill = round(usage * rate, 1). */
export function expectedTier(bill: number, kwh: number): { usageKwh: number; allInRateUsdPerKwh: number; avgMonthlyBillUsd: number } {
  let rate = Math.floor((2 * bill + kwh) / (2 * kwh));
  if ((kwh * rate) % 100_000 === 50_000) rate += kwh * rate <= bill ? 1 : -1;
  const deci = Math.floor((2 * kwh * rate + 100_000) / 200_000);
  return { usageKwh: kwh, allInRateUsdPerKwh: Number((rate / 1e6).toFixed(6)), avgMonthlyBillUsd: Number((deci / 10).toFixed(1)) };
}

/** Environment for launchGateway: ports picked by the OS, quiet, its data and keys file under `tmp`. */
export function localGatewayEnv(tmp: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    PRODUCTION_PORT: '0',
    CERTIFICATION_PORT: '0',
    PLAYGROUND_PORT: '0',
    UPSTREAM_PORT: '0',
    OPS_PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(tmp, 'data'),
    KEYS_FILE: path.join(tmp, 'keys.json'),
    ...extra,
  };
}

/** localGatewayEnv with the feeds of `meshDir`, responses not cached (each case reaches the feeds). */
export function gatewayEnv(tmp: string, meshDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return localGatewayEnv(tmp, {
    MESH_DIR: meshDir,
    // Each case must reach the feed, not a cached answer or a stale copy a test before it left:
    // a failing feed is then an error whatever ran first.
    CACHE_ENABLED: 'false',
    STALE_IF_ERROR_SECONDS: '0',
    ...extra,
  });
}

/** A production GraphQL request with an API key. */
export async function gql(g: GatewayHandle, key: string, query: string): Promise<{ status: number; json: any }> {
  const res = await fetch(g.urls.production!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, json: await res.json() };
}
