// Tracing settings: the standard OTEL_* variables and ours, checked like every other setting.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../start/config.js';
import { readSettings } from '../../lib/settings.js';
import { tracingSettings, traceUrl } from '../../server/observability/tracing-config.js';
import { eventually } from '../../scripts/harness/eventually.js';

const load = (env: Record<string, string>) => {
  const problems: string[] = [];
  const settings = readSettings(tracingSettings, env, problems)!;
  return { settings, problems };
};

describe('tracing settings', () => {
  it('are off by default, with the specification defaults otherwise', () => {
    const { settings, problems } = load({});
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      endpoint: null,
      serviceName: 'energy-plan-gateway',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      incomingParent: 'link',
      urlTemplate: null,
      scheduleDelayMs: 5000,
      maxQueueSize: 2048,
    });
  });

  it('post to <base>/v1/traces, or to the traces endpoint as given; OTEL_SDK_DISABLED turns them off', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).settings.endpoint).toBe('http://collector:4318/v1/traces');
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in' })
        .settings.endpoint,
    ).toBe('https://traces.example/in');
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).settings.endpoint).toBeNull();
  });

  it('read the sampler, its ratio, resource attributes (percent-decoded) and our own settings', () => {
    const { settings, problems } = load({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'gw',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod, team=energy%20plans',
      TRACE_INCOMING_PARENT: 'continue',
      TRACE_URL_TEMPLATE: 'https://jaeger.example/trace/{traceId}',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      serviceName: 'gw',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.01,
      resourceAttributes: { 'deployment.environment.name': 'prod', team: 'energy plans' },
      incomingParent: 'continue',
    });
    expect(traceUrl(settings.urlTemplate, 'abc')).toBe('https://jaeger.example/trace/abc');
  });

  it('refuse bad values at start, each named, never with a stack trace', () => {
    let error: unknown;
    try {
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_RESOURCE_ATTRIBUTES: 'ok=1,broken',
        OTEL_BSP_SCHEDULE_DELAY: '0',
        TRACE_INCOMING_PARENT: 'trust',
        TRACE_URL_TEMPLATE: 'https://jaeger.example/trace/',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of [
      'OTEL_EXPORTER_OTLP_ENDPOINT must use http: or https:',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a valid URL',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/json',
      'OTEL_TRACES_SAMPLER must be one of',
      'OTEL_TRACES_SAMPLER_ARG must be a sampling ratio from 0 to 1',
      'OTEL_RESOURCE_ATTRIBUTES must be key=value pairs',
      'OTEL_BSP_SCHEDULE_DELAY must be an integer',
      'TRACE_INCOMING_PARENT must be one of link, continue, ignore',
      'TRACE_URL_TEMPLATE must contain {traceId}',
    ])
      expect(problems).toContain(name);
    expect(problems).not.toMatch(/\n\s+at /);
  });
});

describe('tracing off', () => {
  it('adds no plugin and starts no SDK when no endpoint is set', async () => {
    const { tracingCapability } = await import('../../server/wiring/tracing.js');
    const { startTracing } = await import('../../server/observability/tracer.js');
    const config = loadConfig({});
    expect(await startTracing(config.tracing)).toBeNull();
    const logger = { info: () => {}, warn: () => {} };
    const cap = await tracingCapability({ config, logger } as never);
    expect(cap.plugins('production')).toEqual([]);
    expect(cap.plugins('playground')).toEqual([]);
  });
});

describe('tracing with an unreachable collector', () => {
  it('warns (throttled) that spans may be dropped', async () => {
    const { startTracing } = await import('../../server/observability/tracer.js');
    const { freePort } = await import('../../scripts/harness/redis-server.js');
    const port = await freePort();
    const warnings: [object, string][] = [];
    const settings = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '10' }).tracing;
    const tracing = (await startTracing(settings, { logger: { warn: (obj, msg) => warnings.push([obj, msg]) } }))!;
    tracing.tracer.startSpan('lost').end();
    // The batch goes out after OTEL_BSP_SCHEDULE_DELAY; the exporter retries within its 5 s timeout, then gives up.
    await eventually(async () => warnings.length > 0, 15_000);
    expect(warnings[0]![1]).toBe('tracing: the OpenTelemetry SDK reported a problem (spans may be dropped)');
    await tracing.shutdown().catch(() => {});
  }, 20_000);
});
