// Retrying what the gateway asks you to retry: HTTP 429 (your key's partner is over its request
// quota, or has too many uncached requests waiting) and 503, after the seconds of the answer's
// Retry-After header, a few times at most. Pass it as the `fetch` of your GraphQL client
// (client.ts does). Every keyed answer also says how much quota is left (RateLimit: "default";r=N;t=S):
// a client that sends in bursts can wait `t` seconds when `r` reaches 0 instead of being refused.
export interface RetryOptions {
  /** Tries in all, the first one included (default 3). */
  attempts?: number;
  /** A longer Retry-After is not waited for: the 429 is returned (default 30 s). */
  maxWaitSeconds?: number;
  /** Called before each wait (logging). */
  onRetry?: (status: number, seconds: number) => void;
  fetch?: typeof fetch;
}

export function retryingFetch(opts: RetryOptions = {}): typeof fetch {
  const attempts = opts.attempts ?? 3;
  const maxWait = opts.maxWaitSeconds ?? 30;
  const send = opts.fetch ?? fetch;
  return async (input, init) => {
    for (let attempt = 1; ; attempt++) {
      const res = await send(input, init);
      if ((res.status !== 429 && res.status !== 503) || attempt >= attempts) return res;
      // The gateway sends whole seconds; without the header, back off 1 s, 2 s, 4 s...
      const header = Number(res.headers.get('retry-after'));
      const seconds = res.headers.has('retry-after') && Number.isFinite(header) && header >= 0 ? header : 2 ** (attempt - 1);
      if (seconds > maxWait) return res;
      await res.body?.cancel();
      opts.onRetry?.(res.status, seconds);
      // A little jitter, so that clients refused together do not all come back at the same instant.
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + Math.random() * 250));
    }
  };
}
