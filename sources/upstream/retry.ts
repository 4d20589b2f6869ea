// Bounded retries with full jitter inside one deadline. Each attempt gets a NEW AbortSignal (an
// aborted signal stays aborted; reusing it would fail every retry at once), limited by the time
// left until the deadline, so retries never exceed the feed's budget.
import { classifyError, UpstreamError } from './errors.js';

interface RetryOptions {
  /** Extra attempts after the first. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Absolute deadline (Date.now() clock) for all attempts and backoff together. */
  deadline: number;
  /** Cap of one attempt; 0 = whatever is left until the deadline. */
  attemptTimeoutMs: number;
  /** Do not start an attempt with less time than this left (it could only time out). */
  minAttemptMs?: number;
  /** Aborts every attempt (the caller cancelled); not retried. */
  signal?: AbortSignal;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Called before each retry, after the backoff was chosen. */
  onRetry?: (attempt: number, err: UpstreamError, delayMs: number) => void;
  /** Called before each attempt is sent (attempt 0 is the first). */
  onAttempt?: (attempt: number) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full jitter: a uniformly random wait in [0, min(max, base * 2^attempt)). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

export async function withRetries<T>(opts: RetryOptions, attempt: (signal: AbortSignal, n: number) => Promise<T>): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const minAttemptMs = opts.minAttemptMs ?? 20;
  for (let n = 0; ; n++) {
    const left = opts.deadline - now();
    if (left <= 0) throw new UpstreamError('timeout');
    const ms = opts.attemptTimeoutMs > 0 ? Math.min(opts.attemptTimeoutMs, left) : left;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('upstream attempt timed out', 'TimeoutError')), ms);
    const signal = opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal;
    let error: UpstreamError;
    try {
      opts.onAttempt?.(n);
      return await attempt(signal, n);
    } catch (err) {
      error = opts.signal?.aborted ? new UpstreamError('aborted') : classifyError(err, controller.signal);
    } finally {
      clearTimeout(timer);
    }
    if (!error.retryable || n >= opts.retries) throw error;
    let delay = backoffDelay(n, opts.baseDelayMs, opts.maxDelayMs, opts.random);
    if (error.retryAfterMs !== null) delay = Math.max(delay, error.retryAfterMs);
    // No budget for the wait plus a useful attempt: fail now rather than time out later.
    if (now() + delay + minAttemptMs > opts.deadline) throw error;
    opts.onRetry?.(n + 1, error, delay);
    if (delay > 0) await sleep(delay);
  }
}
