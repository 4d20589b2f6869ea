// Tracing settings: the standard OpenTelemetry variables (OTEL_*) as the SDK specification defines
// them, declared in lib/settings-table.ts like every other setting and checked here across
// settings (a bad value stops the start and `npm run config:check`, naming the variable), plus
// what is ours: what a partner's `traceparent` does (TRACE_INCOMING_PARENT) and the link to the
// operators' trace UI (TRACE_URL_TEMPLATE). Tracing is off unless an OTLP endpoint is set.
import { TRACE_INCOMING_PARENTS, TRACE_SAMPLERS, type SettingValues } from '../../lib/settings-table.js';
import { withoutTrailing } from '../../lib/trailing.js';

export type SamplerName = (typeof TRACE_SAMPLERS)[number];

/**
 * What a partner's incoming `traceparent` does. `link` (default): our trace starts a new root that
 * links to the partner's span; `continue`: the request span becomes a child of the partner's;
 * `ignore`: it is not read at all.
 */
export type IncomingParent = (typeof TRACE_INCOMING_PARENTS)[number];

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

export function loadTracingSettings(s: SettingValues, problems: string[]): TracingSettings {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const) {
    const protocol = s[name]?.trim();
    if (protocol && protocol !== 'http/json') {
      problems.push(
        `${name} must be http/json, got "${protocol}": this gateway exports OTLP over HTTP with JSON bodies, ` +
          "which every OpenTelemetry Collector's otlp receiver accepts on its HTTP port (4318)",
      );
    }
  }
  let samplerRatio = 1;
  const rawRatio = s.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (rawRatio) {
    const n = Number(rawRatio);
    if (!/^(?:0|1|0?\.\d+|1\.0*)$/.test(rawRatio) || !(n >= 0 && n <= 1)) {
      problems.push(`OTEL_TRACES_SAMPLER_ARG must be a sampling ratio from 0 to 1 (e.g. 0.01 for 1%), got "${rawRatio}"`);
    } else samplerRatio = n;
  }
  const urlTemplate = s.TRACE_URL_TEMPLATE?.trim() || null;
  if (urlTemplate !== null) {
    if (!urlTemplate.includes('{traceId}')) problems.push(`TRACE_URL_TEMPLATE must contain {traceId}, got "${urlTemplate}"`);
    else if (!isHttpUrl(urlTemplate.replaceAll('{traceId}', '0'.repeat(32))))
      problems.push(`TRACE_URL_TEMPLATE must be an http or https URL with {traceId}, got "${urlTemplate}"`);
  }
  // The signal-specific variable is the whole URL; the general one is a base that gets /v1/traces.
  const base = s.OTEL_EXPORTER_OTLP_ENDPOINT;
  const endpoint = s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${withoutTrailing(base, '/')}/v1/traces` : null);
  return {
    endpoint: s.OTEL_SDK_DISABLED ? null : endpoint,
    serviceName: s.OTEL_SERVICE_NAME,
    sampler: s.OTEL_TRACES_SAMPLER,
    samplerRatio,
    resourceAttributes: parseResourceAttributes(s.OTEL_RESOURCE_ATTRIBUTES, problems),
    incomingParent: s.TRACE_INCOMING_PARENT,
    urlTemplate,
    scheduleDelayMs: s.OTEL_BSP_SCHEDULE_DELAY,
    maxQueueSize: s.OTEL_BSP_MAX_QUEUE_SIZE,
  };
}

function isHttpUrl(raw: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(raw).protocol);
  } catch {
    return false;
  }
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
