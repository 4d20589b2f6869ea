// The ops endpoint (OPS_PORT, default 9464; 0 = a free port): GET /metrics (Prometheus text) and
// GET /healthz (liveness of the process). Separate from the partner-facing listeners, so it can be
// kept off the public network; it serves no partner data.
import http from 'node:http';
import { listen } from '../http/listen.js';

export interface OpsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface OpsServerOptions {
  host: string;
  port: number;
  /** The setting that moves the port, named when it is taken. */
  portVariable?: string;
  metrics(): Promise<string>;
  contentType: string;
  /** Details for /healthz (states only, no secrets). */
  health?(): Record<string, unknown>;
}

export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const json = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'cache-control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'use GET' });
    if (path === '/healthz') return json(200, { status: 'ok', ...opts.health?.() });
    if (path === '/metrics') {
      opts.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': opts.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        () => json(500, { error: 'metrics could not be collected' }),
      );
      return;
    }
    return json(404, { error: 'not found: GET /metrics or /healthz' });
  });
  return listen(server, opts.port, opts.host, opts.portVariable);
}
