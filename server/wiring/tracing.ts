// OpenTelemetry traces (server/plugins/tracing.ts): off unless OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and then the first plugin of every listener, so its
// request span is open before any other plugin reports a step. Closing exports what is queued.
import type { HttpPlugin } from '../http/plugin.js';
import { startTracing } from '../observability/tracer.js';
import { tracingPlugin } from '../plugins/tracing.js';
import type { CapabilitySetup } from './types.js';

export const tracingCapability: CapabilitySetup = async ({ config, logger }) => {
  const settings = config.tracing;
  const tracing = await startTracing(settings, { logger });
  if (!tracing) return { name: 'tracing', plugins: () => [] };
  logger.info(
    { endpoint: settings.endpoint, sampler: settings.sampler, ratio: settings.samplerRatio, incomingParent: settings.incomingParent },
    'tracing: exporting OpenTelemetry spans (OTLP/HTTP)',
  );
  const scheme = config.tls ? 'https' : 'http';
  return {
    name: 'tracing',
    plugins(environment): HttpPlugin[] {
      return [
        tracingPlugin({
          tracer: tracing.tracer,
          propagator: tracing.propagator,
          environment,
          incomingParent: settings.incomingParent,
          scheme,
        }),
      ];
    },
    close: () => tracing.shutdown().catch((err) => logger.warn({ error: (err as Error).message }, 'tracing: last spans not exported')),
  };
};
