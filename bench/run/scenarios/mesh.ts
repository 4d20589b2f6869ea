// The `mesh` scenario of `npm run bench` (bench/run.ts describes every scenario).
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../../scripts/harness/redis-server.js';
import { writeStockMeshConfig } from '../../mesh-start/config.js';
import { checkMeshAnswer, checkMeshHitsUpstream, meshBody } from '../../mesh-start/query.js';
import { type Child, runToExit, startChild, waitFor200, withTimeout } from '../children.js';
import { ROOT, opts } from '../flags.js';
import { type Row, errorRow, load, row } from '../load.js';
import { cpuMsOf, memoryOf } from '../proc-stats.js';
import { type Ctx } from '../setup.js';

/**
 * `mesh build`, then `mesh start` (the production server on the built artifacts, as a deployment of
 * stock Mesh runs it; `mesh dev` would rebuild the schema at start-up and watch files, not what one
 * would benchmark). Both from this checkout's node_modules/.bin/mesh, run with this Node directly so
 * the pid measured is the server's. The config is generated into a temp dir from .meshrc.yaml
 * (bench/mesh-start/config.ts: same sources, handlers and contract files; none of our logger,
 * resolvers, type defs or transforms; endpoints = the bench's reference upstream). The temp dir gets
 * a node_modules symlink so the built .mesh/index.ts resolves the Mesh packages. Throws on any
 * failure (the caller turns it into an error row); the server is stopped in every case.
 */
async function meshStartScenario(description: string, upstreamUrl: string, upstream: Child, tmp: string): Promise<Row> {
  const meshBin = fs.realpathSync(path.join(ROOT, 'node_modules', '.bin', 'mesh'));
  const meshVersion = (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@graphql-mesh', 'cli', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const dir = path.join(tmp, 'mesh-start');
  const port = await freePort();
  writeStockMeshConfig({ projectRoot: opts.gatewayRoot, dir, upstreamUrl, port });
  const modules = path.join(dir, 'node_modules');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), modules, 'dir');
  // Nothing of the bench's environment: FORK or NODE_ENV there would change what `mesh start` does.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  let server: Child | null = null;
  try {
    const buildMs = await runToExit('mesh build', process.execPath, [meshBin, 'build'], env, dir, 120_000);
    const t0 = performance.now();
    server = startChild('mesh start', process.execPath, [meshBin, 'start'], env, undefined, dir).child;
    const base = `http://127.0.0.1:${port}`;
    await waitFor200(`${base}/healthcheck`, 60_000, server);
    const url = `${base}/graphql`;
    // The first answer (the schema is loaded lazily on the first request) bounds the start-up too.
    const check = await withTimeout(checkMeshAnswer(url, opts.zip), 60_000, 'mesh start: first answer');
    const startMs = performance.now() - t0;
    const upstreamUrls = await withTimeout(checkMeshHitsUpstream(url, upstreamUrl, opts.zip), 60_000, 'mesh start: upstream check');
    const s = server;
    let upCpu0: number | null = null;
    const r = row(
      'mesh',
      description,
      opts.connections,
      await load(
        {
          url,
          connections: opts.connections,
          duration: opts.duration,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: meshBody(opts.zip),
        },
        s.proc.pid,
        async () => {
          upCpu0 = cpuMsOf(upstream.proc.pid);
        },
      ),
    );
    const upCpu1 = cpuMsOf(upstream.proc.pid);
    if (s.proc.exitCode !== null) throw new Error(`mesh start exited during the load:\n${s.tail()}`);
    await checkMeshAnswer(url, opts.zip); // still complete answers after the load
    r.notes = {
      meshCli: meshVersion,
      buildMs: Math.round(buildMs),
      startToFirstAnswerMs: Math.round(startMs),
      answerBytes: check.bytes,
      items: `${check.utilities} utilities, ${check.voltifyOffers} Voltify, ${check.brightgridPlans} Brightgrid`,
      upstreamVerified: Object.keys(upstreamUrls).join('+'),
      upstreamCpuUsPerRequest:
        upCpu0 !== null && upCpu1 !== null && r.totalRequests ? Math.round(((upCpu1 - upCpu0) * 1000) / r.totalRequests) : null,
      rssMb: memoryOf(s.proc.pid).rssMb,
    };
    return r;
  } finally {
    await server?.stop();
    fs.unlinkSync(modules); // the link only, never the project's node_modules (before tmp is removed)
  }
}

/** The `mesh` scenario. */
export async function meshScenario(c: Ctx): Promise<void> {
  const { tmp, up, upstreamUrl, table } = c;
  const description = `stock mesh start, raw feeds for ${opts.zip} (territories, Voltify, Brightgrid residential)`;
  try {
    table(await meshStartScenario(description, upstreamUrl, up.child, tmp));
  } catch (err) {
    console.log(`  mesh: FAILED: ${(err as Error).message.split('\n').slice(0, 12).join('\n    ')}`);
    table(errorRow('mesh', description, err));
  }
}
