// What `npm run cache -- purge` and `npm run keys` share to reach running gateway instances through
// Redis: a connection for the one command, and a truthful account of the instances that did not
// apply the change (cache/instance-registry.ts counts them).
import { connectRedis } from '../cache/redis-connection.js';
import { ANSWER_WAIT_MS, STALE_MS, type Reach } from '../cache/instance-registry.js';
import type { RedisClient } from '../cache/redis-health.js';

export async function withRedis<T>(url: string, run: (redis: RedisClient) => Promise<T>, deadlineMs?: number): Promise<T> {
  const redis = await connectRedis(url, deadlineMs);
  try {
    return await run(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * The tail of a reach line: `; the other 1 did not answer within 2 s (<silent>)`, `; 1 <refused>`,
 * or, with no live instance, that none is running. Empty when every live instance applied it.
 */
export function unreached(reach: Reach, silent: string, refused = 'could not apply it'): string {
  if (reach.live === 0) return ` (no gateway instance registered in this Redis within the last ${STALE_MS / 1000} s)`;
  const parts: string[] = [];
  const quiet = reach.live - reach.applied - reach.refused;
  if (quiet > 0)
    parts.push(
      `the other ${quiet} did not answer within ${ANSWER_WAIT_MS / 1000} s (${silent}; an instance that stopped without leaving is counted ` +
        `for ${STALE_MS / 1000} s)`,
    );
  if (reach.refused > 0) parts.push(`${reach.refused} ${refused}`);
  return parts.map((p) => `; ${p}`).join('');
}
