// The `peers` scenario of `npm run bench` (bench/run.ts describes every scenario): the gateway
// against Hive Gateway, GraphQL Mesh's successor, over the same reference upstream, in the same
// interleaved rounds, each row also read as ours ÷ the peer's.
import fs from 'node:fs';
import path from 'node:path';
import { scrape } from '../../../scripts/harness/metrics-text.js';
import { freePort } from '../../../scripts/harness/redis-server.js';
import { checkMeshAnswer, checkMeshCacheHit, checkMeshHitsUpstream, meshBody } from '../../mesh-start/query.js';
import { type Child, runToExit, startChild, waitFor200 } from '../children.js';
import { BODY, QUERY, ROOT, opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { type Options, type Row, checkOnce, load, median, medianRow, row } from '../load.js';
import { cpuMsOf } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

const packageVersion = (name: string) =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `mesh-compose` over bench/peers/mesh.config.ts (every feed of .meshrc.yaml over the bench's
 * reference upstream) into a supergraph file, in a child process as one would run it.
 */
async function composeSupergraph(upstreamUrl: string, tmp: string): Promise<{ file: string; composeMs: number }> {
  const file = path.join(tmp, 'peers-supergraph.graphql');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PEERS_UPSTREAM_URL: upstreamUrl };
  const args = ['--import', 'tsx', bin('mesh-compose'), '-c', 'bench/peers/mesh.config.ts', '-o', file];
  const composeMs = await runToExit('mesh-compose', process.execPath, args, env, ROOT, 120_000);
  return { file, composeMs: Math.round(composeMs) };
}

const bin = (name: string) => fs.realpathSync(path.join(ROOT, 'node_modules', '.bin', name));

/**
 * `hive-gateway supergraph` on the composed file with bench/peers/gateway.config.ts (response
 * caching in memory, or none), one process (`--fork 1`), run with this Node directly so the pid
 * measured is the server's.
 */
async function startHive(name: string, supergraph: string, responseCache: boolean): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const args = [bin('hive-gateway'), 'supergraph', supergraph, '-c', 'bench/peers/gateway.config.ts'];
  const { child } = startChild(name, process.execPath, [...args, '--host', '127.0.0.1', '--port', String(port), '--fork', '1'], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    PEERS_RESPONSE_CACHE: responseCache ? 'on' : 'off',
  });
  await waitFor200(`http://127.0.0.1:${port}/readiness`, 60_000, child);
  return { child, url: `http://127.0.0.1:${port}/graphql` };
}

interface Target {
  name: string;
  pid: number | undefined;
  options: Options;
  /** The gateway's /metrics, for its feed requests a request. */
  metrics?: string;
}

