// The playground allowance: `limit` counted calls per client IP, once, never refilled.
//
// What counts, exactly:
// - Counted: a request whose body parsed, whose operation validated against the playground schema
//   and passed the query limits, and which selects at least one root field that is not
//   introspection (`__schema`, `__type`, `__typename`). It is counted before execution, so it
//   counts whether the answer comes from the response cache, from the feeds, or carries
//   resolver errors (bad ZIP code, a failing feed): the call was served.
// - Free: introspection-only operations (schema browsing, GraphiQL's own schema fetch), also after
//   the allowance is spent; loading the GraphiQL page (GET /graphql from a browser, answered before
//   any plugin runs); mutations and subscriptions (refused here with a GraphQL error, never
//   executed: the playground is read-only); and every request refused before onOperation:
//   malformed HTTP, wrong content type, invalid JSON, a missing query, parse errors, validation
//   errors (unknown field, missing argument, `utilityAccounts`) and query-limit violations. None of
//   these reaches the upstream feeds, so they cost us nothing worth metering, and a partner
//   learning the schema should not spend its ten calls on typos.
//
// Every playground response that passes through the plugins carries X-RateLimit-Limit and
// X-RateLimit-Remaining (onRequest peeks the current count; a counted call updates it). When the
// count is spent, a counted call gets HTTP 429 (RATE_LIMITED, reason ALLOWANCE_USED_UP) and
// remaining 0.
//
// A request that registers a persisted query (APQ hash and document) takes one more free point,
// kept even when the call is counted: registrations fill a store, so they count against the free
// rate (and the playground's own persisted-query budget, PERSISTED_QUERIES_PLAYGROUND_MAX_BYTES).
//
// Free is not unlimited: free requests are rate-limited per client IP (IPv6 per /64, like the
// allowance): at most `points` per `windowSeconds` of the store's free rate, counted beside the allowance
// (cache/free-rate.ts; in Redis when REDIS_URL is set, so every instance shares it). Every
// playground request takes a free point in onRequest, before its body is read, in the same store
// round trip that reads the allowance; a call the allowance counts gets its point back in the
// same round trip that counts it. A client over the rate is refused from memory, without a round
// trip, until its window ends (its remaining calls as read when the refusal began): HTTP 429, code
// RATE_LIMITED, extensions.reason FREE_REQUEST_RATE (the spent allowance is
// ALLOWANCE_USED_UP), Retry-After, and the allowance headers as usual. While refused, its counted
// calls are refused too: a person using GraphiQL never gets there (it sends two free requests per
// page load and one per schema refresh).
//
// When the store cannot count (Redis down), a counted call is refused with HTTP 503
// (SERVICE_UNAVAILABLE) and Retry-After: fail closed, see cache/allowance.ts. Free requests are
// still served; their X-RateLimit-Remaining is then 0, the conservative answer while we cannot
// tell (a counted call would be refused at that moment).
import type { AllowanceStore } from '../../cache/allowance.js';
import { AllowanceUnavailableError } from '../../cache/allowance.js';
import type { PreparedOperation } from '../graphql/prepare.js';
import type { HttpPlugin, Reply, RequestState } from '../http/plugin.js';
import { errorReply } from '../http/plugin.js';
import { allowanceSubject } from '../http/client-ip.js';
import { throttledWarning } from '../../lib/throttled-warning.js';

