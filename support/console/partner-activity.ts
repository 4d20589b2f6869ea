// A partner's last 7 days per environment, from its replay records: requests, error rate and p95
// latency per day, and when each key was last used (the key id the key check noted).
import type { ReplayRecord } from '../../stores/replay-store.js';
import { outcomeOf } from '../../stores/replay-match.js';

const DAYS = 7;
const DAY_MS = 86_400_000;

export interface DayStats {
  /** Start of the UTC day, ms. */
  start: number;
  requests: number;
  errors: number;
  p95Ms: number | null;
}

/** A request refused by the partner's quota (server/plugins/partner-quota.ts), from its record's notes. */
export interface QuotaRefusal {
  time: string;
  environment: string;
  reason: string;
  requestId: string;
}

/** The newest refusals kept for the page. */
const REFUSALS_SHOWN = 10;

export interface PartnerActivity {
  /** Quota refusals in the window by environment, and the newest ones. */
  refusals: { byEnvironment: Map<string, number>; newest: QuotaRefusal[] };
  /** Environment -> the last DAYS UTC days, oldest first. */
  byEnvironment: Map<string, DayStats[]>;
  /** Key id -> the newest request it answered (accepted). */
  lastUsed: Map<string, string>;
  /** Key id -> the newest request that sent it, refused ones included (a revoked or other-environment key). */
  lastPresented: Map<string, string>;
  /** Records read; `capped` when the bound stopped the count early. */
  scanned: number;
  capped: boolean;
}

function p95(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
}

/** The first UTC day of the window ending today. */
export function windowStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
}

export function partnerActivity(records: ReplayRecord[], now: number, capped: boolean): PartnerActivity {
  const first = windowStart(now);
  const durations = new Map<string, number[][]>();
  const byEnvironment = new Map<string, DayStats[]>();
  const lastUsed = new Map<string, string>();
  const refusals = { byEnvironment: new Map<string, number>(), newest: [] as QuotaRefusal[] };
  const lastPresented = new Map<string, string>();
  for (const r of records) {
    const quota = r.notes?.quota as { result?: unknown; reason?: unknown } | undefined;
    if (quota?.result === 'refused' && Date.parse(r.time) >= first) {
      refusals.byEnvironment.set(r.environment, (refusals.byEnvironment.get(r.environment) ?? 0) + 1);
      refusals.newest.push({ time: r.time, environment: r.environment, reason: String(quota.reason), requestId: r.id });
    }
    const auth = r.notes?.auth as { ok?: unknown; keyId?: unknown } | undefined;
    if (typeof auth?.keyId === 'string') {
      if ((lastPresented.get(auth.keyId) ?? '') < r.time) lastPresented.set(auth.keyId, r.time);
      if (auth.ok === true && (lastUsed.get(auth.keyId) ?? '') < r.time) lastUsed.set(auth.keyId, r.time);
    }
    const day = Math.floor((Date.parse(r.time) - first) / DAY_MS);
    if (day < 0 || day >= DAYS) continue;
    let days = byEnvironment.get(r.environment);
    if (!days) {
      days = Array.from({ length: DAYS }, (_, i) => ({ start: first + i * DAY_MS, requests: 0, errors: 0, p95Ms: null }));
      byEnvironment.set(r.environment, days);
      durations.set(
        r.environment,
        Array.from({ length: DAYS }, () => []),
      );
    }
    days[day]!.requests++;
    if (outcomeOf(r.status, r.facets) !== 'ok') days[day]!.errors++;
    durations.get(r.environment)![day]!.push(r.durationMs);
  }
  for (const [env, days] of byEnvironment) days.forEach((d, i) => (d.p95Ms = p95(durations.get(env)![i]!)));
  refusals.newest = refusals.newest.sort((a, b) => b.time.localeCompare(a.time)).slice(0, REFUSALS_SHOWN);
  return { byEnvironment, lastUsed, lastPresented, refusals, scanned: records.length, capped };
}
