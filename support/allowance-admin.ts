// The playground allowance of one client address, read and given back by support: the console's
// allowance page and `npm run allowance` share this. It reads the store the gateways count in
// (Redis when set, else DATA_DIR/allowance.log, where a running gateway applies a reset before its
// next count), under the gateways' own key for the address (an IPv6 address counts by its /64).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { RedisClient } from '../cache/redis-connection.js';
import { allowanceKey, appendAllowanceReset, freeRateKey, readAllowanceLog } from '../cache/allowance.js';
import { allowanceSubject, normalizeIp } from '../server/http/client-ip.js';

/** The longest text an address can be (an IPv6 address with an IPv4 tail). */
const MAX_ADDRESS = 45;

export interface AllowanceAdmin {
  limit: number;
  /** Where the counts are, for the answer ("Redis …" or the log file). */
  store: string;
  used(subject: string): Promise<number>;
  reset(subject: string): Promise<void>;
}

/** The counter an address is counted under (its /64 for IPv6), or null when it is not an address. */
export function allowanceSubjectOf(input: string): string | null {
  const ip = input.trim();
  if (ip.length === 0 || ip.length > MAX_ADDRESS || !net.isIP(ip)) return null;
  return allowanceSubject(normalizeIp(ip));
}

export function allowanceAdmin(opts: { redis: RedisClient | null; dataDir: string; limit: number; storeName?: string }): AllowanceAdmin {
  const { redis, limit } = opts;
  const logFile = path.join(opts.dataDir, 'allowance.log');
  return {
    limit,
    store: redis ? (opts.storeName ?? 'Redis') : logFile,
    async used(subject) {
      if (redis) return Number(await redis.get(allowanceKey(subject))) || 0;
      return fs.existsSync(logFile) ? (readAllowanceLog(logFile).get(subject) ?? 0) : 0;
    },
    async reset(subject) {
      if (redis) await redis.del(allowanceKey(subject), freeRateKey(subject));
      else appendAllowanceReset(logFile, subject);
    },
  };
}
