// The OpenTelemetry SDK of this process: a tracer provider with the configured sampler and
// resource, exporting batches of spans over OTLP/HTTP (JSON). Loaded only when tracing is on: the
// SDK and the exporter are imported here on demand (and left out of the bundle, scripts/build.mjs),
// so a gateway without an endpoint neither loads nor pays for them.
import { diag, DiagLogLevel, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import { throttledWarning } from '../../lib/throttled-warning.js';
import type { Sampler } from '@opentelemetry/sdk-trace';
// Two constants, bundled (the names only): a dynamic import would bring the whole conventions list.
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from './tracing-config.js';

interface Tracing {
  tracer: Tracer;
  propagator: TextMapPropagator;
  /** Exports what is queued (tests, and shutdown). */
  flush(): Promise<void>;
  /** Exports what is queued and stops (within a few seconds at most). */
  shutdown(): Promise<void>;
}

interface TracingOptions {
  serviceVersion?: string;
  /** Where the SDK's own problems go (an unreachable collector: spans dropped), at most once a minute. */
  logger?: { warn(obj: object, msg: string): void };
}

/** The tracing of this process, or null when no OTLP endpoint is configured. */
export async function startTracing(settings: TracingSettings, opts: TracingOptions = {}): Promise<Tracing | null> {
  if (!settings.endpoint) return null;
  if (opts.logger) {
    // The SDK reports export failures through the API's diagnostic logger, silent unless one is set.
    const warn = throttledWarning((obj, msg) => opts.logger!.warn(obj, msg), { everyMs: 60_000, countField: 'problemsSinceLastWarning' });
    const report = (message: string) =>
      warn({ problem: message.slice(0, 300) }, 'tracing: the OpenTelemetry SDK reported a problem (spans may be dropped)');
    const quiet = () => {};
    diag.setLogger(
      { error: report, warn: report, info: quiet, debug: quiet, verbose: quiet },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { W3CTraceContextPropagator }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ]);
  const resource = resourceFromAttributes({
    ...settings.resourceAttributes,
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, as the specification says.
    [ATTR_SERVICE_NAME]: settings.serviceName,
    ...(opts.serviceVersion ? { [ATTR_SERVICE_VERSION]: opts.serviceVersion } : {}),
  });
  const exporter = new OTLPTraceExporter({ url: settings.endpoint, timeoutMillis: 5000 });
  const provider = new TracerProvider({
    resource,
    sampler: await sampler(settings),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        // Bounded: a collector that is down costs at most this queue, then spans are dropped.
        maxQueueSize: settings.maxQueueSize,
        maxExportBatchSize: Math.min(512, settings.maxQueueSize),
        scheduledDelayMillis: settings.scheduleDelayMs,
        exportTimeoutMillis: 5000,
      }),
    ],
  });
  const tracer = provider.getTracer('energy-plan-gateway', opts.serviceVersion);
  return {
    tracer,
    propagator: new W3CTraceContextPropagator(),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

async function sampler(settings: TracingSettings): Promise<Sampler> {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace');
  const ratio = () => new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
