// Keyed environments (production, certification): every request needs exactly one `x-api-key`
// header holding a valid, unrevoked key issued for this environment. Checked in onRequest, before
// the body is read or any GraphQL work is done. A refusal is HTTP 403 with a GraphQL-shaped body
// whose message is the same for every reason (missing, malformed, unknown, revoked, other
// environment): the reason goes to the log only, and the key is never logged or echoed.
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import type { KeyEnvironment, KeyStore, KeyStoreLogger, VerifyResult } from '../../stores/key-store.js';
import { throttledWarning } from '../../lib/throttled-warning.js';

interface ApiKeyPluginOptions {
  environment: KeyEnvironment;
  keys: Pick<KeyStore, 'verify'> & Partial<Pick<KeyStore, 'verifyFresh'>>;
  logger?: Pick<KeyStoreLogger, 'warn'>;
  /** At most one refusal warning per this many ms (default 1000); the rest are counted into the next one. */
  warnEveryMs?: number;
  now?: () => number;
}

export function apiKeyPlugin(opts: ApiKeyPluginOptions): HttpPlugin {
  const { environment, keys, logger } = opts;
  const message = `A valid x-api-key header for the ${environment} environment is required.`;
  // A client hammering with bad keys must not flood the warn level: every refusal is still in its
  // request line (auth: reason), and the warning says how many it stood for.
  const warn = throttledWarning((obj, msg) => logger?.warn(obj, msg), { everyMs: opts.warnEveryMs, now: opts.now });
  return {
    name: 'api-key',
    onRequest(state: RequestState): Reply | void | Promise<Reply | void> {
      const presented = presentedKey(state);
      const result = keys.verify(environment, presented);
      // A key just issued may not be loaded yet: look at the keys file once before refusing it.
      if (!result.ok && result.reason === 'unknown' && keys.verifyFresh)
        return keys.verifyFresh(environment, presented).then((fresh) => decide(state, fresh));
      return decide(state, result);
    },
  };

  function decide(state: RequestState, result: VerifyResult): Reply | void {
    if (!result.ok) {
      // A known key refused: its id (never the key), own environment and revocation, for the console.
      const { ok, reason, partnerCode, keyId, keyEnvironment, revoked } = result;
      state.notes.auth = { ok, reason, ...(partnerCode ? { partnerCode } : {}), ...(keyId ? { keyId, keyEnvironment, revoked } : {}) };
      warn({ requestId: state.requestId, environment, clientIp: state.clientIp, reason: result.reason }, 'request refused: api key');
      return errorReply(403, message, 'FORBIDDEN');
    }
    state.partnerCode = result.partnerCode;
    state.notes.auth = { ok: true, keyId: result.keyId };
    return undefined;
  }
}

/**
 * The header as sent. Node joins repeated unknown headers with ", " in `req.headers`, which would
 * hide a second x-api-key; the raw header lines keep one entry per line, so more than one header
 * reaches verify() as an array (malformed). Scanning them is cheaper than `headersDistinct`, which
 * builds a second header object for every request.
 */
function presentedKey(state: RequestState): string | string[] | undefined {
  let found: string | string[] | undefined;
  const rh = state.req.rawHeaders;
  for (let i = 0; i + 1 < rh.length; i += 2) {
    const name = rh[i]!;
    if (name.length !== 9 || name.toLowerCase() !== 'x-api-key') continue;
    found = found === undefined ? rh[i + 1]! : [...(typeof found === 'string' ? [found] : found), rh[i + 1]!];
  }
  return found;
}
