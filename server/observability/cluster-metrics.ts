// The ops port of a cluster primary (WORKERS > 1): /metrics asks every worker for its registry over
// the cluster's IPC channel and sums the series (prom-client's AggregatorRegistry; gauges that are
// not sums say how they combine where they are declared), then adds the primary's own figures.
// Workers hand their gateway registry over with shareWithPrimary.
import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { startOpsServer, type OpsServer } from './ops-server.js';

interface PoolFigures {
  alive(): number;
  restarts(): number;
}

/** In a worker: the registry the primary's scrapes read (instead of prom-client's global one). */
export function shareWithPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  // Constructing one is what makes prom-client answer the primary's requests in this process.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

export async function startClusterOpsServer(opts: { host: string; port: number; workers: number; pool: PoolFigures }): Promise<OpsServer> {
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  new Gauge({
    name: 'gateway_workers',
    help: 'Cluster workers running now (WORKERS is the number asked for).',
    registers: [own],
    collect() {
      this.set(opts.pool.alive());
    },
  });
  new Gauge({ name: 'gateway_workers_configured', help: 'WORKERS: cluster workers asked for.', registers: [own] }).set(opts.workers);
  new Counter({
    name: 'gateway_worker_restarts_total',
    help: 'Cluster workers started again after one exited.',
    registers: [own],
    collect() {
      this.reset();
      this.inc(opts.pool.restarts());
    },
  });
  return startOpsServer({
    host: opts.host,
    port: opts.port,
    contentType: aggregator.contentType,
    metrics: async () => `${await aggregator.clusterMetrics()}\n${await own.metrics()}`,
    health: () => ({ workers: opts.pool.alive(), workersConfigured: opts.workers }),
  });
}