/** The `peers` scenario. */
export async function peersScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, up, upstreamUrl, tmp, table } = c;
  const stops: (() => Promise<void>)[] = [];
  try {
    const supergraph = await composeSupergraph(upstreamUrl, tmp);
    const hive = await startHive('hive gateway', supergraph.file, true);
    stops.push(() => hive.child.stop());
    const hiveOff = await startHive('hive gateway (no response cache)', supergraph.file, false);
    stops.push(() => hiveOff.child.stop());
    const ours = await startGatewayChild('gateway (peers)', gatewayEnv);
    stops.push(() => ours.child.stop());
    const off = { CACHE_ENABLED: 'false' };
    const oursOff = await startGatewayChild('gateway (peers: cache off)', gatewayEnv, off);
    stops.push(() => oursOff.child.stop());
    const noDedup = await startGatewayChild('gateway (peers: cache off, UPSTREAM_DEDUP=false)', gatewayEnv, {
      ...off,
      UPSTREAM_DEDUP: 'false',
    });
    stops.push(() => noDedup.child.stop());

    // Uncached: servers without a response cache, and each request with a new value `n` of a
    // variable neither query declares (execution ignores it; the feed calls and the answer stay the
    // same), so that nothing on the way answers a repeated request from memory.
    let n = Math.floor(Math.random() * 1e9);
    const oursFresh = () => JSON.stringify({ query: QUERY, variables: { zipCode: opts.zip, n: n++ }, operationName: 'Plans' });
    const hiveFresh = () => meshBody(opts.zip, n++);
    const hiveHeaders = { 'content-type': 'application/json' };
    const base = (url: string, headers: Record<string, string>) => ({
      url,
      connections: opts.connections,
      duration: opts.duration,
      headers,
    });
    const fixed = (url: string, headers: Record<string, string>, body: string): Options => ({
      ...base(url, headers),
      method: 'POST',
      body,
    });
    const fresh = (url: string, headers: Record<string, string>, body: () => string): Options => ({
      ...base(url, headers),
      requests: [{ method: 'POST', setupRequest: (req: object) => ({ ...req, headers, body: body() }) }],
    });
    const targets: Target[] = [
      { name: 'ours cached', pid: ours.child.proc.pid, options: fixed(ours.urls.production, keyedHeaders, BODY) },
      { name: 'hive cached', pid: hive.child.proc.pid, options: fixed(hive.url, hiveHeaders, meshBody(opts.zip)) },
      {
        name: 'ours uncached',
        pid: oursOff.child.proc.pid,
        options: fresh(oursOff.urls.production, keyedHeaders, oursFresh),
        metrics: oursOff.urls.metrics,
      },
      { name: 'hive uncached', pid: hiveOff.child.proc.pid, options: fresh(hiveOff.url, hiveHeaders, hiveFresh) },
      {
        name: 'ours uncached/no-dedup',
        pid: noDedup.child.proc.pid,
        options: fresh(noDedup.urls.production, keyedHeaders, oursFresh),
        metrics: noDedup.urls.metrics,
      },
    ];

    // What each row claims, checked before it is loaded: ours by x-cache; Hive's hit by a complete
    // answer while the three feeds fail, its uncached answers by each feed's fault showing.
    for (const [g, body, want] of [
      [ours, () => BODY, 'HIT'],
      [oursOff, oursFresh, 'BYPASS'],
      [noDedup, oursFresh, 'BYPASS'],
    ] as const) {
      await checkOnce(g.urls.production, keyedHeaders, body());
      const check = await checkOnce(g.urls.production, keyedHeaders, body());
      if (check.status !== 200 || check.cache !== want)
        throw new Error(`peers: expected 200 ${want} from ours, got ${check.status}/${check.cache}`);
    }
    const answer = await checkMeshAnswer(hive.url, opts.zip);
    await checkMeshCacheHit(hive.url, upstreamUrl, opts.zip);
    await checkMeshHitsUpstream(hiveOff.url, upstreamUrl, opts.zip, hiveFresh);

    const samples = new Map<string, { rows: Row[]; upstreamCpuUs: number[]; feedRequests: number[] }>(
      targets.map((t) => [t.name, { rows: [], upstreamCpuUs: [], feedRequests: [] }]),
    );
    // Round 0 is not counted (code not yet optimized, heaps still growing), as in `records`.
    for (let round = 0; round <= opts.rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(round + i) % targets.length]!;
        let metrics0: ((m: string) => number) | null = null;
        let upCpu0: number | null = null;
        const r = row(
          t.name,
          '',
          opts.connections,
          await load(t.options, t.pid, async () => {
            metrics0 = t.metrics ? await scrape(t.metrics) : null;
            upCpu0 = cpuMsOf(up.child.proc.pid);
          }),
        );
        const upCpu1 = cpuMsOf(up.child.proc.pid);
        if (round === 0 || !r.totalRequests) continue;
        const s = samples.get(t.name)!;
        s.rows.push(r);
        if (upCpu0 !== null && upCpu1 !== null) s.upstreamCpuUs.push(((upCpu1 - upCpu0) * 1000) / r.totalRequests);
        const before = metrics0 as ((m: string) => number) | null;
        if (t.metrics && before) {
          const attempts = (await scrape(t.metrics))('gateway_upstream_attempts_total') - before('gateway_upstream_attempts_total');
          s.feedRequests.push(attempts / r.totalRequests);
        }
      }
    }
    for (const t of targets) {
      const s = samples.get(t.name)!;
      const r = medianRow(`peers: ${t.name}`, `${t.name}, median of ${opts.rounds} interleaved rounds`, s.rows);
      const med = (xs: number[], scale: number) => (xs.length ? Math.round(median(xs) * scale) / scale : null);
      r.notes = {
        ...r.notes,
        upstreamCpuUsPerRequest: med(s.upstreamCpuUs, 1),
        ...(s.feedRequests.length ? { feedRequestsPerRequest: med(s.feedRequests, 100) } : {}),
        ...(t.name === 'hive cached'
          ? {
              hiveGateway: packageVersion('@graphql-hive/gateway'),
              meshCompose: packageVersion('@graphql-mesh/compose-cli'),
              composeMs: supergraph.composeMs,
              answerBytes: answer.bytes,
            }
          : {}),
      };
      table(r);
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
