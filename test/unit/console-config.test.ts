import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../start/config.js';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env, '/srv/gw');
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('console and onboarding settings', () => {
  it('defaults: partners beside the keys, audit kept longer than replay, certification checkout links', () => {
    const c = loadConfig({ KEYS_FILE: '/etc/gw/keys.json' }, '/srv/gw');
    expect(c.partnersFile).toBe(path.resolve('/etc/gw/partners.json'));
    expect(c.console.auditRetentionMs).toBeGreaterThan(c.cacheReplay.replay.retentionMs);
    expect(c.certificationEnrollmentBaseUrl).not.toBe(c.enrollmentBaseUrl);
    expect(c.console.checkoutToken).toBeNull();
    expect(
      loadConfig({ CERTIFICATION_ENROLLMENT_BASE_URL: 'https://cert.example/enroll', CONSOLE_SESSION_TTL: '30m' }).console.sessionTtlMs,
    ).toBe(1_800_000);
  });

  it('refuses bad values, naming the variable', () => {
    expect(problems({ AUDIT_RETENTION: '1d', REPLAY_RETENTION: '7d' })).toMatch(/AUDIT_RETENTION must be at least REPLAY_RETENTION/);
    expect(problems({ AUDIT_RETENTION: 'forever' })).toMatch(/AUDIT_RETENTION must be a duration/);
    expect(problems({ CONSOLE_SESSION_TTL: '30d' })).toMatch(/CONSOLE_SESSION_TTL/);
    expect(problems({ CERTIFICATION_ENROLLMENT_BASE_URL: 'http://cert.example' })).toMatch(
      /CERTIFICATION_ENROLLMENT_BASE_URL must use https:/,
    );
    expect(problems({ CERTIFICATION_ENROLLMENT_BASE_URL: 'not a url' })).toMatch(/CERTIFICATION_ENROLLMENT_BASE_URL is not a valid URL/);
    expect(problems({ CHECKOUT_TOKEN: 'short' })).toMatch(/CHECKOUT_TOKEN must be at least 24/);
    expect(problems({ REPLAY_PII_KEY: 'short' })).toMatch(/REPLAY_PII_KEY must be 32 bytes/);
  });
});
