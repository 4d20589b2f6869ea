// Tracing settings: the standard OpenTelemetry variables (OTEL_*) as the SDK specification defines
// them, read and checked here like every other setting (a bad value stops the start and
// `npm run config:check`, naming the variable), plus what is ours: what a partner's `traceparent`
// does (TRACE_INCOMING_PARENT) and the link to the operators' trace UI (TRACE_URL_TEMPLATE).
// Tracing is off unless an OTLP endpoint is set.
import { envReader } from '../../lib/env-reader.js';

export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/**
 * What a partner's incoming `traceparent` does. `link` (default): our trace starts a new root that
 * links to the partner's span; `continue`: the request span becomes a child of the partner's;
 * `ignore`: it is not read at all.
 */
export const INCOMING_PARENT = ['link', 'continue', 'ignore'] as const;
export type IncomingParent = (typeof INCOMING_PARENT)[number];

export interface TracingSettings {
  /** Where spans are posted (OTLP/HTTP, JSON); null = tracing off. */
  endpoint: string | null;
  serviceName: string;
  sampler: SamplerName;
  /** Ratio of the traceidratio samplers, 0..1. */
  samplerRatio: number;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  resourceAttributes: Record<string, string>;
  incomingParent: IncomingParent;
  /** A URL with `{traceId}`, shown on the console's record page; null = the id is shown as text. */
  urlTemplate: string | null;
  /** The batch span processor: how often spans are sent (ms), and how many may wait (more are dropped). */
  scheduleDelayMs: number;
  maxQueueSize: number;
}

const RESOURCE_KEY = /^[A-Za-z0-9_.\-/]{1,255}$/;

export function loadTracingSettings(env: NodeJS.ProcessEnv, problems: string[]): TracingSettings {
  const { oneOf, bool, int } = envReader(env, problems);
  const str = (name: string) => env[name]?.trim() || null;
  const httpUrl = (name: string, raw: string | null): string | null => {
    if (raw === null) return null;
    try {
      const u = new URL(raw);
      if (u.protocol === 'http:' || u.protocol === 'https:') return raw;
      problems.push(`${name} must be an http or https URL (OTLP over HTTP), got "${u.protocol}"`);
    } catch {
      problems.push(`${name} is not a valid URL: "${raw}"`);
    }
    return null;
  };
  // The signal-specific variable is the whole URL; the general one is a base that gets /v1/traces.
  const tracesEndpoint = httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'));
  const base = httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', str('OTEL_EXPORTER_OTLP_ENDPOINT'));
  const disabled = bool('OTEL_SDK_DISABLED', false);
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = str(name);
    if (protocol !== null && protocol !== 'http/json') {
      problems.push(
        `${name} must be http/json, got "${protocol}": this gateway exports OTLP over HTTP with JSON bodies, ` +
          "which every OpenTelemetry Collector's otlp receiver accepts on its HTTP port (4318)",
      );
    }
  }
  const sampler = oneOf('OTEL_TRACES_SAMPLER', 'parentbased_always_on', SAMPLERS);
  const rawRatio = str('OTEL_TRACES_SAMPLER_ARG');
  let samplerRatio = 1;
  if (rawRatio !== null) {
    const n = Number(rawRatio);
    if (!/^\s*(?:0|1|0?\.\d+|1\.0*)\s*$/.test(rawRatio) || !(n >= 0 && n <= 1)) {
      problems.push(`OTEL_TRACES_SAMPLER_ARG must be a sampling ratio from 0 to 1 (e.g. 0.01 for 1%), got "${rawRatio}"`);
    } else samplerRatio = n;
  }
  const urlTemplate = str('TRACE_URL_TEMPLATE');
  if (urlTemplate !== null) {
    if (!urlTemplate.includes('{traceId}')) problems.push(`TRACE_URL_TEMPLATE must contain {traceId}, got "${urlTemplate}"`);
    else httpUrl('TRACE_URL_TEMPLATE', urlTemplate.replaceAll('{traceId}', '0'.repeat(32)));
  }
  return {
    endpoint: disabled ? null : (tracesEndpoint ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : null)),
    serviceName: str('OTEL_SERVICE_NAME') ?? 'energy-plan-gateway',
    sampler,
    samplerRatio,
    resourceAttributes: parseResourceAttributes(str('OTEL_RESOURCE_ATTRIBUTES'), problems),
    incomingParent: oneOf('TRACE_INCOMING_PARENT', 'link', INCOMING_PARENT),
    urlTemplate,
    scheduleDelayMs: int('OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 60_000),
    maxQueueSize: int('OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1, 1_000_000),
  };
}

/** `key1=value1,key2=value2` with percent-encoded values (the W3C Baggage octet rules). */
export function parseResourceAttributes(raw: string | null, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === null) return out;
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? '' : pair.slice(0, eq).trim();
    if (!RESOURCE_KEY.test(key)) {
      problems.push(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, got "${pair.trim()}"`);
      continue;
    }
    try {
      out[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      problems.push(`OTEL_RESOURCE_ATTRIBUTES: the value of ${key} is not valid percent-encoding`);
    }
  }
  return out;
}

/** The trace UI link of a trace id, or null without a template. */
export function traceUrl(template: string | null, traceId: string): string | null {
  return template ? template.replaceAll('{traceId}', encodeURIComponent(traceId)) : null;
}
