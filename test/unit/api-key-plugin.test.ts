import { describe, expect, it } from 'vitest';
import { apiKeyPlugin } from '../../server/plugins/api-key.js';
import type { RequestState } from '../../server/http/plugin.js';
import type { KeyEnvironment } from '../../stores/key-store.js';

const GOOD = 'epk_live_good';
const keys = {
  verify: (_env: KeyEnvironment, presented: string | string[] | undefined) =>
    presented === undefined
      ? { ok: false as const, reason: 'missing' as const }
      : Array.isArray(presented)
        ? { ok: false as const, reason: 'malformed' as const }
        : presented === GOOD
          ? { ok: true as const, partnerCode: 'ACME', keyId: 'key_1' }
          : { ok: false as const, reason: 'unknown' as const },
};

function state(rawHeaders: string[]): RequestState {
  return {
    requestId: 'r',
    environment: 'production',
    clientIp: '203.0.113.9',
    req: { rawHeaders },
    notes: {},
    headers: {},
    partnerCode: null,
  } as unknown as RequestState;
}

describe('api-key plugin', () => {
  it('reads the header in any case, and refuses a repeated header as malformed', () => {
    const plugin = apiKeyPlugin({ environment: 'production', keys });
    const ok = state(['Host', 'x', 'X-Api-Key', GOOD]);
    expect(plugin.onRequest!(ok)).toBeUndefined();
    expect(ok.partnerCode).toBe('ACME');
    const twice = state(['x-api-key', GOOD, 'X-API-KEY', GOOD]);
    expect((plugin.onRequest!(twice) as { status: number }).status).toBe(403);
    expect(twice.notes.auth).toEqual({ ok: false, reason: 'malformed' });
    const none = state(['x-api-keys', GOOD, 'api-key', GOOD]);
    expect((plugin.onRequest!(none) as { status: number }).status).toBe(403);
    expect(none.notes.auth).toEqual({ ok: false, reason: 'missing' });
  });

  it('warns about refused keys at most once per interval, counting the rest into the next warning', () => {
    const warnings: Record<string, unknown>[] = [];
    let t = 0;
    const plugin = apiKeyPlugin({
      environment: 'production',
      keys,
      logger: { warn: (o: object) => void warnings.push(o as Record<string, unknown>) },
      warnEveryMs: 1000,
      now: () => t,
    });
    for (let i = 0; i < 500; i++) {
      const s = state(['x-api-key', `bad-${i}`]);
      expect((plugin.onRequest!(s) as { status: number }).status).toBe(403);
      expect(s.notes.auth).toEqual({ ok: false, reason: 'unknown' });
      t += 1;
    }
    expect(warnings).toHaveLength(1);
    t += 1000;
    void plugin.onRequest!(state([]));
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ reason: 'missing', refusedSinceLastWarning: 499 });
    expect(JSON.stringify(warnings)).not.toContain('bad-');
  });
});
