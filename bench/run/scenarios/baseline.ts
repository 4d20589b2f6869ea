// The `baseline` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { freePort } from '../../../scripts/harness/redis-server.js';
import { startChild, withTimeout } from '../children.js';
import { opts } from '../flags.js';
import { load, row } from '../load.js';
import { type Ctx } from '../setup.js';

/** The `baseline` scenario. */
export async function baselineScenario(c: Ctx): Promise<void> {
  const { table } = c;
  const port = await freePort();
  const b = startChild(
    'baseline',
    process.execPath,
    ['--import', 'tsx', 'bench/baseline-server.ts'],
    { PATH: process.env.PATH, PORT: String(port) },
    /READY/,
  );
  await withTimeout(b.line, 20_000, 'baseline server');
  table(
    row(
      'baseline',
      'bare node:http, fixed 2 KB JSON',
      opts.connections,
      await load({ url: `http://127.0.0.1:${port}/`, connections: opts.connections, duration: opts.duration }, b.child.proc.pid),
    ),
  );
  await b.child.stop();
}
