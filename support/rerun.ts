// Re-running a recorded operation (shared by `npm run replay -- rerun` and the support console):
// the record's query, variables and operation name run through a server of its environment that
// runs no admission plugins, as the record's partner (answers that depend on the partner code stay
// comparable), so no partner key is needed. That server is never bound to a port: the one request
// is written into it over an in-memory stream pair (node:http parses and answers it exactly as it
// would a socket's), so nothing else can reach it and no other request can run as the partner.
import { randomUUID } from 'node:crypto';
import http, { type Server } from 'node:http';
import { duplexPair } from 'node:stream';
import type { EnvironmentName, HttpPlugin } from '../server/http/plugin.js';
import type { ReplayRecord } from '../stores/replay-store.js';

export interface RerunAnswer {
  status: number;
  body: string;
  requestId: string;
}

const RERUN_TIMEOUT_MS = 60_000;

/** Sets the record's partner code on every request, in place of the key check. */
function asPartnerPlugin(partnerCode: string | null): HttpPlugin {
  return { name: 'replay-rerun', onRequest: (state) => void (state.partnerCode = partnerCode) };
}

function recordRequest(record: ReplayRecord, headers: Record<string, string>) {
  const requestId = `rerun.${randomUUID()}`;
  const body = JSON.stringify({
    query: record.query,
    variables: record.variables ?? undefined,
    // '<unknown>' stands for a name the record does not keep (server/plugins/replay.ts).
    operationName: record.operationName && record.operationName !== '<unknown>' ? record.operationName : undefined,
  });
  return { requestId, body, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers } };
}

/** Posts the record's operation to a GraphQL URL (a running gateway, with a partner key); a fresh request id marks it as a rerun. */
export async function postRecord(url: string, record: ReplayRecord, headers: Record<string, string>): Promise<RerunAnswer> {
  const r = recordRequest(record, headers);
  const res = await fetch(url, { method: 'POST', headers: r.headers, body: r.body, signal: AbortSignal.timeout(RERUN_TIMEOUT_MS) });
  return { status: res.status, body: await res.text(), requestId: res.headers.get('x-request-id') ?? r.requestId };
}

/** Sends the record's operation into an unbound server over an in-memory connection: no socket, no port. */
function injectRecord(server: Server, record: ReplayRecord): Promise<RerunAnswer> {
  if (server.listening) throw new Error('a rerun runs only on a server that is bound to no port');
  const r = recordRequest(record, {});
  const [client, inside] = duplexPair();
  let timer: NodeJS.Timeout | undefined;
  server.emit('connection', inside);
  return new Promise<RerunAnswer>((resolve, reject) => {
    const req = http.request(
      { createConnection: () => client, method: 'POST', path: '/graphql', headers: { ...r.headers, connection: 'close' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const id = res.headers['x-request-id'];
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            requestId: typeof id === 'string' ? id : r.requestId,
          });
        });
      },
    );
    // A timer, not req.setTimeout: the in-memory stream has no socket timeouts.
    timer = setTimeout(() => req.destroy(new Error(`the rerun did not answer within ${RERUN_TIMEOUT_MS / 1000} s`)), RERUN_TIMEOUT_MS);
    req.on('error', reject);
    req.end(r.body);
  }).finally(() => {
    clearTimeout(timer);
    client.destroy();
    inside.destroy();
  });
}

/**
 * Runs the record on a fresh, unbound server of this gateway's record environment (the console's
 * and the CLI's rerun). `createServer` builds the environment's server with the given plugins in
 * place of the capabilities' and must not bind it.
 */
export async function rerunInProcess(
  record: ReplayRecord,
  createServer: (environment: EnvironmentName, plugins: HttpPlugin[]) => Server,
): Promise<RerunAnswer> {
  const server = createServer(record.environment as EnvironmentName, [asPartnerPlugin(record.partnerCode)]);
  return injectRecord(server, record);
}
