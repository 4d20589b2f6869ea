// Per-partner quota metrics, from what the partner-quota plugin noted on each keyed request
// (server/plugins/partner-quota.ts, state.notes.quota):
//   gateway_partner_requests_total{environment,partner,result}  allowed | refused_quota | refused_concurrency
//   gateway_partner_queue_seconds{environment,partner}          histogram: the wait of uncached executions for their turn
// Partners are few (one series each per environment), so the partner code is a label.
import type { Registry } from 'prom-client';
import { tallyCounter, tallyHistogram, type TallyHistogramSeries, type TallySeries } from './tally.js';
import type { HttpPlugin, RequestState } from '../http/plugin.js';
import type { QuotaNote } from '../plugins/partner-quota.js';

const QUEUE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const RESULT = { PARTNER_QUOTA: 'refused_quota', PARTNER_CONCURRENCY: 'refused_concurrency' } as const;

/** The plugin of one keyed listener that counts its requests in `registry` (the gateway's, metrics.ts). */
export function partnerQuotaMetrics(registry: Registry): (environment: string) => HttpPlugin {
  const requests = tallyCounter<'environment' | 'partner' | 'result'>(
    registry,
    'gateway_partner_requests_total',
    'Keyed requests by partner and what its quota did: allowed, refused_quota (over its request quota, 429 PARTNER_QUOTA), ' +
      'refused_concurrency (too many uncached requests waiting, 429 PARTNER_CONCURRENCY).',
    ['environment', 'partner', 'result'],
  );
  const queue = tallyHistogram<'environment' | 'partner'>(
    registry,
    'gateway_partner_queue_seconds',
    "Time an uncached keyed execution waited for its turn in the partner's fair share, by partner.",
    ['environment', 'partner'],
    QUEUE_BUCKETS,
  );
  const counters = new Map<string, TallySeries>();
  const waits = new Map<string, TallyHistogramSeries>();
  const observe = (environment: string, state: RequestState) => {
    const note = state.notes.quota as QuotaNote | undefined;
    if (!note) return;
    const result = note.result === 'allowed' ? 'allowed' : RESULT[note.reason ?? 'PARTNER_QUOTA'];
    const key = `${environment} ${note.partner} ${result}`;
    let c = counters.get(key);
    if (!c) counters.set(key, (c = requests.series({ environment, partner: note.partner, result })));
    c.inc();
    if (note.queuedMs === undefined) return;
    const wkey = `${environment} ${note.partner}`;
    let w = waits.get(wkey);
    if (!w) waits.set(wkey, (w = queue.series({ environment, partner: note.partner })));
    w.observe(note.queuedMs / 1000);
  };
  return (environment) => ({ name: 'partner-quota-metrics', onResponse: (state) => observe(environment, state) });
}
