// Response cache plugin: looks the operation up before execution (a hit is answered without
// executing anything) and stores successful answers after. Runs after the environments plugins, so
// a request refused for its key never reaches the cache and a playground hit still counts as a call.
//
// `x-cache` is HIT, MISS (not served from cache), BYPASS (not cacheable: personal data, TTL 0,
// introspection) or STALE (answered from a stale upstream copy; never stored). A hit also carries
// `age` (seconds since the answer was stored).
import type { PreparedOperation } from '../graphql/prepare.js';
import type { EnvironmentName, ExecutedResult, HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import type { ResponseCache, SchemaVariant } from '../../cache/response-cache.js';

export interface ResponseCachePluginOptions {
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

export function responseCachePlugin(opts: ResponseCachePluginOptions): HttpPlugin {
  const { cache, environment, variant, keyByPartner } = opts;
  const pending = new WeakMap<RequestState, Pending>();

  return {
    name: 'response-cache',
    async onBeforeExecute(state: RequestState, op: PreparedOperation): Promise<Reply | void> {
      const policy = cache.policy({ operationType: op.operation.operation, rootFields: op.rootFields, introspectionOnly: op.introspectionOnly });
      if (!policy.cacheable) {
        state.cache = 'BYPASS';
        cache.noteBypass();
        return undefined;
      }
      const key = cache.keyFor(
        {
          environment,
          variant,
          normalized: op.normalized,
          operationName: op.operationName,
          variables: state.variables,
          partnerCode: keyByPartner ? state.partnerCode : null,
        },
        policy.fields,
      );
      const hit = await cache.get(key);
      if (hit) {
        state.cache = 'HIT';
        state.notes.cache = { level: hit.level, ageSeconds: hit.ageSeconds };
        return { status: 200, headers: { age: String(hit.ageSeconds) }, body: hit.entry.body };
      }
      state.cache = 'MISS';
      pending.set(state, { key, fields: policy.fields });
      return undefined;
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
