// A real OTLP/HTTP trace receiver for tests and the benchmark: POST /v1/traces with a JSON body
// (ExportTraceServiceRequest, as the OpenTelemetry Collector's otlp receiver takes it), answered
// like the collector does. It keeps the raw bodies and the spans, flattened; `keep: false` only
// counts the exports and their bytes, without parsing them (the benchmark: it shares a process
// with the load generator).
import http from 'node:http';
import { listen } from '../../server/http/listen.js';

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
export type AttributeValue = string | number | boolean | AttributeValue[] | null;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code?: number };
}

interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  links: { traceId: string; spanId: string; attributes: Record<string, AttributeValue> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** Base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans go to `${url}/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as received (to search for what must never be exported). */
  bodies: string[];
  /** Spans received (kept ones only). */
  count: number;
  /** Export requests and their bytes, kept or not. */
  exports: number;
  bytes: number;
  close(): Promise<void>;
}

/** OTLP ids are hex in JSON; base64 (the protobuf JSON mapping) is read too. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]*$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function value(v: AnyValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return null;
}

function attributes(list: KeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list ?? []) out[kv.key] = value(kv.value);
  return out;
}

export async function startOtlpReceiver(opts: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = opts.keep ?? true;
  const received: OtlpReceiver = { url: '', spans: [], bodies: [], count: 0, exports: 0, bytes: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (!/application\/json/.test(String(req.headers['content-type']))) {
        return void res.writeHead(415, { 'content-type': 'application/json' }).end('{"message":"JSON bodies only"}');
      }
      const raw = Buffer.concat(chunks);
      received.exports++;
      received.bytes += raw.length;
      if (!keep) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const text = raw.toString('utf8');
      let body: ExportTraceServiceRequest;
      try {
        body = JSON.parse(text) as ExportTraceServiceRequest;
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"not JSON"}');
      }
      received.bodies.push(text);
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            received.count++;
            received.spans.push({
              traceId: hexId(s.traceId),
              spanId: hexId(s.spanId),
              parentSpanId: hexId(s.parentSpanId),
              name: s.name,
              kind: s.kind,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
              attributes: attributes(s.attributes),
              links: (s.links ?? []).map((l) => ({
                traceId: hexId(l.traceId),
                spanId: hexId(l.spanId),
                attributes: attributes(l.attributes),
              })),
              status: s.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const l = await listen(server, 0, '127.0.0.1');
  received.url = l.url;
  received.close = l.close;
  return received;
}
