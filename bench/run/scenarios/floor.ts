// The `floor` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { freePort } from '../../../scripts/harness/redis-server.js';
import { startChild, withTimeout } from '../children.js';
import { BODY, opts } from '../flags.js';
import { checkOnce, load, row } from '../load.js';
import { type Ctx } from '../setup.js';

/**
 * A bare server doing the floor's work (the same request and answer shape as `cached`; the body
 * size measured on the gateway when it runs), loaded as one row.
 */
async function floorRow(c: Ctx, scenario: string, script: string, env: Record<string, string>, description: string): Promise<void> {
  const { keyedHeaders, table, gw } = c;
  const size = gw ? (await checkOnce(gw.urls.production, keyedHeaders)).bytes : 3324;
  const port = await freePort();
  const b = startChild(
    scenario,
    process.execPath,
    ['--import', 'tsx', script],
    { PATH: process.env.PATH, PORT: String(port), BODY_BYTES: String(size), ...env },
    /READY/,
  );
  await withTimeout(b.line, 20_000, `${scenario} server`);
  const target = { url: `http://127.0.0.1:${port}/graphql`, connections: opts.connections, duration: opts.duration };
  const measured = await load({ ...target, method: 'POST', headers: keyedHeaders, body: BODY }, b.child.proc.pid);
  table(row(scenario, `${description}, ${size} B body`, opts.connections, measured));
  await b.child.stop();
}

/** The `floor` scenario. */
export const floorScenario = (c: Ctx) =>
  floorRow(c, 'floor', 'bench/baseline-server.ts', { MODE: 'floor' }, 'bare node:http: parse the same POST, same headers');

/** The `floor-uws` scenario. */
export const floorUwsScenario = (c: Ctx) => floorRow(c, 'floor/uws', 'bench/floor-uws-server.ts', {}, "the floor's work on uWebSockets.js");