interface AllowancePluginOptions {
  /** Counts free requests too when built with a free rate (createAllowanceStore's freeRate). */
  store: AllowanceStore;
  limit: number;
  /** Seconds in Retry-After when the store is unavailable. */
  retryAfterSeconds?: number;
  logger?: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

const LIMIT_HEADER = 'X-RateLimit-Limit';
/** extensions.reason of the 429 for a spent allowance (FREE_REQUEST_RATE is the other 429). */
const ALLOWANCE_USED_UP = 'ALLOWANCE_USED_UP';
/** extensions.reason of the 429 for too many free requests. */
export const FREE_REQUEST_RATE = 'FREE_REQUEST_RATE';
const REMAINING_HEADER = 'X-RateLimit-Remaining';

export function allowancePlugin(opts: AllowancePluginOptions): HttpPlugin {
  const { store, limit, logger } = opts;
  const retryAfter = String(opts.retryAfterSeconds ?? 10);
  const exhausted = `The playground allowance of ${limit} calls for your IP address is used up; it does not refill. Ask for a key to use the API.`;
  // A client can send spent calls as fast as it likes: one warning per second, with a count.
  const warnExhausted = throttledWarning((obj, msg) => logger?.warn(obj, msg));
  const warnFreeRate = throttledWarning((obj, msg) => logger?.warn(obj, msg));
  let lastOutageLog = 0;
  const logOutage = (state: RequestState, err: unknown) => {
    // One line per 10 s at most while the store is down, not one per request.
    if (Date.now() - lastOutageLog < 10_000) return;
    lastOutageLog = Date.now();
    logger?.error(
      { requestId: state.requestId, error: (err as Error).message },
      'playground allowance store unavailable: refusing counted calls (503)',
    );
  };

  const tooManyFree =
    `Too many free playground requests (introspection, invalid queries, page loads, calls after the allowance is spent) ` +
    `from your IP address: at most ${store.free.rate.points} per ${store.free.rate.windowSeconds} s. Try again later.`;
  const freeRateReply = (state: RequestState, ms: number): Reply => {
    const retryAfter = Math.max(1, Math.ceil(ms / 1000));
    state.notes.allowance = { ...(state.notes.allowance as object | undefined), counted: false, reason: 'free_request_rate' };
    warnFreeRate({ requestId: state.requestId, clientIp: state.clientIp }, 'request refused: playground free-request rate');
    const reply = errorReply(429, tooManyFree, 'RATE_LIMITED', { reason: FREE_REQUEST_RATE, retryAfterSeconds: retryAfter });
    reply.headers['Retry-After'] = String(retryAfter);
    return reply;
  };

  return {
    name: 'playground-allowance',
    async onRequest(state: RequestState): Promise<Reply | void> {
      state.headers[LIMIT_HEADER] = String(limit);
      const started = state.trace ? performance.now() : 0;
      const admission = await store.admit(allowanceSubject(state.clientIp));
      state.trace?.step(
        'gateway.allowance.admit',
        started,
        { 'gateway.allowance.remaining': admission.remaining ?? -1, 'gateway.allowance.free_refused': admission.freeRefusedMs > 0 },
        admission.remaining === null,
      );
      if (admission.remaining === null) {
        state.headers[REMAINING_HEADER] = '0';
        state.notes.allowance = { limit, unavailable: true };
        if (admission.error) logOutage(state, admission.error);
      } else {
        state.headers[REMAINING_HEADER] = String(admission.remaining);
      }
      if (admission.freeRefusedMs > 0) return freeRateReply(state, admission.freeRefusedMs);
      return undefined;
    },
    async onOperation(state: RequestState, op: PreparedOperation): Promise<Reply | void> {
      if (op.operation.operation !== 'query') {
        // The playground schema has no mutation or subscription root, but graphql-js only notices
        // that at execution; refuse here so the call is neither executed nor counted.
        state.notes.allowance = { limit, counted: false, reason: 'read_only' };
        return readOnlyReply(op);
      }
      // Registering a persisted query stores something: it costs a free request whatever the call
      // (a counted call gets back only the point of its request), and is refused over the rate.
      if (state.notes.persistedQuery === 'registered' && store.free.enabled) {
        const charged = await store.admit(allowanceSubject(state.clientIp));
        if (charged.freeRefusedMs > 0) return freeRateReply(state, charged.freeRefusedMs);
      }
      if (op.introspectionOnly) {
        state.notes.allowance = {
          ...(state.notes.allowance as object | undefined),
          limit,
          counted: false,
          reason: 'introspection',
          remaining: Number(state.headers[REMAINING_HEADER] ?? 0),
        };
        return undefined;
      }
      let result;
      const started = state.trace ? performance.now() : 0;
      try {
        // The admission already waited out the store's deadline: one wait per call, not two (the
        // bound of docs/operations.md is for the whole call).
        if ((state.notes.allowance as { unavailable?: boolean } | undefined)?.unavailable)
          throw new AllowanceUnavailableError('allowance store (Redis) unavailable: the admission check got no answer');
        result = await store.consume(allowanceSubject(state.clientIp));
        state.trace?.step('gateway.allowance.count', started, {
          'gateway.allowance.counted': result.allowed,
          'gateway.allowance.remaining': result.remaining,
        });
      } catch (err) {
        state.trace?.step(
          'gateway.allowance.count',
          started,
          { 'gateway.allowance.counted': false, 'error.type': 'store_unavailable' },
          true,
        );
        if (!(err instanceof AllowanceUnavailableError)) throw err;
        logOutage(state, err);
        state.headers[REMAINING_HEADER] = '0';
        state.notes.allowance = { limit, counted: false, reason: 'store_unavailable' };
        const reply = errorReply(503, 'The playground is temporarily unavailable; try again shortly.', 'SERVICE_UNAVAILABLE');
        reply.headers['Retry-After'] = retryAfter;
        return reply;
      }
      state.headers[REMAINING_HEADER] = String(result.remaining);
      if (!result.allowed) {
        state.notes.allowance = { limit, counted: false, reason: 'exhausted', used: result.used, remaining: 0 };
        warnExhausted({ requestId: state.requestId, clientIp: state.clientIp, used: result.used }, 'playground allowance used up');
        return errorReply(429, exhausted, 'RATE_LIMITED', { reason: ALLOWANCE_USED_UP, limit });
      }
      state.notes.allowance = { limit, counted: true, used: result.used, remaining: result.remaining };
      return undefined;
    },
  };
}

function readOnlyReply(op: PreparedOperation): Reply {
  const kind = op.operation.operation;
  const loc = op.operation.loc;
  const error: Record<string, unknown> = { message: `The playground is read-only: ${kind} operations are not supported; send a query.` };
  if (loc) error.locations = [{ line: loc.startToken.line, column: loc.startToken.column }];
  error.extensions = { code: 'GRAPHQL_VALIDATION_FAILED' };
  return { status: 200, headers: {}, body: JSON.stringify({ errors: [error] }) };
}
