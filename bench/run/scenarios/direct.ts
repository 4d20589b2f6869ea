// The `direct` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { freePort } from '../../../scripts/harness/redis-server.js';
import { startChild, withTimeout } from '../children.js';
import { only, opts } from '../flags.js';
import { load, row } from '../load.js';
import { type Ctx } from '../setup.js';

export async function directScenarios(c: Ctx): Promise<void> {
  const { upstreamUrl, table, run } = c;
  if (only.has('direct') || only.has('overhead')) {
    const port = await freePort();
    const d = startChild(
      'direct',
      process.execPath,
      ['--import', 'tsx', 'bench/direct-proxy.ts'],
      { PATH: process.env.PATH, PORT: String(port), UPSTREAM_URL: upstreamUrl, ZIP: opts.zip },
      /READY/,
    );
    await withTimeout(d.line, 20_000, 'direct proxy');
    const url = `http://127.0.0.1:${port}/`;
    await run(
      'direct',
      async () =>
        void table(
          row(
            'direct',
            'the same feed calls without the gateway',
            opts.connections,
            await load({ url, connections: opts.connections, duration: opts.duration }, d.child.proc.pid),
          ),
        ),
    );
    await run(
      'overhead',
      async () =>
        void table(
          row('direct@1', 'the same, 1 connection', 1, await load({ url, connections: 1, duration: opts.duration }, d.child.proc.pid)),
        ),
    );
    await d.child.stop();
  }
}
