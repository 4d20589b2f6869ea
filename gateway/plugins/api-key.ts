// Keyed environments (production, certification): every request needs exactly one `x-api-key`
// header holding a valid, unrevoked key issued for this environment. Checked in onRequest, before
// the body is read or any GraphQL work is done. A refusal is HTTP 403 with a GraphQL-shaped body
// whose message is the same for every reason (missing, malformed, unknown, revoked, other
// environment): the reason goes to the log only, and the key is never logged or echoed.
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import type { KeyEnvironment, KeyStore, KeyStoreLogger } from '../keys/key-store.js';

export interface ApiKeyPluginOptions {
  environment: KeyEnvironment;
  keys: Pick<KeyStore, 'verify'>;
  logger?: Pick<KeyStoreLogger, 'warn'>;
}

export function apiKeyPlugin(opts: ApiKeyPluginOptions): HttpPlugin {
  const { environment, keys, logger } = opts;
  const message = `A valid x-api-key header for the ${environment} environment is required.`;
  return {
    name: 'api-key',
    onRequest(state: RequestState): Reply | void {
      const result = keys.verify(environment, presentedKey(state));
      if (!result.ok) {
        state.notes.auth = { ok: false, reason: result.reason };
        logger?.warn({ requestId: state.requestId, environment, clientIp: state.clientIp, reason: result.reason }, 'request refused: api key');
        return errorReply(403, message, 'FORBIDDEN');
      }
      state.partnerCode = result.partnerCode;
      state.notes.auth = { ok: true, keyId: result.keyId };
      return undefined;
    },
  };
}

/**
 * The header as sent. Node joins repeated unknown headers with ", " in `req.headers`, which would
 * hide a second x-api-key; `headersDistinct` keeps one entry per header line, so more than one
 * header reaches verify() as an array (malformed).
 */
function presentedKey(state: RequestState): string | string[] | undefined {
  const distinct = state.req.headersDistinct?.['x-api-key'];
  if (distinct) return distinct.length === 1 ? distinct[0] : distinct;
  const raw: string[] = [];
  const rh = state.req.rawHeaders;
  for (let i = 0; i + 1 < rh.length; i += 2) if (rh[i]!.toLowerCase() === 'x-api-key') raw.push(rh[i + 1]!);
  return raw.length === 0 ? undefined : raw.length === 1 ? raw[0] : raw;
}
