// The admin endpoint's and the support console's settings, declared beside them as the config they
// fill (lib/settings.ts): whether and where the admin listener runs, in a process of its own or not,
// and the console's sessions, pace, audit trail and the certification checkout's token.
// start/config.ts composes them with the serving process's (server/config.ts); the audit trail's
// retention and the admin port's default follow that config (REPLAY_RETENTION, PORT_BASE).
import type { z } from 'zod';
import { kinds as k, setting, settingsSchema } from '../lib/settings.js';
import { DEFAULT_PORT_BASE, DEFAULT_PORTS, shiftedDefault } from '../lib/ports.js';
import type { ServerConfig } from '../server/config.js';

const H = 3_600_000;
const DAY = 24 * H;

export const adminSettings = settingsSchema({
  admin: {
    token: setting('ADMIN_TOKEN', k.secret(24), null, 'admin HTTP endpoint for support tools and the support console; unset = off'),
    host: setting('ADMIN_HOST', k.text(), '127.0.0.1', 'address of the admin endpoint'),
    port: setting(
      'ADMIN_PORT',
      k.port(),
      { text: shiftedDefault(DEFAULT_PORTS.ADMIN_PORT), from: () => null },
      'admin endpoint port (only with ADMIN_TOKEN)',
    ),
    process: {
      enabled: setting(
        'ADMIN_PROCESS',
        k.bool(),
        true,
        'the admin listener (admin API and support console) in a process of its own, at a lower CPU priority than the keyed listeners',
      ),
      nice: setting(
        'ADMIN_NICE',
        k.int(0, 19),
        19,
        "the admin process's niceness (the lowest CPU priority by default: its pages are for people)",
      ),
    },
    childNice: setting(
      'ADMIN_CHILD_NICE',
      k.int(0, 19),
      null,
      'the niceness the admin process applies to its threads; marks the admin process',
      ['admin process'],
      {
        internal: true,
      },
    ),
  },
  replayApiKey: setting(
    'REPLAY_API_KEY',
    k.secret(24),
    null,
    'the admin token `npm run replay -- --url` sends to a running gateway (or --key)',
    ['CLI'],
  ),
  console: {
    auditRetentionMs: setting(
      'AUDIT_RETENTION',
      k.duration(60_000),
      { text: '400d (at least REPLAY_RETENTION)', from: () => null },
      "how long the console's audit log is kept (at least REPLAY_RETENTION)",
      ['gateway', 'CLI'],
    ),
    auditMaxEntries: setting(
      'AUDIT_MAX_ENTRIES',
      k.int(1000, 100_000_000),
      200_000,
      "the audit trail's size: beyond it the oldest noise entries (refused or limited sign-ins, searches, audit views) go first, then the oldest others",
      ['gateway', 'CLI'],
    ),
    signInLimit: {
      failures: setting(
        'CONSOLE_SIGN_IN_FAILURES',
        k.int(1, 100_000),
        10,
        'refused console sign-ins allowed per client address per CONSOLE_SIGN_IN_WINDOW; then 429 with Retry-After until the window ends',
      ),
      windowMs: setting('CONSOLE_SIGN_IN_WINDOW', k.duration(1000, DAY), 5 * 60_000, 'the window of CONSOLE_SIGN_IN_FAILURES'),
    },
    sessionTtlMs: setting('CONSOLE_SESSION_TTL', k.duration(60_000, 7 * DAY), 8 * H, 'console session lifetime'),
    pagesPerSecond: setting(
      'CONSOLE_PAGES_PER_SECOND',
      k.int(0, 10_000),
      50,
      'console requests started per second per process, evenly spaced (the rest wait their turn, 503 past 10 s); 0 = unpaced',
    ),
    checkoutToken: setting('CHECKOUT_TOKEN', k.secret(24), null, "bearer token for the certification checkout's allow-list routes only"),
  },
});

/**
 * The admin endpoint's and console's config: the admin port only with ADMIN_TOKEN (its default moved
 * by PORT_BASE), the audit trail kept at least as long as the replay records it points at.
 */
export function adminConfig(server: Pick<ServerConfig, 'portBase' | 'cacheReplay'>) {
  const replayRetentionMs = server.cacheReplay.replay.retentionMs;
  return adminSettings.transform(({ admin: { childNice: _nice, ...admin }, replayApiKey: _key, console }, ctx) => {
    const auditRetentionMs = console.auditRetentionMs ?? Math.max(400 * DAY, replayRetentionMs);
    if (auditRetentionMs < replayRetentionMs)
      ctx.addIssue({
        code: 'custom',
        message: 'AUDIT_RETENTION must be at least REPLAY_RETENTION: the audit trail outlives the records it points at',
      });
    const port = admin.port ?? DEFAULT_PORTS.ADMIN_PORT + (server.portBase - DEFAULT_PORT_BASE);
    return { admin: { ...admin, port: admin.token ? port : null }, console: { ...console, auditRetentionMs } };
  });
}

export type AdminConfig = z.output<ReturnType<typeof adminConfig>>;

/** What the admin endpoint and console start from: the serving process's config and their own. */
export type SupportConfig = ServerConfig & AdminConfig;
