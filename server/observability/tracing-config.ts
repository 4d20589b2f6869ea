// Tracing settings: the standard OpenTelemetry variables (OTEL_*) as the SDK specification defines
// them, plus what is ours: what a partner's `traceparent` does (TRACE_INCOMING_PARENT) and the link
// to the operators' trace UI (TRACE_URL_TEMPLATE). Declared here as the config they fill; a bad
// value stops the start and `npm run config:check`, naming the variable. Tracing is off unless an
// OTLP endpoint is set.
import { z } from 'zod';
import { kinds as k, setting, settingsSchema, type Kind, type Reader } from '../../lib/settings.js';
import { withoutTrailing } from '../../lib/trailing.js';

/** OTEL_TRACES_SAMPLER values (the OpenTelemetry SDK specification's built-in samplers). */
const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * What a partner's incoming `traceparent` does. `link` (default): our trace starts a new root that
 * links to the partner's span; `continue`: the request span becomes a child of the partner's;
 * `ignore`: it is not read at all.
 */
const TRACE_INCOMING_PARENTS = ['link', 'continue', 'ignore'] as const;
export type IncomingParent = (typeof TRACE_INCOMING_PARENTS)[number];

const RESOURCE_KEY = /^[A-Za-z0-9_.\-/]{1,255}$/;

/** OTLP over HTTP with JSON bodies: the only protocol this gateway exports. */
const httpJson: Kind<'http/json'> = {
  type: 'http/json',
  accepts: 'http/json',
  schema: z.string().trim().pipe(z.literal('http/json')),
  show: String,
  problem: (name, raw) =>
    `${name} must be http/json, got "${raw.trim()}": this gateway exports OTLP over HTTP with JSON bodies, ` +
    "which every OpenTelemetry Collector's otlp receiver accepts on its HTTP port (4318)",
};

/** The ratio of the traceidratio samplers. */
const ratio: Kind<number> = {
  type: 'ratio 0–1',
  accepts: 'a sampling ratio from 0 to 1 (e.g. 0.01 for 1%)',
  schema: z
    .string()
    .trim()
    .regex(/^(?:0|1|0?\.\d+|1\.0*)$/)
    .transform(Number)
    .pipe(z.number().min(0).max(1)),
  show: String,
};

/** `key1=value1,key2=value2` with percent-encoded values (the W3C Baggage octet rules); every bad pair named. */
function resourceAttributes(raw: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
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

const attributes = k.parsed('key=value list', 'key=value pairs separated by commas', (raw) => {
  const problems: string[] = [];
  const out = resourceAttributes(raw, problems);
  if (problems.length) throw new Error(problems.join('; '));
  return out;
});

function isHttpUrl(raw: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/** A URL with `{traceId}`. */
const urlTemplate = k.parsed('http/https URL with {traceId}', 'an http or https URL with {traceId}', (raw) => {
  if (!raw.includes('{traceId}')) throw new Error(`TRACE_URL_TEMPLATE must contain {traceId}, got "${raw}"`);
  if (!isHttpUrl(raw.replaceAll('{traceId}', '0'.repeat(32))))
    throw new Error(`TRACE_URL_TEMPLATE must be an http or https URL with {traceId}, got "${raw}"`);
  return raw;
});

const BOTH: Reader[] = ['gateway', 'playground process'];

export const tracingSettings = settingsSchema({
  base: setting(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    k.url(['http:', 'https:']),
    null,
    'base URL of an OTLP/HTTP receiver (e.g. http://otel-collector:4318); spans go to <base>/v1/traces; unset = tracing off',
    BOTH,
  ),
  tracesEndpoint: setting(
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    k.url(['http:', 'https:']),
    null,
    'the full traces URL (wins over OTEL_EXPORTER_OTLP_ENDPOINT)',
    BOTH,
  ),
  protocol: setting('OTEL_EXPORTER_OTLP_PROTOCOL', httpJson, 'http/json', 'only http/json (grpc and http/protobuf are refused)', BOTH),
  tracesProtocol: setting('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', httpJson, 'http/json', 'only http/json, as above', BOTH),
  serviceName: setting('OTEL_SERVICE_NAME', k.text(), 'energy-plan-gateway', 'service.name of the spans', BOTH),
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  resourceAttributes: setting(
    'OTEL_RESOURCE_ATTRIBUTES',
    attributes,
    null,
    'more resource attributes: key=value,key2=value2 with percent-encoded values',
    BOTH,
  ),
  sampler: setting('OTEL_TRACES_SAMPLER', k.oneOf(TRACE_SAMPLERS), 'parentbased_always_on', 'which requests are traced', BOTH),
  /** Ratio of the traceidratio samplers, 0..1. */
  samplerRatio: setting('OTEL_TRACES_SAMPLER_ARG', ratio, 1, 'the ratio (0 to 1) of the traceidratio samplers, e.g. 0.01', BOTH),
  /** The batch span processor: how often spans are sent (ms), and how many may wait (more are dropped). */
  scheduleDelayMs: setting('OTEL_BSP_SCHEDULE_DELAY', k.int(1, 60_000), 5000, 'ms between batches of spans sent', BOTH),
  maxQueueSize: setting(
    'OTEL_BSP_MAX_QUEUE_SIZE',
    k.int(1, 1_000_000),
    2048,
    'spans waiting for a slow or absent collector (more are dropped, never blocking a request)',
    BOTH,
  ),
  disabled: setting('OTEL_SDK_DISABLED', k.bool(), false, 'true turns tracing off whatever else is set', BOTH),
  incomingParent: setting(
    'TRACE_INCOMING_PARENT',
    k.oneOf(TRACE_INCOMING_PARENTS),
    'link',
    "what a partner's traceparent does: link (a new trace of ours, linked to it), continue (our spans join it) or ignore",
    BOTH,
  ),
  /** A URL with `{traceId}`, shown on the console's record page; null = the id is shown as text. */
  urlTemplate: setting(
    'TRACE_URL_TEMPLATE',
    urlTemplate,
    null,
    "a URL with {traceId}: the support console's record page links each traced request's trace id through it",
  ),
}).transform(({ base, tracesEndpoint, protocol: _p, tracesProtocol: _tp, disabled, resourceAttributes, ...rest }) => ({
  /** Where spans are posted (OTLP/HTTP, JSON); null = tracing off. The signal-specific URL is whole; the general one a base. */
  endpoint: disabled ? null : (tracesEndpoint ?? (base ? `${withoutTrailing(base, '/')}/v1/traces` : null)),
  resourceAttributes: resourceAttributes ?? {},
  ...rest,
}));

export type TracingSettings = z.output<typeof tracingSettings>;

/** The trace UI link of a trace id, or null without a template. */
export function traceUrl(template: string | null, traceId: string): string | null {
  return template ? template.replaceAll('{traceId}', encodeURIComponent(traceId)) : null;
}
