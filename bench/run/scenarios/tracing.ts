// The `tracing` scenario of `npm run bench` (bench/run.ts describes every scenario).
import { startOtlpReceiver } from '../../../scripts/harness/otlp-receiver.js';
import { BODY, TRACING_LEVELS, opts } from '../flags.js';
import { startGatewayChild } from '../gateway.js';
import { type Row, checkOnce, load, medianRow, row } from '../load.js';
import { type Ctx } from '../setup.js';

/** The `tracing` scenario. */
export async function tracingScenario(c: Ctx): Promise<void> {
  const { gatewayEnv, keyedHeaders, table } = c;
  // The keyed request cached and uncached with tracing off, at 1% (parent-based ratio sampler)
  // and at 100%, spans posted to an OTLP/HTTP receiver in this process (counted, not parsed).
  // As in `records`: the gateways of one kind stay up and are loaded in turn for --rounds
  // rounds after an uncounted one, each row the median of its rounds (one load after another
  // moves a lot on a shared machine, docs/benchmark.md "Reading the figures"; side by side in rounds the comparison holds).
  const receiver = await startOtlpReceiver({ keep: false });
  try {
    for (const kind of ['cached', 'uncached'] as const) {
      const targets: { name: string; ratio: string | null; url: string; pid: number | undefined; stop(): Promise<void> }[] = [];
      try {
        for (const level of opts.tracing) {
          const ratio = TRACING_LEVELS[level]!;
          const g = await startGatewayChild(`gateway (tracing ${level}, ${kind})`, gatewayEnv, {
            ...(ratio
              ? {
                  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
                  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
                  OTEL_TRACES_SAMPLER_ARG: ratio,
                }
              : {}),
            ...(kind === 'cached' ? {} : { CACHE_ENABLED: 'false' }),
          });
          targets.push({
            name: `${kind}/trace-${level}`,
            ratio,
            url: g.urls.production,
            pid: g.child.proc.pid,
            stop: () => g.child.stop(),
          });
          await checkOnce(g.urls.production, keyedHeaders);
        }
        const samples = new Map<string, Row[]>(targets.map((t) => [t.name, []]));
        for (let round = 0; round <= opts.rounds; round++) {
          for (let i = 0; i < targets.length; i++) {
            const t = targets[(round + i) % targets.length]!;
            const r = row(
              t.name,
              '',
              opts.connections,
              await load(
                {
                  url: t.url,
                  connections: opts.connections,
                  duration: opts.duration,
                  method: 'POST',
                  headers: keyedHeaders,
                  body: BODY,
                },
                t.pid,
              ),
            );
            if (round > 0) samples.get(t.name)!.push(r);
          }
        }
        for (const t of targets) {
          const tracing = t.ratio ? `sampled at ${t.ratio}` : 'off';
          table(medianRow(t.name, `${kind}, tracing ${tracing}, median of ${opts.rounds} interleaved rounds`, samples.get(t.name)!));
        }
      } finally {
        for (const t of targets) await t.stop();
      }
    }
    console.log(`  tracing: ${receiver.exports} OTLP exports received, ${Math.round(receiver.bytes / 1024)} KB`);
  } finally {
    await receiver.close();
  }
}
