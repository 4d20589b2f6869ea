// Response cache plugin: looks the operation up before execution (a hit is answered without
// executing anything) and stores successful answers after. Runs after the environments plugins, so
// a request refused for its key never reaches the cache and a playground hit still counts as a call.
//
// `x-cache` is HIT, MISS (not served from cache), COALESCED (plugins/request-coalescing.ts), BYPASS (not cacheable: personal data, TTL 0,
// introspection) or STALE (answered from a stale upstream copy; never stored). A hit also carries
// `age` (seconds since the answer was stored).
import type { PreparedOperation } from '../graphql/prepare.js';
import type { EnvironmentName, ExecutedResult, HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import {
  bodyBytes,
  canonicalJson,
  type CacheLookup,
  type CachePolicy,
  type ResponseCache,
  type SchemaVariant,
} from '../../cache/response-cache.js';

interface ResponseCachePluginOptions {
  cache: ResponseCache;
  environment: EnvironmentName;
  /** Which schema this listener serves: the playground's hides fields, so it is its own key space. */
  variant: SchemaVariant;
  /** True when answers depend on the partner (FILL_PARTNER_REF): the partner joins the key. */
  keyByPartner: boolean;
}

interface Pending {
  key: string;
  fields: string[];
}

/** Per prepared operation (shared by every request sending the same text and name, see prepare.ts). */
interface OperationMemo {
  /** Cacheability and fields, when they cannot change with time (every root field has a fixed TTL). */
  policy: CachePolicy | null;
  /** Cache key by (epoch vector, partner, canonical variables): exactly what cache.keyFor returns. */
  keys: Map<string, string>;
}

/** The lookup's span and its attributes (server/plugins/tracing.ts). */
const LOOKUP_SPAN = 'gateway.cache.lookup';
const RESULT = 'gateway.cache.result';
const LEVEL = 'gateway.cache.level';

/** Bounds of the key memo: entries per operation, and the longest variables text worth keeping. */
const KEY_MEMO_ENTRIES = 512;
const KEY_MEMO_MAX_CHARS = 2048;

function hitReply(state: RequestState, hit: CacheLookup): Reply {
  state.cache = 'HIT';
  state.notes.cache = { level: hit.level, ageSeconds: hit.ageSeconds };
  return { status: 200, headers: { age: String(hit.ageSeconds) }, body: hit.entry.body, bytes: bodyBytes(hit.entry) };
}

export function responseCachePlugin(opts: ResponseCachePluginOptions): HttpPlugin {
  const { cache, environment, variant, keyByPartner } = opts;
  const pending = new WeakMap<RequestState, Pending>();
  const memos = new WeakMap<PreparedOperation, OperationMemo>();
  // Repeated request texts share one frozen variables object (http/request-body.ts).
  const variablesTexts = new WeakMap<object, string>();
  const canonicalVariables = (variables: Record<string, unknown> | null | undefined): string => {
    if (!variables) return '{}';
    let text = variablesTexts.get(variables);
    if (text === undefined) {
      text = canonicalJson(variables);
      if (Object.isFrozen(variables)) variablesTexts.set(variables, text);
    }
    return text;
  };

  function memoFor(op: PreparedOperation): OperationMemo {
    let memo = memos.get(op);
    if (!memo) {
      // cachePolicy() reads the clock only through TTL rules of kind untilLocalTime; with fixed TTLs
      // its answer (cacheable or not, and the fields) is the same at every request.
      const fields = op.rootFields.filter((f) => !f.startsWith('__'));
      const timeless = fields.every((f) => (cache.settings.ttl[f] ?? cache.settings.defaultTtl).kind === 'fixed');
      memo = {
        policy: timeless
          ? cache.policy({ operationType: op.operation.operation, rootFields: op.rootFields, introspectionOnly: op.introspectionOnly })
          : null,
        keys: new Map(),
      };
      memos.set(op, memo);
    }
    return memo;
  }

  /**
   * The request's cache key. keyFor hashes the whole operation text with the variables; for a
   * repeated request the inputs that vary (variables, partner, purge epochs) find it in the memo.
   */
  function keyOf(state: RequestState, op: PreparedOperation, memo: OperationMemo, fields: string[]): string {
    const partnerCode = keyByPartner ? state.partnerCode : null;
    const variablesText = canonicalVariables(state.variables);
    const memoKey =
      variablesText.length <= KEY_MEMO_MAX_CHARS ? `${cache.epochVector(fields)}\u0000${partnerCode ?? ''}\u0000${variablesText}` : null;
    const known = memoKey === null ? undefined : memo.keys.get(memoKey);
    if (known !== undefined) return known;
    const key = cache.keyFor(
      { environment, variant, normalized: op.normalized, operationName: op.operationName, variables: state.variables, partnerCode },
      fields,
    );
    if (memoKey !== null) {
      if (memo.keys.size >= KEY_MEMO_ENTRIES) memo.keys.clear();
      memo.keys.set(memoKey, key);
    }
    return key;
  }

  return {
    name: 'response-cache',
    onBeforeExecute(state: RequestState, op: PreparedOperation): Reply | void | Promise<Reply | void> {
      // Untraced (tracing off, or not sampled): one check per step below, nothing allocated.
      const trace = state.trace;
      const started = trace ? performance.now() : 0;
      const memo = memoFor(op);
      const policy =
        memo.policy ??
        cache.policy({ operationType: op.operation.operation, rootFields: op.rootFields, introspectionOnly: op.introspectionOnly });
      if (!policy.cacheable) {
        state.cache = 'BYPASS';
        cache.noteBypass();
        trace?.step(LOOKUP_SPAN, started, { [RESULT]: 'bypass' });
        return undefined;
      }
      const key = keyOf(state, op, memo, policy.fields);
      // An in-process hit is answered synchronously; otherwise Redis is asked.
      const local = cache.getLocal(key);
      if (local) {
        trace?.step(LOOKUP_SPAN, started, { [RESULT]: 'hit', [LEVEL]: local.level });
        return hitReply(state, local);
      }
      return cache.getShared(key).then((hit) => {
        trace?.step(LOOKUP_SPAN, started, hit ? { [RESULT]: 'hit', [LEVEL]: hit.level } : { [RESULT]: 'miss' });
        if (hit) return hitReply(state, hit);
        state.cache = 'MISS';
        state.cacheKey = key;
        pending.set(state, { key, fields: policy.fields });
        return undefined;
      });
    },

    onExecuted(state: RequestState, _op: PreparedOperation, reply: Reply, result: ExecutedResult): void {
      const p = pending.get(state);
      if (!p) return;
      pending.delete(state);
      // Never cached: errors (even partial), stale copies, anything but a plain 200.
      if (reply.status !== 200 || result.hasErrors || result.stale || state.cache === 'STALE') {
        cache.noteNotStored();
        return;
      }
      const ttlMs = cache.storeTtl(p.fields, result.upstreamMaxAge);
      if (ttlMs <= 0) {
        cache.noteNotStored();
        return;
      }
      cache.set(p.key, reply.body, ttlMs, p.fields);
    },
  };
}
