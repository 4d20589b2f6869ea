// Re-running a recorded operation (shared by `npm run replay -- rerun` and the support console):
// the record's query, variables and operation name are posted to a listener of its environment
// that runs no admission plugins, as the record's partner (answers that depend on the partner
// code stay comparable), so no partner key is needed.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { EnvironmentName, HttpPlugin } from '../http/plugin.js';
import { listen } from '../http/listen.js';
import type { ReplayRecord } from '../stores/replay-store.js';

export interface RerunAnswer {
  status: number;
  body: string;
  requestId: string;
}

/** Sets the record's partner code on every request, in place of the key check. */
export function asPartnerPlugin(partnerCode: string | null): HttpPlugin {
  return { name: 'replay-rerun', onRequest: (state) => void (state.partnerCode = partnerCode) };
}

/** Posts the record's operation to a GraphQL URL; a fresh request id marks it as a rerun. */
export async function postRecord(url: string, record: ReplayRecord, headers: Record<string, string>): Promise<RerunAnswer> {
  const requestId = `rerun.${randomUUID()}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
    body: JSON.stringify({
      query: record.query,
      variables: record.variables ?? undefined,
      operationName: record.operationName ?? undefined,
    }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: await res.text(), requestId: res.headers.get('x-request-id') ?? requestId };
}

/** Runs the record on a private loopback listener of this gateway (the console's rerun). */
export async function rerunOnPrivateListener(
  record: ReplayRecord,
  createListener: (environment: EnvironmentName, plugins: HttpPlugin[]) => Server,
): Promise<RerunAnswer> {
  const server = createListener(record.environment as EnvironmentName, [asPartnerPlugin(record.partnerCode)]);
  const listening = await listen(server, 0, '127.0.0.1', undefined, true);
  try {
    return await postRecord(`${listening.url}/graphql`, record, {});
  } finally {
    await listening.close();
  }
}
